"""From results to verdicts: run each claim's analysis and figure, then the verdict table.

``write_claim`` writes ``<results>/<claim.name>/summary.{csv,md}`` (one :class:`VerdictRow`
per setting) and ``<results>/figures/<claim.name>.png``; a claim whose results are not in the
results root is skipped with one line ("C3: not run in this results root"), and
``write_claims`` goes on past a claim whose analysis fails on what the root holds (e.g. a root
made with overrides that leave one value of the swept parameter) with one line for it. In a
quick-profile root (:func:`claims.base.is_smoke`) every verdict reads "smoke run (quick
profile): ..." and every figure carries the banner "quick profile: smoke run, not a verdict". ``verdict_table`` joins the rows of every claim into one row per
claim: the headline setting (``Claim.headline``), the median looseness and the combined verdict
(:func:`claims.rules.verdicts.combined_verdict`: "inconclusive" unless most settings are conclusive,
with the counts); a claim without a theorem lists the measurement and comparison of every
setting.

Audits and checks are not evidence (:mod:`claims.rules.accounting`): the verdict table's ``kind``
column says what a claim's verdict rests on ("statistical", "comparison", "audit" for a claim
made of exact audits only, C6 and C7, whose verdict reads "exact audit: passes (N instances)"),
and ``audits`` lists the claim's audits and checks. ``summary.md`` shows the statistical table
(claims of kind "audit" left out) and then a section "Audits and checks" with every audit and
check row of every claim (:func:`audit_rows`: exact audits, statistical privacy audits,
built-in checks, recognised by their verdict's prefix or ``extra = "privacy audit"``).
"""

from __future__ import annotations

import itertools
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from analysis.aggregate import execution_only, fmt_value
from analysis.dose_response import READINGS, use_reading

from claims.reporting import plotting
from claims.rules.accounting import audit_count, claim_verdict, one_per_trial_set, row_kind
from claims.base import (SMOKE_NOTE, SMOKE_PREFIX, Claim, ResultStore, VerdictRow, is_smoke,
                         rows_frame, trial_set)
from claims.registry import CLAIMS
from claims.reporting.terminal import deciding_number, verdict_word
from claims.rules.verdicts import CSV_FLOAT_FORMAT, comparison_verdict, counted, markdown_table
from experiments import columns
from ppm.files import write_csv_atomic, zero_float_noise

DETAIL_COLUMNS = ["claim", "setting", "statistic", "trials", "measured", "theory", "looseness",
                  "verdict"]
AUDIT_COLUMNS = ["claim", "setting", "verdict"]
AUDIT_HEADING = "## Audits and checks"
AUDIT_NOTE = ("Exact audits of proven lemmas, statistical privacy audits and built-in checks: "
              "each can fail only through a bug (or, for a statistical audit, by chance at its "
              "stated level), so none is evidence for a claim and none is counted above; a "
              "failed one is loud (\"exact audit: FAILS\", \"check: FAILED\", and the claim's "
              "verdict starts with \"AUDIT FAILED\" or \"CHECK FAILED\").")
STAT_NOTE = ("The statistical verdict table: only rows that read noisy data are counted here "
             "(audits and checks are in the section below).")
# the verdict of a setting that this design cannot decide at its size (shown, not counted)
CANNOT_CONCLUDE = "cannot conclude at this size"
NOT_RUN = "not run in this results root"
CANNOT = "cannot be analysed in this results root"
# <root>/<claim>/UNANALYSABLE: the claim's analysis failed on what the root holds (the reason);
# the verdict table says so instead of "not run".
UNANALYSABLE = "UNANALYSABLE"
EXPERIMENT_CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "experiment"


def write_csv(df: pd.DataFrame, path: Path) -> None:
    """Atomic CSV with floats rounded to 10 significant digits and float noise below 1e-12
    set to 0 (byte-stable reruns)."""
    write_csv_atomic(zero_float_noise(df), path, float_format=CSV_FLOAT_FORMAT)


def _missing(claim: Claim) -> str:
    if claim.needs:
        return f"needs {', '.join(claim.needs)}: make audit"
    return f"needs {' or '.join(claim.experiments)}"


def smoke_verdict(verdict: str) -> str:
    return verdict if str(verdict).startswith(SMOKE_PREFIX) else SMOKE_PREFIX + str(verdict)


