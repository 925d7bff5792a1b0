"""The sweeps of ``make reproduce`` (``python -m scripts.run_sweeps``): launched, relayed,
stopped.

Each sweep is ``python -m experiments.run --multirun experiment=<name><suffix> ...``
(:meth:`Runner.command`), ``--at-once`` at a time (:func:`run_queue`), announced with the run's
progress (:func:`progress_line`); each is forked from this process with its imports done, or
started (:mod:`experiments.sweep_process`). Its output is relayed line by line
(:meth:`Runner.pump`, one thread: no relay threads, so forking is safe), without Hydra's
per-job listing unless ``--verbose``. The first failing sweep stops the others.
A sweep whose every cell is complete in the trial cache is not launched: its cells'
``trials.csv`` are written from the cache in this process (:func:`finished_in_cache`,
:mod:`experiments.finished`). Ctrl-C stops every sweep (:func:`stop`) and ends with one line
counting the trials kept in the trial cache (:func:`kept_message`); a rerun says how many
trials it reused (:func:`reused_trials`).
"""

from __future__ import annotations

import collections
import os
import re
import shlex
import selectors
import shutil
import signal
import sys
import time
from pathlib import Path

from experiments import lifecycle
from experiments.sweep_process import SweepProcess

# Hydra's log (the per-job listing: ~10 lines per sweep) and each sweep's closing hint (this
# script aggregates): relayed only with --verbose.
HYDRA_LOG = re.compile(r"^\[[0-9-]+ [0-9:,]+\]\[HYDRA\] |^\[\w+\] sweep finished: ")


