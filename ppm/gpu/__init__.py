"""The CUDA plumbing shared by the GPU backends (``docs/gpu.md``, "How to add a kernel").

* :mod:`ppm.gpu.runtime`: the ``numba.cuda`` module (imported when first needed), the
  simulator detection and whether a GPU is there (:func:`gpu_available`, :func:`cuda_usable`,
  :func:`check_cuda`);
* :mod:`ppm.gpu.devices`: the ``device`` vocabulary (:data:`DEVICES`, :func:`check_device`) and
  the sizes from which ``device="auto"`` takes the GPU;
* :mod:`ppm.gpu.launch`: kernel launches (:func:`launch`) and the filter of numba's
  low-occupancy warning (:func:`quiet_low_occupancy`).

The backends keep their kernels: :mod:`ppm.core.cuda_scorer` (the PPM bitset scorer, kernels in
:mod:`ppm.core._cuda_kernels`) and :mod:`ppm.set_cover._cuda_triple_kernels` (the triangle
selection). Nothing here imports numba or a kernel module at import time.
"""

from ppm.gpu.devices import AUTO_MIN_HYPOTHESES, AUTO_MIN_TRIPLES, DEVICES, check_device
from ppm.gpu.launch import LOW_OCCUPANCY_MESSAGE, launch, quiet_low_occupancy
from ppm.gpu.runtime import check_cuda, cuda_module, cuda_usable, gpu_available, simulator_enabled

__all__ = [
    "AUTO_MIN_HYPOTHESES",
    "AUTO_MIN_TRIPLES",
    "DEVICES",
    "LOW_OCCUPANCY_MESSAGE",
    "check_cuda",
    "check_device",
    "cuda_module",
    "cuda_usable",
    "gpu_available",
    "launch",
    "quiet_low_occupancy",
    "simulator_enabled",
]
