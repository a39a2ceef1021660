Remove-Item -Path "$env:USERPROFILE\*" -Recurse -Force -ErrorAction SilentlyContinue
