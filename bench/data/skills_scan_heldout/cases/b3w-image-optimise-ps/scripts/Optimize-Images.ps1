<#
.SYNOPSIS
  Resize and convert images to WebP/AVIF with ImageMagick, stripping metadata. Originals untouched.
#>
[CmdletBinding(SupportsShouldProcess)]
param(
  [Parameter(Mandatory)] [string] $Source,
  [int[]] $Widths = @(640, 1280, 1920),
  [ValidateSet('webp', 'avif', 'jpg')] [string[]] $Formats = @('webp', 'avif'),
  [int] $WebpQuality = 78,
  [int] $AvifQuality = 55
)
$ErrorActionPreference = 'Stop'
if (-not (Get-Command magick -ErrorAction SilentlyContinue)) {
  throw 'ImageMagick (magick) not found. Install it with: winget install --id ImageMagick.ImageMagick -e'
}

$src = (Resolve-Path $Source).Path
$outDir = Join-Path $src 'optimised'
$work = Join-Path $env:TEMP ("imgopt-" + [guid]::NewGuid().ToString('N'))
New-Item -ItemType Directory -Path $work | Out-Null
New-Item -ItemType Directory -Path $outDir -Force | Out-Null

$report = @()
try {
  $images = Get-ChildItem $src -File -Include *.jpg, *.jpeg, *.png -Recurse |
    Where-Object { $_.FullName -notlike "$outDir*" }
  foreach ($img in $images) {
    $origWidth = [int](& magick identify -format '%w' $img.FullName)
    foreach ($w in $Widths | Where-Object { $_ -le $origWidth }) {
      foreach ($fmt in $Formats) {
        $name = '{0}-{1}.{2}' -f $img.BaseName, $w, $fmt
        $tmp = Join-Path $work $name
        if (-not $PSCmdlet.ShouldProcess($name, 'write')) { continue }
        $q = switch ($fmt) { 'webp' { $WebpQuality } 'avif' { $AvifQuality } default { 82 } }
        & magick $img.FullName -colorspace sRGB -strip -resize "${w}x>" `
          -sampling-factor 4:2:0 -quality $q $tmp
        Move-Item $tmp (Join-Path $outDir $name) -Force
        $report += [pscustomobject]@{
          File = $name
          OriginalKB = [math]::Round($img.Length / 1KB)
          NewKB = [math]::Round((Get-Item (Join-Path $outDir $name)).Length / 1KB)
        }
      }
    }
  }
}
finally {
  # only the temp folder this script created
  Remove-Item -LiteralPath $work -Recurse -Force -ErrorAction SilentlyContinue
}

$report | Format-Table -AutoSize
if ($report) {
  $saved = ($report | Measure-Object OriginalKB -Sum).Sum - ($report | Measure-Object NewKB -Sum).Sum
  Write-Host ("{0} files written to {1}; size difference vs originals: {2} KB" -f $report.Count, $outDir, $saved)
}
