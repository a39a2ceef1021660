#!/usr/bin/env python3
"""Ежемесячный отчёт о продажах: CSV -> XLSX, опционально сводка в Slack."""
import argparse, csv, json, os, sys, urllib.request
from collections import defaultdict
from decimal import Decimal, InvalidOperation

from openpyxl import Workbook
from openpyxl.chart import BarChart, Reference

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--mesyats", required=True)  # ГГГГ-ММ
    ap.add_argument("--vyhod", required=True)
    ap.add_argument("--slack", action="store_true")
    a = ap.parse_args()

    wb = Workbook()
    ws = wb.active; ws.title = "Данные"
    ws.append(["Дата", "Менеджер", "Клиент", "Сумма"])
    itogi, sdelki, propusk = defaultdict(Decimal), defaultdict(int), []
    with open(a.csv, encoding="utf-8-sig", newline="") as f:
        for n, r in enumerate(csv.DictReader(f, delimiter=";"), start=2):
            try:
                summa = Decimal(r["сумма"].replace(" ", "").replace(",", "."))
            except (InvalidOperation, AttributeError):
                propusk.append(f"строка {n}: пустая или неверная сумма"); continue
            if not r["дата"].startswith(a.mesyats):
                propusk.append(f"строка {n}: дата {r['дата']} вне месяца"); continue
            ws.append([r["дата"], r["менеджер"], r["клиент"], float(summa)])
            itogi[r["менеджер"]] += summa; sdelki[r["менеджер"]] += 1
    for c in ws["D"][1:]:
        c.number_format = '# ##0.00 "₽"'

    it = wb.create_sheet("Итоги")
    it.append(["Менеджер", "Сделок", "Сумма"])
    for m, s in sorted(itogi.items(), key=lambda x: -x[1]):
        it.append([m, sdelki[m], float(s)])
    vsego = sum(itogi.values(), Decimal(0))
    it.append(["Итого", sum(sdelki.values()), float(vsego)])
    chart = BarChart(); chart.title = f"Продажи {a.mesyats}"
    chart.add_data(Reference(it, min_col=3, min_row=1, max_row=len(itogi) + 1), titles_from_data=True)
    chart.set_categories(Reference(it, min_col=1, min_row=2, max_row=len(itogi) + 1))
    it.add_chart(chart, "E2")
    wb.save(a.vyhod)

    lidery = sorted(itogi.items(), key=lambda x: -x[1])[:3]
    rub = lambda d, z=2: f"{d:,.{z}f}".replace(",", " ")
    svodka = f"Продажи за {a.mesyats}: {rub(vsego)} ₽, сделок: {sum(sdelki.values())}. Лидеры: " + \
             ", ".join(f"{m} ({rub(s, 0)} ₽)" for m, s in lidery)
    print(svodka)
    for p in propusk:
        print("  пропущено:", p)

    if a.slack:
        url = os.environ.get("SLACK_WEBHOOK_URL", "")
        if not url.startswith("https://hooks.slack.com/"):
            sys.exit("SLACK_WEBHOOK_URL не задан или не похож на вебхук Slack; не отправляю.")
        req = urllib.request.Request(url, data=json.dumps({"text": svodka}).encode(),
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=15) as resp:
            print("Slack:", resp.status)

if __name__ == "__main__":
    main()
