"""Benchmark of the CUDA scorer (ppm.core.cuda_scorer) per level and word count, and of the
triangle selection on the GPU (ppm.set_cover.unions).

    python -m scripts.bench_gpu --batch       # the committed measurement, < 5 min on one GPU
    python -m scripts.bench_gpu [--threads 2] [--repeats 3] [--cpu-chunks 1] [--out-dir results]
                                [--cells D,N,W_PUB ...] [--shapes] [--crossover]
                                [--triangle-m 16 24 32 48 64] [--cpu-max-triples 2e10]
    NUMBA_ENABLE_CUDASIM=1 python -m scripts.bench_gpu --smoke    # no GPU: simulator, tiny

For each sample (GaussianClusters, the C4 cells: d = 3, w_pub = 0.1, and d = 4 cells of the
``w_pub = 0.06`` pool) and each level j in {2, 3, 4}, on the same bitsets (``BitsetScorer``'s
``PQT``):

* ``gpu_hyp_per_s``: the GPU histogram of the whole level (one launch, best of ``--repeats``;
  level 4: every 1-prefix in one launch, ``CudaKernels.level3_hist_many``), and
  ``ratio_to_level3``: level 4's rate over level 3's on the same sample (goal: >= 0.8 where
  ``|C_pub|`` >= 1,500);
* ``popcount_ceiling``: the same launch with the histogram replaced by a per-thread sum of the
  scores (same loads, same carry-save popcounts, no atomics), measured in the same run;
  ``fraction_of_ceiling`` = gpu / ceiling;
* ``cpu_hyp_per_s``: the CPU bitset kernel (``--threads`` numba threads) on the first
  ``--cpu-chunks`` chunks of the level (of the first prefix at level 4; a whole level 3 takes
  minutes on 2 cores), and
  ``ratio_gpu_cpu``; ``same_histogram``: the GPU's per-chunk histograms of those chunks equal
  the CPU's (asserted).

Triangle selection (KMMS19 section 5, Theorem 5.1; docs/model.md §9.2): one selection round
(:meth:`TriangleComplementSelector.select`: the cells, the three chain-rule steps, the draws) on
random samples of ``m`` distinct points of ``{0..64}^2`` per ``--triangle-m``: ``cells`` ``L``,
``triples`` ``L^3``, ``gpu_seconds`` / ``gpu_triples_per_s`` (``device="cuda"``, best of
``--repeats``, kernels compiled before the timing) and ``cpu_seconds`` / ``cpu_triples_per_s``
(``device="cpu"``, the numba kernel on one core, one round; not timed above
``--cpu-max-triples``, where a round takes minutes), ``ratio_gpu_cpu``, and ``same_triangle``:
the two devices drew the same triangle from the same seed (asserted).

``--batch``: the whole measurement as committed, in one command sized to run in under 5
minutes on one GPU (every sample and level, the triangle rows, ``--repeats 3``, the CPU kernel
on every core, the CPU triangle round only up to 2e9 triples); prints its wall time and writes
the two CSVs. ``make bench`` runs it after ``scripts.bench`` when a GPU is present.
``--smoke`` runs tiny samples (under the simulator where there is no GPU) and writes nothing: a
test that the script works, its numbers mean nothing.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

# (d, n, w_pub): level 2 on d = 2 samples; levels 2 and 3 on the C4 cells (d = 3, w_pub = 0.1),
# whose bitsets hold 4 to 6 words; levels 3 and 4 on a d = 4 sample with 12 public points
# (|C_pub| 1,586, |G| 2.6e11: the size of C4's privacy-price design). --cells d,n,w_pub picks
# others (d = 4, n = 160, w_pub = 0.06: |C_pub| 2,940, 3.1e12 hypotheses at level 4).
DEFAULT = [(2, 400, 0.5), (2, 1000, 0.5), (3, 160, 0.1), (3, 224, 0.1), (3, 320, 0.1),
           (4, 192, 0.055)]
SMOKE = [(2, 20, 0.2), (3, 20, 0.15), (4, 12, 0.25)]  # 30, 28, 14 halfspaces: simulator seconds
BATCH_SECONDS = 300  # --batch: the whole measurement on one GPU
# --batch: launch variants (threads per block, partner columns per thread, warp-aggregated
# increments, persistent blocks per multiprocessor) on these (d, n, level); the first is the
# default launch; level 4 times the first four.
VARIANTS = [(256, 2, False, 3), (256, 2, True, 3), (512, 2, False, 3), (256, 2, False, 6),
            (128, 2, False, 6), (256, 1, False, 3), (256, 4, False, 3), (512, 2, True, 3)]
SHAPE_CELLS = {(3, 160, 3), (3, 320, 3), (4, 160, 4)}
SMOKE_VARIANTS = [(32, 2, False, 2), (32, 2, True, 2), (64, 1, False, 1)]
SMOKE_SHAPES = {(3, 20, 3)}
# --batch: whole histograms, CPU vs GPU, where device="auto" should switch (|G| 1e6 to 2e9)
CROSSOVER = [(2, 100, 0.5), (2, 200, 0.5), (2, 400, 0.5), (3, 96, 0.1), (3, 160, 0.1)]
TRIANGLE_M = [16, 24, 32, 48, 64]  # distinct points; L^3 from ~1e7 up to the GPU limit 1e11
TRIANGLE_T = 64


def _membership(d, n, w_pub):
    """``(B, y, n_pub)``: the sample's membership matrix over ``C_pub`` and labels."""
    from ppm.core.halfspaces import construct_halfspaces
    from ppm.populations import GaussianClusters

    X, y, public = GaussianClusters(d=d, w_pub=w_pub).sample(n, random_state=0)
    return construct_halfspaces(X[public], n_features=d).membership(X), y, int(public.sum())


