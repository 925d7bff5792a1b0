"""The sweeps of ``make reproduce``: overrides checked first, sweeps run, one line at the end.

    PPM_ARGS="learner.epsilon=0.5" python -m scripts.run_sweeps --results R [--suffix _quick]
        [--at-once 2] [--outputs outputs] [--launch "hydra.launcher.n_jobs=1 n_jobs=1"]
        [--verbose] c1_realizable_d1 c5_mixture_weight ...

0. Each name is an experiment config (base name; with the profile's suffix typed too) or a claim
   id or name (``C5``: its experiments, without the long ones in the quick profile),
   :func:`claims.registry.resolve`; anything else stops the run with one ``error:`` line
   suggesting names as they are to be typed (exit 2).
1. ``ARGS`` (``PPM_ARGS``, split like a shell command line) is checked against every selected
   sweep before any trial runs (:mod:`experiments.overrides`): a sweep that cannot take an
   override is left out with one line saying why, an override that fixes an axis a claim sweeps
   gets a note, and an override no selected sweep can take stops the run with one ``error:``
   line (exit 2).
2. The sweeps run (``python -m experiments.run --multirun experiment=<name><suffix> ...``),
   ``--at-once`` at a time, each announced with the run's progress (``== sweep 12 of 42: ...``,
   the time so far and the rest at that pace); their output is relayed line by line, without Hydra's per-job
   listing unless ``--verbose`` (``make reproduce VERBOSE=1``). The first failing sweep stops
   the others; the run ends with one ``error:`` line naming the sweep and its error (exit 2).
   A sweep whose every cell is complete in the trial cache is not launched: its cells'
   ``trials.csv`` are written from the cache in this process, as the sweep would write them
   (:mod:`experiments.finished`; one line instead of the sweep's output).
3. Ctrl-C (to the whole process group, as a terminal sends it, or to this process alone) stops
   every sweep and ends with one line counting the trials kept in the trial cache by every
   sweep of the run (no sweep prints a traceback of its own: their output after the interrupt
   is not relayed); exit 130. A rerun says how many trials it reused from the cache.
4. The finished sweeps are aggregated into the results root (``scripts/aggregate.py``; one
   line, or one per sweep with ``--verbose``), and each gets a stamp
   (:mod:`experiments.stamps`): its options, the configs and code, a digest of each of its
   cells' stored trials, and its two tables. A sweep whose stamp is fresh is neither composed
   nor aggregated again (one line for all of them): a second ``make reproduce`` with nothing
   changed spends no time here.
"""

from __future__ import annotations

import os
import signal
import sys


def _interrupted_while_starting(signum, frame) -> None:
    print("interrupted while starting: no sweep started, nothing computed", file=sys.stderr,
          flush=True)
    os._exit(130)


if __name__ == "__main__" and signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
    signal.signal(signal.SIGINT, _interrupted_while_starting)

import argparse  # noqa: E402
import collections  # noqa: E402
import re  # noqa: E402
import shlex  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from experiments import lifecycle  # noqa: E402
from claims.terminal import fit_line  # noqa: E402

# Hydra's log (the per-job listing: ~10 lines per sweep) and each sweep's closing hint (this
# script aggregates): relayed only with --verbose.
HYDRA_LOG = re.compile(r"^\[[0-9-]+ [0-9:,]+\]\[HYDRA\] |^\[\w+\] sweep finished: ")


class Sweep:
    def __init__(self, name: str, cmd: list[str], env: dict, relay):
        self.name = name
        self.tail: collections.deque[str] = collections.deque(maxlen=30)
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, bufsize=1)
        self.threads = [threading.Thread(target=relay, args=(self, stream, out), daemon=True)
                        for stream, out in ((self.proc.stdout, sys.stdout),
                                            (self.proc.stderr, sys.stderr))]
        for t in self.threads:
            t.start()

    def error_line(self) -> str:
        lines = [ln.strip() for ln in self.tail if ln.strip()]
        errors = [ln for ln in lines if ln.startswith("error:")]
        if errors:
            return errors[-1][len("error:"):].strip()
        return lines[-1] if lines else "no output"


class Runner:
    def __init__(self, args):
        self.args = args
        self.interrupted = threading.Event()
        self.lock = threading.Lock()

    def relay(self, sweep: Sweep, stream, out) -> None:
        for line in stream:
            sweep.tail.append(line)
            if self.interrupted.is_set() or line.startswith("interrupted"):
                continue  # after Ctrl-C: the one line of this process says what was kept
            if not self.args.verbose and HYDRA_LOG.match(line):
                continue
            if line.startswith("error:"):
                continue  # the run's last line repeats it, naming the sweep
            with self.lock:  # at most 100 columns (a cell line's overrides cut)
                out.write(fit_line(line) + "\n")
                out.flush()

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


