"""Ctrl-C in every step of ``make reproduce`` after the sweeps: one line, exit 130, nothing left.

Each step's script is started in its own session (as a terminal's foreground job: SIGINT goes to
the whole process group, joblib's workers included), interrupted once it is at work, and must
end with exactly one ``interrupted: ...`` line on stderr, exit status 130 and no process of its
group still running (no worker computing on, or printing, after it). The sweeps' own Ctrl-C is
tested in tests/test_lifecycle.py and tests/test_make_reproduce.py.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _as_from_a_terminal() -> None:
    """In the child before exec: SIGINT as a terminal's foreground command has it (default
    action, not blocked), whatever the test worker inherited or an earlier test left in it (a
    worker that ran a sweep's job in-process ignores SIGINT, as a sweep's workers do, and a
    child would inherit that and rightly keep ignoring it, as a background job does)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _sigint_blocked(pid: int) -> bool:
    """Whether ``pid`` has installed the step's Ctrl-C handling (SIGINT in its blocked mask)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    mask = int(next(ln.split()[1] for ln in status.splitlines() if ln.startswith("SigBlk:")), 16)
    return bool(mask & (1 << (signal.SIGINT - 1)))


def _group_alive(pgid: int) -> bool:
    """Whether a process of group ``pgid`` still runs (zombies left to init do not count)."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            return True
    return False


@pytest.fixture(scope="module")
def c5_root(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    for exp in ("c5_mixture_weight", "c5_mixture_weight_d2"):
        shutil.copytree(ROOT / "results" / exp, root / exp)
    return root


STEPS = {
    # long enough that the interrupt lands while it works (bootstrap replicates, subsets, trials)
    "figures": lambda r: ["scripts.figures", "--results", str(r), "--only", "C5",
                          "--n-boot", "100000"],
    "log_class_size": lambda r: ["scripts.log_class_size", "--out", str(r / "lcs.csv"),
                                 "--max-subsets", "1e9"],
    "mechanism_price": lambda r: ["scripts.mechanism_price", "--out", str(r / "mp.csv"),
                                  "--samples", "5000"],
    "exact_audits": lambda r: ["scripts.exact_audits", "--results", str(r), "--instances",
                               "3000", "--jobs", "2"],
}


@pytest.mark.parametrize("step", sorted(STEPS))
@pytest.mark.parametrize("wait", [0.0, 4.0])  # during the imports, and at work
def test_ctrl_c_is_one_line_and_exit_130(step, wait, c5_root):
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, "-m", *STEPS[step](c5_root)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, preexec_fn=_as_from_a_terminal)
    try:
        deadline = time.monotonic() + 60
        while not _sigint_blocked(proc.pid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the step never installed its Ctrl-C handling"
            time.sleep(0.01)
        time.sleep(wait)
        assert proc.poll() is None, f"{step} finished before the interrupt: make it longer"
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert proc.returncode == 130, err
    assert len(lines) == 1 and lines[0].startswith("interrupted: "), err
    time.sleep(0.5)
    assert not _group_alive(proc.pid), f"{step}: a process of its group is still running"


def test_critical_section_defers_the_stop(tmp_path):
    # a file rewritten in place inside critical() is complete even when Ctrl-C comes mid-write
    code = f"""
import os, signal, time
from pathlib import Path
from experiments.lifecycle import critical, stop_on_ctrl_c
stop_on_ctrl_c("test step")
out = Path({str(tmp_path / 'out.txt')!r})
with critical():
    with out.open("w") as f:
        f.write("start\\n"); f.flush()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1.0)
        f.write("end\\n")
time.sleep(30)
"""
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=60, preexec_fn=_as_from_a_terminal)
    assert proc.returncode == 130
    assert (tmp_path / "out.txt").read_text() == "start\nend\n"
    assert proc.stderr.strip() == "interrupted: test step stopped; rerun the same command to " \
                                  "finish it"
