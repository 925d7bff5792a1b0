"""Timing of the Set Cover Learner on planted conjunctions (prints numbers; not a test).

    python -m scripts.bench_set_cover            # D = 1024, k = 4, epsilon = 0.9, delta = 1e-6

The goal: tens of thousands of examples over D = 1024 variables in seconds. Per n and
composition: over ``--trials`` samples, the exact error (``PlantedConjunction.conjunction_error``)
of the fitted conjunction (mean, max, fraction of exact recoveries) and the fit time, both wall
clock and CPU time of this process (the CPU time is what a loaded shared machine does not
inflate).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ppm.set_cover import GreedySetCover, PlantedConjunction, SetCoverLearner


def _timed(fit):
    t0, c0 = time.perf_counter(), time.process_time()
    est = fit()
    return est, time.perf_counter() - t0, time.process_time() - c0


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--D", type=int, default=1024)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--n", type=int, nargs="+", default=[10000, 30000, 60000])
    parser.add_argument("--trials", type=int, default=5)
    args = parser.parse_args(argv)
    pop = PlantedConjunction(D=args.D, k=args.k, geometry_seed=0)
    for n in args.n:
        res = {c: [] for c in ("set_cover", "naive", "greedy")}
        for t in range(args.trials):
            X, y, public = pop.sample(n, random_state=1000 * n + t)
            for comp in ("set_cover", "naive"):
                est = SetCoverLearner(k=args.k, epsilon=0.9, delta=1e-6, composition=comp,
                                      random_state=t)
                est, wall, cpu = _timed(lambda: est.fit(X, y, public))
                res[comp].append((pop.conjunction_error(est.hypotheses_), wall, cpu))
            g, wall, cpu = _timed(lambda: GreedySetCover().fit(X, y))
            res["greedy"].append((pop.conjunction_error(g.hypotheses_), wall, cpu))
        for name, r in res.items():
            e, w, c = (np.array(v) for v in zip(*r))
            print(f"D={args.D} k={args.k} n={n} {name:9s} trials={args.trials} "
                  f"error mean={e.mean():.4f} max={e.max():.4f} exact={np.mean(e == 0):.2f} "
                  f"fit wall={w.mean():.2f}s cpu={c.mean():.2f}s", flush=True)


if __name__ == "__main__":
    main()
