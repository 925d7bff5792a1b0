"""tests/committed_rows.py: a claim's rows on the committed results are analysed once per test
session (a second worker waits on the first's lock and reads its pickle), kept in the session's
shared directory, and analysed afresh when a results file the analysis reads is written."""

from __future__ import annotations

import threading
from types import SimpleNamespace

from tests import committed_rows


def _factory(base):
    return SimpleNamespace(getbasetemp=lambda: base)


def test_the_session_directory_is_the_one_the_workers_share(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert committed_rows.session_dir(_factory(tmp_path / "pytest-7")) == tmp_path / "pytest-7"
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert committed_rows.session_dir(_factory(tmp_path / "pytest-7" / "popen-gw1")) == \
        tmp_path / "pytest-7"


def test_a_claim_is_analysed_once_and_again_after_its_results_change(tmp_path, monkeypatch):
    results = tmp_path / "results"
    (results / "c1_realizable").mkdir(parents=True)
    table = results / "c1_realizable" / "trials.csv"
    table.write_text("n,trial\n8,0\n")
    monkeypatch.setattr(committed_rows, "RESULTS", results)
    monkeypatch.setattr(committed_rows, "_memo", {})
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    computed, started, release = [], threading.Event(), threading.Event()

    def analyse(cid):
        computed.append(cid)
        started.set()
        release.wait(10)
        return {"rows": [cid, len(computed)], "raw": [cid]}

    at_lock = []
    real = committed_rows.fcntl.flock

    def flock(f, op):
        at_lock.append(threading.current_thread().name)
        real(f, op)

    monkeypatch.setattr(committed_rows, "_analyse", analyse)
    monkeypatch.setattr(committed_rows.fcntl, "flock", flock)
    factory = _factory(tmp_path / "session")
    got = {}

    def worker(name):
        got[name] = committed_rows.rows("C1", factory)

    first = threading.Thread(target=worker, args=("a",), name="a")
    first.start()
    assert started.wait(10)
    second = threading.Thread(target=worker, args=("b",), name="b")
    second.start()
    for _ in range(1000):  # the second worker reaches the lock (or, without one, analyses too)
        if "b" in at_lock or len(computed) > 1:
            break
        second.join(0.01)
    release.set()
    first.join(10)
    second.join(10)
    assert computed == ["C1"] and got == {"a": ["C1", 1], "b": ["C1", 1]}
    assert committed_rows.raw_rows("C1", factory) == ["C1"]
    # another process of the session reads the pickle; what the analysis never reads is no key
    committed_rows._memo.clear()
    for ignored in ("cache", "figures"):
        (results / ignored).mkdir()
        (results / ignored / "x.png").write_text("drawn")
    assert committed_rows.rows("C1", factory) == ["C1", 1] and computed == ["C1"]
    # a table written anew is a new key: analysed again
    table.write_text("n,trial\n8,0\n16,0\n")
    assert committed_rows.rows("C1", factory) == ["C1", 2] and computed == ["C1", "C1"]
    # each caller gets its own copy
    committed_rows.rows("C1", factory).append("changed")
    assert committed_rows.rows("C1", factory) == ["C1", 2]
