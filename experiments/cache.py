"""The trial cache: one SQLite store per cell, one row per finished trial, so an interrupted
sweep loses nothing.

``<results_root>/cache/<cell key>/trials.sqlite`` (next to the cell's ``config.json``) holds
the table ``trials(trial, csv, restored, written)``: ``csv`` is the text of one trial (one row
per learner) exactly as ``DataFrame.to_csv(index=False)`` writes the table
:func:`experiments.pipeline.run_trial` made, so every number reads back byte for byte;
``restored`` marks a trial restored from committed results (:func:`restore`); ``written`` is
when it was stored (Unix seconds: what a Ctrl-C or a rerun counts as "this run's"). The cell
key is :func:`experiments.seeding.cell_key`.

One file per cell, the standard library's ``sqlite3``: each trial is stored in a transaction of
its own (``INSERT OR IGNORE``: a stored trial is never overwritten), so a reader, a resumed
sweep or a killed worker sees a whole trial or none. The trial workers of a cell (joblib/loky
processes) write into the same store, each with a connection of its own per call and a busy
timeout of :data:`BUSY_TIMEOUT_S`; the store uses SQLite's write-ahead log where the file
system allows it (its rollback journal otherwise). One cell is one job of a sweep (one task of
a SLURM array), so no two jobs, hence no two machines, share a store.

A cell directory of the former layout (one ``trial_XXXXX.csv`` per trial, the restored ones
listed in ``restored.txt``) is migrated the first time it is opened: every file's text goes
into the store (those listed as restored marked so), then the files are deleted.

Long experiments commit their trials (``results/<exp>/trials.csv``): every row carries its
``cell_key`` and ``trial``, which is all this cache needs. :func:`restore` stores every missing
(cell, trial) from those rows, so that ``make reproduce`` on a fresh clone computes only the
trials that are missing. A trial is stored exactly as the pipeline stores it: the same columns
in the same order (the table's, without ``experiment_name``, ``claim`` and ``cell_key``), the
rows in the pipeline's order (main learner, then the baselines by name), and every value as the
text of ``trials.csv`` (read as text, so no number is re-formatted; pandas writes and reads
floats exactly, so that text is the pipeline's). Trials already in the cache are never
overwritten. ``<cache>/restored.json`` records each restored ``trials.csv`` (size, modification
time, cells): a second restore of an unchanged file whose cells are all there returns at once
without reading it. :func:`forget` deletes exactly the restored trials
(``make reproduce RECOMPUTE=1``) and that record.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path

STORE = "trials.sqlite"
BUSY_TIMEOUT_S = 60.0
MANIFEST = "restored.json"
# the former layout, migrated on first open
LEGACY_TRIAL = re.compile(r"trial_(\d+)\.csv")
LEGACY_TMP = re.compile(r"trial_\d+\.csv.*\.tmp")  # left by an atomic write that was killed
RESTORED = "restored.txt"

_SCHEMA = ("CREATE TABLE IF NOT EXISTS trials (trial INTEGER PRIMARY KEY, csv TEXT NOT NULL, "
           "restored INTEGER NOT NULL DEFAULT 0, written REAL NOT NULL)")
_INSERT = "INSERT OR IGNORE INTO trials (trial, csv, restored, written) VALUES (?, ?, ?, ?)"


def store_path(cell_dir) -> Path:
    return Path(cell_dir) / STORE


def _legacy(cell_dir: Path) -> list[str]:
    """The names of the former layout's files in a cell directory."""
    try:
        names = os.listdir(cell_dir)
    except (FileNotFoundError, NotADirectoryError):
        return []
    return sorted(n for n in names
                  if LEGACY_TRIAL.fullmatch(n) or LEGACY_TMP.fullmatch(n) or n == RESTORED)


def _insert_all(con, rows) -> None:
    """Insert ``rows`` in one transaction (all or none; existing trials are kept)."""
    con.execute("BEGIN IMMEDIATE")
    try:
        con.executemany(_INSERT, rows)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise


