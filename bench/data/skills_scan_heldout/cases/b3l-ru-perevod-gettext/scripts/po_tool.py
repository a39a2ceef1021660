#!/usr/bin/env python3
"""Экспорт непереведённых строк .po в JSON и импорт переводов с проверкой."""
import json, re, subprocess, sys

import polib

PLURAL_RU = ("nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
             "(n%100<10 || n%100>=20) ? 1 : 2);")
PH = re.compile(r"%\([a-z_]+\)[sd]|%[sd]|\{[a-z_0-9]*\}|</?[a-z]+[^>]*>")

def export(path):
    po = polib.pofile(path)
    todo = []
    for e in po:
        if e.obsolete or (e.translated() and "fuzzy" not in e.flags):
            continue
        todo.append({"msgctxt": e.msgctxt, "msgid": e.msgid, "msgid_plural": e.msgid_plural or None,
                     "comment": e.comment, "refs": [f"{f}:{l}" for f, l in e.occurrences][:3],
                     "ru": [] if e.msgid_plural else ""})
    json.dump(todo, sys.stdout, ensure_ascii=False, indent=1)

def same_ph(src, dst):
    return sorted(PH.findall(src)) == sorted(PH.findall(dst))

def import_(path, todo_path):
    po = polib.pofile(path)
    po.metadata["Plural-Forms"] = PLURAL_RU
    ok, bad = 0, []
    for t in json.load(open(todo_path, encoding="utf-8")):
        e = po.find(t["msgid"], msgctxt=t["msgctxt"])
        if not e or not t["ru"]:
            continue
        if t["msgid_plural"]:
            forms = t["ru"]
            if len(forms) != 3 or not all(same_ph(t["msgid_plural"], f) for f in forms[1:]):
                bad.append((t["msgid"], "нужно 3 формы с теми же плейсхолдерами")); continue
            e.msgstr_plural = {i: f for i, f in enumerate(forms)}
        else:
            if not same_ph(t["msgid"], t["ru"]):
                bad.append((t["msgid"], "плейсхолдеры не совпадают")); continue
            e.msgstr = t["ru"]
        if "fuzzy" in e.flags:
            e.flags.remove("fuzzy")
        ok += 1
    po.save(path)
    res = subprocess.run(["msgfmt", "--check-format", "-o", "/dev/null", path],
                         capture_output=True, text=True)
    print(f"Переведено: {ok}, отклонено: {len(bad)}")
    for msgid, why in bad:
        print(f"  - {msgid[:60]!r}: {why}")
    if res.returncode:
        print("msgfmt сообщает об ошибках:\n" + res.stderr)
        sys.exit(1)
    print("msgfmt: ошибок нет")

if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "import":
        import_(sys.argv[2], sys.argv[3])
    else:
        sys.exit("usage: po_tool.py export FILE.po | import FILE.po todo.json")
