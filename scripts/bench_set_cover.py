"""Timing of the Set Cover Learner on planted conjunctions (prints numbers; not a test).

    python -m scripts.bench_set_cover            # D = 1024, k = 4, epsilon = 0.9, delta = 1e-6

Issue 10's goal: tens of thousands of examples over D = 1024 variables in seconds.
"""

from __future__ import annotations

import argparse
import time

from ppm.set_cover import GreedySetCover, PlantedConjunction, SetCoverLearner


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--D", type=int, default=1024)
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--n", type=int, nargs="+", default=[10000, 30000, 60000])
    args = parser.parse_args(argv)
    pop = PlantedConjunction(D=args.D, k=args.k, geometry_seed=0)
    for n in args.n:
        X, y, public = pop.sample(n, random_state=n)
        for comp in ("set_cover", "naive"):
            est = SetCoverLearner(k=args.k, epsilon=0.9, delta=1e-6, composition=comp,
                                  random_state=1)
            t0 = time.perf_counter()
            est.fit(X, y, public)
            dt = time.perf_counter() - t0
            print(f"D={args.D} k={args.k} n={n} {comp:9s} R={est.rounds_} "
                  f"eps_hat={est.epsilon_round_:.4f} fit={dt:.2f}s "
                  f"error={pop.conjunction_error(est.hypotheses_):.4f}")
        t0 = time.perf_counter()
        g = GreedySetCover().fit(X, y)
        print(f"D={args.D} k={args.k} n={n} greedy    fit={time.perf_counter() - t0:.2f}s "
              f"error={pop.conjunction_error(g.hypotheses_):.4f}")


if __name__ == "__main__":
    main()
