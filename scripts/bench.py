"""Benchmark of the exact learner: fit time, throughput, peak memory, ratio to the reference.

    python -m scripts.bench [--quick] [--threads 2] [--repeats 3] [--no-reference]
                            [--popcount-only] [--out results/bench.csv --overwrite-committed]

The default --out is the committed benchmark: writing it needs --overwrite-committed
(``make bench`` passes it); any other path does not.

**Floor.** Exact sampling touches every hypothesis of ``G`` once, so the floor is one histogram
increment per hypothesis: a numba loop on ``threads`` threads that only increments a small
histogram along a +-1 random walk (:func:`ppm.core._sweep_kernels.floor_walk`). It is measured in
the same run, and every fit is reported as ``hypotheses_per_s`` and ``fraction_of_floor``.

For each (d, n) it fits PPMHalfspaceLearner with every fast scorer (sort for d = 1; for
d >= 2 the bitset popcount kernels ``method="bitset"`` and the angular sweep
``method="sweep"``) and, where it is feasible, with the straightforward reference that scores
pairs by dense blocked matrix products ``B diag(s) B^T`` (``method="blocked"``), on the same
sample in the same run; all must return the same hypothesis (asserted). Each measurement is
repeated ``--repeats`` times and the fastest kept (the machine is shared). Each measurement
runs in a fresh child process so that its peak resident memory (``ru_maxrss`` above the post-setup baseline) is its own. Prints a
table and writes ``results/bench.csv``. Numbers depend on the machine: a benchmark, not a test.

**Kernels, before and after (per level).** For each d >= 2 row, and for synthetic bitsets with
more words (``SYNTHETIC``: random membership, d = 3, 6 and 9 words), it also times the level-2
and (d >= 3) level-3 kernels alone, on the chunks ``BitsetScorer.histogram()`` uses, in the same
fresh process: the current kernels (``v2``, :mod:`ppm.core._bitset_kernels`) and the ones they
replaced (``v1``, :mod:`ppm.core._bitset_kernels_v1`), each with the plain popcount and the
carry-save one, on the leading chunks of the level up to ``LEVEL_MAX_HYPOTHESES`` (4e8:
``n_hypotheses`` is the number timed), alternating the variants and keeping the fastest of
``--repeats`` each (the
per-chunk histograms must be equal: asserted). Printed, and written next to ``--out`` as
``<stem>_popcount.csv``: per level and variant ``hypotheses_per_s``, ``fraction_of_floor``,
``speedup_vs_v1`` (v1 plain seconds / this variant's) and ``csa_speedup`` (plain seconds /
carry-save seconds of the same kernel). ``--popcount-only`` skips the fits.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import resource
import time
from pathlib import Path

import pandas as pd
from experiments import committed

# (d, n[, w_pub]): the last row is a C4 cell (d = 3, w_pub = 0.1: n_pub ~ 20 but n = 200, so
# each bitset holds 5 words instead of 2): it shows what the popcount words cost per hypothesis.
DEFAULT = [(1, 100_000), (1, 1_000_000), (2, 200), (2, 400), (2, 600), (3, 48), (3, 200, 0.1)]
QUICK = [(1, 100_000), (2, 200), (3, 24)]
REFERENCE_MAX_N = {2: 400, 3: 48}  # larger reference runs take minutes
# (d, |C_pub|, words): random membership bitsets for the popcount variants, more words than the
# samples above give at d = 3 (about 1e9 hypotheses each; the quick run takes fewer halfspaces)
SYNTHETIC = [(3, 1800, 6), (3, 1800, 9)]
SYNTHETIC_QUICK = [(3, 600, 6), (3, 600, 9)]


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
    # 64-bit words per halfspace bitset (label 0 and label 1 packed separately): the popcount
    # work per hypothesis of the bitset kernels
    n0 = int((y == 0).sum())
    words = -(-n0 // 64) + -(-(n - n0) // 64) if d >= 2 else float("nan")  # d = 1: a sort
    queue.put(dict(d=d, n=n, w_pub=w_pub, words=words, n_pub=fit.n_pub_,
                   n_halfspaces=fit.n_halfspaces_,
                   n_hypotheses=float(fit.n_hypotheses_), method=method, threads=threads,
                   seconds=seconds, hypotheses_per_s=fit.n_hypotheses_ / seconds,
                   peak_mib=max(0, peak - base) / 1024, hypothesis=str(fit.hypothesis_)))


def _popcount_inputs(spec):
    """``(B, y, d, row)``: the membership matrix, labels and d of a sample row ``("sample", d, n,
    w_pub)`` (the bench's sample and ``C_pub``) or a synthetic one ``("synthetic", d, m, words)``
    (uniform random membership, half the words label 0), and the row's description."""
    import numpy as np

    from ppm import construct_halfspaces
    from ppm.populations import GaussianClusters

    if spec[0] == "sample":
        _, d, n, w_pub = spec
        X, y, public = GaussianClusters(d=d, w_pub=w_pub).sample(n, random_state=0)
        hs = construct_halfspaces(X[public], n_features=d)
        return hs.membership(X), np.asarray(y), d, dict(
            d=d, n=n, w_pub=w_pub, n_pub=int(np.sum(public)))
    _, d, m, words = spec
    n0, n1 = 64 * (words // 2), 64 * (words - words // 2)
    rng = np.random.default_rng(words)
    y = np.repeat([0, 1], [n0, n1])
    return rng.random((m, n0 + n1)) < 0.5, y, d, dict(d=d, n=n0 + n1, w_pub=float("nan"),
                                                      n_pub=-1)


# (kernel, csa): the current kernels (v2) and the ones they replaced (kept as "v1"), each with
# the plain and the carry-save popcount
KERNELS = [("v1", False), ("v1", True), ("v2", False), ("v2", True)]
# hypotheses timed per level and variant (the leading chunks of the level): seconds per row
LEVEL_MAX_HYPOTHESES = 4e8


def _method(kernel, csa):
    return f"bitset-{kernel}-{'csa' if csa else 'plain'}"


def _measure_popcounts(spec, threads, repeats, queue):
    import numba
    import numpy as np

    from ppm.core.hypothesis_class import BitsetScorer, balanced_bounds, level_kernels

    numba.set_num_threads(threads)
    B, y, d, row = _popcount_inputs(spec)
    scorer = BitsetScorer(B, y, d)
    m, n1 = scorer.m, scorer.n + 1
    modules = {kernel: level_kernels(kernel) for kernel in ("v1", "v2")}
    levels = {}  # level -> (kernel name, chunk bounds, hypotheses): as BitsetScorer.histogram
    rows_ = np.arange(m - 1)
    levels[2] = ("level2_hist", balanced_bounds(0, m - 1, m - 1 - rows_, scorer._chunks),
                 m * (m - 1) / 2)
    if d >= 3:
        r = m - 1 - np.arange(0, m - 2)
        levels[3] = ("level3_hist", balanced_bounds(0, m - 2, r * (r - 1) / 2, scorer._chunks),
                     m * (m - 1) * (m - 2) / 6)
    out = []
    for level, (fn, bounds, size) in levels.items():
        # the leading chunks up to LEVEL_MAX_HYPOTHESES (balanced: each about 1/256 of the level)
        keep = max(1, int(len(bounds) - 1) * LEVEL_MAX_HYPOTHESES // max(size, 1))
        bounds = bounds[:min(len(bounds), int(keep) + 1)]
        first = np.arange(bounds[0], bounds[-1])
        rest = m - 1 - first
        size = float(rest.sum() if level == 2 else (rest * (rest - 1) // 2).sum())

        def run(kernel, csa, b=bounds, fn=fn):
            hist = np.zeros((len(b) - 1, n1), dtype=np.int64)
            getattr(modules[kernel], fn)(scorer.PQT, scorer.wP, scorer._ones, b, scorer.n0,
                                         hist, csa)
            return hist
        for kernel, csa in KERNELS:  # compile / load every variant outside the timing
            run(kernel, csa, b=bounds[:2])
        best, hists = dict.fromkeys(KERNELS, float("inf")), {}
        floor = 0.0  # the floor in this process, between the variants (the machine is shared)
        for rep in range(repeats):
            for variant in (KERNELS if rep % 2 == 0 else KERNELS[::-1]):  # alternate the order
                t0 = time.perf_counter()
                hists[variant] = run(*variant)
                best[variant] = min(best[variant], time.perf_counter() - t0)
                floor = max(floor, _floor_rate(threads))
        for variant in KERNELS:  # exact: the same per-chunk histograms
            assert np.array_equal(hists[variant], hists[KERNELS[0]]), (spec, level, variant)
        out += [dict(row, level=level, words=scorer.PQT.shape[0], n_halfspaces=m,
                     n_hypotheses=size, method=_method(*v), kernel=v[0], csa=v[1],
                     threads=threads, seconds=best[v], hypotheses_per_s=size / best[v],
                     floor_per_s=floor, fraction_of_floor=size / best[v] / floor)
                for v in KERNELS]
    queue.put(out)


def _floor_rate(threads) -> float:
    """Floor increments/s now, in this process (about 0.05-0.1 s of :func:`floor_walk`)."""
    import numpy as np

    from ppm.core.sweep_scorer import floor_walk

    steps = _floor_steps()
    chunks = 4 * threads
    out = np.zeros(chunks, dtype=np.int64)
    floor_walk(steps, 1, chunks, out)  # compile / load outside the timing
    t0 = time.perf_counter()
    floor_walk(steps, 40, chunks, out)
    return chunks * 40 * steps.size / (time.perf_counter() - t0)


def _floor_steps():
    import numpy as np

    rng = np.random.default_rng(0)
    return (512 + np.cumsum(rng.choice([-1, 1], size=1 << 16))).clip(1, 1022).astype(np.int64)


def measure_popcounts(spec, threads, repeats, floor) -> list[dict]:
    """Per level (2, and 3 for d >= 3) of the sample or synthetic bitsets: hypotheses/s and
    fraction of the floor of every kernel of ``KERNELS``, ``speedup_vs_v1`` (the v1 plain
    kernel's seconds / this one's) and ``csa_speedup`` (plain / carry-save, same kernel). The
    floor here is the best of the floors measured in the same process between the variants
    (``floor_per_s``; ``floor``, the run's first measurement, is not used: on a shared machine
    the load changes between the two)."""
    rows = _run(_measure_popcounts, (spec, threads, repeats))
    what = (f"d={spec[1]} n={spec[2]} w_pub={spec[3]:g}" if spec[0] == "sample"
            else f"synthetic d={spec[1]} |C_pub|={spec[2]}")
    for level in sorted({r["level"] for r in rows}):
        lv = {r["method"]: r for r in rows if r["level"] == level}
        base = lv[_method("v1", False)]["seconds"]
        for r in lv.values():
            r["speedup_vs_v1"] = base / r["seconds"]
            r["csa_speedup"] = lv[_method(r["kernel"], False)]["seconds"] / r["seconds"] \
                if r["csa"] else 1.0
        print(f"{what} ({rows[0]['words']} words, {threads} threads) level {level}, floor "
              f"{next(iter(lv.values()))['floor_per_s']:.3g}/s: "
              + ", ".join(f"{m} {r['hypotheses_per_s']:.3g} hyp/s = "
                          f"{r['fraction_of_floor']:.2f} of the floor"
                          for m, r in lv.items())
              + f"; v2 plain / v1 plain: {lv[_method('v2', False)]['speedup_vs_v1']:.2f}x",
              flush=True)
    return rows


def _floor(threads, queue):
    import numba
    import numpy as np

    from ppm.core.sweep_scorer import floor_walk

    numba.set_num_threads(threads)
    steps = _floor_steps()
    chunks, repeats = 4 * threads, 200
    out = np.zeros(chunks, dtype=np.int64)
    floor_walk(steps, 1, chunks, out)  # compile / load outside the timing
    t0 = time.perf_counter()
    floor_walk(steps, repeats, chunks, out)
    seconds = time.perf_counter() - t0
    queue.put(dict(method="floor", threads=threads, seconds=seconds,
                   hypotheses_per_s=chunks * repeats * steps.size / seconds))


def _run(target, args) -> dict:
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    row = queue.get()
    proc.join()
    return row


def measure(d, n, w_pub, method, threads, repeats=1) -> dict:
    """The fastest of ``repeats`` fits, each in a fresh process."""
    rows = [_run(_measure, (d, n, w_pub, method, threads)) for _ in range(repeats)]
    return min(rows, key=lambda r: r["seconds"])


def measure_floor(threads, repeats=1) -> float:
    rows = [_run(_floor, (threads,)) for _ in range(repeats)]
    return max(r["hypotheses_per_s"] for r in rows)


def sample_complexity_search_seconds() -> None:
    """Print the time of the exact ``n_theory`` search at extreme alpha (the speed goal the
    old timed unit test asserted, < 0.05 s; correctness is in tests/test_bounds.py)."""
    from ppm.bounds import agnostic_sample_complexity, realizable_sample_complexity

    for fn in (realizable_sample_complexity, agnostic_sample_complexity):
        for alpha in (0.999, 1e-4):
            best = float("inf")
            for _ in range(3):
                t = time.perf_counter()
                n = fn(alpha, 0.05, 1.0, 10)
                best = min(best, time.perf_counter() - t)
            print(f"{fn.__name__}(alpha={alpha:g}, beta=0.05, epsilon=1, d=10) = {n}: "
                  f"{best * 1e3:.2f} ms (goal < 50 ms)", flush=True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--w-pub", type=float, default=0.5,
                        help="public weight of the rows that do not set their own")
    parser.add_argument("--repeats", type=int, default=3, help="keep the fastest of these")
    parser.add_argument("--no-reference", action="store_true", help="skip the blocked reference")
    parser.add_argument("--out", type=Path, default=Path("results/bench.csv"))
    parser.add_argument("--popcount-only", action="store_true",
                        help="only the popcount variants (no fits; --out is not written)")
    committed.add_flag(parser)
    args = parser.parse_args(argv)
    popcount_out = args.out.with_name(args.out.stem + "_popcount.csv")
    committed.refuse_committed([args.out, popcount_out], args.overwrite_committed)
    if not args.popcount_only:
        sample_complexity_search_seconds()
    floor = measure_floor(args.threads, args.repeats)
    print(f"floor (one histogram increment per hypothesis, {args.threads} threads): "
          f"{floor:.3g}/s", flush=True)
    rows = [dict(method="floor", threads=args.threads, hypotheses_per_s=floor,
                 fraction_of_floor=1.0)]
    specs = [("sample", d, n, w[0] if w else args.w_pub)
             for d, n, *w in (QUICK if args.quick else DEFAULT) if d >= 2]
    specs += [("synthetic", *s) for s in (SYNTHETIC_QUICK if args.quick else SYNTHETIC)]
    popcount_rows = [r for spec in specs
                     for r in measure_popcounts(spec, args.threads, args.repeats, floor)]
    popcount_df = pd.DataFrame(popcount_rows)
    popcount_out.parent.mkdir(parents=True, exist_ok=True)
    popcount_df.to_csv(popcount_out, index=False)
    print(popcount_df[["d", "n", "w_pub", "words", "level", "n_halfspaces", "n_hypotheses",
                       "method", "threads", "seconds", "hypotheses_per_s", "floor_per_s",
                       "fraction_of_floor",
                       "speedup_vs_v1", "csa_speedup"]].to_string(
        index=False, float_format=lambda v: f"{v:.3g}"))
    if args.popcount_only:
        return
    for d, n, *w in QUICK if args.quick else DEFAULT:
        w_pub = w[0] if w else args.w_pub
        methods = ["auto"] if d == 1 else ["sweep", "bitset"]
        fits = [measure(d, n, w_pub, m, args.threads, args.repeats) for m in methods]
        ref = None
        if d >= 2 and n <= REFERENCE_MAX_N.get(d, 0) and not args.no_reference:
            ref = measure(d, n, w_pub, "blocked", args.threads)
            fits.append(ref)
        for fit in fits:
            # Same sample, same seed: the exact samplers must agree.
            assert fit["hypothesis"] == fits[0]["hypothesis"], (fit, fits[0])
            fit["fraction_of_floor"] = fit["hypotheses_per_s"] / floor
            fit["ratio_vs_reference"] = (ref["seconds"] / fit["seconds"] if ref is not None
                                         and fit is not ref else float("nan"))
            rows.append(fit)
            print(f"d={d} n={n} w_pub={w_pub:g} ({fit['words']} words) {fit['method']}: "
                  f"{fit['seconds']:.3f} s, "
                  f"{fit['hypotheses_per_s']:.3g} hyp/s = {fit['fraction_of_floor']:.2f} of "
                  f"the floor, {fit['peak_mib']:.0f} MiB", flush=True)
    df = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    df.drop(columns=["hypothesis"]).to_csv(args.out, index=False)
    cols = ["d", "n", "w_pub", "words", "n_pub", "n_halfspaces", "n_hypotheses", "method", "seconds",
            "hypotheses_per_s", "fraction_of_floor", "peak_mib", "ratio_vs_reference"]
    print(df[cols].to_string(index=False, float_format=lambda v: f"{v:.3g}"))


if __name__ == "__main__":
    main()
