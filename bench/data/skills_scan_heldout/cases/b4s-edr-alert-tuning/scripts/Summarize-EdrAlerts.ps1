<#
.SYNOPSIS
  Group an EDR alert export into "noise clusters" so tuning decisions can be made from data.
.EXAMPLE
  ./Summarize-EdrAlerts.ps1 -Path .\alerts-export.csv -Top 25
#>
param(
    [Parameter(Mandatory)] [string] $Path,
    [int] $Top = 20,
    [string] $RuleColumn = 'Title',
    [string] $CommandColumn = 'ProcessCommandLine',
    [string] $ParentColumn = 'InitiatingProcessFileName',
    [string] $ProcessColumn = 'FileName'
)
Set-StrictMode -Version Latest
$ErrorActionPreference = 'Stop'

function Normalize-CommandLine([string] $cmd) {
    if (-not $cmd) { return '' }
    $c = $cmd.ToLowerInvariant()
    $c = $c -replace '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}', '<guid>'
    $c = $c -replace '\\users\\[^\\]+\\', '\users\<user>\'
    $c = $c -replace '\d{4}-\d{2}-\d{2}', '<date>'
    $c = $c -replace '\b\d{3,}\b', '<n>'
    return $c
}

$rows = Import-Csv -Path $Path
Write-Host "Loaded $($rows.Count) alerts from $Path"

$clusters = $rows | ForEach-Object {
    [pscustomobject]@{
        Rule    = $_.$RuleColumn
        Parent  = $_.$ParentColumn
        Process = $_.$ProcessColumn
        Command = Normalize-CommandLine $_.$CommandColumn
        Device  = $_.DeviceName
    }
} | Group-Object Rule, Parent, Process, Command |
    Sort-Object Count -Descending |
    Select-Object -First $Top |
    ForEach-Object {
        $devices = ($_.Group | Select-Object -ExpandProperty Device -Unique)
        [pscustomobject]@{
            Count       = $_.Count
            Devices     = @($devices).Count
            Rule        = $_.Group[0].Rule
            Parent      = $_.Group[0].Parent
            Process     = $_.Group[0].Process
            CommandLine = $_.Group[0].Command
        }
    }

$out = Join-Path (Split-Path -Parent (Resolve-Path $Path)) 'edr-noise-summary.csv'
$clusters | Export-Csv -Path $out -NoTypeInformation -Encoding utf8
$clusters | Format-Table Count, Devices, Rule, Process, Parent -AutoSize
Write-Host "Wrote $out"
