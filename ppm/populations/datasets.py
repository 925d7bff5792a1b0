"""Real data in the PPM model (docs/model.md §8).

scikit-learn's bundled Wisconsin diagnostic breast-cancer data (``load_breast_cancer``: 569
fine-needle aspirates, 30 nuclear features, 212 malignant and 357 benign; shipped inside the
package, no download) match the paper's motivating example of healthy public and sick private
people. In the label-determined privacy model (docs/model.md §1):

- malignant = private = label 1, benign = public = label 0. Note that scikit-learn codes the
  target the other way round (0 = malignant, 1 = benign), so ``y = 1 - target``.

Features are the RAW measurements of a few columns fixed in advance, with no scaling or
projection: the PPM learner is affine invariant, and any learner that needs scaling must do it
itself from public examples only (as the baselines of :mod:`ppm.baselines` do), so no statistic
of the private rows ever enters the features (docs/model.md §8).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

import numpy as np

from ppm.populations.base import PopulationBase
from ppm.registry import configurable
from ppm.validation import Satisfies, check_positive_int, check_random_state

# Two of the three features (mean texture, worst area, worst smoothness) with which Street,
# Wolberg and Mangasarian (1993, "Nuclear feature extraction for breast tumor diagnosis") found
# the best separating plane; fixed in advance, never selected on the data.
DEFAULT_FEATURES = ("mean texture", "worst area")


@functools.lru_cache(maxsize=1)
def _raw():
    """``(data, target, feature_names)`` of ``sklearn.datasets.load_breast_cancer`` (read-only)."""
    from sklearn.datasets import load_breast_cancer

    bunch = load_breast_cancer()
    data = np.asarray(bunch.data, dtype=np.float64)
    target = np.asarray(bunch.target, dtype=np.int64)
    data.setflags(write=False)
    target.setflags(write=False)
    return data, target, tuple(str(name) for name in bunch.feature_names)


def _check_features(features) -> tuple[tuple[str, ...], np.ndarray]:
    """Validated feature names and their column indices."""
    _, _, names = _raw()
    if isinstance(features, (str, bytes)) or not isinstance(features, Iterable):
        raise ValueError(
            f"features must be a non-empty sequence of feature names (e.g. a list), got "
            f"{features!r}"
        )
    features = tuple(features)
    if not features:
        raise ValueError("features must be a non-empty sequence of feature names, got ()")
    unknown = [f for f in features if not isinstance(f, str) or f not in names]
    if unknown:
        raise ValueError(
            f"unknown breast-cancer feature(s) {unknown!r}; valid names: {list(names)}"
        )
    if len(set(features)) != len(features):
        raise ValueError(f"features must be distinct, got {list(features)}")
    return features, np.array([names.index(f) for f in features], dtype=np.int64)


def load_breast_cancer_ppm(features=DEFAULT_FEATURES):
    """The whole data set in the label-determined PPM model (docs/model.md §§1 and 8).

    Returns
    -------
    X : float64 array (569, len(features)), the raw feature columns (a copy, no scaling)
    y : int64 array (569,), 1 = malignant (``1 - target`` of scikit-learn)
    public : bool array (569,), True = benign (``y == 0``)
    """
    _, cols = _check_features(features)
    data, target, _ = _raw()
    y = 1 - target
    return data[:, cols].copy(), y.copy(), y == 0


@configurable("population", "breast_cancer", stable_name="ppm.datasets.BreastCancer",
              target="ppm.populations.BreastCancer")
class BreastCancer(PopulationBase):
    """The breast-cancer data as a PPM "population" for the experiment pipeline (docs/model.md §8).

    ``sample(n, random_state)`` draws a uniformly random subset of ``n`` of the 569 rows without
    replacement and REMEMBERS the complement; ``true_error`` then scores a predictor on ALL
    those held-out rows. The instance is therefore stateful: the pipeline instantiates one
    population object per trial and calls ``sample`` once before ``true_error``, so the train
    and test rows of a trial are disjoint (and every learner of the trial is scored on the same
    held-out rows). The held-out error estimates the error on the unknown distribution the
    569 rows come from; it is not an exact population error.

    Parameters
    ----------
    features : non-empty sequence of str
        Column names from ``load_breast_cancer().feature_names``, fixed in advance. Default:
        ``("mean texture", "worst area")``, two of the three features with which Street,
        Wolberg and Mangasarian (1993) found the best separation (the third is "worst
        smoothness"). Raw values, no scaling (see the module docstring).
    """

    n_rows = 569
    synthetic = False  # real patients' records: never stored by histogram_memo

    _parameter_constraints = {"features": [Satisfies(
        lambda v: isinstance(v, Sequence) and not isinstance(v, (str, bytes)) and len(v) > 0
        and all(isinstance(f, str) for f in v),
        "a non-empty sequence of feature names (e.g. a list)", kind=list[str])]}

    def __init__(self, *, features=DEFAULT_FEATURES):
        features, cols = _check_features(features)  # the data set's names, distinct
        self._params["features"] = features  # kept as a tuple
        self._cols = cols
        self._heldout = None

    @property
    def d(self) -> int:
        """Number of features."""
        return len(self._params["features"])

    @property
    def heldout_indices(self) -> np.ndarray | None:
        """Row indices (into the full data) held out by the last ``sample`` call, or None."""
        return None if self._heldout is None else self._heldout.copy()

    def opt(self) -> float:
        """``OPT`` of halfspaces on the underlying distribution is unknown: NaN."""
        return math.nan

    def sample(self, n, random_state=None):
        """``n`` rows drawn uniformly without replacement; the other ``569 - n`` are held out.

        ``1 <= n <= 568`` so that the held-out set is non-empty. The returned rows are in the
        random order of the draw.

        Returns
        -------
        X : float64 array (n, d), raw features
        y : int64 array (n,), 1 = malignant
        public : bool array (n,), True = benign (``y == 0``)
        """
        n = check_positive_int(n, "n")
        if n > self.n_rows - 1:
            raise ValueError(
                f"n must be at most {self.n_rows - 1} (the data set has {self.n_rows} rows and "
                f"the held-out test set must be non-empty), got {n!r}"
            )
        rng = check_random_state(random_state)
        perm = rng.permutation(self.n_rows)
        train, heldout = perm[:n], np.sort(perm[n:])
        X, y, public = self._rows(train)
        self._heldout = heldout
        return X, y, public

    def _rows(self, idx):
        data, target, _ = _raw()
        y = 1 - target[idx]
        return data[np.ix_(idx, self._cols)], y, y == 0

    def true_error(self, predict, n_test=None, random_state=None):
        """Error ``P[h(x) != y]`` on ALL held-out rows of the most recent :meth:`sample` call.

        Returns ``(error, sqrt(error (1 - error) / n_heldout))``. ``n_test`` and
        ``random_state`` are accepted for interface uniformity and IGNORED (the test set is
        the held-out complement of the training sample). Raises ``RuntimeError`` if ``sample``
        was never called.
        """
        if not callable(predict):
            raise ValueError(f"predict must be callable, got {predict!r}")
        if self._heldout is None:
            raise RuntimeError(
                "BreastCancer.true_error needs a previous call to sample(): the test set is the "
                "complement of the last training sample"
            )
        X, y, _ = self._rows(self._heldout)
        m = y.size
        pred = np.asarray(predict(X))
        if pred.shape != (m,):
            raise ValueError(f"predict returned shape {pred.shape}, expected ({m},)")
        if not np.all(np.isin(pred, (0, 1))):
            raise ValueError("predict must return labels in {0, 1}")
        err = float(np.mean(pred.astype(np.int64) != y))
        return err, math.sqrt(err * (1.0 - err) / m)
