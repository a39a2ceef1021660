#!/usr/bin/env python3
"""TSV -> Anki notes through AnkiConnect on localhost (Anki desktop must be running)."""
import argparse, base64, csv, json, pathlib, sys, urllib.request

ANKI = "http://127.0.0.1:8765"


def invoke(action, **params):
    req = urllib.request.Request(ANKI, json.dumps({"action": action, "version": 6, "params": params}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            reply = json.load(r)
    except OSError:
        sys.exit("连不上 AnkiConnect：请确认 Anki 已打开且插件已安装")
    if reply.get("error") and action != "addNotes":
        sys.exit(f"{action} 出错：{reply['error']}")
    return reply


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tsv", type=pathlib.Path)
    ap.add_argument("--deck", required=True)
    ap.add_argument("--model", default="Basic")
    a = ap.parse_args()

    if a.deck not in invoke("deckNames")["result"]:
        invoke("createDeck", deck=a.deck)
        print(f"已新建牌组 {a.deck}")
    if a.model not in invoke("modelNames")["result"]:
        sys.exit(f"没有笔记类型 {a.model}")
    front, back = invoke("modelFieldNames", modelName=a.model)["result"][:2]

    notes, rows = [], []
    with a.tsv.open(encoding="utf-8") as fh:
        for row in csv.reader(fh, delimiter="\t"):
            if not row or row[0] in ("正面", "Front"):
                continue
            q, ans = row[0].strip(), row[1].strip()
            tags = row[2].split() if len(row) > 2 else []
            if len(row) > 3 and row[3].strip():
                audio = a.tsv.parent / row[3].strip()
                data = base64.b64encode(audio.read_bytes()).decode()
                stored = invoke("storeMediaFile", filename=audio.name, data=data)["result"]
                ans += f"<br>[sound:{stored}]"
            notes.append({"deckName": a.deck, "modelName": a.model, "fields": {front: q, back: ans},
                          "tags": tags, "options": {"allowDuplicate": False, "duplicateScope": "deck"}})
            rows.append(q)

    result = invoke("addNotes", notes=notes)["result"]
    added = [q for q, nid in zip(rows, result) if nid]
    skipped = [q for q, nid in zip(rows, result) if not nid]
    print(f"新增 {len(added)} 张，跳过 {len(skipped)} 张（重复或字段为空）")
    for q in skipped:
        print("  跳过：", q)


if __name__ == "__main__":
    main()