class Sweep:
    """A running sweep (:class:`experiments.sweep_process.SweepProcess`) and the undelivered
    part of its output: a partial last line per stream, the last 30 lines for its error."""

    def __init__(self, name: str, cmd: list[str], env: dict, close: list[int] = ()):
        self.name = name
        self.tail: collections.deque[str] = collections.deque(maxlen=30)
        self.proc = SweepProcess(cmd, env, close)
        self.open = {s.fileno(): [s, out, b""] for s, out in zip(self.proc.streams,
                                                                  (sys.stdout, sys.stderr))}

    def read(self, fd: int, relay_line) -> None:
        """Read what stream ``fd`` has; ``relay_line(sweep, line, out)`` for each whole line
        (and the last, unterminated one at end of stream, which closes it)."""
        entry = self.open[fd]
        stream, out, pending = entry
        data = stream.read(65536)
        if data:
            *lines, entry[2] = (pending + data).split(b"\n")
        else:
            lines = [pending] if pending else []
            stream.close()
            del self.open[fd]
        for line in lines:
            relay_line(self, line.decode("utf-8", "replace") + "\n", out)

    def error_line(self) -> str:
        lines = [ln.strip() for ln in self.tail if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error:")]
        if errors:
            return errors[-1][len("error:"):].strip()
        return lines[-1] if lines else "no output"


class Runner:
    def __init__(self, args, fit=lambda line: line):
        self.args = args
        self.fit = fit  # a relayed line in lines of at most 100 columns (the script's)
        self.interrupted = False

    def relay_line(self, sweep: Sweep, line: str, out) -> None:
        sweep.tail.append(line)
        if self.interrupted or line.startswith("interrupted"):
            return  # after Ctrl-C: the one line of this process says what was kept
        if not self.args.verbose and HYDRA_LOG.match(line):
            return
        if line.startswith("error:"):
            return  # the run's last line repeats it, naming the sweep
        out.write(self.fit(line) + "\n")  # at most 100 columns (a cell line's overrides cut)
        out.flush()

    def relay(self, sweep: Sweep, stream, out) -> None:
        """Relay every line of ``stream`` (:meth:`relay_line`)."""
        for line in stream:
            self.relay_line(sweep, line, out)

    def pump(self, sweeps: list[Sweep], timeout: float) -> None:
        """Relay the output the sweeps have ready, waiting at most ``timeout`` seconds for some.
        One thread: this process forks the sweeps (:mod:`experiments.sweep_process`)."""
        streams = {fd: s for s in sweeps for fd in s.open}
        if not streams:
            time.sleep(timeout)
            return
        with selectors.DefaultSelector() as sel:
            for fd in streams:
                sel.register(fd, selectors.EVENT_READ)
            for key, _ in sel.select(timeout):
                streams[key.fd].read(key.fd, self.relay_line)

    def drain(self, sweep: Sweep) -> None:
        """Relay the rest of an ended sweep's output, to the end of both streams."""
        while sweep.open:
            self.pump([sweep], 1.0)

    def command(self, name: str, extra: list[str]) -> list[str]:
        a = self.args
        return [sys.executable, "-m", "experiments.run", "--multirun",
                f"experiment={name}{a.suffix}", f"results_root={a.results}",
                f"hydra.sweep.dir={Path(a.outputs) / name}", *shlex.split(a.launch), *extra]


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def progress_line(index: int, total: int, name: str, finished: int, elapsed: float) -> str:
    """The run's progress as a sweep starts: ``== sweep 12 of 42: <name>``, the time so far
    and, once a sweep has finished, the rest at the pace so far (sweeps differ a lot in length:
    each one's own cell lines carry its own ETA)."""
    line = f"== sweep {index} of {total}: {name}"
    if finished:
        left = (total - finished) * elapsed / finished
        line += (f" (run: {finished} done in {_clock(elapsed)}; about {_clock(left)} left at "
                 f"that pace)")
    return line


def kept_message(results: str, since: float, started: list[str], finished: list[str],
                 pending: list[str]) -> str:
    new, total = lifecycle.trials_since(results, since)
    where = [f"{len(finished)} sweep(s) finished"]
    unfinished = [s for s in started if s not in finished]
    if unfinished:
        where.append(f"stopped: {' '.join(unfinished)}")
    if pending:
        where.append(f"{len(pending)} not started")
    return (f"interrupted: kept {new} trials finished in this run by its sweeps ({total} in the "
            f"cache in total) under {Path(results) / 'cache'} ({'; '.join(where)}); rerun the "
            f"same command to resume")


def reused_trials(sweep_dirs: list[Path], results: str, since: float) -> tuple[int, int]:
    """(trials of these sweeps read from the cache, trials computed in this run): a trial
    stored before the run started was reused."""
    import pandas as pd
    seen = set()
    for d in sweep_dirs:
        for f in Path(d).glob("*/trials.csv"):
            try:
                df = pd.read_csv(f, usecols=["cell_key", "trial"])
            except (ValueError, OSError):
                continue
            seen.update(zip(df["cell_key"].astype(str), df["trial"].astype(int)))
    from experiments import cache

    root = Path(results) / "cache"
    per_cell: dict[str, list[int]] = {}
    for key, trial in seen:
        per_cell.setdefault(key, []).append(trial)
    reused = 0
    for key, trials in per_cell.items():
        times = cache.trial_times(root / key)  # one query per cell
        reused += sum(t in times and times[t] < since for t in trials)
    return reused, len(seen) - reused


def finished_in_cache(results: str, cmd: list[str], sweep_dir: Path) -> int | None:
    """The number of cells of the sweep ``cmd`` if every one is complete in the trial cache
    (each job's trials.csv then written from it: :mod:`experiments.finished`), else None."""
    if not (Path(results) / "cache").is_dir():
        return None
    from experiments.finished import write_finished
    task = cmd[cmd.index("--multirun") + 1:]
    return write_finished(task, sweep_dir)


def run_queue(runner: Runner, names: list[str], extra: list[str], start: float,
              say) -> tuple[int | None, list[str]]:
    """Run the sweeps ``names`` (``runner.args.at_once`` at a time), each announced by its
    :func:`progress_line`; a sweep complete in the trial cache is written from it instead
    (:func:`finished_in_cache`). Returns ``(exit status, finished sweeps)``: the status is
    ``None`` when every sweep finished, 130 after Ctrl-C (one line saying what was kept), 2
    after the first failing sweep (which stops the others; one ``error:`` line naming it).
    ``say(line, err=False)`` prints a line."""
    a = runner.args
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    queue, running, started, finished, failed = list(names), [], [], [], None
    try:
        while queue or running:
            while queue and len(running) < max(1, a.at_once) and failed is None:
                name = queue.pop(0)
                shutil.rmtree(Path(a.outputs) / name, ignore_errors=True)
                say(progress_line(len(started) + 1, len(names), name + a.suffix,
                                  len(finished), time.time() - start))
                cmd = runner.command(name, extra)
                started.append(name)
                cells = finished_in_cache(a.results, cmd, Path(a.outputs) / name)
                if cells is not None:
                    say(f"[{name}{a.suffix}] all {cells} cells complete in the trial cache: "
                        f"their trials.csv written from it, no sweep launched")
                    finished.append(name)
                    continue
                # the child keeps none of the other sweeps' pipes
                running.append(Sweep(name, cmd, env, [fd for s in running for fd in s.open]))
            runner.pump(running, 0.1)
            for s in list(running):
                rc = s.proc.poll()
                if rc is None:
                    continue
                runner.drain(s)
                s.proc.close()
                running.remove(s)
                if rc == 0:
                    finished.append(s.name)
                elif rc in (130, -signal.SIGINT):  # Ctrl-C reached the sweep: the run stops
                    raise KeyboardInterrupt
                elif failed is None:
                    failed = (s, rc)
            if failed is not None and (queue or running):
                queue.clear()
                for s in running:  # their workers die with them (experiments/lifecycle.py)
                    s.proc.terminate()
    except KeyboardInterrupt:
        runner.interrupted = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: let the sweeps stop
        stop(running)
        say(kept_message(a.results, start, started, finished, queue), err=True)
        return 130, finished
    if failed is not None:
        s, rc = failed
        kept, _ = lifecycle.trials_since(a.results, start)
        say(f"== stopped: {len(finished)} sweep(s) finished, {kept} trials computed in this run "
            f"kept under {Path(a.results) / 'cache'} (a rerun resumes)", err=True)
        say(f"error: sweep {s.name}{a.suffix} failed (exit {rc}): {s.error_line()}", err=True)
        return 2, finished
    return None, finished


def stop(running: list[Sweep], grace: float = 10.0) -> None:
    """Stop the sweeps after Ctrl-C: they got SIGINT from the terminal too (one process group);
    a sweep that did not (a SIGINT sent to this process alone) gets it now, then SIGKILL."""
    deadline = time.monotonic() + 2.0
    while any(s.proc.poll() is None for s in running) and time.monotonic() < deadline:
        time.sleep(0.05)
    for s in running:
        if s.proc.poll() is None:
            s.proc.send_signal(signal.SIGINT)
    deadline = time.monotonic() + grace
    while any(s.proc.poll() is None for s in running) and time.monotonic() < deadline:
        time.sleep(0.05)
    for s in running:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
