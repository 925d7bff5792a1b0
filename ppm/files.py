"""Atomic file writes: a reader (or a resumed sweep) sees a whole file or none.

Every file the project writes while other processes may read it (a histogram memo, an
aggregated table, the trial cache's record of restored files) goes through
:func:`atomic_path`: the content is written to a temporary file in the same directory and
renamed over the target, which POSIX makes atomic. An interrupted write leaves no partial file
behind. (The trial cache stores each trial in a transaction of its own instead:
:mod:`experiments.cache`.)
"""

from __future__ import annotations

import os
import tempfile
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def atomic_path(path):
    """Yield a temporary path next to ``path``; on a clean exit it replaces ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    os.close(fd)
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_text_atomic(path, text: str) -> None:
    """``text`` to ``path`` atomically (no newline translation)."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", newline="") as fh:
            fh.write(text)


def write_csv_atomic(df, path, **to_csv) -> None:
    """A DataFrame to ``path`` atomically; ``to_csv``: further ``DataFrame.to_csv`` arguments."""
    with atomic_path(path) as tmp:
        df.to_csv(tmp, index=False, **to_csv)


def zero_float_noise(df, floor: float = 1e-12):
    """``df`` with every float of magnitude below ``floor`` set to 0.0 (a copy).

    For tables of statistics written to be byte-stable across reruns and machines: a slope that
    is 0 by construction comes out as 6.2e-16 on one run and 7.5e-16 on another (last-ulp noise
    of the BLAS and of the summation order), which rounding to significant digits keeps."""
    import numpy as np

    out = df.copy()
    for col in out.columns:
        if out[col].dtype.kind == "f":
            values = out[col].to_numpy()
            out[col] = np.where(np.abs(values) < floor, 0.0, values)
    return out
