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


def _run(check: str, simulator: bool = True, timeout: int = 300,
         module: list | None = None) -> str:
    """``check`` of this file (or, with ``module``, ``python -m <module...>``) in a subprocess."""
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if simulator and os.environ.get("PPM_TEST_CUDA_REAL") != "1":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    what = (["-m", *module] if module
            else ["-c", f"import tests.test_cuda_scorer as t; t.{check}()"])
    proc = subprocess.run([sys.executable, *what],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{check} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


# -- checks run in a subprocess under the simulator -------------------------------------------
def _random_case(d, m, n, seed, labels="mixed"):
    rng = np.random.default_rng(seed)
    B = rng.random((m, n)) < rng.uniform(0.3, 0.9, size=(m, 1))
    y = rng.integers(0, 2, n) if labels == "mixed" else np.full(n, int(labels))
    return B, y


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
    """Pairs, triples, level 4 through host prefixes; several launch shapes and chunkings."""
    import time

    from ppm.core import _cuda_kernels
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    cases = [  # (d, m, n, chunks, launch, labels)
        (2, 40, 50, 2, {}, "mixed"),  # 2 chunks: several 32-row items per segment
        (2, 20, 45, 256, dict(threads=64, blocks=3, cols=1), "mixed"),
        (2, 12, 20, 256, {}, 1),  # no label-0 example: one all-padding word
        (3, 14, 130, 256, {}, "mixed"),  # 3 words (odd: the carry-save tail)
        (3, 16, 70, 4, dict(cols=3, flush_limit=40), "mixed"),  # flushes on the limit
        (4, 10, 70, 256, dict(blocks=1), "mixed"),  # level 4: 3-prefixes on the host
        (2, 6, 10_300, 256, {}, "mixed"),  # n too large for shared histograms: global
        # warp-aggregated increments (on a GPU; the simulator falls back to one per pair)
        (3, 16, 70, 4, dict(cols=3, flush_limit=40, aggregate=True), "mixed"),
        (2, 6, 10_300, 256, dict(aggregate=True), "mixed"),
    ]
    assert _cuda_kernels.histogram_copies(10_300, 32) == 0
    for i, (d, m, n, chunks, launch, labels) in enumerate(cases):
        B, y = _random_case(d, m, n, seed=i, labels=labels)
        t0 = time.perf_counter()
        size = _check_same_scorer(BitsetScorer(B, y, d, chunks=chunks),
                                  CudaScorer(B, y, d, chunks=chunks, **launch), seed=i)
        print(f"d={d} m={m} n={n}: {size} hypotheses equal, {time.perf_counter() - t0:.1f} s")


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
        for seed in range(3):
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
    # as docs/gpu.md runs it: NUMBA_ENABLE_CUDASIM=1 python -m scripts.bench_gpu --smoke
    out = _run("bench_gpu --smoke", module=["scripts.bench_gpu", "--smoke"])
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if line.split()[-1:] == ["same_histogram"])
    rows = [line.split() for line in lines[head + 1:]]
    rows = rows[:next((i for i, r in enumerate(rows) if not (r and r[0].isdigit())), len(rows))]
    assert rows and all(r[-1] == "True" for r in rows), lines[head:]  # every level's histogram
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
