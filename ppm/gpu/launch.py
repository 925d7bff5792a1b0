"""Kernel launches: :func:`launch`, and the filter of numba's low-occupancy warning.

numba warns at launch time (``NumbaPerformanceWarning``) for grids under 128 blocks. The launch
shapes of the backends are chosen on purpose (persistent blocks, one block per cell, small grids
for small inputs), so the warning printed at every launch of a sweep says nothing: it alone is
silenced, at the launches, by its category and message (every other warning still shows).
"""

from __future__ import annotations

import contextlib
import warnings

from ppm.gpu.runtime import cuda_module

# numba highlights its warnings with terminal escapes where colour is on ("\x1b[1mGrid size
# 5 will ..."; seen on an H100 in 2026-11), and ``filterwarnings`` matches a message from its
# start: the pattern admits any prefix.
LOW_OCCUPANCY_MESSAGE = r"(?s).*Grid size \d+ will likely result in GPU under-utilization"


def _performance_warning_classes() -> tuple:
    """``NumbaPerformanceWarning`` of numba and, when installed, of numba-cuda (which may
    define its own class in ``numba.cuda.core.errors``)."""
    from numba.core.errors import NumbaPerformanceWarning

    classes = [NumbaPerformanceWarning]
    try:
        from numba.cuda.core.errors import NumbaPerformanceWarning as CudaPerformanceWarning
    except ImportError:  # numba's built-in numba.cuda: the class above
        pass
    else:
        if CudaPerformanceWarning not in classes:
            classes.append(CudaPerformanceWarning)
    return tuple(classes)


@contextlib.contextmanager
def quiet_low_occupancy():
    """Around a kernel launch (``kernel[blocks, threads](...)``): ignore numba's low-occupancy
    ``NumbaPerformanceWarning`` ("Grid size N will likely result in GPU under-utilization ..."),
    only that category and message."""
    with warnings.catch_warnings():
        for category in _performance_warning_classes():
            warnings.filterwarnings("ignore", message=LOW_OCCUPANCY_MESSAGE, category=category)
        # By message for any class too: numba-cuda may raise it from a class object of its own
        # (``numba_cuda.numba.cuda...``) that is not the one imported above.
        warnings.filterwarnings("ignore", message=LOW_OCCUPANCY_MESSAGE, category=Warning)
        yield


def launch(kernel, blocks: int, threads: int, *args) -> None:
    """``kernel[blocks, threads](*args)`` under :func:`quiet_low_occupancy`, then wait for the
    device (the caller copies the outputs back)."""
    with quiet_low_occupancy():
        kernel[blocks, threads](*args)
    cuda_module().synchronize()