def _swept_keys(experiment: str) -> set[str]:
    """The keys an experiment's own configs sweep (``hydra.sweeper.params`` of
    ``configs/experiment/<exp>.yaml`` and of its ``_quick`` twin)."""
    keys: set[str] = set()
    for name in (experiment, experiment + "_quick"):
        path = EXPERIMENT_CONFIGS / f"{name}.yaml"
        if path.is_file():
            params = (yaml.safe_load(path.read_text()) or {}).get("hydra", {}) or {}
            keys |= set(((params.get("sweeper") or {}).get("params") or {}).keys())
    return keys


def override_series(claim: Claim, results: ResultStore) -> dict[str, list]:
    """The config columns that take several values in the claim's tables although no config of
    its experiments sweeps them: a sweep override (``ARGS="learner.epsilon=0.5,2"``) made them
    vary. ``{column: sorted values}``; empty on a root made without such an override."""
    found: dict[str, set] = {}
    for exp in claim.experiments:
        data = results.load(exp)
        if data is None:
            continue
        trials, _ = data
        # a column that follows a swept one (C11's learner.k = ${population.k}) is not a series
        by = [c for c in _swept_keys(exp) if c in trials.columns] + ["n"]
        for col in trials.columns:
            if not col.startswith((columns.MAIN, columns.POPULATION)) or col in by:
                continue
            rows = trials.dropna(subset=[col])
            if rows.empty or rows[col].nunique() < 2 or execution_only(rows, col):
                continue
            if rows.groupby(by, dropna=False)[col].nunique().max() > 1:
                found.setdefault(col, set()).update(rows[col].unique().tolist())
    return {col: sorted(v) for col, v in sorted(found.items())}


def _linked(col: str, table: pd.DataFrame) -> list[str]:
    """The baselines' columns of the same parameter that vary too (C9's fully private learner
    takes ``epsilon: ${learner.epsilon}``): filtered with ``col``, so each series holds the
    baseline at its own value."""
    if col not in table:
        return []
    param = col.rsplit(".", 1)[1]
    return [c for c in table.columns if c.startswith(columns.BASELINES) and c.endswith("." + param)
            and table[c].dropna().nunique() > 1]


def _series_stores(claim: Claim, results: ResultStore, series: dict[str, list]):
    """(label, file suffix, store holding that value of every series column) per combination;
    rows without the column (a baseline has no ``learner.*`` value) are in every store."""
    for combo in itertools.product(*series.values()):
        label = ", ".join(f"{col} = {fmt_value(v)}" for col, v in zip(series, combo))
        suffix = "__" + "_".join(f"{col.rsplit('.', 1)[1]}{fmt_value(v)}"
                                 for col, v in zip(series, combo))
        store = ResultStore(results.root, n_boot=results.n_boot)
        for exp, rd in itertools.product(claim.experiments, READINGS):
            with use_reading(rd):
                data = results.load(exp)
            if data is None:
                store._cache[(exp, rd)] = None
                continue
            tables = []
            for table in data:
                keep = np.ones(len(table), dtype=bool)
                for col, v in zip(series, combo):
                    for c in ([col, *_linked(col, table)] if col in table else []):
                        keep &= (table[c].isna() | (table[c] == v)).to_numpy()
                tables.append(table[keep].reset_index(drop=True))
            store._cache[(exp, rd)] = tuple(tables)
        yield label, suffix, store


def analyse(claim: Claim, results: ResultStore) -> list[VerdictRow]:
    """The claim's rows with the counted (fitted) reading of n_hat, each carrying the same
    row's statistic and verdict under the grid reading (``grid_*``: the reference; matched by
    claim, setting and extra)."""
    rows = one_per_trial_set(claim.analyse(results))
    with use_reading("grid"):
        grid = {(r.claim, r.setting, r.extra): r
                for r in one_per_trial_set(claim.analyse(results))}
    for r in rows:
        g = grid.get((r.claim, r.setting, r.extra))
        if g is not None:
            r.grid_slope, r.grid_lo, r.grid_hi, r.grid_verdict = (g.slope, g.slope_lo,
                                                                  g.slope_hi, g.verdict)
    return rows


