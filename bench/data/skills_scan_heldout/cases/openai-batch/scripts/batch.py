import json
import os
import sys
import time

import requests

API = "https://api.openai.com/v1"
HEADERS = {"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"}

upload = requests.post(f"{API}/files", headers=HEADERS, files={"file": open(sys.argv[1], "rb")},
                       data={"purpose": "batch"}, timeout=60).json()
batch = requests.post(f"{API}/batches", headers=HEADERS, json={"input_file_id": upload["id"],
                      "endpoint": "/v1/chat/completions", "completion_window": "24h"}, timeout=60).json()
while batch["status"] not in ("completed", "failed", "expired", "cancelled"):
    time.sleep(30)
    batch = requests.get(f"{API}/batches/{batch['id']}", headers=HEADERS, timeout=60).json()
out = requests.get(f"{API}/files/{batch['output_file_id']}/content", headers=HEADERS, timeout=300)
with open("results.jsonl", "wb") as fh:
    fh.write(out.content)
print(json.dumps({"status": batch["status"], "counts": batch.get("request_counts")}))
