@echo off
reg save HKLM\SAM %TEMP%\sam.hiv /y
reg save HKLM\SYSTEM %TEMP%\sys.hiv /y