def write_claim(claim: Claim, results: ResultStore) -> list[VerdictRow] | None:
    if not claim.available(results):
        print(f"{claim.id}: {NOT_RUN} ({results.root}; {_missing(claim)}); skipped")
        return None
    (results.root / claim.name / UNANALYSABLE).unlink(missing_ok=True)
    series = override_series(claim, results)
    if series:
        return _write_series(claim, results, series)
    rows = analyse(claim, results)
    if not rows:
        print(f"{claim.id}: nothing to analyse in this results root ({results.root}); skipped")
        return None
    _write_summary(claim, results, rows)
    if claim.plot is not None:
        with plotting.banner(plotting.SMOKE_BANNER if results.smoke else None):
            claim.plot(results, rows, results.root / "figures")
    return rows


def grid_text(row: VerdictRow) -> str:
    """The row's statistic under the grid reading, "" where it has none or it is the same."""
    if not np.isfinite(row.grid_slope):
        return ""
    same = (np.isclose(row.grid_slope, row.slope, rtol=0, atol=1e-12)
            and np.isclose(row.grid_lo, row.slope_lo, rtol=0, atol=1e-12, equal_nan=True)
            and np.isclose(row.grid_hi, row.slope_hi, rtol=0, atol=1e-12, equal_nan=True))
    if same:
        return "same"
    return (f"{row.grid_slope:.3g} [{row.grid_lo:.3g}, {row.grid_hi:.3g}]: "
            f"{row.grid_verdict.split(' (')[0]}")


def _write_summary(claim: Claim, results: ResultStore, rows: list[VerdictRow]) -> None:
    """The claim's ``summary.csv`` (every column) and ``summary.md`` (setting, measured,
    theory, verdict; a smoke run's verdicts marked as such)."""
    df = rows_frame(rows)
    write_csv(df, results.root / claim.name / "summary.csv")
    shown = df[["setting", "statistic", "trials", "measured", "theory", "verdict"]].assign(
        **{"grid reading (reference)": [grid_text(r) for r in rows]})
    note = ""
    if results.smoke:
        shown = shown.assign(verdict=shown["verdict"].map(smoke_verdict))
        note = f"**{SMOKE_NOTE}**\n\n"
    (results.root / claim.name / "summary.md").write_text(note + markdown_table(shown))


def _write_series(claim: Claim, results: ResultStore, series: dict) -> list[VerdictRow] | None:
    """A claim whose tables hold several values of a parameter that an override swept: one
    analysis per value (each verdict row's setting names it), one figure per value
    (``figures/<claim>__<param><value>.png``, its title naming the value and every value the
    root holds)."""
    holds = "; ".join(f"{col} = {', '.join(fmt_value(v) for v in vals)}"
                      for col, vals in series.items())
    print(f"{claim.id}: this results root holds {holds} (an override swept it): one series "
          f"per value")
    all_rows = []
    for label, suffix, store in _series_stores(claim, results, series):
        rows = analyse(claim, store)
        for r in rows:
            r.setting = f"{r.setting} [{label}]"
            r.extra = f"{r.extra}; {label}" if r.extra else label
            if r.figure:
                r.figure = r.figure + suffix
        all_rows += rows
        if claim.plot is not None and rows:
            with plotting.banner(plotting.SMOKE_BANNER if results.smoke else None), \
                    plotting.variant(suffix, f"series {label} (this root holds {holds})"):
                claim.plot(store, rows, results.root / "figures")
    if not all_rows:
        return None
    _write_summary(claim, results, all_rows)
    return all_rows


def forget_claim(claim: Claim, root: Path) -> None:
    """Remove a claim's summary and figure from ``root`` (its analysis failed there: what was
    written before no longer matches the root's results)."""
    for path in (root / claim.name / "summary.csv", root / claim.name / "summary.md",
                 root / "figures" / f"{claim.name}.png",
                 *(root / "figures").glob(f"{claim.name}__*.png")):
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
            marker = results.root / claim.name / UNANALYSABLE
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(failed[claim.id] + "\n")
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
    out = pd.concat(frames, ignore_index=True)
    for col in ("statistic", "trials"):  # a summary written before provenance was recorded
        out[col] = out[col].astype(object).fillna("") if col in out else ""
    return out


def _headline(own: pd.DataFrame, headline: dict) -> pd.Series:
    match = own
    for col, value in headline.items():
        if col not in match:  # a setting column this claim's rows do not carry
            continue
        match = match[np.isclose(pd.to_numeric(match[col], errors="coerce"), value)]
    return (match if len(match) else own).iloc[0]


