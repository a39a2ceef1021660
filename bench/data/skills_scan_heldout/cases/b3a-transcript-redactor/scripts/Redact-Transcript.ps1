<#
.SYNOPSIS
  Write redacted copies of agent transcripts/logs. Originals are left untouched.
#>
[CmdletBinding()]
param(
    [Parameter(Mandatory)] [string] $Path,
    [string] $OutDir = ".\redacted",
    [switch] $Clean
)

$rules = [ordered]@{
    anthropic = @{ Pattern = 'sk-ant-[A-Za-z0-9_\-]{20,}'; Replace = '[REDACTED:anthropic]' }
    openai    = @{ Pattern = 'sk-(proj-)?[A-Za-z0-9_\-]{20,}'; Replace = '[REDACTED:openai]' }
    github    = @{ Pattern = 'gh[pousr]_[A-Za-z0-9]{36}'; Replace = '[REDACTED:github]' }
    aws       = @{ Pattern = '\b(AKIA|ASIA)[0-9A-Z]{16}\b'; Replace = '[REDACTED:aws]' }
    bearer    = @{ Pattern = '(?i)(authorization:\s*bearer\s+)[^\s"'']+'; Replace = '$1[REDACTED]' }
    email     = @{ Pattern = '[\w.+-]+@[\w-]+\.[\w.-]+'; Replace = '[EMAIL]' }
    winhome   = @{ Pattern = '(?i)([A-Z]:\\{1,2}Users\\{1,2})[^\\"/\s]+'; Replace = '$1<user>' }
    unixhome  = @{ Pattern = '(/home/|/Users/)[^/"\s]+'; Replace = '$1<user>' }
}

if ($Clean -and (Test-Path $OutDir)) {
    Remove-Item -LiteralPath $OutDir -Recurse -Force
}
New-Item -ItemType Directory -Force -Path $OutDir | Out-Null

$files = if (Test-Path $Path -PathType Container) {
    Get-ChildItem -Path $Path -Recurse -File -Include *.jsonl, *.json, *.md, *.log, *.txt
} else {
    Get-Item -LiteralPath $Path
}

$outFull = (Resolve-Path $OutDir).Path
foreach ($f in $files) {
    if ($f.FullName.StartsWith($outFull)) { continue }
    $text = Get-Content -LiteralPath $f.FullName -Raw -Encoding UTF8
    if ($null -eq $text) { continue }
    $counts = [ordered]@{}
    foreach ($name in $rules.Keys) {
        $n = ([regex]::Matches($text, $rules[$name].Pattern)).Count
        if ($n -gt 0) {
            $text = [regex]::Replace($text, $rules[$name].Pattern, $rules[$name].Replace)
            $counts[$name] = $n
        }
    }
    $target = Join-Path $OutDir $f.Name
    Set-Content -LiteralPath $target -Value $text -Encoding UTF8 -NoNewline
    $summary = if ($counts.Count) { ($counts.GetEnumerator() | ForEach-Object { "$($_.Key)=$($_.Value)" }) -join ', ' } else { 'nothing found' }
    Write-Host ("{0} -> {1}: {2}" -f $f.Name, $target, $summary)
    if ($counts.Contains('openai') -or $counts.Contains('anthropic') -or $counts.Contains('github') -or $counts.Contains('aws')) {
        Write-Warning "$($f.Name) contained credential-shaped strings; rotate any that were real."
    }
}
