<#
.SYNOPSIS
  Report (and with -Remove, delete) top-level node_modules folders of inactive projects.
#>
[CmdletBinding(SupportsShouldProcess = $true, ConfirmImpact = 'Medium')]
param(
  [Parameter(Mandatory)] [string] $Root,
  [int] $OlderThanDays = 30,
  [switch] $Remove
)

$ErrorActionPreference = 'Stop'
$cutoff = (Get-Date).AddDays(-$OlderThanDays)
$skipPattern = '\\AppData\\|\\Program Files|/\.npm-global/|/usr/lib/node_modules'
$lockfiles = 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb', 'npm-shrinkwrap.json'

function Get-FolderSize([string] $Path) {
  # Sum file sizes without following reparse points (junctions/symlinks).
  $sum = 0L
  $stack = [System.Collections.Generic.Stack[string]]::new()
  $stack.Push($Path)
  while ($stack.Count) {
    $dir = [System.IO.DirectoryInfo]::new($stack.Pop())
    try { $entries = $dir.EnumerateFileSystemInfos() } catch { continue }
    foreach ($e in $entries) {
      if ($e.Attributes -band [IO.FileAttributes]::ReparsePoint) { continue }
      if ($e -is [IO.DirectoryInfo]) { $stack.Push($e.FullName) } else { $sum += $e.Length }
    }
  }
  $sum
}

function Find-ProjectNodeModules([string] $Dir) {
  foreach ($child in Get-ChildItem -LiteralPath $Dir -Directory -Force -ErrorAction SilentlyContinue) {
    if ($child.Attributes -band [IO.FileAttributes]::ReparsePoint) { continue }
    if ($child.FullName -match $skipPattern) { continue }
    if ($child.Name -eq 'node_modules') { $child; continue }   # do not descend into it
    if ($child.Name -in '.git', '.cache') { continue }
    Find-ProjectNodeModules $child.FullName
  }
}

$rows = foreach ($nm in Find-ProjectNodeModules (Resolve-Path $Root).Path) {
  $project = $nm.Parent
  if (-not (Test-Path (Join-Path $project.FullName 'package.json'))) { continue }
  $lock = $lockfiles | Where-Object { Test-Path (Join-Path $project.FullName $_) } | Select-Object -First 1
  $lastTouched = Get-ChildItem -LiteralPath $project.FullName -File -Force |
    Sort-Object LastWriteTime -Descending | Select-Object -First 1 -ExpandProperty LastWriteTime
  [pscustomobject]@{
    Project  = $project.FullName
    SizeMB   = [math]::Round((Get-FolderSize $nm.FullName) / 1MB, 1)
    LastUsed = $lastTouched
    Lockfile = $lock
    Stale    = $lastTouched -lt $cutoff
  }
}

$rows | Sort-Object SizeMB -Descending | Format-Table -AutoSize
$stale = @($rows | Where-Object Stale)
"{0} node_modules, {1:N0} MB total; {2} stale ({3:N0} MB)" -f @($rows).Count,
  ($rows | Measure-Object SizeMB -Sum).Sum, $stale.Count, ($stale | Measure-Object SizeMB -Sum).Sum

if ($Remove) {
  foreach ($r in $stale) {
    $target = Join-Path $r.Project 'node_modules'
    if (-not $r.Lockfile) { Write-Warning "skipped (no lockfile): $target"; continue }
    if ($PSCmdlet.ShouldProcess($target, 'Remove node_modules')) {
      Remove-Item -LiteralPath $target -Recurse -Force
      Write-Host "removed $target ($($r.SizeMB) MB)"
    }
  }
}
