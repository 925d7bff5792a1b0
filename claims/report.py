"""From results to verdicts: run each claim's analysis and figure, then the verdict table.

``write_claim`` writes ``<results>/<claim.name>/summary.{csv,md}`` (one :class:`VerdictRow`
per setting) and ``<results>/figures/<claim.name>.png``; a claim whose results are not in the
results root is skipped with one line ("C3: not run in this results root"), and
``write_claims`` goes on past a claim whose analysis fails on what the root holds (e.g. a root
made with overrides that leave one value of the swept parameter) with one line for it. In a
quick-profile root (:func:`claims.base.is_smoke`) every verdict reads "smoke run (quick
profile): ..." and every figure carries the banner "quick profile: smoke run, not a verdict". ``verdict_table`` joins the rows of every claim into one row per
claim: the headline setting (``Claim.headline``), the median looseness and the combined verdict
(:func:`claims.verdicts.combined_verdict`: "inconclusive" unless most settings are conclusive,
with the counts); a claim without a theorem lists the measurement and comparison of every
setting.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from claims import plotting
from claims.base import (SMOKE_NOTE, SMOKE_PREFIX, Claim, ResultStore, VerdictRow, is_smoke,
                         rows_frame)
from claims.registry import CLAIMS
from claims.verdicts import (CSV_FLOAT_FORMAT, combined_verdict, comparison_verdict,
                             counted, markdown_table)
from ppm.files import write_csv_atomic

DETAIL_COLUMNS = ["claim", "setting", "measured", "theory", "looseness", "verdict"]
TABLE_COLUMNS = ["claim", "paper", "measured", "theory", "looseness", "verdict", "figure"]
NOT_RUN = "not run in this results root"


def write_csv(df: pd.DataFrame, path: Path) -> None:
    """Atomic CSV with floats rounded to 10 significant digits (byte-stable reruns)."""
    write_csv_atomic(df, path, float_format=CSV_FLOAT_FORMAT)


def _missing(claim: Claim) -> str:
    if claim.needs:
        return f"needs {', '.join(claim.needs)}: make audit"
    return f"needs {' or '.join(claim.experiments)}"


def smoke_verdict(verdict: str) -> str:
    return verdict if str(verdict).startswith(SMOKE_PREFIX) else SMOKE_PREFIX + str(verdict)


def write_claim(claim: Claim, results: ResultStore) -> list[VerdictRow] | None:
    if not claim.available(results):
        print(f"{claim.id}: {NOT_RUN} ({results.root}; {_missing(claim)}); skipped")
        return None
    rows = claim.analyse(results)
    if not rows:
        print(f"{claim.id}: nothing to analyse in this results root ({results.root}); skipped")
        return None
    df = rows_frame(rows)
    write_csv(df, results.root / claim.name / "summary.csv")
    shown = df[["setting", "measured", "theory", "verdict"]]
    note = ""
    if results.smoke:
        shown = shown.assign(verdict=shown["verdict"].map(smoke_verdict))
        note = f"**{SMOKE_NOTE}**\n\n"
    (results.root / claim.name / "summary.md").write_text(note + markdown_table(shown))
    if claim.plot is not None:
        with plotting.banner(plotting.SMOKE_BANNER if results.smoke else None):
            claim.plot(results, rows, results.root / "figures")
    return rows


def forget_claim(claim: Claim, root: Path) -> None:
    """Remove a claim's summary and figure from ``root`` (its analysis failed there: what was
    written before no longer matches the root's results)."""
    for path in (root / claim.name / "summary.csv", root / claim.name / "summary.md",
                 root / "figures" / f"{claim.name}.png"):
        path.unlink(missing_ok=True)


def write_claims(claims, results: ResultStore) -> tuple[dict, dict]:
    """:func:`write_claim` for every claim; a claim whose analysis or figure fails is reported
    in one line and the others still run. Returns ``(rows by claim id, error by claim id)``."""
    done, failed = {}, {}
    for claim in claims:
        try:
            rows = write_claim(claim, results)
        except Exception as exc:  # noqa: BLE001  reported, and the caller decides the status
            first_line = (str(exc).strip().splitlines() or [""])[0]
            failed[claim.id] = f"{type(exc).__name__}: {first_line}"
            forget_claim(claim, results.root)
            print(f"{claim.id}: cannot be analysed from this results root ({results.root}): "
                  f"{failed[claim.id]} (in a root made with ARGS, an override can fix a parameter "
                  f"the claim compares across values, e.g. learner.epsilon for C3)")
            continue
        if rows:
            done[claim.id] = rows
    return done, failed


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


def verdict_table(details: pd.DataFrame, claims=CLAIMS,
                  figures: str = "results/figures") -> pd.DataFrame:
    """One row per claim (``figures``: the directory the figure column points into)."""
    rows = []
    by_claim = dict(list(details.groupby("claim", sort=False)))
    for claim in claims:
        sub = by_claim.get(claim.id, details.iloc[:0])
        if sub.empty:
            rows.append(dict(claim=claim.id, paper=claim.statement, setting="",
                             measured=NOT_RUN, looseness=np.nan, verdict=NOT_RUN, figure=""))
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
            figure=f"{figures}/{fig}.png" if fig and fig != "nan" else "",
        ))
    return pd.DataFrame(rows)


def write_table(root: Path) -> pd.DataFrame:
    """The verdict table of ``root``; in a quick-profile root every verdict reads "smoke run
    (quick profile): ..." and both markdown files open with a line saying what that means."""
    details = collect(root)
    table = verdict_table(details, figures=(Path(root) / "figures").as_posix())
    note = ""
    if is_smoke(root):
        ran = table["verdict"] != NOT_RUN
        table.loc[ran, "verdict"] = table.loc[ran, "verdict"].map(smoke_verdict)
        details = details.assign(verdict=details["verdict"].map(smoke_verdict))
        note = f"**{SMOKE_NOTE}**\n\n"
    write_csv(table, root / "summary.csv")
    (root / "summary.md").write_text(note + markdown_table(table[TABLE_COLUMNS]))
    (root / "summary_details.md").write_text(note + markdown_table(details[DETAIL_COLUMNS]))
    return table
