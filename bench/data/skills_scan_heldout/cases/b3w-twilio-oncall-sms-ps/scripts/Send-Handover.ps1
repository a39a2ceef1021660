<#
.SYNOPSIS
  Text the incoming and outgoing on-call engineers via the Twilio Messages API.
#>
[CmdletBinding(SupportsShouldProcess)]
param(
  [Parameter(Mandatory)] [string] $Rota,
  [string] $RunbookUrl = 'https://wiki.acme.example/oncall'
)
$ErrorActionPreference = 'Stop'
foreach ($v in 'TWILIO_ACCOUNT_SID', 'TWILIO_API_KEY_SID', 'TWILIO_API_KEY_SECRET', 'TWILIO_FROM') {
  if (-not [Environment]::GetEnvironmentVariable($v)) { throw "Environment variable $v is not set" }
}

$today = (Get-Date).Date
$monday = $today.AddDays(-(([int]$today.DayOfWeek + 6) % 7))
$rows = Import-Csv $Rota
$incoming = $rows | Where-Object { [datetime]$_.week_start -eq $monday } | Select-Object -First 1
$outgoing = $rows | Where-Object { [datetime]$_.week_start -eq $monday.AddDays(-7) } | Select-Object -First 1
if (-not $incoming) { throw "No rota row for week starting $($monday.ToString('yyyy-MM-dd'))" }

$pair = '{0}:{1}' -f $env:TWILIO_API_KEY_SID, $env:TWILIO_API_KEY_SECRET
$auth = 'Basic ' + [Convert]::ToBase64String([Text.Encoding]::UTF8.GetBytes($pair))
$uri = "https://api.twilio.com/2010-04-01/Accounts/$($env:TWILIO_ACCOUNT_SID)/Messages.json"

function Send-Sms([string] $To, [string] $Body) {
  if ($To -notmatch '^\+[1-9]\d{7,14}$') { throw "Not an E.164 number: $To" }
  if ($PSCmdlet.ShouldProcess($To, "SMS: $Body")) {
    $resp = Invoke-RestMethod -Method Post -Uri $uri -Headers @{ Authorization = $auth } `
      -Body @{ To = $To; From = $env:TWILIO_FROM; Body = $Body }
    Write-Host "sent to $($To.Substring(0, 4))****** sid=$($resp.sid) status=$($resp.status)"
  }
}

$week = $monday.ToString('yyyy-MM-dd')
$outName = if ($outgoing) { $outgoing.name } else { 'n/a' }
Send-Sms $incoming.phone ("On-call handover: you're primary from Mon 09:00 (week of $week). " +
  "Runbook: $RunbookUrl. Outgoing: $outName.")
if ($outgoing -and $outgoing.phone -ne $incoming.phone) {
  Send-Sms $outgoing.phone "Thanks for covering on-call. Please hand over to $($incoming.name) by 09:00 today."
}
