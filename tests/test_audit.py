"""The exact privacy audit (ppm.diagnostics.audit): production path, complete neighbour cells, can fail."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import ppm.diagnostics.audit as audit
from ppm import PPMHalfspaceLearner, construct_halfspaces
from ppm.diagnostics.audit import (arrangement_cells, exact_output_distribution, neighbour_losses,
                       privacy_loss)
from ppm.core.hypothesis_class import BitsetScorer, iter_hypotheses

METHODS = ("auto", "sweep", "bitset", "blocked", "reference")


def _sample(seed, d, n, k):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if seed % 3 == 0:
        X = rng.integers(-2, 3, size=(n, d)).astype(float)  # duplicates, collinear points
    public = np.zeros(n, dtype=bool)
    public[:k] = True
    return X, rng.integers(0, 2, size=n), public


def _independent_patterns(hs, rng):
    """Membership patterns of points drawn independently of the enumeration: random points,
    random points on every hyperplane and on every intersection of 2 (d = 3), the vertices
    (intersections of d hyperplanes), all inside Aff, and a point off Aff."""
    d = hs.d
    origin, basis = hs.aff_point, hs.aff_basis
    r = basis.shape[0]

    def in_aff(U):
        return origin + U @ basis

    A, c = hs.W @ basis.T, hs.b - hs.W @ origin
    A, c = A[np.linalg.norm(A, axis=1) > 1e-9], c[np.linalg.norm(A, axis=1) > 1e-9]
    pts = [in_aff(rng.normal(scale=3.0, size=(4000, r)))]
    for j in range(1, r + 1):
        for rows in itertools.combinations(range(A.shape[0]), j):
            M, v = A[list(rows)], c[list(rows)]
            if np.linalg.matrix_rank(M, tol=1e-9) < j:
                continue
            u0 = np.linalg.lstsq(M, v, rcond=None)[0]
            null = np.linalg.svd(M)[2][j:]
            U = u0 + rng.normal(scale=3.0, size=(50 if j < r else 1, r - j)) @ null
            pts.append(in_aff(U))
    if r < d:
        pts.append(origin[None, :] + 5.0)  # off Aff (generically)
    P = np.vstack(pts)
    return {tuple(col) for col in hs.membership(P).T}


@pytest.mark.parametrize("d,k", [(1, 1), (1, 4), (2, 1), (2, 2), (2, 3), (2, 4), (3, 1), (3, 2),
                                 (3, 3)])
@pytest.mark.parametrize("seed", range(4))
def test_arrangement_cells_cover_every_pattern(d, k, seed):
    X, _, _ = _sample(seed, d, k, k)
    hs = construct_halfspaces(X, n_features=d)
    cells = arrangement_cells(hs)
    found = [tuple(col) for col in hs.membership(cells).T]
    assert len(set(found)) == len(found)  # one point per pattern
    missing = _independent_patterns(hs, np.random.default_rng(seed)) - set(found)
    assert not missing


def test_arrangement_cells_hand_count_d1():
    # thresholds at 0, 1, 2: 3 points + 4 open intervals = 7 cells
    hs = construct_halfspaces(np.array([[0.0], [1.0], [2.0]]))
    assert len(arrangement_cells(hs)) == 7
    # d = 2, three points in general position: 6 lines; vertical x = t lines through each point
    # plus the 3 triangle sides.
    hs2 = construct_halfspaces(np.array([[0.0, 0.0], [1.0, 0.3], [0.4, 1.0]]))
    lines = {tuple(np.round(np.r_[w, b] * np.sign(w[np.argmax(np.abs(w) > 1e-12)]), 9))
             for w, b in zip(hs2.W, hs2.b)}
    assert len(lines) == 6
    assert len(arrangement_cells(hs2)) >= 6 + 1  # at least lines' faces and one 2-cell


def _direct_logp(X, y, public, epsilon):
    """The exponential mechanism over G, scored by predicting with every hypothesis."""
    probe = PPMHalfspaceLearner(epsilon=epsilon, random_state=0).fit(X, y, public)
    hs = probe.halfspaces_
    logw = {}
    for hyp in iter_hypotheses(len(hs), X.shape[1]):
        probe.hypothesis_ = hyp
        logw[hyp] = -epsilon * np.sum(probe.predict(X) != y) / 2
    log_z = np.logaddexp.reduce(list(logw.values()))
    return {g: w - log_z for g, w in logw.items()}


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("d,n,k", [(1, 6, 3), (2, 6, 3), (3, 5, 3)])
def test_output_distribution_is_the_exponential_mechanism(method, d, n, k):
    X, y, public = _sample(7 * d + n, d, n, k)
    logp, _ = exact_output_distribution(X, y, public, 0.7, method)
    direct = _direct_logp(X, y, public, 0.7)
    assert logp.keys() == direct.keys()
    assert max(abs(logp[g] - direct[g]) for g in logp) < 1e-9


@pytest.mark.parametrize("d,n,k", [(1, 5, 3), (2, 4, 2), (3, 4, 2)])
def test_every_neighbour_within_epsilon_all_scorers(d, n, k):
    X, y, public = _sample(11 * d, d, n, k)
    worst = neighbour_losses(X, y, public, n - 1, 1.0, METHODS)
    assert worst["neighbours"] >= 4
    for m in METHODS:
        assert 0.3 < worst[m] <= 1.0 + 1e-9, m  # and not trivially small


def test_audit_detects_a_mechanism_that_is_not_epsilon_dp(monkeypatch):
    """Sampling with 3 epsilon while claiming epsilon: the audit exceeds epsilon."""
    real = audit.level_log_probabilities
    monkeypatch.setattr(audit, "level_log_probabilities", lambda c, e: real(c, 3.0 * e))
    X, y, public = _sample(5, 1, 5, 3)
    worst = neighbour_losses(X, y, public, 4, 1.0, ("auto",))
    assert worst["auto"] > 1.0 + 1e-6


def test_audit_goes_through_the_production_scorer(monkeypatch):
    """A broken rank pass in the bitset scorer fit uses is caught by the audit."""
    real = BitsetScorer.find

    def broken(self, level, rank):
        return real(self, level, 0)  # every rank maps to the first hypothesis of its level

    monkeypatch.setattr(BitsetScorer, "find", broken)
    X, y, public = _sample(2, 2, 6, 3)
    with pytest.raises(AssertionError, match="rank pass"):
        exact_output_distribution(X, y, public, 1.0, "bitset")
    exact_output_distribution(X, y, public, 1.0, "blocked")  # other scorers unaffected


def test_privacy_loss_detects_different_classes():
    assert privacy_loss({(): 0.0}, {(0,): 0.0}) == float("inf")
    with pytest.raises(ValueError, match="public"):
        neighbour_losses(*_sample(1, 1, 4, 2), 0, 1.0, ("auto",))


def test_helly_on_collinear_public_points():
    """Lemma 4.5 (min over G <= ERM) on a degenerate sample: public (1, 1), (1, 2) on the line
    x = 1 (= Aff), private (1, 0) on Aff and (0, 2) off it, label-determined. A halfspace
    (y >= 0.5 cut inside Aff) makes 0 mistakes; every hypothesis of G makes >= 1, because the
    singleton hyperplanes through (1, 1) and (1, 2) are both x = 1 (they contain Aff)."""
    from ppm.core.learner import make_scorer

    X = np.array([[1.0, 1.0], [1.0, 0.0], [1.0, 2.0], [0.0, 2.0]])
    public = np.array([True, False, True, False])
    y = (~public).astype(int)
    hs = construct_halfspaces(X[public])
    min_g = int(np.flatnonzero(make_scorer(hs, X, y).histogram())[0])
    erm = np.array([[-1.0, -0.16666667]]), 1.0833333333333335  # ERMHalfspace's 0-mistake rule
    assert np.all((X @ erm[0].T + erm[1] > 0).ravel().astype(int) == y)
    assert min_g == 0
