"""Fit time of the PPM learner (exact mechanism) at a few (d, n): prints a table.

    python -m scripts.bench_fit [--sizes 1:100000 2:400] [--w-pub 0.5] [--threads 1]

A benchmark script, not a test: numbers depend on the machine. BLAS threads are limited with
threadpoolctl (the blocked scorer's matrix products are the d >= 2 hot path).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numba
from threadpoolctl import threadpool_limits

from ppm import PPMHalfspaceLearner
from ppm.populations import GaussianClusters


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", nargs="+", default=["1:100000", "1:1000000", "2:200", "2:400"])
    parser.add_argument("--w-pub", type=float, default=0.5)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    numba.set_num_threads(args.threads)
    print(f"{'d':>2} {'n':>8} {'n_pub':>7} {'|C_pub|':>9} {'|G|':>14} {'best s':>8} "
          f"{'hyp/s':>10} {'peak MiB':>9}")
    for item in args.sizes:
        d, n = (int(v) for v in item.split(":"))
        X, y, public = GaussianClusters(d=d, w_pub=args.w_pub).sample(n, random_state=0)
        best = float("inf")
        with threadpool_limits(limits=args.threads):
            for r in range(args.repeats):
                t0 = time.perf_counter()
                fit = PPMHalfspaceLearner(epsilon=args.epsilon, random_state=r).fit(X, y, public)
                best = min(best, time.perf_counter() - t0)
            # Peak memory in a separate run: tracemalloc slows numpy-heavy code several-fold.
            tracemalloc.start()
            PPMHalfspaceLearner(epsilon=args.epsilon, random_state=0).fit(X, y, public)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
        print(f"{d:>2} {n:>8} {fit.n_pub_:>7} {fit.n_halfspaces_:>9} {fit.n_hypotheses_:>14.4g} "
              f"{best:>8.3f} {fit.n_hypotheses_ / best:>10.3g} {peak:>9.1f}")


if __name__ == "__main__":
    main()
