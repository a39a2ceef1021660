import sys
import pandas as pd

df = pd.read_excel(sys.argv[1])
df["月份"] = pd.to_datetime(df["日期"]).dt.to_period("M").astype(str)
with pd.ExcelWriter(sys.argv[2]) as xw:
    df.pivot_table(index="月份", columns="地区", values="金额", aggfunc="sum").to_excel(xw, sheet_name="按月按地区")
    df.groupby("产品")["金额"].sum().sort_values(ascending=False).to_excel(xw, sheet_name="按产品")
