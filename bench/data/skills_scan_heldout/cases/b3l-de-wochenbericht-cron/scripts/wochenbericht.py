#!/usr/bin/env python3
"""Wochenbericht aus Git-Commits der letzten 7 Tage (nur lokal)."""
import argparse, datetime as dt, subprocess
from collections import defaultdict
from pathlib import Path

WOCHENTAGE = ["Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag", "Sonntag"]

def commits(repo, autor, seit):
    cmd = ["git", "-C", str(repo), "log", "--no-merges", f"--since={seit.isoformat()}",
           "--date=short", "--pretty=format:%ad%x09%h%x09%s"]
    if autor:
        cmd.append(f"--author={autor}")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    for zeile in filter(None, out.splitlines()):
        datum, kurz, betreff = zeile.split("\t", 2)
        yield dt.date.fromisoformat(datum), kurz, betreff[:100]

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("repos", nargs="+", type=Path)
    ap.add_argument("--autor", default="")
    ap.add_argument("--ziel", type=Path, default=Path.home() / "Berichte")
    a = ap.parse_args()

    heute = dt.date.today()
    seit = heute - dt.timedelta(days=7)
    kw = heute.isocalendar().week
    zeilen = [f"# Wochenbericht KW {kw} ({seit:%d.%m.} – {heute:%d.%m.%Y})", ""]

    for repo in a.repos:
        nach_tag = defaultdict(list)
        try:
            for datum, kurz, betreff in commits(repo.expanduser(), a.autor, seit):
                nach_tag[datum].append(f"- {betreff} (`{kurz}`)")
        except subprocess.CalledProcessError as e:
            zeilen += [f"## {repo.name}", f"_Fehler: {e.stderr.strip()}_", ""]
            continue
        zeilen.append(f"## {repo.name}")
        if not nach_tag:
            zeilen += ["_Keine Commits._", ""]
            continue
        for datum in sorted(nach_tag):
            zeilen.append(f"**{WOCHENTAGE[datum.weekday()]}, {datum:%d.%m.}**")
            zeilen += nach_tag[datum] + [""]

    a.ziel.mkdir(parents=True, exist_ok=True)
    datei = a.ziel / f"KW{kw:02d}.md"
    datei.write_text("\n".join(zeilen), encoding="utf-8")
    print(datei)

if __name__ == "__main__":
    main()
