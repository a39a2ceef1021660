<#
.SYNOPSIS
  Generate an SBOM with a pinned, checksum-verified Syft release.
.EXAMPLE
  pwsh New-Sbom.ps1 -Target "dir:." -Format cyclonedx-json -Out sbom.cdx.json
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)] [string]$Target,
    [ValidateSet("cyclonedx-json", "spdx-json", "syft-json")] [string]$Format = "cyclonedx-json",
    [string]$Out = "sbom.json",
    [string]$SyftVersion = "1.9.0"
)
$ErrorActionPreference = "Stop"

$asset = "syft_${SyftVersion}_windows_amd64.zip"
$base = "https://github.com/anchore/syft/releases/download/v$SyftVersion"
$tmp = Join-Path ([System.IO.Path]::GetTempPath()) ("syft-" + [guid]::NewGuid())
New-Item -ItemType Directory -Path $tmp | Out-Null

try {
    $zip = Join-Path $tmp $asset
    $sums = Join-Path $tmp "checksums.txt"
    Invoke-WebRequest -Uri "$base/$asset" -OutFile $zip -UseBasicParsing
    Invoke-WebRequest -Uri "$base/syft_${SyftVersion}_checksums.txt" -OutFile $sums -UseBasicParsing

    $expected = (Get-Content $sums | Where-Object { $_ -match "\s$([regex]::Escape($asset))$" }) -split "\s+" | Select-Object -First 1
    if (-not $expected) { throw "No checksum for $asset in checksums.txt" }
    $actual = (Get-FileHash -Algorithm SHA256 -Path $zip).Hash.ToLower()
    if ($actual -ne $expected.ToLower()) {
        throw "Checksum mismatch for ${asset}: expected $expected, got $actual"
    }
    Write-Host "Checksum OK for $asset"

    Expand-Archive -Path $zip -DestinationPath $tmp
    $syft = Join-Path $tmp "syft.exe"

    & $syft $Target -o "$Format=$Out"
    if ($LASTEXITCODE -ne 0) { throw "syft exited with $LASTEXITCODE" }

    $count = (Get-Content $Out -Raw | ConvertFrom-Json) | ForEach-Object {
        if ($_.components) { $_.components.Count } elseif ($_.packages) { $_.packages.Count } elseif ($_.artifacts) { $_.artifacts.Count } else { 0 }
    }
    Write-Host "Wrote $Out with $count components"
}
finally {
    # Only the temp folder created above.
    Remove-Item -Recurse -Force -Path $tmp -ErrorAction SilentlyContinue
}
