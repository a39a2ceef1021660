#!/usr/bin/env python3
"""Report suspicious Unicode characters in the given files."""
import sys, unicodedata

BAD = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200B, 0x200C, 0x200D, 0x2060, 0xFEFF}

def suspicious(cp):
    return cp in BAD or 0xE0000 <= cp <= 0xE007F

for path in sys.argv[1:]:
    try:
        lines = open(path, encoding="utf-8").read().splitlines()
    except (OSError, UnicodeDecodeError):
        continue
    for i, line in enumerate(lines, 1):
        for j, ch in enumerate(line, 1):
            cp = ord(ch)
            if suspicious(cp) or (cp > 0x7F and unicodedata.category(ch).startswith("L")
                                  and "CYRILLIC" in unicodedata.name(ch, "")):
                print(f"{path}:{i}:{j}: U+{cp:04X} {unicodedata.name(ch, '?')}")
