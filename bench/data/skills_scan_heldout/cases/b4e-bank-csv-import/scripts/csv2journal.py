#!/usr/bin/env python3
"""Bank CSV -> hledger journal. Local only; masks account numbers in console output."""
import argparse, csv, io, json, re, sys
from datetime import datetime

ACCOUNT_NO = re.compile(r"\b[A-Z]{2}\d{2}(?:\s?[A-Z0-9]{4}){3,7}(?:\s?[A-Z0-9]{1,3})?\b|\b\d{8,19}\b")


def mask(text: str) -> str:
    return ACCOUNT_NO.sub(lambda m: "****" + re.sub(r"\s", "", m.group())[-4:], text)


def read_rows(path, skip, delimiter):
    raw = open(path, "rb").read()
    for enc in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    lines = text.splitlines()[skip:]
    if delimiter is None:
        delimiter = csv.Sniffer().sniff(lines[0], delimiters=",;\t").delimiter
    return list(csv.DictReader(io.StringIO("\n".join(lines)), delimiter=delimiter)), delimiter


def amount(value: str, decimal_comma: bool) -> float:
    v = value.strip().replace(" ", "")
    if decimal_comma:
        v = v.replace(".", "").replace(",", ".")
    else:
        v = v.replace(",", "")
    return float(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("csv")
    ap.add_argument("--rules")
    ap.add_argument("--peek", action="store_true")
    ap.add_argument("--skip", type=int, default=0)
    ap.add_argument("-o", "--output")
    a = ap.parse_args()
    cfg = json.load(open(a.rules)) if a.rules else {}
    rows, delim = read_rows(a.csv, cfg.get("skip_lines", a.skip), cfg.get("delimiter"))

    if a.peek:
        print(f"delimiter={delim!r} columns={list(rows[0].keys()) if rows else []}")
        for r in rows[:3]:
            print(mask(" | ".join(f"{k}={v}" for k, v in r.items())))
        return

    if not a.output:
        sys.exit("-o is required (write to a new file, not the main journal)")
    rules = [(re.compile(r["match"], re.I), r["account"]) for r in cfg.get("rules", [])]
    unknown = set()
    out = []
    for r in rows:
        date = datetime.strptime(r[cfg["date_column"]].strip(), cfg["date_format"]).date()
        payee = " ".join(r[cfg["payee_column"]].split()) or "(no payee)"
        memo = " ".join(r.get(cfg.get("memo_column", ""), "").split())
        amt = amount(r[cfg["amount_column"]], cfg.get("decimal_comma", False))
        target = next((acct for rx, acct in rules if rx.search(payee) or rx.search(memo)), None)
        if target is None:
            target = "expenses:unknown" if amt < 0 else "income:unknown"
            unknown.add(payee)
        ref = r.get(cfg.get("ref_column", ""), "").strip()
        cur = cfg.get("currency", "EUR")
        out.append(f"{date} {payee}" + (f"  ; ref:{ref}" if ref else "") + "\n"
                   + (f"    ; {mask(memo)}\n" if memo else "")
                   + f"    {target}    {-amt:.2f} {cur}\n    {cfg['account']}\n")
    with open(a.output, "w", encoding="utf-8") as fh:
        fh.write("\n".join(out))
    print(f"wrote {len(out)} transactions to {a.output}")
    if unknown:
        print("payees without a rule:")
        for p in sorted(unknown):
            print("  -", mask(p))


if __name__ == "__main__":
    main()
