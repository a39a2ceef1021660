#!/usr/bin/env python3
"""Receipt photos -> reviewed CSV -> expense report workbook."""
import argparse, base64, csv, json, os, pathlib, sys

FIELDS = ["日期", "商户", "类别", "金额", "币种", "文件", "备注"]
PROMPT = ("这是一张小票或发票。只返回 JSON：{\"date\":\"YYYY-MM-DD\",\"merchant\":\"\","
          "\"category\":\"交通|餐饮|住宿|办公用品|其他\",\"amount\":数字,\"currency\":\"CNY\"}。看不清的字段填 null。")


def ocr_openai(img: pathlib.Path) -> dict:
    import requests
    key = os.environ.get("OPENAI_API_KEY")
    if not key:
        sys.exit("OPENAI_API_KEY 未设置；或者改用 --ocr none")
    mime = "image/png" if img.suffix.lower() == ".png" else "image/jpeg"
    data = base64.b64encode(img.read_bytes()).decode()
    body = {
        "model": "gpt-4o-mini",
        "response_format": {"type": "json_object"},
        "messages": [{"role": "user", "content": [
            {"type": "text", "text": PROMPT},
            {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}},
        ]}],
    }
    r = requests.post("https://api.openai.com/v1/chat/completions",
                      headers={"Authorization": f"Bearer {key}"}, json=body, timeout=60)
    r.raise_for_status()
    return json.loads(r.json()["choices"][0]["message"]["content"])


def recognise(folder: pathlib.Path, mode: str, out: pathlib.Path) -> None:
    images = sorted(p for p in folder.iterdir() if p.suffix.lower() in {".jpg", ".jpeg", ".png"})
    with out.open("w", newline="", encoding="utf-8-sig") as fh:
        w = csv.DictWriter(fh, FIELDS)
        w.writeheader()
        for img in images:
            row = {k: "" for k in FIELDS}
            row["文件"] = img.name
            if mode == "openai":
                try:
                    got = ocr_openai(img)
                    row.update({"日期": got.get("date") or "", "商户": got.get("merchant") or "",
                                "类别": got.get("category") or "其他", "金额": got.get("amount") or "",
                                "币种": got.get("currency") or "CNY"})
                except Exception as exc:  # keep going, mark the row for manual entry
                    row["备注"] = f"需人工填写（{type(exc).__name__}）"
            else:
                row["备注"] = "需人工填写"
            w.writerow(row)
            print(f"  {img.name}: {row['金额'] or '—'}")
    print(f"已写入 {out}，请让用户核对后再用 --from-csv 生成报销单")


def build_xlsx(rows_csv: pathlib.Path, month: str) -> None:
    from openpyxl import Workbook
    from openpyxl.styles import Font
    wb = Workbook()
    ws = wb.active
    ws.title = month
    ws.append(FIELDS)
    for c in ws[1]:
        c.font = Font(bold=True)
    total = 0.0
    with rows_csv.open(encoding="utf-8-sig") as fh:
        for row in csv.DictReader(fh):
            amt = float(row["金额"]) if row["金额"] else None
            if amt is not None and row["币种"] in ("", "CNY"):
                total += amt
            ws.append([row["日期"], row["商户"], row["类别"], amt, row["币种"], row["文件"], row["备注"]])
    ws.append([])
    ws.append(["合计（CNY）", "", "", round(total, 2)])
    for col, width in zip("ABCDEFG", (12, 24, 10, 10, 6, 28, 20)):
        ws.column_dimensions[col].width = width
    out = pathlib.Path(f"报销单-{month}.xlsx")
    wb.save(out)
    print(f"已生成 {out}，人民币合计 {total:.2f}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("folder", type=pathlib.Path)
    ap.add_argument("--month", required=True)
    ap.add_argument("--ocr", choices=["openai", "none"], default="none")
    ap.add_argument("--from-csv", type=pathlib.Path)
    a = ap.parse_args()
    if a.from_csv:
        build_xlsx(a.from_csv, a.month)
    else:
        recognise(a.folder, a.ocr, pathlib.Path("识别结果.csv" if a.ocr == "openai" else "待填写.csv"))
