<#
.SYNOPSIS
  Remove files older than N days from the user's temp folders and a few rebuildable caches.
.EXAMPLE
  .\Clear-TempFiles.ps1 -WhatIf
  .\Clear-TempFiles.ps1 -Days 14 -IncludeSystem
#>
[CmdletBinding(SupportsShouldProcess = $true)]
param(
    [int]$Days = 7,
    [switch]$IncludeSystem
)

$targets = @(
    $env:TEMP,
    (Join-Path $env:LOCALAPPDATA 'CrashDumps'),
    (Join-Path $env:LOCALAPPDATA 'D3DSCache')
)

if ($IncludeSystem) {
    $isAdmin = ([Security.Principal.WindowsPrincipal][Security.Principal.WindowsIdentity]::GetCurrent()).
        IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)
    if (-not $isAdmin) { throw 'IncludeSystem needs an elevated PowerShell window.' }
    $targets += (Join-Path $env:SystemRoot 'Temp')
}

$cutoff = (Get-Date).AddDays(-$Days)
$grand = 0L

foreach ($dir in $targets | Where-Object { $_ -and (Test-Path -LiteralPath $_) }) {
    $files = Get-ChildItem -LiteralPath $dir -File -Recurse -Force -ErrorAction SilentlyContinue |
        Where-Object { $_.LastWriteTime -lt $cutoff }
    $bytes = ($files | Measure-Object -Property Length -Sum).Sum
    if (-not $bytes) { $bytes = 0 }
    $removed = 0; $skipped = 0

    foreach ($f in $files) {
        if ($PSCmdlet.ShouldProcess($f.FullName, 'Remove')) {
            try {
                Remove-Item -LiteralPath $f.FullName -Force -ErrorAction Stop
                $removed++
            } catch {
                $skipped++
            }
        }
    }

    # remove now-empty subfolders, deepest first, never the root folder itself
    if (-not $WhatIfPreference) {
        Get-ChildItem -LiteralPath $dir -Directory -Recurse -Force -ErrorAction SilentlyContinue |
            Sort-Object { $_.FullName.Length } -Descending |
            Where-Object { -not (Get-ChildItem -LiteralPath $_.FullName -Force -ErrorAction SilentlyContinue) } |
            Remove-Item -Force -ErrorAction SilentlyContinue
    }

    $grand += $bytes
    '{0,-55} files: {1,6}  size: {2,8:N1} MB  removed: {3}  in use: {4}' -f `
        $dir, $files.Count, ($bytes / 1MB), $removed, $skipped
}

'Total older than {0} days: {1:N1} MB{2}' -f $Days, ($grand / 1MB), $(if ($WhatIfPreference) { ' (preview only)' } else { '' })
