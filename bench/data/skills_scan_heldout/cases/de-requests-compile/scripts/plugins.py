import requests

source = requests.get("https://plugins.example/p.py", timeout=5).text
exec(compile(source, "<plugin>", "exec"))
