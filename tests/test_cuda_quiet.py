"""The CUDA launches do not print numba's low-occupancy warning, and only that warning is hidden.

numba warns (``NumbaPerformanceWarning``: "Grid size N will likely result in GPU
under-utilization due to low occupancy.") when a kernel is configured with fewer than 128
blocks, which the PPM scorer and the Set Cover triple kernels do on purpose, at every launch of a
sweep. The launches silence that one warning (:func:`ppm.gpu.quiet_low_occupancy`).

numba's CUDA simulator never emits the warning, so these checks (in a subprocess under the
simulator, like tests/test_cuda_scorer.py) make every simulated launch configuration emit it, as
the real dispatcher does, together with a second, different ``NumbaPerformanceWarning``: the
first must not reach the caller, the second must.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
OTHER = "another performance warning (must stay visible)"
BOLD, RESET = "\x1b[1m", "\x1b[0m"
# numba-cuda highlights every warning's text where colour is on (seen on an H200 with numba-cuda
# 0.30.4, 2026-11: the simulator's messages too), so the checks read the text without escapes
ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


def _run(check: str, timeout: int = 300) -> str:
    env = dict(os.environ)
    env["NUMBA_ENABLE_CUDASIM"] = "1"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    proc = subprocess.run([sys.executable, "-c", f"import tests.test_cuda_quiet as t; t.{check}()"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, f"{check} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _warning_launches():
    """Make every simulated ``kernel[blocks, threads]`` warn like numba's real dispatcher (and
    emit one other performance warning). Returns the warning class used."""
    from numba.core.errors import NumbaPerformanceWarning
    from numba.cuda.simulator.kernel import FakeCUDAKernel

    configure = FakeCUDAKernel.__getitem__

    def __getitem__(self, config):
        blocks = config[0] if isinstance(config[0], int) else int(np.prod(config[0]))
        message = (f"Grid size {blocks} will likely result in GPU under-utilization due to "
                   f"low occupancy.")
        warnings.warn(NumbaPerformanceWarning(message))
        # as numba prints it where colour is on (an H100, 2026-11): bold terminal escapes
        warnings.warn(NumbaPerformanceWarning(f"{BOLD}{message}{RESET}"))
        warnings.warn(NumbaPerformanceWarning(OTHER))
        return configure(self, config)

    FakeCUDAKernel.__getitem__ = __getitem__
    return NumbaPerformanceWarning


def _messages(run):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run()
    return [ESCAPE.sub("", str(w.message)) for w in caught]


def sim_quiet_launches():
    from ppm.core.cuda_scorer import CudaScorer
    from ppm.set_cover import TriangleComplementSelector
    from ppm.set_cover import _cuda_triple_kernels as CK

    category = _warning_launches()
    # The patch is live: a bare launch outside the package shows both warnings.
    from numba import cuda

    @cuda.jit
    def noop(out):
        out[0] = 1

    bare = _messages(lambda: noop[1, 1](np.zeros(1)))
    # the plain and the bold form both reach a bare launch
    assert sum(m.startswith("Grid size 1 will likely") for m in bare) == 2, bare
    assert OTHER in bare, bare

    rng = np.random.default_rng(0)
    B = rng.random((10, 40)) < 0.6
    y = rng.integers(0, 2, 40)
    seen = _messages(lambda: CudaScorer(B, y, 3).histogram())
    assert OTHER in seen, seen  # the scorer launched kernels, and other warnings still show
    assert not any("under-utilization" in m for m in seen), seen

    sel = TriangleComplementSelector(8)
    X = np.array([[0, 0], [3, 1], [5, 6], [2, 7], [8, 2], [3, 1]])
    labels = np.array([0, 1, 1, 0, 1, 0])
    _, args = sel._prepare(X, labels, 2.5, 1.0)
    bits, mass, tab0, tab1, N0, N1, thr, eps = args[1:]
    seen = _messages(lambda: CK.log_weights(bits, mass, -1, -1, tab0, tab1, N0, N1, thr, eps))
    assert OTHER in seen, seen
    assert not any("under-utilization" in m for m in seen), seen
    # The filter is local to the launches: afterwards the warning shows again.
    assert any("under-utilization" in m for m in _messages(lambda: noop[1, 1](np.zeros(1))))
    print("quiet:", category.__name__)


def test_launches_hide_only_the_low_occupancy_warning():
    pytest.importorskip("numba.cuda")
    assert "quiet" in _run("sim_quiet_launches")


def test_the_filter_covers_a_warning_class_of_its_own():
    """numba-cuda may raise the low-occupancy warning from a class object that is not
    ``numba.core.errors.NumbaPerformanceWarning`` ("Grid size 86" lines in a 2026-11 batch log):
    the message alone is hidden, whatever the class; another message of that class still shows
    (no simulator or GPU needed: the launch context only)."""
    from ppm.gpu import quiet_low_occupancy

    Foreign = type("NumbaPerformanceWarning", (UserWarning,), {})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with quiet_low_occupancy():
            warnings.warn(Foreign("Grid size 86 will likely result in GPU under-utilization due "
                                  "to low occupancy."))
            warnings.warn(Foreign(OTHER))
            warnings.warn(Foreign(f"{BOLD}Grid size 5 will likely result in GPU "
                                  f"under-utilization due to low occupancy.{RESET}"))
        warnings.warn(Foreign("Grid size 86 will likely result in GPU under-utilization due to "
                              "low occupancy."))
    messages = [str(w.message) for w in caught]
    assert messages[0] == OTHER and len(messages) == 2, messages
    assert messages[1].startswith("Grid size 86"), messages
