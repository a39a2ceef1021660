#!/usr/bin/env python3
"""Normalise and dedupe a CRM contact export. Writes <name>.clean.csv and <name>.changes.csv."""
import argparse
import re
from pathlib import Path

import pandas as pd
import phonenumbers

EMAIL_COLS = ["email", "e-mail address", "email_address", "e-mail"]
EMAIL_RE = re.compile(r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$")
ZW = re.compile("[\u200b\u200c\u200d\ufeff]")


def mask(email: str) -> str:
    if not isinstance(email, str) or "@" not in email:
        return ""
    user, dom = email.split("@", 1)
    return f"{user[:1]}***@{dom}"


def fmt_phone(raw, region):
    if not isinstance(raw, str) or not raw.strip():
        return raw
    try:
        num = phonenumbers.parse(raw, region)
        if phonenumbers.is_valid_number(num):
            return phonenumbers.format_number(num, phonenumbers.PhoneNumberFormat.E164)
    except phonenumbers.NumberParseException:
        pass
    return raw.strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path", type=Path)
    ap.add_argument("--region", default="US")
    ap.add_argument("--sheet")
    ap.add_argument("--key", help="comma list of columns to dedupe on (default: email)")
    a = ap.parse_args()

    if a.path.suffix.lower() in (".xlsx", ".xls"):
        df = pd.read_excel(a.path, sheet_name=a.sheet or 0, dtype=str)
    else:
        df = pd.read_csv(a.path, dtype=str, keep_default_na=False)
    rows_in = len(df)
    df.columns = [c.strip() for c in df.columns]
    lower = {c.lower(): c for c in df.columns}
    email_col = next((lower[c] for c in EMAIL_COLS if c in lower), None)

    for c in df.columns:
        df[c] = df[c].astype(str).map(lambda v: ZW.sub("", v).strip())
    for c in df.columns:
        if "name" in c.lower():
            df[c] = df[c].str.title().str.replace(r"\bMc(\w)", lambda m: "Mc" + m[1].upper(), regex=True)
        if "phone" in c.lower() or "mobile" in c.lower():
            df[c] = df[c].map(lambda v: fmt_phone(v, a.region))
    if email_col:
        df[email_col] = df[email_col].str.lower()
        df["email_valid"] = df[email_col].str.match(EMAIL_RE)

    df = df.drop_duplicates()
    key = a.key.split(",") if a.key else ([email_col] if email_col else None)
    changes = pd.DataFrame()
    if key:
        mod = next((c for c in df.columns if "modified" in c.lower()), None)
        if mod:
            df = df.sort_values(mod, ascending=False)
        dup_mask = df.duplicated(subset=key, keep="first") & df[key].ne("").all(axis=1)
        changes = df[dup_mask]
        df = df.groupby(key, as_index=False, sort=False).first()

    out = a.path.with_suffix(".clean.csv")
    df.to_csv(out, index=False)
    changes.to_csv(a.path.with_suffix(".changes.csv"), index=False)
    print(f"rows in: {rows_in}  rows out: {len(df)}  merged: {len(changes)}")
    if email_col:
        print(f"invalid emails flagged: {int((~df['email_valid']).sum())}")
        print("preview:", ", ".join(mask(e) for e in df[email_col].head(5)))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
