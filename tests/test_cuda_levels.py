"""Levels j >= 4 on the GPU in one launch per level: every ``(j - 3)``-prefix of a
level in one launch, a work segment per ``(prefix, first index)`` pair, the prefix masks in one
table. Checked against the CPU bitset scorer bit for bit (histogram, per-chunk records, ranks)
at d = 4 and 5 under numba's CUDA simulator, in a subprocess (as tests/test_cuda_scorer.py,
whose helpers it uses); ``PPM_TEST_CUDA_REAL=1`` runs the same checks on a GPU."""

from __future__ import annotations

import os
import subprocess
import sys
from math import comb
from pathlib import Path

import numpy as np

from tests.test_cuda_scorer import _check_same_scorer, _random_case

ROOT = Path(__file__).resolve().parents[1]


def _run(check: str, timeout: int = 600) -> str:
    env = dict(os.environ)
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    if os.environ.get("PPM_TEST_CUDA_REAL") != "1":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    code = f"import tests.test_cuda_levels as t; t.{check}()"
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, f"{check} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _count_launches(scorer):
    """Wrap the scorer's launches: the list of (kernel index, number of prefix masks)."""
    kernels = scorer._kernels
    launches = []
    real = kernels._launch

    def launch(kernel_index, M, segs, *rest):
        launches.append((kernel_index, np.atleast_2d(M).shape[0], int(segs[-1][-1])))
        return real(kernel_index, M, segs, *rest)

    kernels._launch = launch
    return launches


# -- checks run in a subprocess under the simulator -------------------------------------------
def sim_prefix_levels():
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    cases = [  # (d, m, n, chunks, launch, labels)
        (4, 10, 70, 256, {}, "mixed"),
        (4, 11, 40, 3, dict(threads=64, cols=1), "mixed"),  # few chunks: long segments
        (5, 9, 130, 256, dict(flush_limit=50), "mixed"),  # levels 4 and 5, 3 words, flushes
        (5, 8, 20, 2, {}, 1),  # no label-0 example
        (4, 10, 70, 256, dict(aggregate=True), "mixed"),  # warp-aggregated (on a GPU)
    ]
    for i, (d, m, n, chunks, launch, labels) in enumerate(cases):
        B, y = _random_case(d, m, n, seed=100 + i, labels=labels)
        cpu = BitsetScorer(B, y, d, chunks=chunks)
        gpu = CudaScorer(B, y, d, chunks=chunks, **launch)
        launches = _count_launches(gpu)
        gpu.histogram()
        hist_launches = [L for L in launches if L[0] == 0]
        # levels 2, 3, ..., d: one histogram launch each; level j holds the C(m - 3, j - 3)
        # prefixes that leave a triple (last index <= m - 4)
        expected = [1, 1] + [comb(m - 3, j - 3) for j in range(4, d + 1)]
        assert [L[1] for L in hist_launches] == expected, (hist_launches, expected)
        gpu._records = None
        size = _check_same_scorer(cpu, gpu, seed=i)
        assert size == sum(comb(m, j) for j in range(d + 1))
        print(f"d={d} m={m} n={n}: {size} hypotheses equal, launches {hist_launches}")


def sim_prefix_batches():
    """A device buffer too small for a level's chunks: several launches, the same records."""
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    d, m, n = 5, 9, 60
    B, y = _random_case(d, m, n, seed=7)
    slot_bytes = 8 * (n + 2)
    gpu = CudaScorer(B, y, d, chunks=4, out_bytes=5 * slot_bytes)  # at most 5 chunks a launch
    launches = _count_launches(gpu)
    _check_same_scorer(BitsetScorer(B, y, d, chunks=4), gpu, seed=1)
    level5 = [L for L in launches if L[0] == 0 and 1 < L[1] < comb(m - 3, 2)]
    assert len([L for L in launches if L[0] == 0]) > d - 1 and level5
    print(f"{len(launches)} launches")


# -- tests --------------------------------------------------------------------------------------
def test_level4_and_5_one_launch_per_level_equal_cpu():
    print(_run("sim_prefix_levels"))


def test_level_in_batches_when_the_buffer_is_small():
    print(_run("sim_prefix_batches"))


def test_prefix_masks_are_the_and_of_the_prefix():
    """The host-built mask table (no GPU needed: numpy only) against the CPU scorer's masks."""
    from ppm.core.cuda_scorer import CudaKernels
    from ppm.core.hypothesis_class import BitsetScorer

    B, y = _random_case(4, 12, 150, seed=3)
    cpu = BitsetScorer(B, y, 4)
    kernels = CudaKernels.__new__(CudaKernels)  # no device: only the host-side table
    kernels.W, kernels._PQT = cpu.PQT.shape[0], cpu.PQT
    for j in (0, 1, 2):
        prefixes = [p for p in __import__("itertools").combinations(range(cpu.m), j)][:40]
        table = kernels.prefix_masks(prefixes)
        assert table.shape == (len(prefixes), cpu.PQT.shape[0])
        for p, row in zip(prefixes, table):
            np.testing.assert_array_equal(row, cpu._mask(p))
