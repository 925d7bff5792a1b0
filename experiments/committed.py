"""The committed results are written only on purpose.

``results/`` of this repository holds the committed results (CSVs, figures, verdict tables);
its scratch roots ``results/local/``, ``results/quick/``, ``results/overrides/``,
``results/cache/`` and ``results/notebook/`` are not committed (.gitignore). A script that writes
files refuses a destination in the committed tree unless it is given ``--overwrite-committed``
(``make reproduce`` and ``make bench`` pass it: regenerating those files is what they are for).

A table that a rerun reproduces is left as it is (:func:`settle`): only its timings and
execution-only settings may differ, so ``make reproduce`` leaves ``git status`` clean.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
COMMITTED = REPO / "results"
SCRATCH_ROOTS = ("local", "quick", "overrides", "cache", "notebook")
FLAG = "--overwrite-committed"


def is_committed(dest: Path) -> bool:
    """Would writing ``dest`` replace committed results (``results/...`` of this repository,
    outside its scratch roots)?"""
    try:
        rel = Path(dest).resolve().relative_to(COMMITTED.resolve())
    except ValueError:
        return False
    return not rel.parts or rel.parts[0] not in SCRATCH_ROOTS


def add_flag(parser) -> None:
    parser.add_argument(FLAG, "--force", dest="overwrite_committed", action="store_true",
                        help="allow writing into the committed results/ (refused without it)")


def refuse_committed(dests, overwrite: bool) -> None:
    """Exit with one line (status 2) if any of ``dests`` is committed and ``overwrite`` is off."""
    committed = [Path(d) for d in dests if is_committed(d)]
    if committed and not overwrite:
        first = committed[0]
        print(f"error: refusing to write {', '.join(map(str, committed))}: committed results "
              f"live there. Write to a scratch root instead (e.g. results/local/{first.name}), "
              f"or pass {FLAG} to replace them on purpose.", file=sys.stderr)
        sys.exit(2)


# -- a rerun that reproduces a table leaves its file alone ---------------------------------------
# A timing (fit_seconds, constrhalf_seconds, cpu_seconds, ...) is a property of the machine and
# its load, and an execution-only setting (how the exact result was computed, e.g.
# learner.max_hypotheses raised since the committed run) changes no result: a table that differs
# from its file only there is the same result, and rewriting it would leave a fresh clone with
# modified tracked files after `make reproduce`.
TIMING_SUFFIX = "_seconds"


def _execution_only_names() -> set[str]:
    """The execution-only parameters of the package's learners (``_execution_params``)."""
    from ppm import PPMHalfspaceLearner
    from ppm.set_cover import SetCoverLearner
    return {p for cls in (PPMHalfspaceLearner, SetCoverLearner)
            for p in getattr(cls, "_execution_params", ())}


def volatile_columns(columns) -> list[str]:
    """The columns of a table that a rerun may change without changing its result: timings
    (``*_seconds``) and the learners' execution-only settings (``learner.<p>``,
    ``baselines.<label>.<p>``)."""
    names = _execution_only_names()
    return [c for c in columns if str(c).endswith(TIMING_SUFFIX)
            or (str(c).startswith(("learner.", "baselines.")) and str(c).rsplit(".", 1)[-1]
                in names)]


def same_result(new: Path, old: Path) -> bool:
    """Whether two CSV files hold the same table up to :func:`volatile_columns` (every other
    cell compared as the text written, so a last-digit change counts)."""
    import pandas as pd
    try:
        a = pd.read_csv(new, dtype=str, keep_default_na=False)
        b = pd.read_csv(old, dtype=str, keep_default_na=False)
    except (OSError, ValueError):
        return False
    a = a.drop(columns=volatile_columns(a.columns))
    b = b.drop(columns=volatile_columns(b.columns))
    return list(a.columns) == list(b.columns) and a.shape == b.shape and a.equals(b)


def settle(new: Path, dest: Path) -> bool:
    """Move the freshly written ``new`` onto ``dest`` unless ``dest`` already holds the same
    result (:func:`same_result`): then ``new`` is deleted and ``dest`` keeps its bytes (its
    committed timings and settings). Returns whether ``dest`` was replaced."""
    new, dest = Path(new), Path(dest)
    if dest.exists() and same_result(new, dest):
        new.unlink()
        return False
    dest.parent.mkdir(parents=True, exist_ok=True)
    os.replace(new, dest)
    return True


def write_csv_settled(df, dest: Path, **to_csv) -> bool:
    """``df`` to ``dest`` (atomically), unless ``dest`` holds the same result (:func:`settle`).
    Returns whether ``dest`` was written."""
    from ppm.files import write_csv_atomic
    dest = Path(dest)
    tmp = dest.with_name(f".{dest.name}.new.tmp")  # *.tmp: ignored by git if left by a kill
    write_csv_atomic(df, tmp, **to_csv)
    return settle(tmp, dest)
