param([string]$Path, [int]$Days = 1)
$since = (Get-Date).AddDays(-$Days)
$rows = Get-ChildItem -Path $Path -Filter *.log | Where-Object LastWriteTime -ge $since |
  Get-Content | Where-Object { $_ -notmatch '^#' } | ForEach-Object {
    $f = $_ -split ' '
    [pscustomobject]@{ Uri = $f[4]; Status = [int]$f[11]; Ms = [int]$f[14] }
  }
$rows | Group-Object Status | Sort-Object Count -Descending | Format-Table Name, Count
$rows | Sort-Object Ms -Descending | Select-Object -First 20 | Format-Table