def _say(line: str, err: bool = False) -> None:
    """One message; on stdout in lines of at most 100 columns (an ``error:`` or
    ``interrupted:`` line on stderr stays one line)."""
    print(line if err else fit_line(line), file=sys.stderr if err else sys.stdout, flush=True)


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


SWEEP_CODE = ("configs", "hydra_plugins", "experiments", "ppm", "analysis")


def sweep_code() -> list[Path]:
    """What a sweep's tables depend on besides its cells' trials: the configs (every cell's
    composition and key), the code that composes, validates, reads the cache and aggregates,
    and the lock file (conservative: any edit there runs every sweep's last steps again)."""
    from experiments import stamps
    files = [stamps.REPO / "requirements.lock"]
    for top in SWEEP_CODE:
        files += [p for p in sorted((stamps.REPO / top).rglob("*"))
                  if p.suffix in (".py", ".yaml") and "__pycache__" not in p.parts]
    return files


def cell_digests(results: str, keys) -> dict:
    """A digest of each cell's stored trials (which trials, stored when): one query a cell."""
    import hashlib

    from experiments import cache
    root = Path(results) / "cache"
    return {k: hashlib.sha256(repr(sorted(cache.trial_times(root / k).items())).encode())
            .hexdigest()[:16] for k in sorted(keys)}


def sweep_options(name: str, suffix: str, extra: list[str]) -> dict:
    from experiments import stamps
    return {"experiment": name + suffix, "args": list(extra), "env": stamps.env_options()}


def sweep_fresh(results: str, name: str, options: dict) -> bool:
    """Is the sweep's stamp fresh: the same options, configs and code, every cell's trials as
    they were, and its two tables as they were written?"""
    import json

    from experiments import stamps
    path = stamps.stamp_path(results, "sweeps", name)
    try:
        keys = json.loads(path.read_text()).get("cells") or {}
    except (OSError, ValueError):
        return False
    return bool(keys) and stamps.fresh(path, results, options,
                                       cells=cell_digests(results, keys)) is not None


def stamp_sweeps(results: str, outputs: str, names: list[str], suffix: str,
                 extra: list[str]) -> None:
    """The stamp of each aggregated sweep (:func:`sweep_fresh` reads it)."""
    import pandas as pd

    from experiments import stamps
    code = stamps.signatures(sweep_code(), results)
    for name in names:
        keys = set()
        for f in (Path(outputs) / name).glob("*/trials.csv"):
            keys.update(pd.read_csv(f, usecols=["cell_key"], dtype=str)["cell_key"])
        tables = [Path(results) / name / t for t in ("trials.csv", "n_hat.csv")]
        stamp = stamps.make(results, sweep_options(name, suffix, extra), outputs=tables,
                            cells=cell_digests(results, keys))
        stamp["code"] = code
        stamps.write(stamps.stamp_path(results, "sweeps", name), stamp)


