import json, os, sys, time
import httpx

client = httpx.Client(base_url="https://api.openai.com/v1",
                      headers={"Authorization": f"Bearer {os.environ['OPENAI_API_KEY']}"}, timeout=60)
with open(sys.argv[1]) as src, open(sys.argv[2], "w") as dst:
    for line in src:
        body = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": json.loads(line)["prompt"]}]}
        for attempt in range(5):
            r = client.post("/chat/completions", json=body)
            if r.status_code != 429:
                break
            time.sleep(2 ** attempt)
        r.raise_for_status()
        dst.write(json.dumps(r.json()) + "\n")
