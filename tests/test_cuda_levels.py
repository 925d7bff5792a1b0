"""Levels j >= 4 on the GPU in one launch per level: every ``(j - 3)``-prefix of a
level in one launch, a work segment per ``(prefix, first index)`` pair, the prefix masks in one
table. Checked against the CPU bitset scorer bit for bit (histogram, per-chunk records, ranks)
at d = 4 and 5 under numba's CUDA simulator, in a subprocess (as tests/test_cuda_scorer.py,
whose helpers it uses); ``PPM_TEST_CUDA_REAL=1`` runs the same checks on a GPU."""

from __future__ import annotations

from math import comb

import numpy as np

from tests.test_cuda_scorer import (_check_same_scorer, _count_launches, _limit_flushes,
                                    _random_case, simulated_python)


def _run(check: str, timeout: int = 600) -> str:
    return simulated_python(f"import tests.test_cuda_levels as t; t.{check}()", timeout)


# -- checks run in a subprocess under the simulator -------------------------------------------
def sim_prefix_levels():
    """Each case as small as still gives its property (written beside it, asserted below)."""
    from ppm.core._cuda_kernels import aggregation_available
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    cases = [  # (d, m, n, chunks, launch, labels)
        (4, 8, 70, 256, {}, "mixed"),
        # few chunks: long level-2 segments, several (prefix, first index) segments a slot
        (4, 9, 40, 3, dict(threads=64, cols=1), "mixed"),
        (5, 7, 130, 2, dict(flush_limit=4), "mixed"),  # levels 4 and 5, 3 words, flushes
        (5, 7, 20, 2, {}, 1),  # no label-0 example
        # warp-aggregated (on a GPU only: the simulator has no warp intrinsics, and would run
        # case 0's kernel)
        (4, 8, 70, 256, dict(aggregate=True), "mixed"),
    ]
    for i, (d, m, n, chunks, launch, labels) in enumerate(cases):
        if launch.get("aggregate") and not aggregation_available():
            print(f"case {i}: warp aggregation not available here (the plain kernel): skipped")
            continue
        B, y = _random_case(d, m, n, seed=100 + i, labels=labels)
        cpu = BitsetScorer(B, y, d, chunks=chunks)
        gpu = CudaScorer(B, y, d, chunks=chunks, **launch)
        launches = _count_launches(gpu)
        size = _check_same_scorer(cpu, gpu, seed=i)  # one histogram, then the rank pass
        assert size == sum(comb(m, j) for j in range(d + 1))
        hist_launches = [L for L in launches if L[0] == 0]
        # levels 2, 3, ..., d: one histogram launch each; level j holds the C(m - 3, j - 3)
        # prefixes that leave a triple (last index <= m - 4)
        expected = [1, 1] + [comb(m - 3, j - 3) for j in range(4, d + 1)]
        assert [L[1] for L in hist_launches] == expected, (hist_launches, expected)
        segs = [L[3] for L in hist_launches]  # (p, a, lo, hi, slot, offsets) per level
        if i == 1:
            assert max(segs[0][3] - segs[0][2]) > 1  # level 2: a segment of several rows
            assert len(set(segs[2][4])) < len(segs[2][4])  # level 4: segments share a slot
        if i == 2:
            assert cpu.PQT.shape[0] == 3, cpu.PQT.shape
            assert all(_limit_flushes(s, m, launch["flush_limit"]) > 0 for s in segs[2:])
        if i == 3:
            assert cpu.n0 == 0
        print(f"d={d} m={m} n={n}: {size} hypotheses equal, launches "
              f"{[L[:3] for L in hist_launches]}")


def sim_prefix_batches():
    """A device buffer too small for a level's chunks: several launches, the same records."""
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.core.hypothesis_class import BitsetScorer

    d, m, n = 5, 7, 60
    B, y = _random_case(d, m, n, seed=7)
    slot_bytes = 8 * (n + 2)
    gpu = CudaScorer(B, y, d, chunks=4, out_bytes=5 * slot_bytes)  # at most 5 chunks a launch
    launches = _count_launches(gpu)
    _check_same_scorer(BitsetScorer(B, y, d, chunks=4), gpu, seed=1)
    hist = [L for L in launches if L[0] == 0]  # level 2, level 3, then levels 4 and 5
    split, masks = {4: [], 5: []}, 0
    for L in hist[2:]:  # the C(m - 3, 1) level-4 prefixes come first, then level 5's
        split[4 if masks < comb(m - 3, 1) else 5].append(L[1])
        masks += L[1]
    # each of levels 4 and 5 in several launches of at most 5 slots
    assert [sum(split[4]), sum(split[5])] == [comb(m - 3, 1), comb(m - 3, 2)], split
    assert len(split[4]) > 1 and len(split[5]) > 1, split
    assert all(max(L[3][4]) < 5 for L in hist), [L[:3] for L in hist]
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
