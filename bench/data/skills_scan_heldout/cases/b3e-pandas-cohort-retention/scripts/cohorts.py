import argparse

import matplotlib.pyplot as plt
import pandas as pd


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("path")
    ap.add_argument("--customer", required=True)
    ap.add_argument("--date", required=True)
    ap.add_argument("--out", default="retention")
    a = ap.parse_args()

    df = pd.read_csv(a.path, usecols=[a.customer, a.date])
    df[a.date] = pd.to_datetime(df[a.date], errors="coerce", utc=True)
    bad = df[a.date].isna().sum()
    if bad:
        print(f"warning: {bad} rows with unparseable dates were excluded")
    df = df.dropna(subset=[a.date])

    df["month"] = df[a.date].dt.tz_localize(None).dt.to_period("M")
    df["cohort"] = df.groupby(a.customer)["month"].transform("min")
    df["age"] = (df["month"] - df["cohort"]).apply(lambda d: d.n)

    counts = df.groupby(["cohort", "age"])[a.customer].nunique().unstack(fill_value=0)
    sizes = counts[0]
    retention = counts.divide(sizes, axis=0).round(3)
    retention.insert(0, "cohort_size", sizes)
    retention.to_csv(f"{a.out}.csv")

    fig, ax = plt.subplots(figsize=(12, 0.4 * len(retention) + 2))
    im = ax.imshow(retention.drop(columns="cohort_size").values, cmap="Blues", vmin=0, vmax=1, aspect="auto")
    ax.set_yticks(range(len(retention)), [f"{c} (n={n})" for c, n in sizes.items()])
    ax.set_xlabel("months since first purchase")
    fig.colorbar(im, ax=ax, label="share retained")
    fig.savefig(f"{a.out}.png", bbox_inches="tight", dpi=150)
    print(retention.head(12).to_string())


if __name__ == "__main__":
    main()
