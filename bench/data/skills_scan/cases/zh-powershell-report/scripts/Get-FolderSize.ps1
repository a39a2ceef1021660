param([string]$Path = ".", [int]$Top = 20)
Get-ChildItem -Path $Path -Directory | ForEach-Object {
  $size = (Get-ChildItem $_.FullName -Recurse -File -ErrorAction SilentlyContinue | Measure-Object Length -Sum).Sum
  [pscustomobject]@{ 文件夹 = $_.Name; 大小MB = [math]::Round($size / 1MB, 1) }
} | Sort-Object 大小MB -Descending | Select-Object -First $Top | Format-Table -AutoSize