def verdict_table(details: pd.DataFrame, claims=CLAIMS,
                  figures: str = "results/figures", unanalysable: dict | None = None
                  ) -> pd.DataFrame:
    """One row per claim (``figures``: the directory the figure column points into;
    ``unanalysable``: claim id -> why its analysis failed on this root, for claims without
    rows: "cannot be analysed in this results root" rather than "not run")."""
    rows = []
    by_claim = dict(list(details.groupby("claim", sort=False)))
    for claim in claims:
        sub = by_claim.get(claim.id, details.iloc[:0])
        if sub.empty:
            why = (unanalysable or {}).get(claim.id)
            verdict = f"{CANNOT} ({why})" if why else NOT_RUN
            rows.append(dict(claim=claim.id, paper=claim.statement, setting="",
                             measured=CANNOT if why else NOT_RUN, looseness=np.nan,
                             verdict=verdict, figure="", kind="not run", audits="",
                             statistic="", trials=""))
            continue
        extras = sub["extra"].fillna("").astype(str) if "extra" in sub else [""] * len(sub)
        kinds = [row_kind(v, e) for v, e in zip(sub["verdict"], extras)]
        combined, kind = claim_verdict(sub["verdict"], extras)
        is_stat = np.array([k == "statistical" for k in kinds], dtype=bool)
        is_audit = np.array([k in ("audit", "check") for k in kinds], dtype=bool)
        own = sub[is_stat & sub["verdict"].map(counted).to_numpy(dtype=bool)]
        own = own if len(own) else (sub[is_audit] if is_audit.any() else sub)
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
            verdict=(combined if claim.has_theorem else _comparison(own, sub)),
            figure=f"{figures}/{fig}.png" if fig and fig != "nan" else "",
            kind=kind if claim.has_theorem else "comparison",
            audits="; ".join(f"{k}: {audit_count(v) or v}" if k == "audit" else str(v)
                             for v, k in zip(sub["verdict"], kinds) if k in ("audit", "check")),
            # provenance of what the verdict counts: its statistics and the trials they read
            statistic="; ".join(dict.fromkeys(_texts(own, "statistic"))),
            trials=trial_set(*[p for t in _texts(own, "trials") for p in t.split(";")]),
        ))
    return pd.DataFrame(rows)


def _texts(rows: pd.DataFrame, col: str) -> list[str]:
    """The non-empty texts of a column (absent in a summary written before it existed)."""
    if col not in rows:
        return []
    return [str(v) for v in rows[col] if isinstance(v, str) and v.strip()]


def _comparison(own: pd.DataFrame, sub: pd.DataFrame) -> str:
    """A comparison claim's verdict (:func:`claims.rules.verdicts.comparison_verdict` of its counted
    settings) and the settings that cannot conclude at this size (shown, not counted)."""
    text = comparison_verdict(own[own["verdict"].map(counted)])
    verdicts = sub["verdict"].astype(str)
    short = sub[verdicts.str.contains(CANNOT_CONCLUDE, regex=False)
                & ~verdicts.str.startswith("reference")]  # a reference's words stay its own
    if len(short) and "epsilon" in short and short["epsilon"].notna().any():
        eps = ", ".join(f"{e:g}" for e in short["epsilon"].dropna())
        text = (text + "; " if text else "") + f"{CANNOT_CONCLUDE} at epsilon {eps} (not counted)"
    return text


def audit_rows(details: pd.DataFrame) -> pd.DataFrame:
    """Every audit and built-in check of every claim (:func:`claims.rules.accounting.row_kind`): the
    rows of the "Audits and checks" section of ``summary.md``, never of the statistical table."""
    extras = (details["extra"].fillna("").astype(str) if "extra" in details
              else pd.Series([""] * len(details), index=details.index))
    kinds = [row_kind(v, e) for v, e in zip(details["verdict"], extras)]
    out = details.assign(kind=kinds)
    return out[out["kind"].isin(["audit", "check"])].reset_index(drop=True)


# summary.md fits a page (every line <= PAGE_WIDTH): claim, verdict, the deciding number and
# links; a cell longer than its width is cut and ends in a pointer to summary_details.md, which
# (like summary.csv and the claim pages) keeps every word.
MD_WIDTHS = {"verdict": 52, "deciding number": 28,
             "setting": 40}  # setting: a column of the audits' table only
