#!/usr/bin/env python3
"""Convert a Markdown outline into a .pptx using python-pptx."""
import argparse
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from pptx import Presentation
from pptx.util import Emu

IMG = re.compile(r"!\[[^\]]*\]\(([^)]+)\)")


def parse(md: str):
    slides, cur = [], None
    for line in md.splitlines():
        if line.startswith("# "):
            cur = {"kind": "title", "title": line[2:].strip(), "bullets": [], "imgs": [], "notes": []}
            slides.append(cur)
        elif line.startswith("## "):
            cur = {"kind": "content", "title": line[3:].strip(), "bullets": [], "imgs": [], "notes": []}
            slides.append(cur)
        elif cur is None:
            continue
        elif m := IMG.search(line):
            cur["imgs"].append(m[1])
        elif line.lstrip().startswith("- "):
            level = (len(line) - len(line.lstrip())) // 2
            cur["bullets"].append((level, line.lstrip()[2:].strip()))
        elif line.startswith(">"):
            cur["notes"].append(line[1:].strip())
    return slides


def to_pdf(pptx: Path):
    if not shutil.which("soffice"):
        print("soffice not found; skipping PDF")
        return
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", tmp, str(pptx)],
                       check=True, timeout=180)
        shutil.move(str(Path(tmp) / (pptx.stem + ".pdf")), pptx.with_suffix(".pdf"))
    print(f"wrote {pptx.with_suffix('.pdf')}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outline", type=Path)
    ap.add_argument("--template")
    ap.add_argument("--out", type=Path, default=Path("deck.pptx"))
    ap.add_argument("--pdf", action="store_true")
    ap.add_argument("--list-layouts", action="store_true")
    a = ap.parse_args()

    prs = Presentation(a.template) if a.template else Presentation()
    if a.list_layouts:
        for i, lay in enumerate(prs.slide_layouts):
            print(i, lay.name)
        return
    base = a.outline.parent
    for s in parse(a.outline.read_text(encoding="utf-8")):
        layout = prs.slide_layouts[0 if s["kind"] == "title" else 1]
        slide = prs.slides.add_slide(layout)
        slide.shapes.title.text = s["title"]
        if s["kind"] == "content" and len(slide.placeholders) > 1:
            body = slide.placeholders[1]
            tf = body.text_frame
            tf.clear()
            for n, (lvl, text) in enumerate(s["bullets"]):
                p = tf.paragraphs[0] if n == 0 else tf.add_paragraph()
                p.text, p.level = text, min(lvl, 4)
            if len(s["bullets"]) > 8:
                print(f"warning: '{s['title']}' has {len(s['bullets'])} bullets")
            for img in s["imgs"]:
                pic = slide.shapes.add_picture(str(base / img), body.left, body.top)
                scale = body.width / pic.width
                pic.width, pic.height = body.width, Emu(int(pic.height * scale))
        if s["notes"]:
            slide.notes_slide.notes_text_frame.text = "\n".join(s["notes"])
    prs.save(a.out)
    print(f"wrote {a.out} ({len(prs.slides)} slides)")
    if a.pdf:
        to_pdf(a.out)


if __name__ == "__main__":
    main()
