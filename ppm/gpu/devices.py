"""The ``device`` parameter of the learners: its values, its check, and when "auto" takes the GPU.

``"cpu"`` runs the numba CPU kernels, ``"cuda"`` the numba.cuda kernels (an error before any
work when no GPU is usable), ``"auto"`` the GPU when one is present and the work reaches the
backend's threshold below, the CPU otherwise. The device never changes the output.
"""

from __future__ import annotations

DEVICES = ("auto", "cpu", "cuda")

#: device="auto" takes the GPU for the PPM scorer (:mod:`ppm.core.cuda_scorer`) from this many
#: hypotheses on: below it the CPU kernels (about 1e9 hypotheses/s on 2 cores) finish in ~0.1 s,
#: the time the GPU path spends compiling its kernels for a new word count (cached per process)
#: and moving the bitsets.
AUTO_MIN_HYPOTHESES = 1e8

#: device="auto" takes the GPU for the triangle selection (:mod:`ppm.set_cover.unions`) from this
#: many ordered cell triples on: below, one CPU round takes under about 1 s, the time the GPU
#: path may spend compiling its kernels for a new word count (once per process).
AUTO_MIN_TRIPLES = 10**8


def check_device(value, name: str = "device") -> str:
    """``value`` if it is one of :data:`DEVICES`, else a one-line ``ValueError`` naming it."""
    if not (isinstance(value, str) and value in DEVICES):
        raise ValueError(f"{name} must be one of {DEVICES}, got {value!r}")
    return value
