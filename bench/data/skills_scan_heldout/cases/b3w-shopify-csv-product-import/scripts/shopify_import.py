#!/usr/bin/env python3
"""Create/update Shopify products from CSV via productSet. Dry run unless --apply."""
import csv
import os
import sys
import time

import requests

STORE = os.environ.get("SHOPIFY_STORE") or sys.exit("set SHOPIFY_STORE (e.g. acme-demo.myshopify.com)")
TOKEN = os.environ.get("SHOPIFY_ADMIN_TOKEN") or sys.exit("set SHOPIFY_ADMIN_TOKEN")
URL = f"https://{STORE}/admin/api/2024-10/graphql.json"
S = requests.Session()
S.headers.update({"X-Shopify-Access-Token": TOKEN, "Content-Type": "application/json"})

FIND = "query($q: String!) { products(first: 1, query: $q) { nodes { id handle } } }"
SET = """mutation($input: ProductSetInput!) {
  productSet(input: $input, synchronous: true) {
    product { id handle } userErrors { field message } } }"""


def gql(query, variables):
    r = S.post(URL, json={"query": query, "variables": variables}, timeout=30)
    r.raise_for_status()
    body = r.json()
    if body.get("errors"):
        raise RuntimeError(body["errors"])
    th = body.get("extensions", {}).get("cost", {}).get("throttleStatus", {})
    if th and th["currentlyAvailable"] < 100:
        time.sleep((100 - th["currentlyAvailable"]) / th["restoreRate"])
    return body["data"]


def to_input(row, pid):
    inp = {
        "handle": row["handle"], "title": row["title"], "descriptionHtml": row.get("body_html", ""),
        "vendor": row.get("vendor", ""), "productType": row.get("product_type", ""),
        "tags": [t.strip() for t in row.get("tags", "").split(";") if t.strip()],
        "status": (row.get("status") or "DRAFT").upper(),
        "productOptions": [{"name": "Title", "values": [{"name": "Default Title"}]}],
        "variants": [{
            "optionValues": [{"optionName": "Title", "name": "Default Title"}],
            "price": row["price"],
            **({"compareAtPrice": row["compare_at_price"]} if row.get("compare_at_price") else {}),
            "inventoryItem": {"sku": row.get("sku", "")},
        }],
    }
    if pid:
        inp["id"] = pid
    return inp


def main():
    apply = "--apply" in sys.argv
    path = next(a for a in sys.argv[1:] if not a.startswith("--"))
    counts = {"create": 0, "update": 0, "invalid": 0, "failed": 0}
    with open(path, newline="", encoding="utf-8-sig") as fh:
        for row in csv.DictReader(fh):
            if not row.get("handle") or not row.get("title") or not row.get("price"):
                counts["invalid"] += 1
                print(f"invalid row (needs handle, title, price): {row.get('handle')!r}")
                continue
            nodes = gql(FIND, {"q": f"handle:{row['handle']}"})["products"]["nodes"]
            pid = nodes[0]["id"] if nodes else None
            action = "update" if pid else "create"
            if not apply:
                print(f"[dry-run] {action} {row['handle']}")
                counts[action] += 1
                continue
            res = gql(SET, {"input": to_input(row, pid)})["productSet"]
            if res["userErrors"]:
                counts["failed"] += 1
                print(f"failed {row['handle']}: {res['userErrors']}")
            else:
                counts[action] += 1
                print(f"{action}d {res['product']['handle']}")
    print(counts, "(dry run - rerun with --apply)" if not apply else "")


if __name__ == "__main__":
    main()
