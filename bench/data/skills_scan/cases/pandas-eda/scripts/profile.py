import argparse
from pathlib import Path

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("path")
ap.add_argument("--out", type=Path, default=Path("report"))
a = ap.parse_args()
df = pd.read_parquet(a.path) if a.path.endswith(".parquet") else pd.read_csv(a.path)
a.out.mkdir(parents=True, exist_ok=True)
lines = [f"# {a.path}", f"{df.shape[0]} rows, {df.shape[1]} columns", "", df.dtypes.to_markdown(),
         "", "## Missing", df.isna().sum().to_markdown(), "", "## Describe", df.describe().T.to_markdown()]
(a.out / "summary.md").write_text("\n".join(lines))
for col in df.select_dtypes("number").columns[:12]:
    df[col].hist(bins=40)
    plt.title(col)
    plt.savefig(a.out / f"hist-{col}.png")
    plt.close()
