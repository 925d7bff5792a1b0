"""Each claim's verdict rows on the committed results (``results/``), analysed once per test
session and shared by every test file that reads them, across pytest-xdist's workers.

:func:`rows` is ``report.analyse(claim, ResultStore(RESULTS, n_boot=N_BOOT))`` (the fitted
reading with the grid reading beside it, rule 4 applied: the verdict table's rows) and
:func:`raw_rows` is the ``claim.analyse`` of that same analysis, before rule 4 (its first,
fitted call); both are ``None`` where the claim's results are absent (``claim.available``).

Where the rows live: a pickle per claim in the session's temporary directory (under xdist the
parent of a worker's ``basetemp``, which the workers share; without xdist the ``basetemp``
itself), so nothing outlives the session. Its name carries the claim and a digest of the sizes
and modification times of the files under ``results/`` (the trial cache, other results roots
and the figures aside): a table rewritten during the session is a new key, analysed afresh. A
file lock (``fcntl.flock``) per key makes a second worker that wants the same claim wait for
the first and then read its pickle, never analyse it too; workers analyse different claims at
once. Each caller gets its own copy: a test that changed a row would change no other test's."""

from __future__ import annotations

import copy
import dataclasses
import fcntl
import hashlib
import os
import pickle
from pathlib import Path

from claims.base import ResultStore
from claims.registry import get
from claims.reporting import report

RESULTS = Path(__file__).resolve().parents[1] / "results"
N_BOOT = 10  # the tests read which rows there are and what they read, not the intervals' width
# results/ entries the analysis never reads: the trial cache, other results roots, the figures
_NOT_READ = {"cache", "quick", "overrides", "local", "notebook", "figures"}

_memo: dict[str, dict | None] = {}


def rows(claim_id: str, tmp_path_factory):
    """``report.analyse`` of the claim on the committed results, or ``None`` (no results)."""
    got = _analysed(claim_id, tmp_path_factory)
    return None if got is None else copy.deepcopy(got["rows"])


def raw_rows(claim_id: str, tmp_path_factory):
    """``claim.analyse`` (the fitted reading, before rule 4) of the same analysis, or ``None``."""
    got = _analysed(claim_id, tmp_path_factory)
    return None if got is None else copy.deepcopy(got["raw"])


def results_digest(root: Path | None = None) -> str:
    """A digest of every file's path, size and modification time under ``root`` (``RESULTS``;
    but :data:`_NOT_READ`): it changes when a table the analysis reads is written."""
    root = RESULTS if root is None else root
    h = hashlib.sha1()
    for top in sorted(p for p in root.iterdir() if p.name not in _NOT_READ):
        files = [top] if top.is_file() else sorted(p for p in top.rglob("*") if p.is_file())
        for f in files:
            st = f.stat()
            h.update(f"{f.relative_to(root)}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return h.hexdigest()[:16]


def session_dir(tmp_path_factory) -> Path:
    """The directory every process of this test session shares."""
    base = Path(tmp_path_factory.getbasetemp())
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _analysed(claim_id: str, tmp_path_factory) -> dict | None:
    key = f"{get(claim_id).name}-{results_digest()}"
    if key not in _memo:
        where = session_dir(tmp_path_factory) / "committed_rows"
        where.mkdir(parents=True, exist_ok=True)
        path = where / f"{key}.pkl"
        with open(where / f"{key}.lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
            if path.exists():
                got = pickle.loads(path.read_bytes())
            else:
                got = _analyse(claim_id)
                tmp = path.with_suffix(f".{os.getpid()}.tmp")
                tmp.write_bytes(pickle.dumps(got))
                os.replace(tmp, path)
        _memo[key] = got
    return _memo[key]


def _analyse(claim_id: str) -> dict | None:
    """One ``report.analyse``; its first call of ``claim.analyse`` (the fitted reading) is
    kept, copied before rule 4 turns shared counted rows into breakdowns."""
    claim = get(claim_id)
    store = ResultStore(RESULTS, n_boot=N_BOOT)
    if not claim.available(store):
        return None
    calls = []

    def recorded(results):
        out = claim.analyse(results)
        calls.append(copy.deepcopy(out))
        return out

    analysed = report.analyse(dataclasses.replace(claim, analyse=recorded), store)
    return {"rows": analysed, "raw": calls[0]}
