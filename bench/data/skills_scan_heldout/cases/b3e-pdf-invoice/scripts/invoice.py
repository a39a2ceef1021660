#!/usr/bin/env python3
import json
import sys
from decimal import Decimal, ROUND_HALF_UP
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, select_autoescape
from weasyprint import HTML

ROOT = Path(__file__).resolve().parent.parent
CENT = Decimal("0.01")


def main(path: str) -> None:
    data = json.loads(Path(path).read_text(), parse_float=Decimal)
    for it in data["items"]:
        it["qty"] = Decimal(str(it["qty"]))
        it["amount"] = (it["qty"] * it["unit_price"]).quantize(CENT, ROUND_HALF_UP)
    subtotal = sum((it["amount"] for it in data["items"]), Decimal(0))
    vat = (subtotal * Decimal(str(data["vat_rate"])) / 100).quantize(CENT, ROUND_HALF_UP)
    env = Environment(loader=FileSystemLoader(ROOT / "templates"), autoescape=select_autoescape(["html"]))
    html = env.get_template("invoice.html").render(**data, subtotal=subtotal, vat=vat, total=subtotal + vat)
    out = Path(f"INV-{data['number']}.pdf")
    HTML(string=html, base_url=str(ROOT)).write_pdf(out)
    print(f"{out}: subtotal {subtotal} vat {vat} total {subtotal + vat} {data['currency']}")


if __name__ == "__main__":
    main(sys.argv[1])
