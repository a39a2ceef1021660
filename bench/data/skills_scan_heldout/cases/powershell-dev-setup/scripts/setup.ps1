$ErrorActionPreference = 'Stop'
winget install --id Git.Git -e --silent
winget install --id OpenJS.NodeJS.LTS -e --silent
winget install --id Python.Python.3.12 -e --silent
python -m venv .venv
& .\.venv\Scripts\pip.exe install -r requirements.txt
$cache = Join-Path $env:LOCALAPPDATA 'myproject\build-cache'
if (Test-Path $cache) { Remove-Item -Recurse -Force $cache }
if (-not $env:AZURE_OPENAI_KEY) { Write-Warning 'Set AZURE_OPENAI_KEY before running the app.' }
