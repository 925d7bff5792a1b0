"""Shared drawing of every claim's figure: learner styles, ``n_hat`` with intervals, saving.

A learner without an entry in ``STYLE`` gets a style of its own (next colour of the cycle,
its name as label), so adding a learner needs no edit here.
"""

from __future__ import annotations

import zlib
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

STYLE = {
    "ppm": dict(color="C0", marker="o", label="PPM (Alg. 2)"),
    "erm": dict(color="C2", marker="s", label="non-private ERM"),
    "fully_private": dict(color="C3", marker="D", label="fully private EM on the grid"),
    "semi_private": dict(color="C1", marker="v", label="semi-private (public unlabeled)"),
    "semi_private_all": dict(color="C5", marker="^",
                             label="semi-private variant scoring public labels too"),
    "logistic": dict(color="C2", marker="s", label="logistic regression (non-private)"),
    "dp_logistic": dict(color="C3", marker="D", label="DP logistic regression (diffprivlib)"),
    "public_only": dict(color="0.5", marker="x", label="public only"),
}
_MARKERS = "oPX*hp<>d"


def style(learner: str) -> dict:
    """A copy of the learner's style; a stable default (colour, marker) for unknown learners."""
    if learner in STYLE:
        return dict(STYLE[learner])
    h = zlib.crc32(learner.encode())  # stable across runs, unlike hash()
    return dict(color=f"C{6 + h % 4}", marker=_MARKERS[h % len(_MARKERS)], label=learner)


def style_and_label(learner: str, suffix: str = "", **override) -> tuple[dict, str]:
    s = style(learner)
    label = s.pop("label") + suffix
    s.update(override)
    return s, label


def uncensored(sub: pd.DataFrame) -> np.ndarray:
    """Rows whose ``n_hat`` is a point value (an empty 'censored' cell reads back as NaN)."""
    return (sub["censored"].astype("string").fillna("").eq("") & np.isfinite(sub["n_hat"])
            ).to_numpy()


def right_censored(sub: pd.DataFrame) -> np.ndarray:
    return sub["censored"].astype("string").fillna("").eq("right").to_numpy()


def draw_nhat(ax, x, sub: pd.DataFrame, top, style: dict, label: str) -> None:
    """``n_hat`` with its interval at ``x``; right-censored cells as open triangles at ``top``
    (a number, or one value per row of ``sub``: the largest n of that row's own setting).

    Where the Clopper-Pearson upper end ``n_hat_hi`` does not exist (the pessimistic curve
    never reaches ``1 - beta``: too few trials, or the grid ends first) the whisker is open:
    a dotted line from ``n_hat`` to the top of the axis ending in an arrow head, not a
    zero-length whisker that would read as a tight interval.
    """
    x = np.asarray(x, dtype=float)
    ok = uncensored(sub)
    nh = sub["n_hat"].to_numpy(dtype=float)
    lo = np.where(np.isfinite(sub["n_hat_lo"]), sub["n_hat_lo"], nh)
    hi_raw = sub["n_hat_hi"].to_numpy(dtype=float)
    hi = np.where(np.isfinite(hi_raw), hi_raw, nh)
    kw = {k: v for k, v in style.items() if k != "label"}
    ax.errorbar(x[ok], nh[ok], yerr=[(nh - lo)[ok], (hi - nh)[ok]], capsize=3, label=label,
                **kw)
    open_hi = ok & ~np.isfinite(hi_raw)
    for xi, yi in zip(x[open_hi], nh[open_hi]):
        # blended transform: x in data, y in axes fraction (1 = the top of the axis, whatever
        # the limits end up being after every curve is drawn)
        ax.annotate("", xy=(xi, 1.0), xycoords=("data", "axes fraction"), xytext=(xi, yi),
                    textcoords="data", arrowprops=dict(arrowstyle="-|>", ls=":", lw=1,
                                                       color=style.get("color", "k")))
    if open_hi.any():
        ax.plot([], [], ls=":", color=style.get("color", "k"),
                label=f"{label}: upper end open (Clopper-Pearson: too few trials)")
    right = right_censored(sub)
    if right.any():
        tops = np.broadcast_to(np.asarray(top, dtype=float), x.shape)[right]
        text = f"{float(top):g}" if np.ndim(top) == 0 else "largest n"
        ax.scatter(x[right], tops, marker="^", s=60, facecolors="none",
                   edgecolors=style["color"], label=f"{label}: n_hat > {text} (censored)")


def log_axes(ax, ticks=None, xlabel: str = "", ylabel: str = "", base: float = 10) -> None:
    """Log-log axes with a grid; ``ticks``: label exactly these x values."""
    ax.set_xscale("log", base=base)
    ax.set_yscale("log")
    if ticks is not None:
        ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)


def nhat_label(beta: float, what: str = "") -> str:
    return rf"$\hat n(\alpha, \beta={beta:g})$" + what


def legend_below(ax, ncol: int = 2) -> None:
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=ncol,
              frameon=False)


def panels(n: int, width: float = 6.4, height: float = 6.2):
    fig, axes = plt.subplots(1, n, figsize=(width * n, height), squeeze=False)
    return fig, axes[0]


def save(fig, out_dir: Path, name: str, title: str, dpi: int = 120) -> Path:
    """Suptitle, tight layout, ``<out_dir>/<name>.png``; closes the figure."""
    fig.suptitle(title, fontsize=11)
    out = Path(out_dir) / f"{name}.png"
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    fig.savefig(out, dpi=dpi)
    plt.close(fig)
    return out


def error_panel(ax, trials: pd.DataFrame, x_col: str, xlabel: str, learners) -> None:
    """Mean true error with 95% intervals against ``x_col``, one line per (learner, n)
    (solid: the largest n)."""
    from claims.verdicts import mean_ci
    for learner in learners:
        for j, (n, g) in enumerate(sorted(trials[trials.learner == learner].groupby("n"),
                                          reverse=True)):
            stats = g.groupby(x_col)["error"].apply(mean_ci)
            m, lo, hi = (np.array([s[k] for s in stats]) for k in range(3))
            s, label = style_and_label(learner, f", n = {n}")
            ax.errorbar(stats.index.to_numpy(dtype=float), m, yerr=[m - lo, hi - m], capsize=3,
                        label=label, ls="-" if j == 0 else ":", **s)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("true error (mean, 95% interval over trials)")
    ax.grid(True, alpha=0.3)
    legend_below(ax)
