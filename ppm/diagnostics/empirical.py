"""Non-private research diagnostics of fitted learners. NOT differentially private.

A fitted private learner (Algorithm 2 :class:`ppm.core.learner.PPMHalfspaceLearner`, the fully
private :class:`ppm.baselines.fully_private.GridExponentialMechanism`, the semi-private
:class:`ppm.baselines.semi_private.SemiPrivateHalfspaceLearner`) releases only the hypothesis the
exponential mechanism sampled, plus what is built from public data alone (``C_pub``, ``|G|``,
the split sizes). The number of training mistakes of that hypothesis and the score histogram
``count[m]`` the mechanism sampled from are functions of the private examples (Lemma 4.1 only
covers the sampled hypothesis), so they are not kept in the estimators' public state.

Experiments still want them (the pipeline's ``train_error`` column, the tests' comparisons with
brute force). The functions here recompute them EXPLICITLY from the training sample: whoever
calls them holds the private data and publishes the result outside any privacy guarantee. Never
ship their output with a released model.
"""

from __future__ import annotations

import math

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ppm.validation import check_labelled_data

__all__ = ["empirical_error", "n_mistakes", "score_histogram"]


def n_mistakes(estimator, X, y) -> int:
    """Number of examples of ``(X, y)`` the fitted ``estimator`` misclassifies. NOT private.

    For the PPM learner on its own training sample this is the score ``m(g)`` of the released
    hypothesis (``predict`` uses the scorers' membership test).
    """
    y = np.asarray(y)
    if y.size == 0:
        return 0
    return int(np.sum(np.asarray(estimator.predict(X)) != y))


def empirical_error(estimator, X, y) -> float:
    """Fraction of ``(X, y)`` misclassified (``nan`` for an empty sample). NOT private.

    The experiment pipeline's ``train_error`` column: a research diagnostic computed from the
    private training examples, outside the epsilon-DP guarantee of the learner.
    """
    n = np.asarray(y).size
    return n_mistakes(estimator, X, y) / n if n else math.nan


def score_histogram(estimator, X, y, public=None) -> np.ndarray:
    """``count[m]``: how many hypotheses of the fitted learner's class make ``m`` mistakes.

    The histogram the exponential mechanism sampled from when ``estimator`` was fitted on
    ``(X, y, public)``, recomputed from its public state (``halfspaces_``, ``cover_``, the grid
    parameters) and the sample. NOT private. ``public`` is needed by the semi-private learner
    with ``labels="private"`` (it scores the private examples only).
    """
    from ppm.baselines.fully_private import GridExponentialMechanism, grid_threshold_scores
    from ppm.grid import check_grid, grid_points
    from ppm.core.learner import PPMHalfspaceLearner, make_scorer
    from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner, cover_scores

    if isinstance(estimator, PPMHalfspaceLearner):
        check_is_fitted(estimator, "hypothesis_")
        X, y, _ = check_labelled_data(X, y, None, min_samples=1)
        return make_scorer(estimator.halfspaces_, X, y, estimator.method,
                           estimator.block_elements,
                           getattr(estimator, "device", "auto")).histogram()
    if isinstance(estimator, GridExponentialMechanism):
        check_is_fitted(estimator, "hypothesis_")
        X, y, _ = check_labelled_data(X, y, None)
        grid = grid_points(*check_grid(estimator.T, estimator.low, estimator.high))
        scores = grid_threshold_scores(X[:, 0], y, grid)
        return np.bincount(scores, minlength=y.size + 1).astype(np.int64)
    if isinstance(estimator, SemiPrivateHalfspaceLearner):
        check_is_fitted(estimator, "rule_")
        if estimator.labels == "private" and public is None:
            raise ValueError("public is required for labels='private' (it scores the private "
                             "examples only)")
        X, y, public = check_labelled_data(X, y, public)
        scored = np.ones(y.size, dtype=bool) if estimator.labels == "all" else ~public
        scores = cover_scores(estimator.halfspaces_, estimator.cover_, X[scored], y[scored])
        return np.bincount(scores, minlength=int(scored.sum()) + 1).astype(np.int64)
    raise TypeError(f"score_histogram supports the exponential-mechanism learners "
                    f"(PPMHalfspaceLearner, GridExponentialMechanism, "
                    f"SemiPrivateHalfspaceLearner), got {type(estimator).__name__}")
