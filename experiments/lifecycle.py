"""Process lifecycle of a sweep: workers die with their parent; Ctrl-C says what was kept.

A sweep runs in up to three layers of processes: the Hydra process, the launcher's workers (one
cell each, joblib/loky) and each cell's trial workers (loky, ``n_jobs > 1``). loky workers notice
a dead parent only lazily, so a ``kill -9`` of the Hydra process used to leave them computing for
minutes. :func:`die_with_parent` starts, once per worker process, a daemon thread that exits the
process as soon as it is re-parented (its parent died: Linux hands orphans to init or a
subreaper). A thread watching ``getppid`` is used rather than ``prctl(PR_SET_PDEATHSIG)``
because the latter fires when the *thread* that forked the worker ends, and loky forks from
short-lived management threads.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

_WATCHED = False
# Filled in the Hydra process (experiments.run, experiments.callbacks) for the Ctrl-C message.
SESSION = {"results_root": None, "start": time.time()}
SWEEP_PID_ENV = "PPM_SWEEP_PID"  # pid of the Hydra process of the sweep (set in the callback)


def die_with_parent(parent: int, poll_seconds: float = 0.5) -> None:
    """In a worker process started by ``parent``: exit as soon as ``parent`` is gone.

    Idempotent. Exits at once if the worker is already orphaned (its parent died while it
    started up)."""
    global _WATCHED
    if _WATCHED:
        return
    _WATCHED = True
    # Ctrl-C reaches the whole foreground process group; the parent handles it and stops the
    # workers, so a worker does not print a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_seconds)
        os._exit(1)

    threading.Thread(target=watch, name="ppm-die-with-parent", daemon=True).start()


def sweep_parent(launcher_target: str) -> int | None:
    """The sweep process's pid if this process is one of its joblib launcher workers, else None.

    Only the joblib launcher runs cells in child processes of the sweep; submitit jobs are
    children of SLURM (or of submitit's local runner) and are managed there."""
    pid = os.environ.get(SWEEP_PID_ENV)
    if "joblib" not in launcher_target or not pid or int(pid) == os.getpid():
        return None
    return int(pid)


def trials_since(results_root: str | Path, since: float) -> tuple[int, int]:
    """(trial files written since ``since``, all trial files) under ``results_root/cache``."""
    files = list(Path(results_root).glob("cache/*/trial_*.csv"))
    new = 0
    for f in files:
        try:
            new += f.stat().st_mtime >= since
        except FileNotFoundError:
            pass
    return new, len(files)


def interrupted_message() -> str:
    results_root, since = SESSION["results_root"], SESSION["start"]
    if results_root is None:
        return "interrupted before the sweep started: none of its trials had run"
    new, total = trials_since(results_root, since)
    return (f"interrupted: kept {new} trials finished in this run ({total} in total) under "
            f"{Path(results_root) / 'cache'}; rerun the same command to resume")
