"""From results to verdicts: run each claim's analysis and figure, then the verdict table.

``write_claim`` writes ``<results>/<claim.name>/summary.{csv,md}`` (one :class:`VerdictRow`
per setting) and ``<results>/figures/<claim.name>.png``; a claim whose results are missing is
skipped with a one-line notice. ``verdict_table`` joins the rows of every claim into one row per
claim: the headline setting (``Claim.headline``), the median looseness and the combined verdict
(:func:`claims.verdicts.combined_verdict`: "inconclusive" unless most settings are conclusive,
with the counts); a claim without a theorem lists the measurement and comparison of every
setting.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from claims.base import Claim, ResultStore, VerdictRow, rows_frame
from claims.registry import CLAIMS
from claims.verdicts import (CSV_FLOAT_FORMAT, combined_verdict, comparison_verdict,
                             counted, markdown_table)
from ppm.files import write_csv_atomic

DETAIL_COLUMNS = ["claim", "setting", "measured", "theory", "looseness", "verdict"]
TABLE_COLUMNS = ["claim", "paper", "measured", "theory", "looseness", "verdict", "figure"]


def write_csv(df: pd.DataFrame, path: Path) -> None:
    """Atomic CSV with floats rounded to 10 significant digits (byte-stable reruns)."""
    write_csv_atomic(df, path, float_format=CSV_FLOAT_FORMAT)


def write_claim(claim: Claim, results: ResultStore) -> list[VerdictRow] | None:
    if not claim.available(results):
        print(f"{claim.id} ({claim.name}): no results under {results.root} "
              f"(run {' '.join(claim.experiments) or 'make audit'} first); skipped")
        return None
    rows = claim.analyse(results)
    if not rows:
        print(f"{claim.id} ({claim.name}): nothing to analyse under {results.root}; skipped")
        return None
    df = rows_frame(rows)
    write_csv(df, results.root / claim.name / "summary.csv")
    (results.root / claim.name / "summary.md").write_text(
        markdown_table(df[["setting", "measured", "theory", "verdict"]]))
    if claim.plot is not None:
        claim.plot(results, rows, results.root / "figures")
    return rows


def collect(root: Path, claims=CLAIMS) -> pd.DataFrame:
    """Every claim's rows from its ``summary.csv`` (claims not run are absent)."""
    frames = [pd.read_csv(root / c.name / "summary.csv") for c in claims
              if (root / c.name / "summary.csv").exists()]
    if not frames:
        raise SystemExit(f"no */summary.csv under {root}: run make reproduce first")
    return pd.concat(frames, ignore_index=True)


def _headline(own: pd.DataFrame, headline: dict) -> pd.Series:
    match = own
    for col, value in headline.items():
        if col not in match:  # a setting column this claim's rows do not carry
            continue
        match = match[np.isclose(pd.to_numeric(match[col], errors="coerce"), value)]
    return (match if len(match) else own).iloc[0]


def verdict_table(details: pd.DataFrame, claims=CLAIMS) -> pd.DataFrame:
    rows = []
    by_claim = dict(list(details.groupby("claim", sort=False)))
    for claim in claims:
        sub = by_claim.get(claim.id, details.iloc[:0])
        if sub.empty:
            rows.append(dict(claim=claim.id, paper=claim.statement, setting="",
                             measured="not run", looseness=np.nan, verdict="not run", figure=""))
            continue
        own = sub[sub["verdict"].map(counted)]
        own = own if len(own) else sub
        head = _headline(own, claim.headline)
        more = len(own) - 1
        loose = pd.to_numeric(own["looseness"], errors="coerce")
        fig = str(head.get("figure", "") or "")
        rows.append(dict(
            claim=claim.id, paper=claim.statement,
            setting=str(head["setting"]) + (f" (+{more} more in details)" if more else ""),
            # a comparison claim (no theorem) shows every setting, e.g. all five epsilons
            measured=(str(head["measured"]) if claim.has_theorem
                      else "; ".join(own["measured"].astype(str))),
            theory=str(head.get("theory", "")),
            looseness=float(loose.median()) if loose.notna().any() else np.nan,
            verdict=(combined_verdict(own["verdict"]) if claim.has_theorem
                     else comparison_verdict(own)),
            figure=f"results/figures/{fig}.png" if fig and fig != "nan" else "",
        ))
    return pd.DataFrame(rows)


def write_table(root: Path) -> pd.DataFrame:
    details = collect(root)
    table = verdict_table(details)
    write_csv(table, root / "summary.csv")
    (root / "summary.md").write_text(markdown_table(table[TABLE_COLUMNS]))
    (root / "summary_details.md").write_text(markdown_table(details[DETAIL_COLUMNS]))
    return table
