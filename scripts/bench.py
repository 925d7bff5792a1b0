"""Benchmark of the exact learner: fit time, throughput, peak memory, ratio to the reference.

    python -m scripts.bench [--quick] [--threads 2] [--out results/bench.csv]

For each (d, n) it fits PPMHalfspaceLearner with the default scorer (sort for d = 1, bitset
popcount kernels for d >= 2) and, where it is feasible, with the straightforward reference
that scores pairs by dense blocked matrix products ``B diag(s) B^T`` (``method="blocked"``),
on the same sample in the same run. Each measurement runs in a fresh child process so that
its peak resident memory (``ru_maxrss`` above the post-setup baseline) is its own. Prints a
table and writes ``results/bench.csv``. Numbers depend on the machine: a benchmark, not a test.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
from pathlib import Path

import pandas as pd

DEFAULT = [(1, 100_000), (1, 1_000_000), (2, 200), (2, 400), (2, 600), (3, 48)]
QUICK = [(1, 100_000), (2, 200), (3, 24)]
REFERENCE_MAX_N = {2: 400, 3: 48}  # larger reference runs take minutes


def _measure(d, n, w_pub, method, threads, queue):
    import numba
    from threadpoolctl import threadpool_limits

    from ppm import PPMHalfspaceLearner
    from ppm.populations import GaussianClusters

    numba.set_num_threads(threads)
    X, y, public = GaussianClusters(d=d, w_pub=w_pub).sample(n, random_state=0)
    # Warm-up on a tiny sample: compile (or load) the numba kernels outside the timing.
    Xs, ys, ps = GaussianClusters(d=d, w_pub=w_pub).sample(12, random_state=1)
    PPMHalfspaceLearner(random_state=0, method=method).fit(Xs, ys, ps)
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with threadpool_limits(limits=threads):
        t0 = time.perf_counter()
        fit = PPMHalfspaceLearner(epsilon=1.0, random_state=0, method=method).fit(X, y, public)
        seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    queue.put(dict(d=d, n=n, n_pub=fit.n_pub_, n_halfspaces=fit.n_halfspaces_,
                   n_hypotheses=float(fit.n_hypotheses_), method=method, threads=threads,
                   seconds=seconds, hypotheses_per_s=fit.n_hypotheses_ / seconds,
                   peak_mib=max(0, peak - base) / 1024, hypothesis=str(fit.hypothesis_)))


def measure(d, n, w_pub, method, threads) -> dict:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_measure, args=(d, n, w_pub, method, threads, queue))
    proc.start()
    row = queue.get()
    proc.join()
    return row


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--w-pub", type=float, default=0.5)
    parser.add_argument("--out", type=Path, default=Path("results/bench.csv"))
    args = parser.parse_args(argv)
    rows = []
    for d, n in QUICK if args.quick else DEFAULT:
        fast = measure(d, n, args.w_pub, "auto", args.threads)
        fast["ratio_vs_reference"] = float("nan")
        if d >= 2 and n <= REFERENCE_MAX_N.get(d, 0):
            ref = measure(d, n, args.w_pub, "blocked", args.threads)
            # Same sample, same seed: the exact samplers must agree.
            assert ref["hypothesis"] == fast["hypothesis"], (ref, fast)
            fast["ratio_vs_reference"] = ref["seconds"] / fast["seconds"]
            rows.append(ref)
        rows.append(fast)
        print(f"d={d} n={n}: {fast['seconds']:.3f} s, {fast['hypotheses_per_s']:.3g} hyp/s, "
              f"{fast['peak_mib']:.0f} MiB, x{fast['ratio_vs_reference']:.1f} vs reference",
              flush=True)
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.drop(columns=["hypothesis"]).to_csv(args.out, index=False)
    cols = ["d", "n", "n_pub", "n_halfspaces", "n_hypotheses", "method", "seconds",
            "hypotheses_per_s", "peak_mib", "ratio_vs_reference"]
    print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
