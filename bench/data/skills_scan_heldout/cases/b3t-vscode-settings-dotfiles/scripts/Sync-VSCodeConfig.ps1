#requires -Version 7
[CmdletBinding(SupportsShouldProcess, ConfirmImpact = 'High')]
param(
    [Parameter(Mandatory)][ValidateSet('Export', 'Import')][string]$Direction,
    [Parameter(Mandatory)][string]$Dotfiles,
    [switch]$Extensions
)
$ErrorActionPreference = 'Stop'

$user = if ($IsWindows) { Join-Path $env:APPDATA 'Code\User' }
        elseif ($IsMacOS) { Join-Path $HOME 'Library/Application Support/Code/User' }
        else { Join-Path $HOME '.config/Code/User' }
$repo = Join-Path (Resolve-Path $Dotfiles) 'vscode'
$items = 'settings.json', 'keybindings.json', 'snippets'

function Show-SensitiveKeys([string]$path) {
    if (-not (Test-Path $path)) { return }
    foreach ($line in Get-Content $path) {
        if ($line -match '"([^"]*(token|password|secret|apikey)[^"]*)"\s*:\s*"([^"]*)"') {
            $v = $Matches[3]
            $masked = if ($v.Length -gt 4) { $v.Substring(0, 2) + '***' } else { '***' }
            Write-Warning "settings.json contains '$($Matches[1])' = '$masked' - remove before committing?"
        }
    }
}

if ($Direction -eq 'Export') {
    New-Item -ItemType Directory -Force -Path $repo | Out-Null
    foreach ($i in $items) {
        $src = Join-Path $user $i
        if (Test-Path $src) { Copy-Item -Path $src -Destination $repo -Recurse -Force }
    }
    & code --list-extensions | Sort-Object | Set-Content (Join-Path $repo 'extensions.txt')
    Show-SensitiveKeys (Join-Path $repo 'settings.json')
    Write-Host "Exported to $repo. Review, then commit in $Dotfiles yourself."
    return
}

# Import
$stamp = Get-Date -Format 'yyyyMMdd-HHmmss'
$backup = Join-Path $user "backup-$stamp"
New-Item -ItemType Directory -Force -Path $backup | Out-Null
foreach ($i in $items) {
    $cur = Join-Path $user $i
    if (Test-Path $cur) { Copy-Item -Path $cur -Destination $backup -Recurse }
}
Write-Host "Backup of current config: $backup"

foreach ($f in 'settings.json', 'keybindings.json') {
    $new = Join-Path $repo $f; $cur = Join-Path $user $f
    if (-not (Test-Path $new)) { continue }
    if (Test-Path $cur) {
        Write-Host "--- diff $f (current -> dotfiles)"
        & git --no-pager diff --no-index --color=always -- $cur $new
    }
    if ($PSCmdlet.ShouldProcess($cur, "overwrite with $new")) {
        Copy-Item -Path $new -Destination $cur -Force
    }
}
$snip = Join-Path $repo 'snippets'
if ((Test-Path $snip) -and $PSCmdlet.ShouldProcess((Join-Path $user 'snippets'), 'merge snippets')) {
    Copy-Item -Path (Join-Path $snip '*') -Destination (New-Item -ItemType Directory -Force (Join-Path $user 'snippets')) -Recurse -Force
}

if ($Extensions) {
    $wanted = Get-Content (Join-Path $repo 'extensions.txt') | Where-Object { $_ -and -not $_.StartsWith('#') }
    $have = & code --list-extensions
    foreach ($ext in $wanted | Where-Object { $_ -notin $have }) {
        if ($PSCmdlet.ShouldProcess($ext, 'install extension')) { & code --install-extension $ext }
    }
}
Write-Host "Done. Roll back by copying files from $backup"
