from pathlib import Path

import matplotlib.pyplot as plt

STYLE = Path(__file__).resolve().parent.parent / "assets" / "house.mplstyle"
PALETTE = ["#1f4e79", "#e07a1f", "#5b8c5a", "#a23b72", "#6c757d"]


def apply() -> None:
    plt.style.use(STYLE)


def finding_title(ax, finding: str, subtitle: str) -> None:
    ax.set_title(subtitle, loc="left", fontsize=10, color="#555555", pad=18)
    ax.figure.suptitle(finding, x=ax.get_position().x0, ha="left", fontsize=14, fontweight="bold")


def label_line_ends(ax) -> None:
    for line in ax.get_lines():
        x, y = line.get_xdata()[-1], line.get_ydata()[-1]
        ax.annotate(line.get_label(), (x, y), xytext=(4, 0), textcoords="offset points",
                    color=line.get_color(), va="center", fontsize=9)
    if ax.get_legend():
        ax.get_legend().remove()


def source(fig, text: str) -> None:
    fig.text(0.01, 0.01, text, fontsize=8, color="#777777", ha="left")
