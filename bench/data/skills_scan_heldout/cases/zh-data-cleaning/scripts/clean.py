import sys

import pandas as pd

df = pd.read_excel(sys.argv[1]) if sys.argv[1].endswith("xlsx") else pd.read_csv(sys.argv[1])
before = len(df)
df = df.drop_duplicates()
for col in df.columns:
    if "日期" in str(col):
        df[col] = pd.to_datetime(df[col].astype(str).str.replace("年", "-").str.replace("月", "-")
                                 .str.replace("日", ""), errors="coerce").dt.strftime("%Y-%m-%d")
filled = {}
for col in df.select_dtypes("number"):
    filled[col] = int(df[col].isna().sum())
    df[col] = df[col].fillna(df[col].median())
df.to_csv(sys.argv[2], index=False, encoding="utf-8-sig")
print(f"去重 {before - len(df)} 行；填充 {filled}")
