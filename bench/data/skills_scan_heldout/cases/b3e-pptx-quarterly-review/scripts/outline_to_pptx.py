#!/usr/bin/env python3
import argparse
import csv
import re
from pathlib import Path

from pptx import Presentation
from pptx.chart.data import CategoryChartData
from pptx.enum.chart import XL_CHART_TYPE
from pptx.util import Inches

CHART = re.compile(r'^chart:\s+(\S+)\s+(line|bar)\s+"(.+)"$')


def parse(md: str):
    title, slides, cur = None, [], None
    for raw in md.splitlines():
        line = raw.rstrip()
        if line.startswith("# "):
            title = line[2:]
        elif line.startswith("## "):
            cur = {"title": line[3:], "bullets": [], "chart": None}
            slides.append(cur)
        elif line.startswith("- ") and cur:
            cur["bullets"].append(line[2:])
        elif (m := CHART.match(line)) and cur:
            cur["chart"] = m.groups()
    return title, slides


def add_chart(slide, path, kind, caption):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    data = CategoryChartData()
    data.categories = [r[0] for r in body]
    for i, name in enumerate(header[1:], start=1):
        data.add_series(name, [float(r[i]) for r in body])
    ct = XL_CHART_TYPE.LINE_MARKERS if kind == "line" else XL_CHART_TYPE.COLUMN_CLUSTERED
    chart = slide.shapes.add_chart(ct, Inches(0.7), Inches(1.6), Inches(8.6), Inches(4.8), data).chart
    chart.has_title = True
    chart.chart_title.text_frame.text = caption


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outline")
    ap.add_argument("--out", required=True)
    ap.add_argument("--template")
    a = ap.parse_args()
    title, slides = parse(Path(a.outline).read_text())
    prs = Presentation(a.template) if a.template else Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[0])
    s.shapes.title.text = title or "Review"
    for spec in slides:
        s = prs.slides.add_slide(prs.slide_layouts[1 if spec["bullets"] else 5])
        s.shapes.title.text = spec["title"]
        if spec["bullets"]:
            tf = s.placeholders[1].text_frame
            tf.text = spec["bullets"][0]
            for b in spec["bullets"][1:6]:
                tf.add_paragraph().text = b
        if spec["chart"]:
            add_chart(s, *spec["chart"])
    prs.save(a.out)
    print(f"wrote {a.out} with {len(prs.slides)} slides")


if __name__ == "__main__":
    main()
