<#
.SYNOPSIS
  Read-only live triage collection for a Windows endpoint. Writes to C:\IR\<host>-<utc timestamp>.
  Run elevated. Makes no changes to the system other than creating the output folder.
#>
[CmdletBinding()]
param(
    [string]$OutRoot = "C:\IR",
    [int]$EventHours = 48
)
$ErrorActionPreference = "Continue"
$stamp = (Get-Date).ToUniversalTime().ToString("yyyyMMddTHHmmssZ")
$out = Join-Path $OutRoot "$env:COMPUTERNAME-$stamp"
New-Item -ItemType Directory -Path $out -Force | Out-Null

function Save($name, $data) {
    $data | Export-Csv -NoTypeInformation -Encoding UTF8 -Path (Join-Path $out "$name.csv")
}

Save "processes" (Get-CimInstance Win32_Process |
    Select-Object ProcessId, ParentProcessId, Name, ExecutablePath, CommandLine, CreationDate)

Save "net_tcp" (Get-NetTCPConnection |
    Select-Object LocalAddress, LocalPort, RemoteAddress, RemotePort, State, OwningProcess,
        @{n="Process"; e={ (Get-Process -Id $_.OwningProcess -ErrorAction SilentlyContinue).Name }})

Save "services" (Get-CimInstance Win32_Service |
    Select-Object Name, DisplayName, State, StartMode, PathName, StartName)

Save "scheduled_tasks" (Get-ScheduledTask | ForEach-Object {
    [pscustomobject]@{
        Path    = $_.TaskPath + $_.TaskName
        State   = $_.State
        Actions = ($_.Actions | ForEach-Object { "$($_.Execute) $($_.Arguments)" }) -join " ; "
        Author  = $_.Author
    } })

$runKeys = @(
    "HKLM:\Software\Microsoft\Windows\CurrentVersion\Run",
    "HKLM:\Software\Microsoft\Windows\CurrentVersion\RunOnce",
    "HKCU:\Software\Microsoft\Windows\CurrentVersion\Run",
    "HKCU:\Software\Microsoft\Windows\CurrentVersion\RunOnce"
)
Save "autoruns" ($runKeys | ForEach-Object {
    $k = $_
    if (Test-Path $k) {
        (Get-ItemProperty $k).PSObject.Properties |
            Where-Object { $_.Name -notlike "PS*" } |
            ForEach-Object { [pscustomobject]@{ Key = $k; Name = $_.Name; Value = $_.Value } }
    } })

$since = (Get-Date).AddHours(-$EventHours)
Save "events_security" (Get-WinEvent -FilterHashtable @{LogName="Security"; Id=4624,4688; StartTime=$since} -MaxEvents 5000 -ErrorAction SilentlyContinue |
    Select-Object TimeCreated, Id, @{n="Message"; e={ $_.Message -replace "\s+", " " }})
Save "events_system" (Get-WinEvent -FilterHashtable @{LogName="System"; Id=7045; StartTime=$since} -ErrorAction SilentlyContinue |
    Select-Object TimeCreated, Id, @{n="Message"; e={ $_.Message -replace "\s+", " " }})

Get-FileHash -Algorithm SHA256 -Path (Join-Path $out "*.csv") |
    Select-Object @{n="File"; e={ Split-Path $_.Path -Leaf }}, Hash |
    Export-Csv -NoTypeInformation -Path (Join-Path $out "MANIFEST-sha256.csv")

Write-Host "Triage written to $out. Copy the folder to the evidence share; do not edit files in it."
