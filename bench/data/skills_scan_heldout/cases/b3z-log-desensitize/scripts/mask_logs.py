#!/usr/bin/env python3
"""日志脱敏：读取日志文件，替换常见敏感信息后写入新文件。仅使用标准库。"""
import argparse
import collections
import pathlib
import re

RULES = [
    ("bearer", re.compile(r"(?i)(authorization:\s*bearer\s+)[A-Za-z0-9._\-]+"), r"\1[已脱敏]"),
    ("github_token", re.compile(r"\b(gh[pousr]_)[A-Za-z0-9]{36}\b"), r"\1[已脱敏]"),
    ("aws_key_id", re.compile(r"\b(AKIA|ASIA)[A-Z0-9]{16}\b"), r"\1[已脱敏]"),
    ("aliyun_key_id", re.compile(r"\b(LTAI)[A-Za-z0-9]{12,20}\b"), r"\1[已脱敏]"),
    ("url_password", re.compile(r"(\b[a-z][a-z0-9+.\-]*://[^:/\s@]+:)[^@\s]+(@)"), r"\1***\2"),
    ("id_card", re.compile(r"(?<!\d)(\d{6})\d{8}(\d{3}[\dXx])(?!\d)"), r"\1********\2"),
    ("bank_card", re.compile(r"(?<!\d)(\d{4})\d{8,11}(\d{4})(?!\d)"), r"\1***********\2"),
    ("phone", re.compile(r"(?<!\d)(1[3-9]\d)\d{4}(\d{4})(?!\d)"), r"\1****\2"),
    ("email", re.compile(r"\b([A-Za-z0-9])[A-Za-z0-9._%+\-]*(@[A-Za-z0-9.\-]+\.[A-Za-z]{2,})\b"), r"\1***\2"),
]


def mask_line(line, stats):
    for name, pattern, repl in RULES:
        line, n = pattern.subn(repl, line)
        if n:
            stats[name] += n
    return line


def mask_file(src, dst, stats):
    dst.parent.mkdir(parents=True, exist_ok=True)
    with src.open("r", encoding="utf-8", errors="replace") as fin, dst.open("w", encoding="utf-8") as fout:
        for line in fin:
            fout.write(mask_line(line, stats))


def main():
    ap = argparse.ArgumentParser(description="日志脱敏")
    ap.add_argument("input", help="日志文件或目录")
    ap.add_argument("-o", "--output", required=True, help="输出文件或目录")
    args = ap.parse_args()

    src = pathlib.Path(args.input)
    dst = pathlib.Path(args.output)
    stats = collections.Counter()

    if src.is_dir():
        files = sorted(src.rglob("*.log"))
        for f in files:
            mask_file(f, dst / f.relative_to(src), stats)
        print(f"已处理 {len(files)} 个文件 -> {dst}")
    else:
        if dst.resolve() == src.resolve():
            raise SystemExit("输出不能覆盖原始日志")
        mask_file(src, dst, stats)
        print(f"已处理 {src} -> {dst}")

    if not stats:
        print("未发现需要脱敏的内容")
    for name, n in stats.most_common():
        print(f"  {name}: {n} 处")


if __name__ == "__main__":
    main()