@contextmanager
def _open(cell_dir, create: bool = True):
    """A connection to a cell's store (autocommit: one statement, one transaction), the former
    layout migrated first; ``None`` if the cell has no store and ``create`` is false."""
    cell_dir = Path(cell_dir)
    path = cell_dir / STORE
    legacy = _legacy(cell_dir)
    if not create and not legacy and not path.exists():
        yield None
        return
    cell_dir.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
    try:
        _prepare(con)
        if legacy:
            _migrate(con, cell_dir, legacy)
        yield con
    finally:
        con.close()


def _prepare(con: sqlite3.Connection) -> None:
    mode = con.execute("PRAGMA journal_mode").fetchone()[0]
    if mode != "wal":
        try:  # persistent: set once per store
            mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
        except sqlite3.OperationalError:  # no shared memory here: the rollback journal
            pass
    if mode == "wal":
        # a transaction stays atomic; a power cut may lose the last trials (never corrupt the
        # store), which a rerun computes again
        con.execute("PRAGMA synchronous=NORMAL")
    con.execute(_SCHEMA)


def _migrate(con: sqlite3.Connection, cell_dir: Path, legacy: list[str]) -> None:
    """Move the former layout's trial files of ``cell_dir`` into its store (idempotent, safe
    against a concurrent migration of the same cell)."""
    restored_log = cell_dir / RESTORED
    try:
        restored = set(restored_log.read_text().split())
    except FileNotFoundError:
        restored = set()
    rows = []
    for name in legacy:
        m = LEGACY_TRIAL.fullmatch(name)
        if not m:
            continue
        path = cell_dir / name
        try:
            with open(path, newline="", encoding="utf-8") as fh:
                text = fh.read()
            written = path.stat().st_mtime
        except FileNotFoundError:  # migrated by another process meanwhile
            continue
        rows.append((int(m.group(1)), text, int(name in restored), written))
    _insert_all(con, rows)
    for name in legacy:  # restored.txt last: the files it lists are gone by then
        if name != RESTORED:
            (cell_dir / name).unlink(missing_ok=True)
    restored_log.unlink(missing_ok=True)


# -- the pipeline's side ---------------------------------------------------------------------


def write_text(cell_dir, trial: int, text: str, restored: bool = False) -> bool:
    """Store one trial's CSV text, unless the trial is stored already; whether it was stored."""
    with _open(cell_dir) as con:
        cur = con.execute(_INSERT, (int(trial), text, int(restored), time.time()))
        return cur.rowcount == 1


def write_trial(df, cell_dir, trial: int) -> bool:
    """Store a trial's table as ``df.to_csv(index=False)`` writes it (:func:`write_text`)."""
    return write_text(cell_dir, trial, df.to_csv(index=False))


def finished(cell_dir) -> set[int]:
    """The trials stored for a cell (one query; an empty set, and nothing created, for a cell
    without a store)."""
    with _open(cell_dir, create=False) as con:
        if con is None:
            return set()
        return {t for (t,) in con.execute("SELECT trial FROM trials")}


def count(cell_dir, trials: int | None = None) -> int:
    """How many trials of a cell are stored (those below ``trials`` only, if given)."""
    with _open(cell_dir, create=False) as con:
        if con is None:
            return 0
        if trials is None:
            return con.execute("SELECT COUNT(*) FROM trials").fetchone()[0]
        return con.execute("SELECT COUNT(*) FROM trials WHERE trial >= 0 AND trial < ?",
                           (int(trials),)).fetchone()[0]


def read_texts(cell_dir, trials) -> dict[int, str]:
    """The CSV text of each of ``trials`` that is stored (one query)."""
    wanted = {int(t) for t in trials}
    if not wanted:
        return {}
    with _open(cell_dir, create=False) as con:
        if con is None:
            return {}
        rows = con.execute("SELECT trial, csv FROM trials WHERE trial BETWEEN ? AND ?",
                           (min(wanted), max(wanted)))
        return {t: text for t, text in rows if t in wanted}


