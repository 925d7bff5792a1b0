"""PPMHalfspaceLearner.decision_function: post-processing of the released polytope.

Its sign must be ``predict``'s on every row (scikit-learn's binary convention: > 0 is
``classes_[1]``), in full-dimensional and degenerate (proper affine hull) cases and for both
orientations of ``public_label``; and it must make ranking scores such as ROC AUC work in
cross-validation with the public mask routed.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import KFold, cross_val_score

from ppm import PPMHalfspaceLearner
from ppm.populations import GaussianClusters


def _sample(d, n, seed):
    return GaussianClusters(d=d, w_pub=0.5, margin=0.2).sample(n, random_state=seed)


@pytest.mark.parametrize("d", [1, 2])
@pytest.mark.parametrize("seed", range(4))
def test_sign_agrees_with_predict(d, seed):
    X, y, public = _sample(d, 60, seed)
    clf = PPMHalfspaceLearner(epsilon=2.0, random_state=seed).fit(X, y, public=public)
    X_new, _, _ = _sample(d, 400, seed + 100)
    grid = np.vstack([X_new, clf.halfspaces_.public_points])  # boundary points included
    score = clf.decision_function(grid)
    assert score.shape == (len(grid),)
    assert np.array_equal(clf.classes_[(score > 0).astype(int)], clf.predict(grid))


def test_signed_distance_inside_is_distance_to_nearest_facet():
    # the polytope x >= 0, y >= 0 built by hand: inside, -score is the distance to a facet
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [3.0, 3.0], [2.0, 4.0], [4.0, 2.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    clf = PPMHalfspaceLearner(epsilon=50.0, random_state=0).fit(X, y, public=y == 0)
    pts = np.array([[0.25, 0.25], [5.0, 5.0]])
    score = clf.decision_function(pts)
    inside = clf.predict(pts) == 0
    assert inside[0] and not inside[1]
    assert score[0] < 0 < score[1]
    # W_ rows are unit normals: the inside score is minus the smallest slack of a facet
    slack = clf.W_ @ pts[0] - clf.b_
    assert score[0] == pytest.approx(-slack.min() - clf.halfspaces_.tol)


def test_proper_affine_hull_and_other_orientation():
    # public points on the line x2 = 1 (Aff is a line); public_label = 1: inside is classes_[1]
    rng = np.random.default_rng(0)
    X_pub = np.c_[rng.uniform(-1, 1, 8), np.ones(8)]
    X_priv = rng.normal(0, 2, (8, 2))
    X = np.vstack([X_pub, X_priv])
    y = np.r_[np.ones(8, int), np.zeros(8, int)]
    public = np.r_[np.ones(8, bool), np.zeros(8, bool)]
    clf = PPMHalfspaceLearner(epsilon=20.0, public_label=1, random_state=1).fit(X, y, public=public)
    assert not clf.halfspaces_.aff_is_full
    grid = np.vstack([X, np.c_[np.linspace(-2, 2, 41), np.ones(41)], rng.normal(0, 2, (50, 2))])
    score = clf.decision_function(grid)
    assert np.array_equal(clf.classes_[(score > 0).astype(int)], clf.predict(grid))
    assert (clf.predict(grid) == 1).any()  # some row inside, so the orientation is exercised


def test_cross_validated_roc_auc():
    X, y, public = _sample(2, 150, 3)
    clf = PPMHalfspaceLearner(epsilon=5.0, random_state=0)
    scores = cross_val_score(clf, X, y, scoring="roc_auc", params={"public": public},
                             cv=KFold(3, shuffle=True, random_state=0))
    assert scores.shape == (3,) and np.all((scores >= 0) & (scores <= 1))
    # a ranking, not just the 0/1 prediction: AUC of the score >= AUC of the hard labels
    clf.fit(X, y, public=public)
    X_t, y_t, _ = _sample(2, 500, 4)
    assert roc_auc_score(y_t, clf.decision_function(X_t)) >= roc_auc_score(y_t, clf.predict(X_t))


def test_docstring_says_post_processing():
    doc = PPMHalfspaceLearner.decision_function.__doc__
    assert "post-processing" in doc and "costs no privacy" in doc
