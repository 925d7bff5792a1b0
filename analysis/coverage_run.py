"""Running the coverage study (``python -m scripts.coverage``; docs/model.md §5.2): data sets
simulated per design and truth, read, summarised into one CSV.

:func:`run_designs` simulates ``datasets`` data sets per design and truth
(:mod:`analysis.coverage`, :mod:`analysis.coverage_designs`), reads each with the grid and the
fitted reading, and writes one row per (design, truth, reading, quantity[, cell])
(:func:`analysis.coverage.summarise`); :func:`run_counted` does the same for the counted
statistics (:mod:`analysis.coverage_counted`, each tail's miss rate:
:mod:`analysis.coverage_tails`). Both rewrite the table after each design (a long run shows
progress) and, with ``merge``, keep the other rows of the existing table as they are.
:func:`check_request` checks the names asked for, one line naming the bad one.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd

from analysis import coverage_counted as cc
from analysis.coverage import DESIGNS, READINGS, TRUTHS, summarise, truth_curves
from analysis.coverage_designs import MORE, record_settings, run_any
from analysis.coverage_tails import label_calibration, summarise_counted

BLOCK = 10  # data sets per joblib task: one truth's curves fitted once per block


def _block(design, truth, indices, n_boot):
    curves = truth_curves(design, truth)
    out = []
    for i in indices:
        # the claim's own function is run beside the recorded bootstrap on one data set in
        # BLOCK (same result or an error): every one would double the cost
        out += run_any(design, truth, i, n_boot, READINGS, curves=curves,
                       verify=(i % BLOCK == 0))
    return out


def _counted_block(design, truth, indices, n_boot):
    curves = cc.counted_truth(design, truth)
    return [r for i in indices for r in cc.run_counted(design, truth, i, n_boot, curves)]


def check_request(designs, counted, truths, out: Path) -> list[str] | None:
    """The designs of ``counted`` (``["all"]``: every one of :data:`cc.COUNTED`), after checking
    every name asked for; ``ValueError`` with one line naming the first bad one."""
    for d in designs:
        if d not in DESIGNS and d not in MORE:
            raise ValueError(f"--designs: unknown design {d!r} (one of "
                             f"{', '.join([*DESIGNS, *MORE])})")
    if counted is not None:
        if counted == ["all"]:
            counted = list(cc.COUNTED)
        for d in counted:
            if d not in cc.COUNTED:
                raise ValueError(f"--counted: unknown design {d!r} (one of "
                                 f"{', '.join(cc.COUNTED)})")
    for t in truths or ():
        known = (*TRUTHS, *cc.TWO_TERM_TRUTHS) if counted else TRUTHS
        if t not in known:
            raise ValueError(f"--truths: unknown truth {t!r} (one of {', '.join(known)})")
        if counted and not all(t in cc.truths_of(d) for d in counted):
            raise ValueError(f"--truths: {t!r} is not a truth of every design of --counted")
    if not Path(out).parent.is_dir():
        raise ValueError(f"--out: no directory {str(Path(out).parent)!r}")
    return counted


def run_designs(designs, truths, datasets: int, n_boot: int, out: Path, n_jobs: int = 1,
                merge: bool = False) -> pd.DataFrame:
    """The coverage rows of ``designs`` (loaded: :func:`analysis.coverage_designs.load_any`)
    under each truth, written to ``out`` after each design; with ``merge`` the rows of ``out``
    of the designs and truths not run kept as they are."""
    from joblib import Parallel, delayed
    out = Path(out)
    start = time.time()
    settings = {k: v for d in designs for k, v in record_settings(d).items()}
    kept = None
    if merge and out.is_file():  # the other designs' rows, as they are
        kept = pd.read_csv(out)
        kept = kept[~(kept["design"].isin(list(settings)) & kept["truth"].isin(truths)
                      & kept["quantity"].isin(["slope", "n_hat"]))]
    records = []
    for design in designs:  # the table is rewritten after each design: a long run shows progress
        tasks = [(t, range(i, min(i + BLOCK, datasets)))
                 for t in truths for i in range(0, datasets, BLOCK)]
        parts = Parallel(n_jobs=n_jobs)(delayed(_block)(design, t, idx, n_boot)
                                        for t, idx in tasks)
        records += [r for p in parts for r in p]
        table = summarise(records).assign(n_boot=n_boot)
        table.insert(1, "setting", table["design"].map(settings))
        if kept is not None:
            table = pd.concat([kept, table], ignore_index=True)
        table.to_csv(out, index=False)
        print(f"{out}: {design.name} done, {time.time() - start:.0f} s", file=sys.stderr)
    print(f"{out}: {len(table)} rows, {datasets} data sets x "
          f"{len(designs)} designs x {len(truths)} truths, n_boot {n_boot}, "
          f"{time.time() - start:.0f} s", file=sys.stderr)
    return table


def run_counted(designs, truths, datasets: int | None, n_boot: int, out: Path,
                n_jobs: int = 1, merge: bool = False) -> pd.DataFrame:
    """The counted statistics of ``designs`` (loaded: :func:`cc.load_counted`), each truth of
    ``truths`` (default: each design's own in its ``PLAN``) with ``datasets`` data sets (default:
    the ``PLAN``'s), written to ``out`` after each design; with ``merge`` only the (design,
    truth, quantity) rows written are replaced."""
    from joblib import Parallel, delayed
    out = Path(out)
    start, records = time.time(), []
    settings = {d.name: d.setting for d in designs}
    for design in designs:
        plan = cc.PLAN[design.name]
        chosen = truths or [t for t in cc.truths_of(design.name) if t in plan]
        sizes = {t: datasets or plan.get(t, 40) for t in chosen}
        tasks = [(t, range(i, min(i + BLOCK, sizes[t])))
                 for t in chosen for i in range(0, sizes[t], BLOCK)]
        parts = Parallel(n_jobs=n_jobs)(delayed(_counted_block)(design, t, idx, n_boot)
                                        for t, idx in tasks)
        records += [r for p in parts for r in p]
        table = summarise_counted(records).assign(n_boot=n_boot)
        table.insert(1, "setting", table["design"].map(settings))
        if merge and out.is_file():
            kept = pd.read_csv(out)
            new = set(zip(table["design"], table["truth"], table["quantity"]))
            mine = [k in new for k in zip(kept["design"], kept["truth"], kept["quantity"])]
            table = pd.concat([kept[~pd.Series(mine, index=kept.index)], table],
                              ignore_index=True)
        table = label_calibration(table)
        table.to_csv(out, index=False)
        print(f"{out}: {design.name} done, {time.time() - start:.0f} s", file=sys.stderr)
    return table
