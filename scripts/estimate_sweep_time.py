"""Expected wall time of a sweep of the exact PPM learner, before running it.

    python -m scripts.estimate_sweep_time c4_dimension_d3_wpub c4_epsilon_fit c5_mixture_weight_d2

The cost of a PPM fit at d >= 2 is dominated by scoring every hypothesis of ``G`` once, so a
cell costs about ``sum_trials |G_trial| / rate``. This script

1. measures ``rate`` (hypotheses/s, one thread, as the sweeps run: 2 jobs x 1 thread) with
   one timed fit per d in ``{2, 3}`` (and reports the time of one d = 3, w_pub = 0.1, n = 200
   fit);
2. replays every job of each experiment's sweep with the pipeline's own seeds
   (:func:`experiments.seeding.stream_seed`), so each trial's ``n_pub`` is the one the sweep will
   draw, and takes ``|G|`` from the general-position ``|C_pub| = 2 sum_{i<=d} C(n_pub, i)``
   (what ConstrHalf returns on these Gaussian points; scripts/log_class_size.py checks it);
   the replay and the measurement live in :mod:`experiments.cost` (shared with
   ``scripts/gpu_batch.py``, which prices GPU batches);
3. prints the CPU time ``sum |G| / rate`` per experiment and the wall time on 2 cores
   (``/ 2``; d = 1 fits and per-job overhead are ignored, and the measured rate depends on
   the machine's load: rerun it on a quiet machine).
"""

from __future__ import annotations

import argparse

from experiments.cost import measure_rate, sweep_hypotheses


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("experiments", nargs="+")
    parser.add_argument("--rate", type=float, default=None,
                        help="hypotheses/s per job; default: measure it here")
    args = parser.parse_args(argv)
    totals = {}
    for exp in args.experiments:
        totals[exp] = sweep_hypotheses(exp)
        total, n_jobs, n_trials = totals[exp]
        print(f"{exp}: {n_jobs} jobs, {n_trials} PPM fits at d >= 2, sum |G| = {total:.3g}",
              flush=True)
    if args.rate is not None:
        rate = args.rate
    else:
        rate = _measured_rate()
    for exp, (total, n_jobs, n_trials) in totals.items():
        cpu = total / rate
        print(f"{exp}: at {rate:.3g} hyp/s per job: CPU {cpu / 60:.1f} min, "
              f"wall on 2 cores (2 jobs) ~{cpu / 120:.1f} min")


def _measured_rate() -> float:
    rate3, sec3, g3 = measure_rate(3, 0.1, 200)
    print(f"d=3, w_pub=0.1, n=200 fit: {sec3:.2f} s for |G| = {g3:.3g} ({rate3:.3g} hyp/s)")
    rate2, sec2, g2 = measure_rate(2, 0.5, 300)
    print(f"d=2, w_pub=0.5, n=300 fit: {sec2:.2f} s for |G| = {g2:.3g} ({rate2:.3g} hyp/s)")
    return min(rate2, rate3)


if __name__ == "__main__":
    main()
