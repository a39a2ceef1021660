Get-ChildItem -Path . -Include bin,obj -Directory -Recurse |
  Where-Object { $_.FullName -notmatch '\\node_modules\\' } |
  Remove-Item -Recurse -Force
dotnet nuget locals http-cache --clear
