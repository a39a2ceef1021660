import argparse
import sys

import pandas as pd


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--sample", type=int)
    ap.add_argument("--plot")
    args = ap.parse_args()
    reader = pd.read_parquet if args.path.endswith(".parquet") else pd.read_csv
    df = reader(args.path)
    if args.sample and len(df) > args.sample:
        df = df.sample(args.sample, random_state=0)
    summary = pd.DataFrame({"dtype": df.dtypes.astype(str), "nulls": df.isna().mean().round(3),
                            "distinct": df.nunique()})
    print(summary.to_string())
    if args.plot:
        ax = df.select_dtypes("number").boxplot(figsize=(10, 4), rot=45)
        ax.figure.savefig(args.plot, bbox_inches="tight")
    return 0


if __name__ == "__main__":
    sys.exit(main())
