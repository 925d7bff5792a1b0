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
    """(trials stored since ``since``, all trials) under ``results_root/cache``
    (:func:`experiments.cache.trials_since`)."""
    from experiments import cache

    return cache.trials_since(Path(results_root) / "cache", since)


def interrupted_message() -> str:
    results_root, since = SESSION["results_root"], SESSION["start"]
    if results_root is None:
        return "interrupted before the sweep started: none of its trials had run"
    new, total = trials_since(results_root, since)
    return (f"interrupted: kept {new} trials finished in this run ({total} in total) under "
            f"{Path(results_root) / 'cache'}; rerun the same command to resume")


# -- Ctrl-C in the steps after the sweeps (aggregate, audits, C4 inputs, figures, summary) -------
_STOP = {"line": b"", "critical": 0, "pending": False, "lock": threading.Lock()}


def _stop_now(*_) -> None:
    """Say the one line once, end the descendants and this process at once."""
    if _STOP["critical"]:
        _STOP["pending"] = True  # a file is being replaced: stop right after it
        return
    if _STOP["lock"].acquire(blocking=False):
        os.write(2, _STOP["line"])
        _end_descendants()
    os._exit(130)


def _end_descendants() -> None:
    """SIGKILL every descendant of this process (joblib's workers and resource trackers): they
    may ignore SIGINT, and would otherwise compute on, and print, after this process is gone."""
    parents: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            # "pid (comm) state ppid ...": comm may hold spaces, so split after its last ")"
            fields = stat.read_text().rsplit(")", 1)[1].split()
            parents.setdefault(int(fields[1]), []).append(int(stat.parent.name))
        except (OSError, ValueError, IndexError):
            continue
    todo, seen = [os.getpid()], set()
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    for pid in seen:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def stop_on_ctrl_c(step: str, hint: str = "rerun the same command to finish it") -> None:
    """From now on, Ctrl-C (SIGINT) ends this process within a second: one line on stderr,
    ``interrupted: <step> stopped; <hint>``, and exit status 130.

    Called first thing by every entry point of ``make reproduce`` / ``make figures`` after the
    sweeps (they rerun from the aggregated CSVs and the trial cache, which are written
    atomically, so stopping anywhere loses nothing a rerun needs). SIGINT is blocked in this
    process and received by a watcher thread (:func:`signal.sigwait`), so no
    ``KeyboardInterrupt`` is ever raised (no traceback, no "Exception ignored in ...", no
    cleanup that keeps drawing) and a main thread busy in a native call is no obstacle (a
    thread that unblocks SIGINT makes Python's handler run, which is the same stop). The
    blocked mask is inherited by the processes this one starts (joblib's workers): a Ctrl-C
    sent to the whole process group does not make them print tracebacks either, and the
    watcher ends them with this process. A process started with SIGINT ignored (a background
    job) keeps ignoring it. Wrap the in-place rewrite of a file in :func:`critical`."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        return
    _STOP["line"] = f"interrupted: {step} stopped; {hint}\n".encode()
    # worker pools' resource trackers (processes started later inherit this) would each warn
    # about the semaphores of the stopped workers: the one line says what matters
    os.environ["PYTHONWARNINGS"] = ",".join(
        filter(None, [os.environ.get("PYTHONWARNINGS"), "ignore:resource_tracker:UserWarning"]))
    # should a thread still receive SIGINT (one that unblocks it), Python's handler runs in
    # the main thread: this one, not a KeyboardInterrupt
    signal.signal(signal.SIGINT, _stop_now)
    # The standard library's resource tracker UNBLOCKS SIGINT in the thread that first starts
    # it (Python 3.11 multiprocessing.resource_tracker.ensure_running), which is what joblib
    # does at its first pool: start it now, before the block, so the block stays.
    from multiprocessing import resource_tracker
    resource_tracker.ensure_running()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def watch() -> None:
        while True:
            signal.sigwait({signal.SIGINT})
            _stop_now()  # returns only inside critical(): stops at its end

    threading.Thread(target=watch, name="ppm-ctrl-c", daemon=True).start()


class critical:
    """``with critical():`` defers a Ctrl-C received inside the block to its end (a README or
    markdown file rewritten in place is never left half written)."""

    def __enter__(self):
        _STOP["critical"] += 1
        return self

    def __exit__(self, *exc):
        _STOP["critical"] -= 1
        if not _STOP["critical"] and _STOP["pending"]:
            _stop_now()
        return False
