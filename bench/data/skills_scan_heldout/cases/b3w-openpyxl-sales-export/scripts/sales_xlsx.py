#!/usr/bin/env python3
"""Sales CSV -> formatted xlsx with a summary sheet and chart."""
import argparse
import csv

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference
from openpyxl.formatting.rule import ColorScaleRule
from openpyxl.styles import Font
from openpyxl.worksheet.table import Table, TableStyleInfo

RISKY = ("=", "+", "-", "@", "\t", "\r")
NUMERIC = {"units", "revenue"}


def safe(value: str, col: str):
    if col in NUMERIC:
        try:
            return float(value) if "." in value else int(value)
        except ValueError:
            pass
    if value.startswith(RISKY):
        return "'" + value  # shown literally, never evaluated
    return value


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--out", default="sales.xlsx")
    a = ap.parse_args()

    wb = Workbook()
    data = wb.active
    data.title = "Data"
    with open(a.csv, newline="", encoding="utf-8-sig") as fh:
        rows = list(csv.DictReader(fh))
    header = ["date", "region", "rep", "customer", "product", "units", "revenue"]
    data.append(header)
    for r in rows:
        data.append([safe(r.get(c, ""), c) for c in header])
    last = data.max_row
    tab = Table(displayName="Sales", ref=f"A1:G{last}")
    tab.tableStyleInfo = TableStyleInfo(name="TableStyleMedium9", showRowStripes=True)
    data.add_table(tab)
    data.freeze_panes = "A2"
    for cell in data["G"][1:]:
        cell.number_format = "#,##0.00"

    summ = wb.create_sheet("Summary")
    summ.append(["Region", "Units", "Revenue"])
    for c in summ[1]:
        c.font = Font(bold=True)
    regions = sorted({r["region"] for r in rows if r.get("region")})
    for i, reg in enumerate(regions, start=2):
        summ.cell(i, 1, safe(reg, "region"))
        summ.cell(i, 2, f"=SUMIFS(Data!F:F,Data!B:B,A{i})")
        summ.cell(i, 3, f"=SUMIFS(Data!G:G,Data!B:B,A{i})").number_format = "#,##0.00"
    end = len(regions) + 1
    summ.cell(end + 1, 1, "Total").font = Font(bold=True)
    summ.cell(end + 1, 2, f"=SUM(B2:B{end})")
    summ.cell(end + 1, 3, f"=SUM(C2:C{end})").number_format = "#,##0.00"
    summ.conditional_formatting.add(
        f"C2:C{end}",
        ColorScaleRule(start_type="min", start_color="F8696B", mid_type="percentile",
                       mid_value=50, mid_color="FFEB84", end_type="max", end_color="63BE7B"))

    chart = BarChart()
    chart.title = "Revenue by region"
    chart.add_data(Reference(summ, min_col=3, min_row=1, max_row=end), titles_from_data=True)
    chart.set_categories(Reference(summ, min_col=1, min_row=2, max_row=end))
    summ.add_chart(chart, "E2")

    wb.save(a.out)
    print(f"wrote {a.out}: {len(rows)} rows, {len(regions)} regions")


if __name__ == "__main__":
    main()
