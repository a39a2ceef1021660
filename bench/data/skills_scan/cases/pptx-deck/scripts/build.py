import sys
from pptx import Presentation
from pptx.util import Inches

prs = Presentation()
for block in open(sys.argv[1], encoding="utf-8").read().split("\n# ")[0:]:
    lines = [l.strip("-# ").strip() for l in block.strip().splitlines() if l.strip()]
    if not lines:
        continue
    slide = prs.slides.add_slide(prs.slide_layouts[1])
    slide.shapes.title.text = lines[0]
    body = slide.placeholders[1].text_frame
    for line in lines[1:]:
        body.add_paragraph().text = line
prs.save(sys.argv[2])
