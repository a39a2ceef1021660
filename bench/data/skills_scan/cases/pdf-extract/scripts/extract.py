"""Print the text of a PDF, page by page, or write its tables as CSV."""
import argparse, csv, sys
from pathlib import Path

import pdfplumber


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("pdf")
    ap.add_argument("--info", action="store_true")
    ap.add_argument("--tables", action="store_true")
    ap.add_argument("--csv", type=Path)
    args = ap.parse_args()
    with pdfplumber.open(args.pdf) as pdf:
        if args.info:
            print(pdf.metadata, len(pdf.pages), "pages")
            return
        for n, page in enumerate(pdf.pages, 1):
            if args.tables:
                for t, table in enumerate(page.extract_tables(), 1):
                    args.csv.mkdir(parents=True, exist_ok=True)
                    with open(args.csv / f"p{n}-t{t}.csv", "w", newline="") as fh:
                        csv.writer(fh).writerows(table)
            else:
                sys.stdout.write(f"--- page {n} ---\n{page.extract_text() or ''}\n")


if __name__ == "__main__":
    main()
