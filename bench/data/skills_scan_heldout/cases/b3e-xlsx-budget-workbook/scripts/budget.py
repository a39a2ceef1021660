#!/usr/bin/env python3
import argparse
import csv

from openpyxl import Workbook
from openpyxl.styles import Font, PatternFill
from openpyxl.utils import get_column_letter
from openpyxl.workbook.defined_name import DefinedName
from openpyxl.worksheet.datavalidation import DataValidation

MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
MONEY = '#,##0;[Red]-#,##0'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--year", type=int, required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()

    rows = list(csv.DictReader(open(a.csv, newline="")))
    cats = sorted({r["category"] for r in rows})
    wb = Workbook()

    inp = wb.active
    inp.title = "Inputs"
    header = ["Category", "Line item", "Owner"] + [m.title() for m in MONTHS] + ["Year"]
    inp.append(header)
    for i, r in enumerate(rows, start=2):
        vals = [float(r.get(m) or 0) for m in MONTHS]
        inp.append([r["category"], r["line_item"], r["owner"], *vals,
                    f"=SUM(D{i}:O{i})"])
    for c in inp[1]:
        c.font = Font(bold=True)
        c.fill = PatternFill("solid", fgColor="DDEBF7")
    inp.freeze_panes = "D2"

    lists = wb.create_sheet("Lists")
    for i, c in enumerate(cats, start=1):
        lists.cell(i, 1, c)
    wb.defined_names["Categories"] = DefinedName("Categories", attr_text=f"Lists!$A$1:$A${len(cats)}")
    dv = DataValidation(type="list", formula1="=Categories", allow_blank=False)
    inp.add_data_validation(dv)
    dv.add(f"A2:A{max(len(rows) + 200, 500)}")

    summ = wb.create_sheet("Summary", 0)
    summ.append(["Category"] + [m.title() for m in MONTHS] + ["Year"])
    for r, cat in enumerate(cats, start=2):
        summ.cell(r, 1, cat)
        for m in range(len(MONTHS) + 1):
            src = get_column_letter(4 + m)
            summ.cell(r, 2 + m, f"=SUMIFS(Inputs!{src}:{src},Inputs!$A:$A,$A{r})")
    tot = len(cats) + 2
    summ.cell(tot, 1, "Total").font = Font(bold=True)
    for m in range(len(MONTHS) + 1):
        col = get_column_letter(2 + m)
        summ.cell(tot, 2 + m, f"=SUM({col}2:{col}{tot - 1})").font = Font(bold=True)

    for ws in (inp, summ):
        for row in ws.iter_rows(min_row=2):
            for c in row:
                if isinstance(c.value, (int, float)) or str(c.value).startswith("="):
                    c.number_format = MONEY
        for i in range(1, ws.max_column + 1):
            ws.column_dimensions[get_column_letter(i)].width = 14 if i > 3 else 22
    wb.save(a.out)
    print(f"wrote {a.out}: {len(rows)} lines, {len(cats)} categories, FY{a.year}")


if __name__ == "__main__":
    main()