def _claims_of(experiment: str) -> str:
    """The claims reading a sweep, for the override notes (e.g. "C5")."""
    from claims.registry import CLAIMS
    return "/".join(c.id for c in CLAIMS if experiment in c.experiments)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="*")
    parser.add_argument("--results", required=True)
    parser.add_argument("--suffix", default="")
    parser.add_argument("--outputs", default="outputs")
    parser.add_argument("--at-once", type=int, default=1)
    parser.add_argument("--launch", default="", help="launcher overrides (before ARGS)")
    parser.add_argument("--verbose", action="store_true", help="relay Hydra's per-job listing")
    parser.add_argument("--no-aggregate", action="store_true")
    a = parser.parse_args(argv)
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)  # from here: KeyboardInterrupt
    start = time.time()
    args_text = os.environ.get("PPM_ARGS", "")
    try:
        extra = shlex.split(args_text)
    except ValueError as exc:
        _say(f"error: ARGS={args_text!r}: {exc}", err=True)
        return 2
    runner = Runner(a)
    from claims.registry import resolve
    try:
        names, notes = resolve(list(dict.fromkeys(a.experiments)), a.suffix)
    except ValueError as exc:
        _say(f"error: EXPERIMENTS: {exc}", err=True)
        return 2
    for line in notes:
        _say(line)
    if not names:
        _say("error: no experiment selected (EXPERIMENTS is empty" + ("; the claims chosen "
             "have no sweep in this profile: C6 and C7 are exact audits, make audit runs "
             "them)" if notes else ")"), err=True)
        return 2
    if extra:
        _say(f"== checking ARGS against {len(names)} sweep(s) before any trial runs")
        try:
            from experiments import overrides
            res = overrides.check([n + a.suffix for n in names], extra, a.results, a.suffix,
                                  claims_of=_claims_of)
        except KeyboardInterrupt:
            _say("interrupted while checking ARGS: no sweep started, nothing computed", err=True)
            return 130
        if res.error:  # one line: which sweeps it left out no longer matters
            _say(f"error: {res.error}", err=True)
            return 2
        for line in [*res.left_out.values(), *res.notes]:
            _say(line)
        names = [n for n in names if n + a.suffix in res.kept]
    if not a.no_aggregate:
        same = [n for n in names if sweep_fresh(a.results, n, sweep_options(n, a.suffix, extra))]
        if same:
            _say("== skipped, unchanged since aggregated (configs, code, trials, tables): "
                 + (f"all {len(same)} sweep(s)" if len(same) == len(names) else
                    f"{len(same)} of {len(names)} sweep(s)")
                 + ", their trials.csv and n_hat.csv kept")
            names = [n for n in names if n not in same]
            if not names:
                return 0
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    queue, running, started, finished, failed = list(names), [], [], [], None
    try:
        while queue or running:
            while queue and len(running) < max(1, a.at_once) and failed is None:
                name = queue.pop(0)
                shutil.rmtree(Path(a.outputs) / name, ignore_errors=True)
                _say(progress_line(len(started) + 1, len(names), name + a.suffix,
                                   len(finished), time.time() - start))
                cmd = runner.command(name, extra)
                started.append(name)
                cells = finished_in_cache(a.results, cmd, Path(a.outputs) / name)
                if cells is not None:
                    _say(f"[{name}{a.suffix}] all {cells} cells complete in the trial cache: "
                         f"their trials.csv written from it, no sweep launched")
                    finished.append(name)
                    continue
                running.append(Sweep(name, cmd, env, runner.relay))
            time.sleep(0.1)
            for s in list(running):
                rc = s.proc.poll()
                if rc is None:
                    continue
                for t in s.threads:
                    t.join()
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
        runner.interrupted.set()
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C: let the sweeps stop
        _stop(running)
        _say(kept_message(a.results, start, started, finished, queue), err=True)
        return 130
    if failed is not None:
        s, rc = failed
        kept, _ = lifecycle.trials_since(a.results, start)
        _say(f"== stopped: {len(finished)} sweep(s) finished, {kept} trials computed in this run "
             f"kept under {Path(a.results) / 'cache'} (a rerun resumes)", err=True)
        _say(f"error: sweep {s.name}{a.suffix} failed (exit {rc}): {s.error_line()}", err=True)
        return 2
    reused, computed = reused_trials([Path(a.outputs) / n for n in finished], a.results, start)
    _say(f"== {len(finished)} sweep(s) done: {computed} trials computed in this run"
         + (f", {reused} reused from the trial cache {Path(a.results) / 'cache'} (finished by an "
            f"earlier run)" if reused else ""))
    if a.no_aggregate or not finished:
        return 0
    try:
        agg = subprocess.run([sys.executable, "-m", "scripts.aggregate",
                              *[str(Path(a.outputs) / n) for n in finished],
                              "--out-root", a.results, "--overwrite-committed"],
                             capture_output=True, text=True)
    except KeyboardInterrupt:
        _say(f"interrupted while aggregating: every trial of the run is kept under "
             f"{Path(a.results) / 'cache'}; rerun the same command to aggregate", err=True)
        return 130
    if agg.returncode != 0 or a.verbose:  # one line per sweep: only when asked, or on failure
        sys.stdout.write(agg.stdout)
        sys.stderr.write(agg.stderr)
    if agg.returncode == 0:
        stamp_sweeps(a.results, a.outputs, finished, a.suffix, extra)
        _say(f"== aggregated {len(finished)} sweep(s) into {a.results}/<experiment>/ "
             f"(trials.csv, n_hat.csv)")
    return agg.returncode


def _stop(running: list[Sweep], grace: float = 10.0) -> None:
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


if __name__ == "__main__":
    sys.exit(main())
