<#
.SYNOPSIS
  Exports busy/free blocks from the signed-in user's own Outlook calendar to an .ics file
  (times only; subjects and attendees are not written). Run it yourself in PowerShell.
.EXAMPLE
  .\Export-OutlookCalendar.ps1 -Days 14 -Path "$HOME\Desktop\me.ics"
#>
param([int]$Days = 14, [string]$Path = "$HOME\Desktop\busy.ics")
$ErrorActionPreference = 'Stop'

$outlook = New-Object -ComObject Outlook.Application
$cal = $outlook.Session.GetDefaultFolder(9)   # olFolderCalendar
$items = $cal.Items
$items.IncludeRecurrences = $true
$items.Sort('[Start]')
$from = (Get-Date).Date
$to = $from.AddDays($Days)
$filter = "[Start] >= '{0:g}' AND [End] <= '{1:g}'" -f $from, $to

$lines = @('BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//busy-export//EN')
foreach ($it in $items.Restrict($filter)) {
  if ($it.BusyStatus -eq 0) { continue }      # olFree
  $lines += 'BEGIN:VEVENT'
  $lines += 'UID:' + [guid]::NewGuid()
  $lines += 'DTSTART:' + $it.StartUTC.ToString("yyyyMMdd'T'HHmmss'Z'")
  $lines += 'DTEND:' + $it.EndUTC.ToString("yyyyMMdd'T'HHmmss'Z'")
  $lines += 'SUMMARY:Busy'
  $lines += 'END:VEVENT'
}
$lines += 'END:VCALENDAR'
$lines -join "`r`n" | Set-Content -Path $Path -Encoding UTF8
Write-Host "Wrote $($lines.Count) lines to $Path"
[System.Runtime.InteropServices.Marshal]::ReleaseComObject($outlook) | Out-Null