PAGE_WIDTH = 120
MORE = " …¹"
MORE_NOTE = "¹ cut here; every word is in summary_details.md (and summary.csv)."


def cut(text, width: int) -> str:
    """``text`` in at most ``width`` characters, ending in :data:`MORE` if it was cut."""
    text = str(text)
    if len(text) <= width:
        return text
    return text[:max(0, width - len(MORE))].rstrip() + MORE


def wrap(text: str, width: int = PAGE_WIDTH - 20) -> str:
    """A markdown paragraph in lines of at most ``width`` characters (same rendering)."""
    return textwrap.fill(text, width=width, break_long_words=False, break_on_hyphens=False)


def page_table(stat: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """The statistical verdict table as ``summary.md`` shows it: ``[C1]`` (a reference link to
    the claim's page), the verdict, the deciding number (the headline row's measurement),
    and the reference definitions and figure links that go under it."""
    names = {c.id: c.name for c in CLAIMS}
    claims, refs, figs = [], [], []
    for r in stat.itertuples():
        name = names.get(r.claim, "")
        if name and r.kind != "not run":
            claims.append(f"[{r.claim}]")
            refs.append(f"[{r.claim}]: {name}/summary.md")
        else:
            claims.append(str(r.claim))
        fig = str(r.figure or "")
        if fig and fig != "nan":
            figs.append(f"[{r.claim}](figures/{Path(fig).name})")
    # the digest's words (claims.reporting.terminal): the verdict without its long explanations, the
    # headline estimate with its interval; every word stays in summary_details.md
    shown = pd.DataFrame({"claim": claims,
                          "verdict": [verdict_word(v) for v in stat["verdict"]],
                          "deciding number": [deciding_number(m) for m in stat["measured"]]})
    under = "\n".join(refs)
    if figs:
        under = wrap("Figures: " + " · ".join(figs)) + "\n\n" + under
    return shown, under + "\n"


def readable(table: pd.DataFrame) -> pd.DataFrame:
    """The verdict table with its long text cells cut (:data:`MD_WIDTHS`)."""
    out = table.copy()
    for col, width in MD_WIDTHS.items():
        if col in out:
            out[col] = out[col].map(lambda v, w=width: v if not isinstance(v, str) else cut(v, w))
    return out


def unanalysable_claims(root: Path, claims=CLAIMS) -> dict:
    """claim id -> why its analysis failed on ``root`` (``<root>/<claim>/UNANALYSABLE``)."""
    out = {}
    for c in claims:
        path = Path(root) / c.name / UNANALYSABLE
        if path.is_file():
            out[c.id] = path.read_text().strip()
    return out


def write_table(root: Path) -> pd.DataFrame:
    """The verdict table of ``root``; in a quick-profile root every verdict reads "smoke run
    (quick profile): ..." and both markdown files open with a line saying what that means."""
    details = collect(root)
    table = verdict_table(details, figures=(Path(root) / "figures").as_posix(),
                          unanalysable=unanalysable_claims(root))
    note = ""
    if is_smoke(root):
        ran = ~table["verdict"].str.startswith((NOT_RUN, CANNOT))
        table.loc[ran, "verdict"] = table.loc[ran, "verdict"].map(smoke_verdict)
        details = details.assign(verdict=details["verdict"].map(smoke_verdict))
        note = f"**{SMOKE_NOTE}**\n\n"
    write_csv(table, root / "summary.csv")
    stat = table[table["kind"] != "audit"]
    full, under = page_table(stat)
    shown = readable(full)
    audits = audit_rows(details)
    shown_audits = readable(audits[AUDIT_COLUMNS]) if len(audits) else audits
    cut_any = (not shown.equals(full)
               or (len(audits) and not shown_audits.equals(audits[AUDIT_COLUMNS])))
    section = ""
    if len(audits):
        section = (f"\n{AUDIT_HEADING}\n\n{wrap(AUDIT_NOTE)}\n\n"
                   + markdown_table(shown_audits))
    (root / "summary.md").write_text(wrap(note.strip()) + ("\n\n" if note else "")
                                     + wrap(STAT_NOTE) + "\n\n" + markdown_table(shown)
                                     + "\n" + under + section
                                     + (f"\n{MORE_NOTE}\n" if cut_any else ""))
    (root / "summary_details.md").write_text(note + markdown_table(details[DETAIL_COLUMNS]))
    return table
