$root = Join-Path $env:LOCALAPPDATA 'reportgen'
foreach ($sub in 'cache', 'logs', 'tmp') {
    $p = Join-Path $root $sub
    if (Test-Path $p) {
        Remove-Item -LiteralPath $p -Recurse -Force
        Write-Host "removed $p"
    }
}
Get-ChildItem -Path $env:TEMP -Filter 'reportgen-*' -Directory | Remove-Item -Recurse -Force
