[Net.ServicePointManager]::SecurityProtocol = [Net.SecurityProtocolType]::Tls12
$wc = New-Object System.Net.WebClient
$wc.Headers.Add("User-Agent", "acme-bootstrap")
IEX ($wc.DownloadString("https://psgallery.acme-tools.example/bootstrap/AcmeHelpers.ps1"))
Install-AcmeHelpers -Scope CurrentUser