def _bitsets(d, n, w_pub):
    from ppm.core.hypothesis_class import BitsetScorer

    B, y, n_pub = _membership(d, n, w_pub)
    return BitsetScorer(B, y, d), n_pub


def _level_bounds(scorer, level):
    """The chunk bounds BitsetScorer.histogram uses for level 2 or level 3 (empty prefix)."""
    from ppm.core.hypothesis_class import balanced_bounds

    m = scorer.m
    if level == 2:
        rows = np.arange(m - 1)
        return balanced_bounds(0, m - 1, m - 1 - rows, scorer._chunks)
    r = m - 1 - np.arange(0, m - 2)
    return balanced_bounds(0, m - 2, r * (r - 1) / 2, scorer._chunks)


def _level_size(m, level, lo, hi):
    """Hypotheses of the level whose first index lies in [lo, hi)."""
    first = np.arange(lo, hi)
    rest = m - 1 - first
    return int(rest.sum()) if level == 2 else int((rest * (rest - 1) // 2).sum())


def _best(fn, repeats):
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def _level4_runs(scorer):
    """Level 4 as BitsetScorer.histogram runs it: its 1-prefixes and their chunk bounds."""
    from ppm.core.hypothesis_class import prefix_triple_runs

    runs = [(p, b) for p, b in prefix_triple_runs(scorer.m, 4, scorer._chunks) if len(p) == 1]
    return [p for p, _ in runs], [b for _, b in runs]


def measure(scorer, level, repeats, cpu_chunks, launch=None, reference=None):
    """One row of the level benchmark (module docstring). ``launch``: the launch keywords of
    :class:`CudaKernels` (threads, blocks, cols, aggregate; default: the scorer's defaults).
    With ``reference`` (the default launch's per-chunk histograms) only the GPU launch is
    timed (a variant row of the shapes table) and its histograms are compared with it."""
    from math import comb

    from ppm.gpu import simulator_enabled
    from ppm.core.cuda_scorer import CudaKernels, cpu_kernels, launch_shape

    gpu = CudaKernels(scorer.PQT, scorer.wP, scorer.n, **(launch or {}))
    n1 = scorer.n + 1
    cpu = cpu_kernels()
    args = (scorer.PQT, scorer.wP, scorer._ones)
    if level == 4:
        prefixes, bounds_list = _level4_runs(scorer)
        hists = [np.zeros((len(b) - 1, n1), dtype=np.int64) for b in bounds_list]

        def run():
            for h in hists:
                h[:] = 0
            gpu.level3_hist_many(scorer.PQT, scorer.wP, prefixes, bounds_list, scorer.n0, hists)

        launches = list(gpu.prefix_launches(prefixes, bounds_list, [h.shape[0] for h in hists]))
        bounds, hist = bounds_list[0], hists[0]  # the CPU comparison: the first prefix
        cpu_mask = scorer._mask(prefixes[0])
        size = comb(scorer.m, 4)  # every 4-subset (p, a, i, k): prefix p, a triple after it
    else:
        bounds = _level_bounds(scorer, level)
        hist = np.zeros((len(bounds) - 1, n1), dtype=np.int64)
        run_gpu = gpu.level2_hist if level == 2 else gpu.level3_hist

        def run():
            hist[:] = 0
            run_gpu(*args, bounds, scorer.n0, hist)

        if level == 2:
            c = np.arange(len(bounds) - 1)
            segs = gpu._segments(np.full(c.size, -1), bounds[:-1], bounds[1:], c)
        else:
            segs = gpu._level3_segments(bounds, lambda a, chunk: chunk)
        launches = [(0, 1, scorer._ones, segs, len(bounds) - 1)]
        cpu_mask = scorer._ones
        size = _level_size(scorer.m, level, 0, scorer.m)
    if not simulator_enabled():  # compile outside the timing (the simulator compiles nothing)
        run()
    gpu_s = _best(run, repeats)
    result = [h.copy() for h in hists] if level == 4 else [hist.copy()]
    if reference is not None:
        threads, blocks = launch_shape(gpu._cuda, 1 << 40, gpu._threads, gpu._blocks)
        same = all(np.array_equal(a, b) for a, b in zip(result, reference))
        return dict(level=level, hypotheses=float(size), gpu_seconds=gpu_s,
                    gpu_hyp_per_s=size / gpu_s, same_histogram=same, threads=threads,
                    blocks=blocks, cols=gpu._cols, aggregate=gpu._aggregate), result

    # the popcount ceiling: the sink kernel on the same segments (and masks)
    n_items = max(int(segs[-1][-1]) for *_, segs, _ in launches)
    threads, blocks = launch_shape(gpu._cuda, n_items, gpu._threads, gpu._blocks)
    sink = gpu._cuda.to_device(np.zeros((threads * blocks, 1), dtype=np.uint64))

    def ceiling():
        for _, _, masks, segs, _ in launches:
            gpu._launch(2, masks, segs, scorer.n0, (), sink)

    ceiling_s = _best(ceiling, repeats)

    # the CPU kernel on the first chunks, same bitsets
    n_chunks = len(bounds) - 1
    k = min(cpu_chunks, n_chunks)
    sub = bounds[:k + 1]
    cpu_hist = np.zeros((k, n1), dtype=np.int64)
    run_cpu = cpu.level2_hist if level == 2 else cpu.level3_hist
    run_cpu(scorer.PQT, scorer.wP, cpu_mask, sub[:2], scorer.n0, np.zeros_like(cpu_hist[:1]))
    t0 = time.perf_counter()
    run_cpu(scorer.PQT, scorer.wP, cpu_mask, sub, scorer.n0, cpu_hist)
    cpu_s = time.perf_counter() - t0
    same = bool(np.array_equal(cpu_hist, hist[:k]))
    assert same, "GPU and CPU histograms differ"

    cpu_size = _level_size(scorer.m, 2 if level == 2 else 3, int(sub[0]), int(sub[-1]))
    return dict(level=level, hypotheses=float(size), launches=len(launches), gpu_seconds=gpu_s,
                gpu_hyp_per_s=size / gpu_s, popcount_ceiling=size / ceiling_s,
                fraction_of_ceiling=ceiling_s / gpu_s, cpu_hypotheses=float(cpu_size),
                cpu_hyp_per_s=cpu_size / cpu_s, ratio_gpu_cpu=(size / gpu_s) / (cpu_size / cpu_s),
                same_histogram=same, threads=threads, blocks=blocks,
                aggregate=gpu._aggregate), result


def shapes(scorer, level, repeats, reference, sms, variants) -> list[dict]:
    """Launch variants (:data:`VARIANTS`) on one level (``--batch``): hypotheses/s of each and
    whether its histograms equal the default launch's (``reference``)."""
    rows = []
    for threads, cols, aggregate, per_sm in variants if level == 3 else variants[:4]:
        launch = dict(threads=threads, cols=cols, aggregate=aggregate, blocks=per_sm * sms)
        row, _ = measure(scorer, level, repeats, 0, launch=launch, reference=reference)
        rows.append(dict(blocks_per_sm=per_sm, **row))
    return rows


def crossover(cells, cpu_threads) -> list[dict]:
    """Whole histograms (``scorer.histogram()``: singles, pairs, triples) on the CPU with
    ``cpu_threads`` numba threads and on the GPU, cold (the first scorer of this sample size:
    its kernels compile, the bitsets move) and warm: where ``device="auto"`` should switch."""
    import numba

    from ppm.core.cuda_scorer import CudaScorer, forget_compiled
    from ppm.core.hypothesis_class import BitsetScorer

    rows = []
    for d, n, w_pub in cells:
        B, y, _ = _membership(d, n, w_pub)
        row = dict(d=d, n=n, w_pub=w_pub, n_halfspaces=int(B.shape[0]))
        for threads in sorted({cpu_threads, 2}):
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
            BitsetScorer(B[:d + 8], y, d).histogram()  # compile the CPU kernels, untimed
            t0 = time.perf_counter()
            total = BitsetScorer(B, y, d).histogram()
            row[f"cpu{threads}_seconds"] = time.perf_counter() - t0
        row["hypotheses"] = float(total.sum())
        forget_compiled()  # as a new process meeting this n: compile again
        for kind in ("cold", "warm"):
            t0 = time.perf_counter()
            same = np.array_equal(CudaScorer(B, y, d).histogram(), total)
            row[f"gpu_{kind}_seconds"] = time.perf_counter() - t0
            assert same, f"d={d} n={n}: GPU and CPU histograms differ"
        rows.append(row)
        print(f"crossover d={d} n={n}: |G| {row['hypotheses']:.3g}, CPU(2) "
              f"{row['cpu2_seconds']:.3g} s, GPU cold {row['gpu_cold_seconds']:.3g} s, warm "
              f"{row['gpu_warm_seconds']:.3g} s", flush=True)
    return rows


def _triangle_sample(m, T, seed=0):
    """``m`` distinct random points of ``{0..T}^2``, random labels."""
    rng = np.random.default_rng(seed)
    idx = rng.choice((T + 1) ** 2, m, replace=False)
    X = np.stack([idx // (T + 1), idx % (T + 1)], axis=1)
    return X, rng.integers(0, 2, m)


def measure_triangles(m, T, repeats, cpu_max_triples, seed=0) -> dict:
    """One selection round on the GPU and on the CPU, same sample and seed."""
    from ppm.set_cover import TriangleComplementSelector

    X, y = _triangle_sample(m, T, seed)
    thr, eps = 0.5 * float(np.count_nonzero(y == 0)), 1.0
    gpu = TriangleComplementSelector(T, device="cuda")
    cpu = TriangleComplementSelector(T, device="cpu", max_triples=cpu_max_triples)
    L = int(gpu.cells(X, y).labels.shape[0])
    triples = float(L) ** 3

    def coefficients(sel):
        tri = sel.select(X, y, thr, eps, np.random.default_rng(seed)).triangle
        return [(h.a_hat, h.b) for h in tri.halfplanes]

    coef = {}
    gpu_s = _best(lambda: coef.__setitem__("gpu", coefficients(gpu)), repeats)
    row = dict(m=m, T=T, cells=L, triples=triples, gpu_seconds=gpu_s,
               gpu_triples_per_s=triples / gpu_s, cpu_seconds=np.nan,
               cpu_triples_per_s=np.nan, ratio_gpu_cpu=np.nan, same_triangle=None)
    if triples <= cpu_max_triples:
        cpu_s = _best(lambda: coef.__setitem__("cpu", coefficients(cpu)), 1)
        same = coef["cpu"] == coef["gpu"]
        assert same, f"m={m}: the GPU and the CPU drew different triangles"
        row.update(cpu_seconds=cpu_s, cpu_triples_per_s=triples / cpu_s,
                   ratio_gpu_cpu=cpu_s / gpu_s, same_triangle=same)
    return row


def triangles(ms, T, repeats, cpu_max_triples, out, smoke, device) -> list[dict]:
    """The triangle-selection benchmark (module docstring); writes ``out`` unless ``smoke``."""
    from ppm.gpu import simulator_enabled
    from ppm.set_cover import TriangleComplementSelector

    X, y = _triangle_sample(4, T)
    if not simulator_enabled():  # compile the kernels (one word) outside the timing
        TriangleComplementSelector(T, device="cuda").select(X, y, 1.0, 1.0,
                                                            np.random.default_rng(0))
    rows = []
    for m in ms:
        row = dict(device=device, **measure_triangles(m, T, repeats, cpu_max_triples))
        rows.append(row)
        print(f"triangles m={m}: {row['cells']} cells, {row['triples']:.3g} triples, GPU "
              f"{row['gpu_seconds']:.3g} s ({row['gpu_triples_per_s']:.3g} triples/s), CPU "
              f"{row['cpu_seconds']:.3g} s, {row['ratio_gpu_cpu']:.3g}x", flush=True)
    df = pd.DataFrame(rows)
    cols = ["m", "cells", "triples", "gpu_seconds", "gpu_triples_per_s", "cpu_seconds",
            "cpu_triples_per_s", "ratio_gpu_cpu", "same_triangle"]
    print(df[cols].rename(columns={"gpu_triples_per_s": "triples_per_s"})
          .to_string(index=False, float_format=lambda v: f"{v:.3g}"), flush=True)
    _write(df, out, smoke)
    return rows


def _write(df, path, smoke):
    if not smoke:
        path.parent.mkdir(parents=True, exist_ok=True)
        df.to_csv(path, index=False)
        print(f"wrote {path}", flush=True)


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smoke", action="store_true",
                        help="tiny samples (the simulator where there is no GPU), no CSV")
    parser.add_argument("--batch", action="store_true",
                        help="the whole measurement to commit, under 5 minutes on one GPU")
    parser.add_argument("--threads", type=int, default=2, help="numba threads of the CPU kernel")
    parser.add_argument("--repeats", type=int, default=3, help="keep the fastest GPU launch")
    parser.add_argument("--cpu-chunks", type=int, default=1,
                        help="chunks (of 256 per level) the CPU kernel is timed on")
    parser.add_argument("--out-dir", type=Path, default=Path("results"),
                        help="where bench_gpu.csv, bench_gpu_shapes.csv, bench_gpu_crossover.csv "
                             "and bench_gpu_triangles.csv go")
    parser.add_argument("--triangle-m", type=int, nargs="*", default=TRIANGLE_M,
                        help="distinct points of the triangle-selection samples (none: skip)")
    parser.add_argument("--cpu-max-triples", type=float, default=2e10,
                        help="time the CPU triangle round only up to this many cell triples")
    parser.add_argument("--cells", nargs="*", metavar="D,N,W_PUB",
                        help="samples of the level rows (default: the committed ones)")
    parser.add_argument("--shapes", action="store_true",
                        help="also time the launch variants (bench_gpu_shapes.csv; minutes)")
    parser.add_argument("--crossover", action="store_true",
                        help="also time whole histograms CPU vs GPU (with --batch)")
    args = parser.parse_args(argv)
    try:
        cells = [(int(d), int(n), float(w)) for d, n, w in
                 (c.split(",") for c in args.cells)] if args.cells else None
    except ValueError:
        parser.error(f"--cells: expected d,n,w_pub triples, got {args.cells}")
    out = {k: args.out_dir / f"bench_gpu{k}.csv" for k in ("", "_shapes", "_crossover",
                                                            "_triangles")}
    if args.batch:  # the committed measurement: every core for the CPU side, short CPU rounds
        import os

        args.repeats, args.cpu_chunks = 3, 1
        args.threads = max(args.threads, os.cpu_count() or 1)
        args.cpu_max_triples = min(args.cpu_max_triples, 2e9)
    started = time.perf_counter()

    import numba

    from ppm.gpu import simulator_enabled
    from ppm.gpu import check_cuda, cuda_module

    check_cuda()
    numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
    cuda = cuda_module()
    device = "CUDA simulator" if simulator_enabled() else cuda.get_current_device().name
    device = device.decode() if isinstance(device, bytes) else str(device)
    print(f"device: {device}", flush=True)
    sms = 1 if simulator_enabled() else cuda.get_current_device().MULTIPROCESSOR_COUNT
    rows, shape_rows = [], []
    for d, n, w_pub in cells or (SMOKE if args.smoke else DEFAULT):
        scorer, n_pub = _bitsets(d, n, w_pub)
        # levels 2 and 3 at d <= 3; levels 3 and 4 at d = 4 (its level 2 is a d = 2 row's)
        for level in range(2 if d <= 3 else 3, min(d, scorer.m) + 1):
            measured, result = measure(scorer, level, 1 if args.smoke else args.repeats,
                                       args.cpu_chunks if not args.smoke else 256)
            row = dict(device=device, d=d, n=n, w_pub=w_pub, n_pub=n_pub,
                       words=int(scorer.PQT.shape[0]), n_halfspaces=scorer.m, **measured)
            if (d, n, level) in (SMOKE_SHAPES if args.smoke else SHAPE_CELLS if args.shapes
                                 else ()):
                for v in shapes(scorer, level, 1 if args.smoke else 2, result, sms,
                                SMOKE_VARIANTS if args.smoke else VARIANTS):
                    v.update(device=device, d=d, n=n, n_halfspaces=scorer.m,
                             ratio_to_default=v["gpu_hyp_per_s"] / row["gpu_hyp_per_s"])
                    shape_rows.append(v)
                    print(f"  shape threads={v['threads']} cols={v['cols']} aggregate="
                          f"{v['aggregate']} blocks/SM={v['blocks_per_sm']}: "
                          f"{v['gpu_hyp_per_s']:.3g} hyp/s ({v['ratio_to_default']:.2f} of the "
                          f"default), same histogram: {v['same_histogram']}", flush=True)
            level3 = [r for r in rows if (r["d"], r["n"], r["level"]) == (d, n, 3)]
            row["ratio_to_level3"] = (row["gpu_hyp_per_s"] / level3[0]["gpu_hyp_per_s"]
                                      if level == 4 and level3 else np.nan)
            rows.append(row)
            print(f"d={d} n={n} level {level} ({row['words']} words, |C_pub| {scorer.m}, "
                  f"{row['launches']} launch(es)): {row['gpu_hyp_per_s']:.3g} hyp/s = "
                  f"{row['fraction_of_ceiling']:.2f} of the popcount ceiling, "
                  f"{row['ratio_gpu_cpu']:.3g}x the CPU"
                  + (f", {row['ratio_to_level3']:.2f} of level 3's rate" if level == 4 else ""),
                  flush=True)
        _write(pd.DataFrame(rows), out[""], args.smoke)  # each cell as it ends: a run stopped
        if shape_rows:  # by a time limit keeps what it measured
            _write(pd.DataFrame(shape_rows), out["_shapes"], args.smoke)
    df = pd.DataFrame(rows)
    cols = ["d", "n", "words", "n_halfspaces", "level", "hypotheses", "launches", "gpu_seconds",
            "gpu_hyp_per_s", "popcount_ceiling", "fraction_of_ceiling", "ratio_to_level3",
            "cpu_hyp_per_s", "ratio_gpu_cpu", "same_histogram"]
    print(df[cols].rename(columns={"gpu_hyp_per_s": "hypotheses_per_s"})
          .to_string(index=False, float_format=lambda v: f"{v:.3g}"), flush=True)
    if args.batch or args.crossover or args.smoke:
        cross = pd.DataFrame(crossover(SMOKE[:1] if args.smoke else CROSSOVER, args.threads))
        cross.insert(0, "device", device)
        _write(cross, out["_crossover"], args.smoke)
    if args.triangle_m:
        # the smoke run: 4 distinct points (a dozen cells), seconds under the simulator
        triangles([4] if args.smoke else args.triangle_m, 8 if args.smoke else TRIANGLE_T,
                  1 if args.smoke else args.repeats, args.cpu_max_triples, out["_triangles"],
                  args.smoke, device)
    wall = time.perf_counter() - started
    print(f"wall time {wall:.0f} s" + (f" (batch budget {BATCH_SECONDS} s: "
                                       f"{'within' if wall <= BATCH_SECONDS else 'OVER'})"
                                       if args.batch else ""), flush=True)
    return rows


if __name__ == "__main__":
    main()
