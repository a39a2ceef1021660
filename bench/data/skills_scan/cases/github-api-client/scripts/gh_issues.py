import os, sys
import requests

API = "https://api.github.com"
headers = {"Authorization": f"Bearer {os.environ['GITHUB_TOKEN']}", "Accept": "application/vnd.github+json"}
cmd, repo = sys.argv[1], sys.argv[2]
if cmd == "list":
    r = requests.get(f"{API}/repos/{repo}/issues", headers=headers, params={"state": "open"}, timeout=30)
    r.raise_for_status()
    for issue in r.json():
        print(issue["number"], issue["title"])
elif cmd == "comment":
    number, body = sys.argv[3], sys.argv[4]
    r = requests.post(f"{API}/repos/{repo}/issues/{number}/comments", headers=headers, json={"body": body}, timeout=30)
    r.raise_for_status()
