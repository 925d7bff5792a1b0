"""The CUDA scorer (ppm.core.cuda_scorer) is the CPU bitset scorer, bit for bit, on any device.

No GPU is needed: the equality checks run under numba's CUDA simulator
(``NUMBA_ENABLE_CUDASIM=1``), each group in a subprocess, because numba reads that variable
once at import and the rest of the suite needs numba's real CPU kernels in this process. The
simulator runs the same kernel code exactly (a few thousand hypotheses/s), so the inputs are
tiny. On a machine with a GPU the same checks can run on it: ``PPM_TEST_CUDA_REAL=1``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The interpreter's switch interval in the simulator's subprocesses. numba's CUDA simulator runs
#: a block's threads as Python threads and, at every ``syncthreads``, busy-polls them from the
#: launching thread (``numba/cuda/simulator/kernel.py``, ``BlockManager.run``), which keeps the
#: GIL for a whole switch interval (5 ms by default) while the polled threads wait for it: a
#: 0.2 ms interval cut the CPU time of these checks about 3x. Scheduling only: every kernel's
#: output is the same for any interleaving of its threads (the kernels' contract on a GPU).
SIM_SWITCH_INTERVAL = 2e-4


def simulated_python(code: str, timeout: int, simulator: bool = True) -> str:
    """``python -c code`` in a subprocess from the repository root, under numba's CUDA simulator
    (unless ``PPM_TEST_CUDA_REAL=1``: a GPU) with :data:`SIM_SWITCH_INTERVAL`; its stdout."""
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator and os.environ.get("PPM_TEST_CUDA_REAL") != "1":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
        code = f"import sys; sys.setswitchinterval({SIM_SWITCH_INTERVAL}); {code}"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{code} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _run(check: str, simulator: bool = True, timeout: int = 300,
         module: list | None = None) -> str:
    """``check`` of this file (or, with ``module``, ``python -m <module...>``, run as ``-m``
    runs it) in a subprocess."""
    code = (f"import runpy, sys; sys.argv = {module!r}; "
            f"runpy.run_module({module[0]!r}, run_name='__main__', alter_sys=True)" if module
            else f"import tests.test_cuda_scorer as t; t.{check}()")
    return simulated_python(code, timeout, simulator)


# -- checks run in a subprocess under the simulator -------------------------------------------
def _random_case(d, m, n, seed, labels="mixed"):
    rng = np.random.default_rng(seed)
    B = rng.random((m, n)) < rng.uniform(0.3, 0.9, size=(m, 1))
    y = rng.integers(0, 2, n) if labels == "mixed" else np.full(n, int(labels))
    return B, y


def _count_launches(scorer):
    """Wrap the scorer's launches: the list of ``(kernel index, number of prefix masks, number
    of items, segments)`` (kernel 0: a histogram launch, 1: a rank-pass count)."""
    kernels = scorer._kernels
    launches = []
    real = kernels._launch

    def launch(kernel_index, M, segs, *rest):
        launches.append((kernel_index, np.atleast_2d(M).shape[0], int(segs[-1][-1]), segs))
        return real(kernel_index, M, segs, *rest)

    kernels._launch = launch
    return launches


def _limit_flushes(segs, m, limit):
    """Flushes on the limit (not on a change of output slot) of a histogram launch whose items
    one block takes in order (the simulator runs its blocks one after another: the first takes
    every item), by the kernel's rule (ppm.core._cuda_kernels): flush before an item when its
    slot differs from the pending one or its ``nrows * (m - i0 - 1)`` increments would take
    the pending count past ``limit``. 0 means the instance cannot exercise the limit."""
    from ppm.core._cuda_kernels import ROWS

    _, _, lo, hi, out, offsets = segs
    flushes, cur, pending = 0, -1, 0
    for s in range(len(lo)):
        for it in range(int(offsets[s]), int(offsets[s + 1])):
            i0 = int(lo[s]) + ROWS * (it - int(offsets[s]))
            span = min(ROWS, int(hi[s]) - i0) * (m - i0 - 1)
            if cur >= 0 and (out[s] != cur or pending + span > limit):
                flushes += int(out[s] == cur)
                pending = 0
            cur, pending = out[s], pending + span
    return flushes


def _check_same_scorer(cpu, gpu, levels=4, seed=0):
    """Same histogram, same records (per-chunk histograms), same find() at the first, the last
    and a random rank of a few levels (each find is a kernel launch: slow when simulated)."""
    total = cpu.histogram()
    assert np.array_equal(total, gpu.histogram())
    assert len(cpu._records) == len(gpu._records)
    for (k1, p1, d1, h1), (k2, p2, d2, h2) in zip(cpu._records, gpu._records):
        assert (k1, p1) == (k2, p2)
        assert (d1 is None and d2 is None) or np.array_equal(d1, d2)
        assert (h1 is None and h2 is None) or (h1.dtype == h2.dtype and np.array_equal(h1, h2))
    rng = np.random.default_rng(seed)
    nonzero = np.flatnonzero(total)
    for level in rng.choice(nonzero, min(levels, nonzero.size), replace=False):
        count = int(total[level])
        for rank in {0, count - 1, int(rng.integers(0, count))}:
            assert gpu.find(int(level), int(rank)) == cpu.find(int(level), int(rank)), (level, rank)
    return int(total.sum())


def sim_histograms():
    """Pairs, triples, level 4 through host prefixes; several launch shapes and chunkings. Each
    case is as small as still gives its property, and asserts it."""
    import time
    from math import comb

    from ppm.core import _cuda_kernels
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    cases = [  # (d, m, n, chunks, launch, labels)
        (2, 48, 50, 2, {}, "mixed"),  # 2 chunks: a segment of several 32-row items
        (2, 8, 45, 256, dict(threads=64, blocks=3, cols=1), "mixed"),
        (2, 6, 20, 256, {}, 1),  # no label-0 example: one all-padding word
        (3, 7, 130, 256, {}, "mixed"),  # 3 words (odd: the carry-save tail)
        (3, 8, 70, 4, dict(cols=3, flush_limit=12), "mixed"),  # flushes on the limit
        (4, 7, 70, 256, dict(blocks=1), "mixed"),  # level 4: its 1-prefixes in one launch
        (2, 6, 10_300, 256, {}, "mixed"),  # n too large for shared histograms: global
        # warp-aggregated increments (on a GPU; the simulator has no warp intrinsics and runs
        # the plain kernel, the cases above: skipped there)
        (3, 8, 70, 4, dict(cols=3, flush_limit=12, aggregate=True), "mixed"),
        (2, 6, 10_300, 256, dict(aggregate=True), "mixed"),
    ]
    assert _cuda_kernels.histogram_copies(10_300, 32) == 0
    for i, (d, m, n, chunks, launch, labels) in enumerate(cases):
        if launch.get("aggregate") and not _cuda_kernels.aggregation_available():
            print(f"case {i}: warp aggregation not available here (the plain kernel): skipped")
            continue
        B, y = _random_case(d, m, n, seed=i, labels=labels)
        t0 = time.perf_counter()
        cpu, gpu = BitsetScorer(B, y, d, chunks=chunks), CudaScorer(B, y, d, chunks=chunks,
                                                                       **launch)
        launches = _count_launches(gpu)
        size = _check_same_scorer(cpu, gpu, seed=i)
        hist = [L for L in launches if L[0] == 0]  # levels 2..d, one launch each
        assert [L[1] for L in hist] == [1] + [comb(m - 3, j - 3) for j in range(3, d + 1)]
        words, label0_words = cpu.PQT.shape[0], cpu.wP
        if i == 0:
            assert max(np.diff(hist[0][3][-1])) > 1, hist[0]
        if i == 2:
            assert cpu.n0 == 0 and label0_words == 1
        if i == 3:
            assert words == 3, words
        if launch.get("flush_limit"):
            assert sum(_limit_flushes(L[3], m, launch["flush_limit"]) for L in hist) > 0
        if n > 10_000:  # no shared histogram at any block size
            assert _cuda_kernels.histogram_copies(n, 1024) == 0
        print(f"d={d} m={m} n={n} ({words} words): {size} hypotheses equal, "
              f"{time.perf_counter() - t0:.1f} s")


def _sample(d, n, n_pub, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X @ rng.normal(size=d) + 0.3 * rng.normal(size=n) > 0).astype(np.int64)
    public = np.zeros(n, dtype=bool)
    public[rng.choice(n, n_pub, replace=False)] = True
    return X, y, public


def sim_fits():
    """device="cuda" samples the same hypothesis as device="cpu" for the same seed (and with the
    histogram memo), so predictions agree everywhere."""
    import tempfile

    from ppm import PPMHalfspaceLearner

    for d, n, n_pub in ((2, 40, 5), (3, 24, 4)):
        X, y, public = _sample(d, n, n_pub, seed=d)
        grid = np.random.default_rng(0).uniform(-3, 3, size=(500, d))
        for seed in range(2):  # two seeds and epsilons a sample
            kw = dict(epsilon=0.5 + seed, random_state=seed)
            cpu = PPMHalfspaceLearner(device="cpu", **kw).fit(X, y, public)
            gpu = PPMHalfspaceLearner(device="cuda", **kw).fit(X, y, public)
            assert gpu.hypothesis_ == cpu.hypothesis_, (d, seed)
            assert np.array_equal(gpu.W_, cpu.W_) and np.array_equal(gpu.b_, cpu.b_)
            assert np.array_equal(gpu.predict(grid), cpu.predict(grid))
            print(f"d={d} seed={seed}: |G|={cpu.n_hypotheses_} hypothesis {cpu.hypothesis_}")
        if d != 2:
            continue
        with tempfile.TemporaryDirectory() as memo:
            for _ in range(2):  # store, then restore the records: same sample
                fit = PPMHalfspaceLearner(device="cuda", random_state=7, histogram_memo=memo,
                                          allow_private_on_disk=True).fit(X, y, public)
                assert fit.hypothesis_ == PPMHalfspaceLearner(
                    device="cpu", random_state=7).fit(X, y, public).hypothesis_


# -- tests --------------------------------------------------------------------------------------
def test_histograms_and_rank_pass_equal_cpu():
    print(_run("sim_histograms"))


def test_fit_samples_same_hypothesis_as_cpu():
    print(_run("sim_fits"))


def test_bench_gpu_smoke():
    # as docs/gpu.md runs it: NUMBA_ENABLE_CUDASIM=1 python -m scripts.bench_gpu --smoke (its
    # three cells: level 2 at d = 2, levels 2 and 3 with the launch variants at d = 3, level 4)
    out = _run("bench_gpu --smoke", module=["scripts.bench_gpu", "--smoke"])
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[-1:] == ["same_histogram"])
    rows = [line.split() for line in lines[head + 1:]]
    rows = rows[:next((i for i, r in enumerate(rows) if not (r and r[0].isdigit())), len(rows))]
    assert rows and all(r[-1] == "True" for r in rows), lines[head:]  # every level's histogram
    assert {r[4] for r in rows} == {"2", "3", "4"}, lines[head:]  # level 4: the prefix launches
    assert "hypotheses_per_s" in out and "popcount_ceiling" in out
    assert "triangles m=4" in out and "triples_per_s" in out  # the triangle selection's table
    # the launch variants (warp aggregation too) gave the default launch's histograms
    shape_lines = [line for line in out.splitlines() if line.lstrip().startswith("shape ")]
    assert len(shape_lines) == 3 and all(line.endswith("same histogram: True")
                                         for line in shape_lines), shape_lines
    assert "crossover d=2 n=20" in out and "GPU cold" in out


def test_bad_device_rejected():
    from ppm import PPMHalfspaceLearner

    for bad in ("gpu", "CUDA", None, 0):
        with pytest.raises(ValueError, match=r"'device' parameter of PPMHalfspaceLearner must "
                                             r"be a str among .*'cuda'.*Got"):
            PPMHalfspaceLearner(device=bad)._validate_params()
    with pytest.raises(ValueError, match="method must be 'auto' or 'bitset'"):
        PPMHalfspaceLearner(device="cuda", method="sweep")._validate_params()
    assert "device" in PPMHalfspaceLearner._execution_params
    PPMHalfspaceLearner(device="cuda")._validate_params()  # a GPU is checked by fit, not here


def test_cuda_without_gpu_fails_before_any_work(monkeypatch):
    """No GPU and no simulator: a one-line error before ConstrHalf runs (checked in this process
    without the simulator, which this module never enables here)."""
    from ppm.core import learner
    from ppm import gpu

    if gpu.cuda_usable():
        pytest.skip("a GPU (or the simulator) is available here")

    def no_work(*args, **kwargs):
        raise AssertionError("work started before the device check")

    monkeypatch.setattr(learner, "construct_halfspaces", no_work)
    X, y, public = _sample(2, 20, 5, seed=0)
    with pytest.raises(RuntimeError, match="device='cuda' needs an NVIDIA GPU") as err:
        learner.PPMHalfspaceLearner(device="cuda").fit(X, y, public)
    assert "\n" not in str(err.value)
    # "auto" falls back to the CPU on the same machine, same output as "cpu"
    monkeypatch.undo()
    auto = learner.PPMHalfspaceLearner(device="auto", random_state=3).fit(X, y, public)
    cpu = learner.PPMHalfspaceLearner(device="cpu", random_state=3).fit(X, y, public)
    assert auto.hypothesis_ == cpu.hypothesis_
