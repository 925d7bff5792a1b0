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

The sweeps' launch, relay and stop are :mod:`experiments.sweep_runner`, their stamps
:mod:`experiments.sweep_stamps`, the claims of a sweep :func:`claims.selection.claims_of`.
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
import shlex  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from experiments.sweep_runner import Runner, reused_trials, run_queue  # noqa: E402
from experiments.sweep_stamps import stamp_sweeps, sweep_fresh, sweep_options  # noqa: E402
from claims.selection import claims_of  # noqa: E402
from claims.reporting.terminal import fit_line  # noqa: E402


def _say(line: str, err: bool = False) -> None:
    """One message; on stdout in lines of at most 100 columns (an ``error:`` or
    ``interrupted:`` line on stderr stays one line)."""
    print(line if err else fit_line(line), file=sys.stderr if err else sys.stdout, flush=True)


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
    runner = Runner(a, fit=fit_line)
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
                                  claims_of=claims_of)
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
    rc, finished = run_queue(runner, names, extra, start, _say)
    if rc is not None:
        return rc
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


if __name__ == "__main__":
    sys.exit(main())
