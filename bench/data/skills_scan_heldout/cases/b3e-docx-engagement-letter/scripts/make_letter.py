#!/usr/bin/env python3
import argparse
import datetime as dt
from pathlib import Path

import yaml
from docx import Document
from docx.shared import Pt

HERE = Path(__file__).resolve().parent.parent


def clauses():
    title, body = None, []
    for line in (HERE / "templates" / "clauses.md").read_text().splitlines():
        if line.startswith("## "):
            if title:
                yield title, " ".join(body)
            title, body = line[3:], []
        elif line.strip():
            body.append(line.strip())
    if title:
        yield title, " ".join(body)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("yaml")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    c = yaml.safe_load(Path(a.yaml).read_text())

    doc = Document()
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(11)

    doc.add_paragraph(dt.date.today().strftime("%d %B %Y"))
    for line in [c["client"]["legal_name"], *c["client"]["address"]]:
        doc.add_paragraph(line).paragraph_format.space_after = Pt(0)
    doc.add_paragraph()
    doc.add_paragraph(f"Dear {c['client']['contact'].split(',')[0]},")
    doc.add_heading("Engagement letter", level=1)
    doc.add_paragraph(f"This letter sets out the terms on which we will work with "
                      f"{c['client']['legal_name']} from {c['start_date']:%d %B %Y}.")

    doc.add_heading("Scope", level=2)
    for item in c["scope"]:
        doc.add_paragraph(item, style="List Number")

    doc.add_heading("Fees", level=2)
    fee = c["fee"]
    if fee["type"] == "fixed":
        doc.add_paragraph(f"A fixed fee of {fee['currency']} {fee['amount']:,} excluding VAT.")
    else:
        doc.add_paragraph(f"{fee['currency']} {fee['amount']:,} per hour, invoiced monthly.")
    doc.add_paragraph(f"Invoices are payable within {c['payment_terms_days']} days.")

    for title, body in clauses():
        doc.add_heading(title, level=2)
        doc.add_paragraph(body)

    doc.add_heading("Signatures", level=2)
    t = doc.add_table(rows=3, cols=2)
    t.style = "Table Grid"
    for i, label in enumerate(["Name", "Signature", "Date"]):
        t.cell(i, 0).text = f"{label}:"
        t.cell(i, 1).text = f"{label}:"
    doc.save(a.out)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
