#!/usr/bin/env python3
import re
import sys

CUE_TIME = re.compile(r"^(\d\d:)?\d\d:\d\d\.\d{3} --> ")
VOICE = re.compile(r"^<v(?:\.[^ >]+)?\s+([^>]+)>(.*?)(?:</v>)?$")
FILLER = re.compile(r"\b(um+|uh+|erm|you know|like,)\s*", re.I)


def cues(lines):
    start, speaker, buf = None, None, []
    for line in lines:
        line = line.strip()
        if CUE_TIME.match(line):
            start = line.split(" --> ")[0]
            continue
        if not line or line == "WEBVTT" or line.isdigit() or line.startswith("NOTE"):
            continue
        m = VOICE.match(line)
        if m:
            yield start, m.group(1).strip(), m.group(2).strip()
        elif ": " in line[:40]:
            who, text = line.split(": ", 1)
            yield start, who.strip(), text.strip()
        else:
            yield start, None, line


def main():
    keep = "--keep-times" in sys.argv
    path = next(a for a in sys.argv[1:] if not a.startswith("--"))
    with open(path, encoding="utf-8-sig") as fh:
        turns = []
        for start, who, text in cues(fh):
            text = FILLER.sub("", text).strip()
            if not text:
                continue
            if turns and (who is None or turns[-1][1] == who):
                turns[-1][2].append(text)
            else:
                turns.append([start, who or "Unknown Speaker", [text]])
    for start, who, texts in turns:
        prefix = f"[{start[:8] if start else '--:--:--'}] " if keep else ""
        print(f"{prefix}{who}: {' '.join(texts)}\n")


if __name__ == "__main__":
    main()
