"""numba's parallel kernels (``prange``) give the same results on 2 threads as on 1.

The test suite runs numba on one thread (tests/conftest.py sets ``NUMBA_NUM_THREADS=1``: tiny
kernels on a busy machine), so the parallel split is exercised here, in a subprocess with 2
threads: the membership matrix and the score histogram of every scorer of G (bitset, sweep,
blocked, against the reference scorer) on 1 thread and on 2, on samples with more public
halfspaces than threads (each thread gets rows of its own), d = 1, 2, 3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def two_threads_equal_one():
    """Run in the subprocess (NUMBA_NUM_THREADS=2)."""
    import numba

    from ppm.core.halfspaces import construct_halfspaces
    from ppm.core.learner import make_scorer

    assert numba.config.NUMBA_NUM_THREADS == 2, numba.config.NUMBA_NUM_THREADS
    rng = np.random.default_rng(0)
    for d, n, n_pub in ((1, 60, 16), (2, 50, 9), (3, 40, 7)):
        X = rng.normal(size=(n, d))
        y = rng.integers(0, 2, n)
        hs = construct_halfspaces(X[:n_pub], n_features=d)
        assert len(hs) > 2, len(hs)
        got = {}
        for threads in (1, 2):
            numba.set_num_threads(threads)
            got[threads] = (hs.membership(X), {m: make_scorer(hs, X, y, m).histogram()
                                               for m in ("bitset", "sweep", "blocked")})
        np.testing.assert_array_equal(got[1][0], got[2][0])
        reference = make_scorer(hs, X, y, "reference").histogram()
        for method, hist in got[2][1].items():
            np.testing.assert_array_equal(hist, got[1][1][method], err_msg=f"{d} {method}")
            np.testing.assert_array_equal(hist, reference, err_msg=f"{d} {method}")
        print(f"d={d}: {len(hs)} halfspaces, {int(reference.sum())} hypotheses: equal")


def test_parallel_kernels_on_two_threads_equal_one_thread():
    env = dict(os.environ, NUMBA_NUM_THREADS="2", OMP_NUM_THREADS="1")
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run(
        [sys.executable, "-c", "import tests.test_threads as t; t.two_threads_equal_one()"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count(": equal") == 3, proc.stdout


def test_the_suite_runs_numba_on_one_thread():
    """tests/conftest.py sets the variable (1 unless set already) before numba is imported:
    numba reads it once, so a later setting would be ignored."""
    import numba

    assert numba.config.NUMBA_NUM_THREADS == int(os.environ["NUMBA_NUM_THREADS"])
