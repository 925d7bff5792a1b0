"""Independent ground truth for tests: ERM over halfspaces by enumerating dichotomies."""

from __future__ import annotations

import itertools

import numpy as np
from scipy.optimize import linprog


def strictly_separable(X: np.ndarray, labels: np.ndarray) -> bool:
    """Is there (w, c) with (2 l_i - 1)(<w, x_i> + c) >= 1 for all i? (an LP feasibility check)."""
    n, d = X.shape
    if n == 0 or labels.min() == labels.max():
        return True
    s = 2.0 * labels - 1.0
    A_ub = -s[:, None] * np.hstack([X, np.ones((n, 1))])
    res = linprog(np.zeros(d + 1), A_ub=A_ub, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                  method="highs")
    return res.status == 0


def erm_halfspace_errors(X: np.ndarray, y: np.ndarray) -> int:
    """Minimum number of training mistakes of any halfspace classifier (either orientation).

    Visits labelings in increasing Hamming distance from ``y``; the first strictly separable
    one gives the ERM error. Exponential: tiny samples only.
    """
    n = len(y)
    for k in range(n + 1):
        for flip in itertools.combinations(range(n), k):
            labels = y.copy()
            labels[list(flip)] = 1 - labels[list(flip)]
            if strictly_separable(X, labels):
                return k
    raise AssertionError("unreachable: a constant labeling is always separable")
