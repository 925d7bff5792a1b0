"""Restore the trial cache of long experiments from their committed ``trials.csv``.

    python -m scripts.restore_cache --from results --cache results/cache c4_dimension_d3 ...
    python -m scripts.restore_cache --forget --cache results/cache   # drop what was restored

A long experiment (``Claim.long``) commits its trials: every row of ``results/<exp>/trials.csv``
carries its ``cell_key`` and ``trial``, which is all the pipeline's cache needs
(``<cache>/<cell_key>/trial_XXXXX.csv``, :mod:`experiments.pipeline`). This script writes one
cache file per (cell, trial) from those rows, so that ``make reproduce`` on a fresh clone
computes only the trials that are missing. A file is written exactly as the pipeline writes
it: the same columns in the same order (the table's, without ``experiment_name``, ``claim`` and
``cell_key``), the rows in the pipeline's order (main learner, then the baselines by name), and
every value as the text of ``trials.csv`` (the table is read as text, so no number is
re-formatted; pandas >= 3 writes and reads floats exactly, so that text is the pipeline's).
A table still in the first column layout is converted first (``scripts/migrate_results.py``).

Trials already in the cache are never overwritten (the pipeline's own win). Every restored file
is listed in ``<cell>/restored.txt``; ``--forget`` deletes exactly those files, which is what
``make reproduce RECOMPUTE=1`` does before it runs: it then computes every trial it did not
compute itself.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import tempfile
from pathlib import Path

import pandas as pd

from experiments import columns
from experiments.pipeline import _trial_path
from scripts.migrate_results import migrate_trials_text

RESTORED = "restored.txt"


def _trial_order(learners, idx: list[int], main: str | None) -> list[int]:
    """The rows of one trial in the pipeline's order: the main learner, then baselines by name
    (a learner listed twice, i.e. a cell listed twice in one sweep, once)."""
    first: dict[str, int] = {}
    for i in idx:
        first.setdefault(learners[i], i)
    return [first[label] for label in sorted(first, key=lambda label: (label != main, label))]


def _main_label(text: pd.DataFrame) -> str | None:
    """The label whose rows carry the ``learner.*`` columns."""
    own = [c for c in text.columns if c.startswith(columns.MAIN)]
    if not own:
        return None
    has = (text[own] != "").any(axis=1)
    labels = text.loc[has, "learner"].unique()
    return str(labels[0]) if len(labels) == 1 else None


def _csv_text(header: list[str], rows) -> str:
    """CSV text as ``DataFrame.to_csv(index=False)`` writes string columns (pandas formats
    through the ``csv`` module with these settings): the same bytes, ~10x faster per file."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def _write_atomic(text: str, path: Path) -> None:
    """``text`` to ``path`` via a temporary file and a rename, as the pipeline writes."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "w", newline="") as fh:
            fh.write(text)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def restore(trials_csv: Path, cache: Path, experiment: str | None = None) -> tuple[int, int]:
    """Write the missing cache files of every trial in ``trials_csv``; (written, already there)."""
    text = pd.read_csv(trials_csv, dtype=str, keep_default_na=False)
    text = migrate_trials_text(text, experiment or trials_csv.parent.name)
    body = [c for c in text.columns if c not in (*columns.HEAD, *columns.TAIL)]
    main = _main_label(text)
    values = text[body].to_numpy(dtype=object)
    learners = text["learner"].to_numpy(dtype=object)
    groups: dict[tuple[str, str], list[int]] = {}
    for i, key in enumerate(zip(text["cell_key"], text["trial"])):
        groups.setdefault(key, []).append(i)
    written = kept = 0
    logs: dict[Path, object] = {}  # one open restored.txt per cell
    try:
        for (key, trial), idx in groups.items():
            cell = cache / key
            path = _trial_path(cell, int(trial))
            if path.exists():
                kept += 1
                continue
            if cell not in logs:
                cell.mkdir(parents=True, exist_ok=True)
                logs[cell] = open(cell / RESTORED, "a")
            # logged before it is written: an interrupted restore never leaves a restored file
            # that --forget (RECOMPUTE=1) would not delete
            logs[cell].write(path.name + "\n")
            logs[cell].flush()
            _write_atomic(_csv_text(body, (values[i] for i in _trial_order(learners, idx, main))),
                          path)
            written += 1
    finally:
        for log in logs.values():
            log.close()
    return written, kept


def forget(cache: Path) -> int:
    """Delete every restored trial file under ``cache``; return how many."""
    gone = 0
    for log in sorted(cache.glob(f"*/{RESTORED}")):
        for name in log.read_text().split():
            path = log.parent / name
            if path.exists():
                path.unlink()
                gone += 1
        log.unlink()
    return gone


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*")
    parser.add_argument("--from", dest="source", type=Path, default=Path("results"),
                        help="results root holding <experiment>/trials.csv (default: results)")
    parser.add_argument("--cache", type=Path, required=True, help="the trial cache to fill")
    parser.add_argument("--forget", action="store_true",
                        help="delete the restored trial files instead")
    args = parser.parse_args(argv)
    if args.forget:
        print(f"restore_cache: forgot {forget(args.cache)} restored trials under {args.cache}")
        return
    for exp in args.experiments:
        path = args.source / exp / "trials.csv"
        if not path.exists():
            print(f"restore_cache: {exp}: no committed {path}; its trials will be computed")
            continue
        written, kept = restore(path, args.cache, exp)
        print(f"restore_cache: {exp}: restored {written} trials from {path} "
              f"({kept} already in {args.cache})", flush=True)


if __name__ == "__main__":
    main()