def read_trials(cell_dir, trials):
    """The stored ``trials`` of a cell as one table, in that order, each trial's columns in the
    current order (every trial parsed on its own, as it was written: pandas reads floats
    exactly, so a table written back carries the same text). ``KeyError`` if one is missing."""
    import pandas as pd

    from experiments import columns

    trials = [int(t) for t in trials]
    texts = read_texts(cell_dir, trials)
    missing = [t for t in trials if t not in texts]
    if missing:
        raise KeyError(f"{Path(cell_dir) / STORE}: trials {missing[:5]} are not stored")
    parts = [texts[t].partition("\n") for t in trials]
    header = parts[0][0] if parts else None
    if parts and all(h == header and b.endswith("\n") for h, _, b in parts):
        # One header: one parse of every trial's rows. Each value is parsed by the same
        # converter as on its own, and pandas' dtype of the whole column is the one the
        # concatenation of per-trial frames reaches (int with float -> float, with text ->
        # object), so the table, and the text written back, are the same (tested against the
        # per-trial parse on the committed trials).
        body = "".join(b for _, _, b in parts)
        df = pd.read_csv(io.StringIO(header + "\n" + body))
        if _same_as_per_trial(df, [b.count("\n") for _, _, b in parts]):
            return columns.order_columns(df)
    frames = [columns.order_columns(pd.read_csv(io.StringIO(texts[t]))) for t in trials]
    return pd.concat(frames, ignore_index=True)


def _same_as_per_trial(df, rows: list[int]) -> bool:
    """Whether ``df``, the trials' rows parsed at once, is what parsing each trial on its own and
    concatenating gives. Numbers and booleans are: pandas promotes the columns of the
    concatenation as the single parse infers them. A text column is not when some trial's part
    of it is empty or all numbers (on its own that trial parses as float or int, and the
    concatenation turns the column into objects), nor can the rows be told apart when a record
    spans lines or a blank record was skipped: then the caller parses trial by trial."""
    import pandas as pd

    if sum(rows) != len(df) or 0 in rows:
        return False
    text = [c for c in df.columns if pd.api.types.is_string_dtype(df[c].dtype)]
    trial = pd.RangeIndex(len(rows)).repeat(rows)  # each row's trial, in order
    for c in text:
        col = df[c].set_axis(trial)
        empty = col.isna().groupby(level=0).all()
        numbers = pd.to_numeric(col, errors="coerce").notna().groupby(level=0).all()
        if (empty | numbers).any():
            return False
    return True


def trial_times(cell_dir) -> dict[int, float]:
    """When each stored trial of a cell was stored (Unix seconds)."""
    with _open(cell_dir, create=False) as con:
        if con is None:
            return {}
        return dict(con.execute("SELECT trial, written FROM trials"))


def cells(cache) -> list[Path]:
    """The cell directories under a cache root that hold trials (a store or the former
    layout's files)."""
    cache = Path(cache)
    found = {p.parent for p in cache.glob(f"*/{STORE}")}
    found |= {p.parent for p in cache.glob("*/trial_*.csv")}
    found |= {p.parent for p in cache.glob(f"*/{RESTORED}")}
    return sorted(found)


def scan(cache):
    """Every stored trial under a cache root: ``(cell key, trial, csv, restored, written)``."""
    for cell in cells(cache):
        with _open(cell, create=False) as con:
            if con is None:
                continue
            for trial, text, restored, written in con.execute(
                    "SELECT trial, csv, restored, written FROM trials ORDER BY trial"):
                yield cell.name, trial, text, bool(restored), written


def trials_since(cache, since: float) -> tuple[int, int]:
    """(trials stored since ``since``, all trials) under a cache root."""
    new = total = 0
    for cell in cells(cache):
        try:
            with _open(cell, create=False) as con:
                if con is None:
                    continue
                n, k = con.execute("SELECT COUNT(*), COALESCE(SUM(written >= ?), 0) FROM trials",
                                   (since,)).fetchone()
        except sqlite3.Error:  # a store being created this very moment
            continue
        total += n
        new += k
    return new, total


# -- committed trials ------------------------------------------------------------------------


def _trial_order(learners, idx: list[int], main: str | None) -> list[int]:
    """The rows of one trial in the pipeline's order: the main learner, then baselines by name
    (a learner listed twice, i.e. a cell listed twice in one sweep, once)."""
    first: dict[str, int] = {}
    for i in idx:
        first.setdefault(learners[i], i)
    return [first[label] for label in sorted(first, key=lambda label: (label != main, label))]


