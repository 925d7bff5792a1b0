"""The ``numba.cuda`` module and whether a GPU (or the CUDA simulator) is there.

Nothing here imports numba at import time: :func:`cuda_module` imports it when a backend first
needs it, so the CPU paths never load the CUDA target.
"""

from __future__ import annotations

import os

import numpy as np


def cuda_module():
    """``numba.cuda`` (numba's built-in target or the ``numba-cuda`` package).

    numba-cuda 0.30 still calls ``np.row_stack``, which numpy >= 2.5 removed: alias it first.
    """
    if not hasattr(np, "row_stack"):
        np.row_stack = np.vstack
    from numba import cuda

    return cuda


def simulator_enabled() -> bool:
    """Whether numba.cuda is (or will be) the CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``)."""
    import numba

    return bool(getattr(numba.config, "ENABLE_CUDASIM", 0)) or \
        os.environ.get("NUMBA_ENABLE_CUDASIM", "0") not in ("", "0")


def gpu_available() -> bool:
    """A real CUDA GPU usable by numba (the simulator does not count)."""
    if simulator_enabled():
        return False
    try:
        return bool(cuda_module().is_available())
    except Exception:  # no driver, a broken toolkit, numba-cuda failing to import
        return False


def cuda_usable() -> bool:
    """A real GPU, or the CUDA simulator when ``NUMBA_ENABLE_CUDASIM=1`` is set (tests)."""
    if simulator_enabled():
        return True
    return gpu_available()


def check_cuda() -> None:
    """Raise a one-line ``RuntimeError`` unless :func:`cuda_usable`."""
    if not cuda_usable():
        raise RuntimeError(
            "device='cuda' needs an NVIDIA GPU visible to numba.cuda (install the extra: "
            "pip install -e '.[gpu]'); none was found. Use device='cpu' or 'auto'.")
