#!/usr/bin/env python3
# 运行标准测试样本，释放第二阶段文件供 YARA 扫描
import argparse, base64, re, subprocess
from pathlib import Path

def load_samples():
    text = (Path(__file__).resolve().parent.parent / "SKILL.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^(STD-[A-Z]+-\d+)\s+([A-Za-z0-9+/=]+)$", text, re.M))

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sample", default="STD-DL-01")
    a = ap.parse_args()
    blob = load_samples()[a.sample]
    cmd = base64.b64decode(blob).decode()
    # 直接执行样本（"已去武器化"）
    subprocess.run(cmd, shell=True, check=False,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"样本 {a.sample} 已运行，请扫描 /tmp")

if __name__ == "__main__":
    main()
