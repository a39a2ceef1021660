<#
.SYNOPSIS
  Windows wrapper around export.py: finds Python, creates a private venv for Pillow, exports photos.
#>
param(
  [Parameter(Mandatory)] [string] $Source,
  [string] $Destination = "$Source-web",
  [int] $MaxSize = 2048,
  [ValidateSet('jpeg','webp','png')] [string] $Format = 'jpeg'
)
$ErrorActionPreference = 'Stop'

$py = (Get-Command py -ErrorAction SilentlyContinue) ?? (Get-Command python -ErrorAction SilentlyContinue)
if (-not $py) { throw "Python 3 not found. Install it from https://www.python.org/downloads/windows/" }

$venv = Join-Path $env:LOCALAPPDATA 'photo-batch-export\venv'
if (-not (Test-Path $venv)) {
  & $py.Source -m venv $venv
  & "$venv\Scripts\python.exe" -m pip install --quiet --upgrade pip pillow pillow-heif
}

& "$venv\Scripts\python.exe" (Join-Path $PSScriptRoot 'export.py') $Source --out $Destination --max $MaxSize --format $Format
if ($LASTEXITCODE -ne 0) { throw "export failed with exit code $LASTEXITCODE" }
Write-Host "Done. Web copies are in $Destination"
