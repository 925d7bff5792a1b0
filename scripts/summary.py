"""The verdict table: one row per claim C1-C10 (+ real data), generated from the result CSVs.

    python -m scripts.summary --results results

Reads the per-figure ``<results>/<figure>/summary.csv`` written by ``scripts/plot_c1.py``,
``scripts/figures.py`` and ``scripts/audit.py`` and writes

- ``<results>/summary.csv`` and ``<results>/summary.md``: one row per claim: what the paper says,
  the headline measurement (with its interval), the theory's value, the looseness of the
  explicit bound (``n_theory / n_hat``, median over the measured points), the combined verdict
  over all settings of the claim, and the figure;
- ``<results>/summary_details.md``: every setting (d, alpha, epsilon, relaxation...) of every
  claim, with its own verdict.

Combined verdict over the conclusive settings: "holds" if every one holds; "holds with caveat"
if every one holds or holds with a caveat; otherwise "mixed: k of m conclusive settings hold".
Inconclusive settings (too few uncensored points, e.g. d = 3 beyond the exact mechanism's
reach) are counted in parentheses. The real-data row lists its comparisons. Claims whose
experiment has not been run are listed as "not run".
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

from experiments.pipeline import write_csv_atomic
from scripts.plot_c1 import markdown_table

CLAIMS = {
    "C1": "realizable: n ~ 1/alpha (Thm 4.9)",
    "C2": "agnostic: n ~ max(1/alpha^2, 1/(epsilon alpha)) (Thm 4.10)",
    "C3": "n ~ 1/epsilon while privacy dominates, then the non-private cost",
    "C4": "private cost d^2 log vs non-private d",
    "C5": "only the total n matters, not w_pub",
    "C6": "epsilon-DP w.r.t. the private examples only (Lemma 4.1)",
    "C7": "G holds a rule at least as good as ERM (Lemma 4.5, Helly)",
    "C8": "the construction survives the two relaxations",
    "C9": "fully private learning pays for the domain; PPM does not",
    "C10": "methods built for homogeneous public data fail on a mixture",
    "real data": "breast cancer, benign public / malignant private: PPM vs DP-LR",
}
SOURCES = ["c1_realizable", "c2_agnostic", "c3_epsilon", "c4_dimension", "c5_mixture_weight",
           "c6_privacy", "c7_helly", "c8_relaxations", "c9_domain", "c10_homogeneity",
           "real_breast_cancer"]
# The setting shown in the one-row table (substring of 'setting'); all settings are in details.
HEADLINE = {"C1": r"d=2", "C2": r"epsilon=1,", "C3": r"d=1, w_pub=0.5, alpha=0.05",
            "C4": r"epsilon=10, alpha=0\.3", "C5": r"alpha=0\.02", "C9": r"alpha=0\.1",
            "real data": r"epsilon=1$"}


def _c1_rows(df: pd.DataFrame) -> pd.DataFrame:
    """C1's summary (scripts/plot_c1.py) in the common row format; PPM rows only."""
    df = df[df["learner"] == "ppm"]
    out = []
    for _, r in df.iterrows():
        out.append(dict(
            claim="C1", figure="c1_realizable",
            setting=f"d={int(r['d'])}, w_pub={r['w_pub']:g}, epsilon={r['epsilon']:g}, "
                    f"alphas {r['alphas']}",
            paper="n ~ 1/alpha (Thm 4.9)",
            measured=f"slope of log n_hat vs log(1/alpha) = {r['slope']:.2f} "
                     f"[{r['slope_lo']:.2f}, {r['slope_hi']:.2f}]",
            theory=f"1 (with log factor {r['theory_slope_with_log']:.2f})",
            looseness=r["looseness_median"], verdict=r["verdict"]))
    return pd.DataFrame(out)


def collect(results: Path) -> pd.DataFrame:
    frames = []
    for name in SOURCES:
        path = results / name / "summary.csv"
        if not path.exists():
            continue
        df = pd.read_csv(path)
        frames.append(_c1_rows(df) if name == "c1_realizable" else df)
    if not frames:
        raise SystemExit(f"no */summary.csv under {results}: run make reproduce first")
    return pd.concat(frames, ignore_index=True)


def combined_verdict(verdicts) -> str:
    """One verdict for a claim from the verdicts of its settings (module docstring).

    Inconclusive settings (too few uncensored points) neither confirm nor refute: they are
    counted but do not turn a claim into "mixed".
    """
    v = [str(x) for x in verdicts if not str(x).startswith("reference")]
    if not v:
        return "not run"
    conclusive = [x for x in v if not x.startswith(("inconclusive", "not measured"))]
    rest = len(v) - len(conclusive)
    tail = f" ({rest} of {len(v)} settings inconclusive)" if rest else ""
    if not conclusive:
        return "inconclusive"
    if all(x == "holds" for x in conclusive):
        return "holds" + tail
    if all(x.startswith("holds") for x in conclusive):
        return "holds with caveat" + tail
    k = sum(x.startswith("holds") for x in conclusive)
    return f"mixed: {k} of {len(conclusive)} conclusive settings hold" + tail


def comparison_verdict(rows: pd.DataFrame) -> str:
    """Real data has no theorem: the verdicts are comparisons, listed per setting."""
    parts = []
    for _, r in rows.iterrows():
        eps = re.search(r"epsilon=([0-9.]+)", str(r["setting"]))
        parts.append(f"{r['verdict']} at epsilon {eps.group(1) if eps else '?'}")
    return "; ".join(parts)


def verdict_table(details: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for claim, paper in CLAIMS.items():
        sub = details[details["claim"] == claim]
        if sub.empty:
            rows.append(dict(claim=claim, paper=paper, setting="", measured="not run",
                             looseness=np.nan, verdict="not run", figure=""))
            continue
        own = sub[~sub["verdict"].astype(str).str.startswith("reference")]
        own = own if len(own) else sub
        head = own
        if claim in HEADLINE:
            match = own[own["setting"].astype(str).str.contains(HEADLINE[claim], regex=True)]
            head = match if len(match) else own
        first = head.iloc[0]
        more = len(own) - 1
        loose = pd.to_numeric(own["looseness"], errors="coerce")
        fig = str(first.get("figure", "") or "")
        rows.append(dict(
            claim=claim, paper=paper,
            setting=str(first["setting"]) + (f" (+{more} more in details)" if more else ""),
            measured=str(first["measured"]), theory=str(first.get("theory", "")),
            looseness=float(loose.median()) if loose.notna().any() else np.nan,
            verdict=(comparison_verdict(own) if claim == "real data"
                     else combined_verdict(own["verdict"])),
            figure=f"results/figures/{fig}.png" if fig and fig != "nan" else "",
        ))
    return pd.DataFrame(rows)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=Path("results"))
    args = parser.parse_args(argv)
    details = collect(args.results)
    table = verdict_table(details)
    write_csv_atomic(table, args.results / "summary.csv")
    cols = ["claim", "paper", "measured", "theory", "looseness", "verdict", "figure"]
    (args.results / "summary.md").write_text(markdown_table(table[cols]))
    (args.results / "summary_details.md").write_text(markdown_table(
        details[["claim", "setting", "measured", "theory", "looseness", "verdict"]]))
    print(table[["claim", "verdict"]].to_string(index=False))


if __name__ == "__main__":
    main()
