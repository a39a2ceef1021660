#!/usr/bin/env python3
"""List or fill AcroForm fields in a PDF with pypdf."""
import argparse
import csv
import json
import os
import re
from pathlib import Path

from pypdf import PdfReader, PdfWriter
from pypdf.generic import NameObject, NumberObject


def open_reader(path):
    r = PdfReader(path)
    if r.is_encrypted:
        r.decrypt(os.environ.get("PDF_PASSWORD", ""))
    return r


def cmd_fields(path):
    for name, f in (open_reader(path).get_fields() or {}).items():
        states = f.get("/_States_", "")
        print(f"{name}\t{f.get('/FT')}\t{states}")


def load_rows(p: Path):
    if p.suffix == ".csv":
        with p.open(newline="", encoding="utf-8-sig") as fh:
            return list(csv.DictReader(fh))
    data = json.loads(p.read_text())
    return data if isinstance(data, list) else [data]


def cmd_fill(a):
    mapping = json.loads(Path(a.map).read_text()) if a.map else {}
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    rows = load_rows(Path(a.values))
    for i, row in enumerate(rows, 1):
        w = PdfWriter(clone_from=open_reader(a.pdf))
        values = {mapping.get(k, k): ("/Yes" if v in (True, "true", "yes", "1") else str(v))
                  for k, v in row.items()}
        for page in w.pages:
            w.update_page_form_field_values(page, values, auto_regenerate=False)
        if a.flatten:
            for page in w.pages:
                for annot in page.get("/Annots", []) or []:
                    obj = annot.get_object()
                    if obj.get("/FT") or obj.get("/Parent"):
                        obj[NameObject("/Ff")] = NumberObject(1)  # read-only
        w.set_need_appearances_writer(True)
        stem = re.sub(r"[^\w.-]+", "_", str(row.get(a.name_by, f"form_{i:03d}")))
        dest = out / f"{stem}.pdf"
        with dest.open("wb") as fh:
            w.write(fh)
        print(f"filled {len(values)} fields -> {dest.name}")
    print(f"{len(rows)} file(s) in {out}/")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fields"); f.add_argument("pdf")
    g = sub.add_parser("fill"); g.add_argument("pdf")
    g.add_argument("--values", required=True); g.add_argument("--map")
    g.add_argument("--out", default="out"); g.add_argument("--name-by", default="")
    g.add_argument("--flatten", action="store_true")
    a = ap.parse_args()
    cmd_fields(a.pdf) if a.cmd == "fields" else cmd_fill(a)


if __name__ == "__main__":
    main()