def _main_label(text) -> str | None:
    """The label whose rows carry the ``learner.*`` columns."""
    from experiments import columns

    own = [c for c in text.columns if c.startswith(columns.MAIN)]
    if not own:
        return None
    has = (text[own] != "").any(axis=1)
    labels = text.loc[has, "learner"].unique()
    return str(labels[0]) if len(labels) == 1 else None


def _csv_text(header: list[str], rows) -> str:
    """CSV text as ``DataFrame.to_csv(index=False)`` writes string columns (pandas formats
    through the ``csv`` module with these settings): the same bytes, ~10x faster per trial."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(header)
    writer.writerows(rows)
    return buf.getvalue()


def _read_manifest(cache: Path) -> dict:
    try:
        data = json.loads((cache / MANIFEST).read_text())
    except (FileNotFoundError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _stamp(trials_csv: Path) -> dict:
    st = trials_csv.stat()
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns}


def unchanged(trials_csv, cache) -> int | None:
    """The number of trials of ``trials_csv`` if it was restored into ``cache`` as it is now
    (same size and modification time, every cell's store there); ``None`` otherwise."""
    trials_csv, cache = Path(trials_csv), Path(cache)
    entry = _read_manifest(cache).get(str(trials_csv.resolve()))
    if not isinstance(entry, dict):
        return None
    stamp = _stamp(trials_csv)
    if any(entry.get(k) != v for k, v in stamp.items()):
        return None
    if not all((cache / key / STORE).exists() for key in entry.get("cells", ())):
        return None
    return int(entry.get("trials", 0))


def restore(trials_csv: Path, cache: Path) -> tuple[int, int]:
    """Store the missing trials of ``trials_csv`` in their cells' stores, marked restored;
    (written, already there). An unchanged file already restored here (:func:`unchanged`)
    returns ``(0, its trials)`` without being read."""
    import pandas as pd

    from experiments import columns

    trials_csv, cache = Path(trials_csv), Path(cache)
    known = unchanged(trials_csv, cache)
    if known is not None:
        return 0, known
    stamp = _stamp(trials_csv)  # before reading: a change while reading is seen next time
    text = pd.read_csv(trials_csv, dtype=str, keep_default_na=False)
    body = [c for c in text.columns if c not in (*columns.HEAD, *columns.TAIL)]
    main = _main_label(text)
    values = text[body].to_numpy(dtype=object)
    learners = text["learner"].to_numpy(dtype=object)
    groups: dict[str, dict[int, list[int]]] = {}
    for i, (key, trial) in enumerate(zip(text["cell_key"], text["trial"])):
        groups.setdefault(key, {}).setdefault(int(trial), []).append(i)
    written = kept = 0
    now = time.time()
    for key, trials in groups.items():
        with _open(cache / key) as con:
            have = {t for (t,) in con.execute("SELECT trial FROM trials")}
            rows = [(trial, _csv_text(body, (values[i] for i in _trial_order(learners, idx, main))),
                     1, now) for trial, idx in trials.items() if trial not in have]
            before = con.total_changes
            if rows:
                _insert_all(con, rows)
            new = con.total_changes - before
        written += new
        kept += len(trials) - new
    from ppm.files import write_text_atomic

    manifest = _read_manifest(cache)
    manifest[str(trials_csv.resolve())] = {**stamp, "cells": sorted(groups),
                                           "trials": written + kept}
    cache.mkdir(parents=True, exist_ok=True)
    write_text_atomic(cache / MANIFEST, json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return written, kept


def forget(cache: Path) -> int:
    """Delete every restored trial under ``cache`` (and the record of what was restored);
    return how many."""
    cache = Path(cache)
    gone = 0
    for cell in cells(cache):
        with _open(cell, create=False) as con:
            if con is not None:
                gone += con.execute("DELETE FROM trials WHERE restored = 1").rowcount
    (cache / MANIFEST).unlink(missing_ok=True)
    return gone
