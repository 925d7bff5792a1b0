"""Experiment-only memo of the exact score histogram of ``G`` (shared across epsilons).

The exact exponential mechanism of Algorithm 2 (docs/model.md §3) makes two passes over ``G``: the
score histogram ``count[m]`` (every hypothesis touched once: the whole cost) and a rank pass that
recomputes one chunk. The histogram is a function of the sample only, not of ``epsilon``. A sweep
over epsilon on the same samples (C3, C4's ``n_hat ~ A/epsilon + B`` fit: the pipeline draws the
sample from ``(seed, population, n, trial)``, never from the learner) therefore pays for the same
histograms once per epsilon. With ``PPMHalfspaceLearner(histogram_memo=<dir>)`` the histogram
and the per-chunk records of the rank pass are stored under ``<dir>``, keyed by a SHA-256 of
everything they depend on (scorer, ``d``, ``rel_tol``, the exact bytes of ``X``, ``y`` and the
privacy mask), and loaded by the next fit on the same sample. The output is bit-for-bit the one
of a fit without the memo (tests), so the memo is an execution setting: it enters neither seeds
nor cache keys.

**Not for private data.** The stored histogram is a function of the private examples, which the
mechanism never releases. The memo exists for experiments on synthetic populations, next to the
trial cache (which stores non-private diagnostics of the same samples too): the learner refuses
it (:func:`check_memo_allowed`, one line naming the directory) unless the caller passes
``allow_private_on_disk=True``, which the experiment pipeline does for synthetic populations
only (``ppm.populations.is_synthetic``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import joblib
import numpy as np

from ppm.files import atomic_path

# Bump when the stored state of a scorer changes layout, or when G built from the same sample
# can change (2: ConstrHalf's choice for degenerate public points cuts Aff): old entries are
# then never read.
FORMAT = 2


def check_memo_allowed(directory, allow_private_on_disk) -> None:
    """Refuse (``ValueError``, one line) a memo ``directory`` unless ``allow_private_on_disk``
    is True: the memo writes functions of the private examples to disk (module docstring)."""
    if not isinstance(allow_private_on_disk, (bool, np.bool_)):
        raise ValueError("allow_private_on_disk must be True or False, got "
                         f"{allow_private_on_disk!r}")
    if directory is not None and not allow_private_on_disk:
        raise ValueError(f"histogram_memo={str(directory)!r} would write score histograms of G "
                         "computed from the private examples to disk; pass "
                         "allow_private_on_disk=True only for synthetic data")


def supports_memo(scorer) -> bool:
    """Whether ``scorer`` can export and restore its histogram state (the bitset family)."""
    return hasattr(scorer, "histogram_state") and hasattr(scorer, "restore_histogram")


def memo_key(scorer, X: np.ndarray, y: np.ndarray, public: np.ndarray, rel_tol: float) -> str:
    """SHA-256 of everything the histogram and its records depend on."""
    h = hashlib.sha256()
    h.update(f"ppm-histogram/{FORMAT}/{type(scorer).__name__}/{scorer.d}/{rel_tol!r}/"
             f"{getattr(scorer, '_chunks', '')}/{X.shape}".encode())
    for a, dtype in ((X, np.float64), (y, np.int64), (public, np.bool_)):
        h.update(np.ascontiguousarray(a, dtype=dtype).tobytes())
    return h.hexdigest()


class MemoisedScorer:
    """A scorer whose ``histogram()`` is loaded from, or stored to, the memo directory.

    ``find`` is the wrapped scorer's own rank pass over the restored records.
    """

    def __init__(self, scorer, directory, key: str):
        self._scorer = scorer
        self.path = Path(directory) / key[:2] / f"{key}.joblib"
        self.hit: bool | None = None

    def __getattr__(self, name):  # d, m, n, ... of the wrapped scorer
        return getattr(self._scorer, name)

    def histogram(self) -> np.ndarray:
        if self.path.exists():
            try:
                state = joblib.load(self.path)
            except Exception:  # a torn or foreign file: recompute (and overwrite) it
                state = None
            if state is not None:
                self.hit = True
                return self._scorer.restore_histogram(state)
        self.hit = False
        total = self._scorer.histogram()
        self._store({"histogram": total, **self._scorer.histogram_state()})
        return total

    def find(self, level: int, rank: int) -> tuple:
        return self._scorer.find(level, rank)

    def _store(self, state) -> None:
        with atomic_path(self.path) as tmp:  # a concurrent reader sees all of it or nothing
            joblib.dump(state, tmp, compress=3)
