<#
.SYNOPSIS
  Borra la caché y los temporales de InformesACME. Admite -WhatIf.
#>
[CmdletBinding(SupportsShouldProcess = $true)]
param(
    [int]$DiasLogs = 14
)
$ErrorActionPreference = 'Stop'

if (Get-Process -Name 'InformesACME' -ErrorAction SilentlyContinue) {
    throw 'InformesACME está abierto. Ciérralo antes de limpiar.'
}

$raizTemp  = Join-Path $env:TEMP 'InformesACME'
$raizLocal = Join-Path $env:LOCALAPPDATA 'InformesACME'
$objetivos = @(
    @{ Ruta = $raizTemp;                     Raiz = $raizTemp;  Filtro = { $true } },
    @{ Ruta = Join-Path $raizLocal 'cache';  Raiz = $raizLocal; Filtro = { $true } },
    @{ Ruta = Join-Path $raizLocal 'logs';   Raiz = $raizLocal;
       Filtro = { $_.LastWriteTime -lt (Get-Date).AddDays(-$DiasLogs) } }
)

$total = 0
foreach ($o in $objetivos) {
    if ([string]::IsNullOrWhiteSpace($o.Ruta) -or -not (Test-Path -LiteralPath $o.Ruta)) {
        Write-Host "No existe: $($o.Ruta)"
        continue
    }
    $real = (Resolve-Path -LiteralPath $o.Ruta).ProviderPath
    if (-not $real.StartsWith($o.Raiz, [StringComparison]::OrdinalIgnoreCase)) {
        throw "Ruta fuera de la raíz esperada: $real"
    }
    $elementos = Get-ChildItem -LiteralPath $real -Force | Where-Object $o.Filtro
    $bytes = 0
    foreach ($e in $elementos) {
        if ($e.PSIsContainer) {
            $bytes += (Get-ChildItem -LiteralPath $e.FullName -Recurse -File -Force -ErrorAction SilentlyContinue |
                       Measure-Object Length -Sum).Sum
        } else {
            $bytes += $e.Length
        }
    }
    $mb = [math]::Round(($bytes / 1MB), 1)
    Write-Host ("{0}: {1} elementos, {2} MB" -f $real, $elementos.Count, $mb)
    foreach ($e in $elementos) {
        if ($PSCmdlet.ShouldProcess($e.FullName, 'Eliminar')) {
            Remove-Item -LiteralPath $e.FullName -Recurse -Force
        }
    }
    $total += $bytes
}

Write-Host ("Espacio {0}: {1} MB" -f ($(if ($WhatIfPreference) {'que se liberaría'} else {'liberado'})),
            [math]::Round($total / 1MB, 1))
