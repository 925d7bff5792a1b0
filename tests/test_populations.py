"""Tests of ppm.populations (docs/model.md §§1 and 8)."""

import math

import numpy as np
import pytest
from scipy.stats import multivariate_normal, norm

from ppm.populations import GaussianClusters, GridThresholds


def _binom_tol(p, n, z=5.0):
    return z * math.sqrt(max(p * (1 - p), 1e-12) / n) + 1e-12


# ------------------------------------------------------------------------------ sampling basics
def test_determinism_and_seed_dependence():
    pop = GaussianClusters(d=3)
    a = pop.sample(200, random_state=7)
    b = pop.sample(200, random_state=7)
    c = pop.sample(200, random_state=8)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    # A Generator is accepted and advanced.
    rng = np.random.default_rng(7)
    np.testing.assert_array_equal(pop.sample(200, random_state=rng)[0], a[0])
    # The geometry depends on geometry_seed only.
    assert not np.allclose(GaussianClusters(d=3, geometry_seed=1).normal, pop.normal)
    np.testing.assert_array_equal(GaussianClusters(d=3).normal, pop.normal)


@pytest.mark.parametrize("d", [1, 2, 4])
@pytest.mark.parametrize("n", [0, 1, 57])
def test_shapes_and_dtypes(d, n):
    X, y, public = GaussianClusters(d=d).sample(n, random_state=0)
    assert X.shape == (n, d) and X.dtype == np.float64
    assert y.shape == (n,) and y.dtype == np.int64
    assert public.shape == (n,) and public.dtype == np.bool_
    assert set(np.unique(y)) <= {0, 1}


@pytest.mark.parametrize("w_pub", [0.0, 0.3, 0.5, 0.9, 1.0])
def test_public_fraction_and_label_determined(w_pub):
    n = 20000
    X, y, public = GaussianClusters(w_pub=w_pub).sample(n, random_state=1)
    assert abs(public.mean() - w_pub) <= _binom_tol(w_pub, n)
    # Label-determined privacy model (docs/model.md §1): private iff label 1.
    np.testing.assert_array_equal(y, (~public).astype(np.int64))


def test_rotation_and_cluster_geometry():
    pop = GaussianClusters(d=3, margin=None, separation=3.0, public_std=1.2, private_std=0.5,
                           private_aspect=2.0, geometry_seed=4)
    R, u = pop.rotation, pop.normal
    np.testing.assert_allclose(R.T @ R, np.eye(3), atol=1e-12)
    np.testing.assert_allclose(u, R[:, 0])
    assert np.max(np.abs(u)) < 0.99  # not axis aligned
    X, y, _ = pop.sample(40000, random_state=2)
    X0, X1 = X[y == 0], X[y == 1]
    np.testing.assert_allclose(X0.mean(0), -1.5 * u, atol=0.05)
    np.testing.assert_allclose(X1.mean(0), 1.5 * u, atol=0.05)
    np.testing.assert_allclose(np.cov(X0.T), 1.44 * np.eye(3), atol=0.06)
    cov1 = R @ np.diag([0.25, 1.0, 1.0]) @ R.T
    np.testing.assert_allclose(np.cov(X1.T), cov1, atol=0.05)


# ------------------------------------------------------------------------------ realizable
@pytest.mark.parametrize("kwargs", [
    dict(d=1, margin=0.5),
    dict(d=2, margin=0.1),
    dict(d=3, margin=1.0, separation=1.0),
    dict(d=2, margin=0.2, eta=0.3),
    dict(d=2, margin=0.2, public_pos_rate=0.4),
    dict(d=2, margin=0.0),
])
def test_realizable_margin_band_empty(kwargs):
    pop = GaussianClusters(**kwargs)
    assert pop.realizable and pop.opt() == 0.0
    X, y, _ = pop.sample(5000, random_state=3)
    proj = X @ pop.normal
    half = kwargs["margin"] / 2
    assert np.all(proj[y == 0] <= -half + 1e-12)
    assert np.all(proj[y == 1] >= half - 1e-12)
    assert np.all(pop.target_predict(X) == y)
    err, se = pop.true_error(pop.target_predict, n_test=20000, random_state=4)
    assert err == 0.0 and se == 0.0


def test_agnostic_clusters_overlap():
    pop = GaussianClusters(margin=None)
    assert not pop.realizable
    X, y, _ = pop.sample(5000, random_state=3)
    assert np.any(pop.target_predict(X) != y)


def test_truncation_matches_truncated_normal():
    # <u, x> of the label-0 cluster is N(-1, 1) truncated to <= -0.25.
    pop = GaussianClusters(d=2, separation=2.0, margin=0.5)
    X, y, _ = pop.sample(40000, random_state=5)
    proj = (X @ pop.normal)[y == 0]
    a = 0.75  # (upper - mean) / std
    expected_mean = -1.0 - norm.pdf(a) / norm.cdf(a)
    assert abs(proj.mean() - expected_mean) < 0.03


# ------------------------------------------------------------------------------ relaxations
def test_relaxation_eta_rates():
    eta, n = 0.2, 40000
    _, y, public = GaussianClusters(eta=eta, w_pub=0.4).sample(n, random_state=6)
    flipped_pub = np.mean(y[public] == 1)
    flipped_priv = np.mean(y[~public] == 0)
    assert abs(flipped_pub - eta) <= _binom_tol(eta, public.sum())
    assert abs(flipped_priv - eta) <= _binom_tol(eta, (~public).sum())


@pytest.mark.parametrize("margin", [None, 0.2])
def test_eta_half_is_homogeneous(margin):
    # eta = 0.5: the label is a fair coin independent of the privacy bit, so the public and
    # private sub-populations are the same distribution (docs/model.md §7, claim C10 at shift 0).
    n = 60000
    pop = GaussianClusters(d=2, eta=0.5, w_pub=0.3, margin=margin)
    assert pop.eta == 0.5 and pop.label_probabilities() == pytest.approx((0.5, 0.5))
    X, y, public = pop.sample(n, random_state=12)
    n_pub, n_priv = public.sum(), (~public).sum()
    assert abs(y[public].mean() - 0.5) <= _binom_tol(0.5, n_pub)
    assert abs(y[~public].mean() - 0.5) <= _binom_tol(0.5, n_priv)
    # Same feature distribution: means, covariances and projection quantiles agree.
    np.testing.assert_allclose(X[public].mean(0), X[~public].mean(0), atol=0.06)
    np.testing.assert_allclose(np.cov(X[public].T), np.cov(X[~public].T), atol=0.1)
    qs = [0.1, 0.25, 0.5, 0.75, 0.9]
    proj = X @ pop.normal
    np.testing.assert_allclose(np.quantile(proj[public], qs), np.quantile(proj[~public], qs),
                               atol=0.08)
    if margin is not None:  # still realizable: features follow the label
        assert np.all(pop.target_predict(X) == y)


def test_eta_just_above_half_rejected():
    with pytest.raises(ValueError, match=r"'eta' parameter .* \[0.0, 0.5\]"):
        GaussianClusters(eta=0.5 + 1e-9)
    GaussianClusters(eta=0.5)  # the boundary itself is allowed


def test_relaxation_public_pos_rate():
    rho, n = 0.35, 40000
    _, y, public = GaussianClusters(public_pos_rate=rho).sample(n, random_state=6)
    assert np.all(y[~public] == 1)
    assert abs(np.mean(y[public]) - rho) <= _binom_tol(rho, public.sum())


@pytest.mark.parametrize("kwargs", [
    dict(w_pub=0.3), dict(w_pub=0.7, eta=0.1), dict(w_pub=0.5, public_pos_rate=0.5),
])
def test_label_probabilities_match_samples(kwargs):
    n = 40000
    pop = GaussianClusters(**kwargs)
    pi0, pi1 = pop.label_probabilities()
    assert pi0 + pi1 == pytest.approx(1.0)
    _, y, _ = pop.sample(n, random_state=9)
    assert abs(y.mean() - pi1) <= _binom_tol(pi1, n)


@pytest.mark.parametrize("label", [0, 1])
def test_true_error_of_constant_is_label_probability(label):
    pop = GaussianClusters(w_pub=0.3, eta=0.1, margin=None)
    pi = pop.label_probabilities()
    n_test = 40000
    err, se = pop.true_error(lambda X: np.full(X.shape[0], label), n_test=n_test,
                             random_state=11)
    assert abs(err - pi[1 - label]) <= 5 * math.sqrt(pi[0] * pi[1] / n_test)
    assert se == pytest.approx(math.sqrt(err * (1 - err) / n_test))


def test_true_error_scores_labels_not_privacy_bits():
    # With eta > 0 the label and the privacy bit disagree on ~eta of the examples.
    pop = GaussianClusters(eta=0.25, margin=0.2)
    err, _ = pop.true_error(pop.target_predict, n_test=20000, random_state=1)
    X, y, public = pop.sample(20000, random_state=1)  # the same test sample
    assert err == 0.0 == np.mean(pop.target_predict(X) != y)
    assert np.mean(pop.target_predict(X) != (~public)) > 0.2


# ------------------------------------------------------------------------------ opt()
@pytest.mark.parametrize("w_pub,eta,sep,std", [
    (0.5, 0.0, 2.0, 1.0), (0.3, 0.0, 2.0, 1.0), (0.5, 0.2, 1.0, 0.7), (0.8, 0.0, 3.0, 2.0),
])
def test_opt_d1_equal_std_is_bayes_error(w_pub, eta, sep, std):
    pop = GaussianClusters(d=1, w_pub=w_pub, eta=eta, separation=sep, margin=None,
                           public_std=std, private_std=std)
    pi1 = (1 - w_pub) * (1 - eta) + w_pub * eta
    pi0 = 1 - pi1
    mu0, mu1 = -sep / 2, sep / 2
    # Bayes rule of two equal-variance Gaussians: a threshold (so it is a halfspace).
    t = (mu0 + mu1) / 2 + std ** 2 * math.log(pi0 / pi1) / (mu1 - mu0)
    bayes = pi0 * norm.sf((t - mu0) / std) + pi1 * norm.cdf((t - mu1) / std)
    assert pop.opt() == pytest.approx(bayes, abs=1e-9)


def test_opt_constant_when_one_label():
    assert GaussianClusters(d=2, w_pub=1.0, margin=None).opt() == 0.0
    # Relaxation (ii) with rho = 1: every label is 1.
    assert GaussianClusters(d=2, margin=None, public_pos_rate=1.0).opt() == 0.0


@pytest.mark.parametrize("kwargs", [
    dict(d=2, margin=None),
    dict(d=2, margin=None, w_pub=0.3, separation=1.5, private_aspect=4.0, geometry_seed=3),
    dict(d=3, margin=None, eta=0.15),
])
def test_opt_d2_bounds(kwargs):
    pop = GaussianClusters(**kwargs)
    opt = pop.opt()
    pi0, pi1 = pop.label_probabilities()
    assert 0.0 <= opt <= min(pi0, pi1)
    assert pop.opt() == opt  # cached

    n_test = 100000
    X, y, _ = pop.sample(n_test, random_state=21)
    # Five standard errors of a Monte Carlo error estimate near OPT (errors here are ~0.1).
    se_tol = 5 * math.sqrt(max(opt, 0.05) * (1 - opt) / n_test)

    # Not too large: <= Monte Carlo error of random halfspaces through the data.
    rng = np.random.default_rng(0)
    W = rng.standard_normal((300, pop.d))
    B = (X[rng.integers(0, n_test, 300)] * W).sum(1)
    errs = ((X @ W.T - B) >= 0).astype(int) != y[:, None]
    mc = errs.mean(0)
    mc = np.minimum(mc, 1 - mc)  # both orientations
    assert opt <= mc.min() + se_tol

    # Not too large: <= error of the LDA rule fitted on an independent sample.
    Xf, yf, _ = pop.sample(20000, random_state=22)
    m0, m1 = Xf[yf == 0].mean(0), Xf[yf == 1].mean(0)
    S = np.cov(np.vstack([Xf[yf == 0] - m0, Xf[yf == 1] - m1]).T)
    w = np.linalg.solve(S, m1 - m0)
    b = w @ (m0 + m1) / 2 - math.log(np.mean(yf) / (1 - np.mean(yf)))
    lda_err = np.mean(((X @ w - b) >= 0).astype(int) != y)
    assert opt <= lda_err + se_tol

    # Not too small: >= the Bayes error (quadratic rule from the documented densities).
    R, u, p = pop.rotation, pop.normal, pop.params()
    sd1 = np.array([p["private_std"]] + [p["private_std"] * p["private_aspect"]] * (pop.d - 1))
    f0 = multivariate_normal(-p["separation"] / 2 * u, p["public_std"] ** 2 * np.eye(pop.d))
    f1 = multivariate_normal(p["separation"] / 2 * u, R @ np.diag(sd1 ** 2) @ R.T)
    bayes_pred = pi1 * f1.pdf(X) > pi0 * f0.pdf(X)
    bayes_err = np.mean(bayes_pred.astype(int) != y)
    assert opt >= bayes_err - se_tol


# ------------------------------------------------------------------------------ misc API
def test_params_roundtrip_and_properties():
    kw = dict(d=3, w_pub=0.25, separation=1.5, margin=None, public_std=2.0, private_std=0.3,
              private_aspect=1.5, eta=0.1, public_pos_rate=0.0, geometry_seed=5)
    pop = GaussianClusters(**kw)
    assert pop.params() == kw
    assert GaussianClusters(**pop.params()).params() == kw
    assert pop.d == 3 and not pop.realizable
    assert "GaussianClusters(" in repr(pop)
    np.testing.assert_allclose(np.linalg.norm(pop.normal), 1.0)
    assert GaussianClusters(d=1).normal.tolist() == [1.0]


def test_target_predict_rule():
    pop = GaussianClusters(d=2)
    u = pop.normal
    X = np.array([u, -u, 1e-9 * u, np.zeros(2)])
    assert pop.target_predict(X).tolist() == [1, 0, 1, 1]


# ------------------------------------------------------------------------------ validation
@pytest.mark.parametrize("kwargs,match", [
    (dict(d=0), "d"), (dict(d=1.5), "d"), (dict(d=True), "d"),
    (dict(w_pub=-0.1), "w_pub"), (dict(w_pub=1.1), "w_pub"), (dict(w_pub="a"), "w_pub"),
    (dict(separation=-1.0), "separation"), (dict(separation=float("inf")), "separation"),
    (dict(separation=float("nan")), "separation"),
    (dict(margin=-0.1), "margin"), (dict(margin=float("nan")), "margin"),
    (dict(public_std=0.0), "public_std"), (dict(private_std=-1.0), "private_std"),
    (dict(private_std=float("inf")), "private_std"),
    (dict(private_aspect=0.0), "private_aspect"),
    (dict(eta=-0.1), "eta"), (dict(eta=0.5 + 1e-9), "eta"), (dict(eta=0.6), "eta"),
    (dict(eta=float("nan")), "eta"),
    (dict(public_pos_rate=1.5), "public_pos_rate"),
    (dict(eta=0.1, public_pos_rate=0.2), "eta and public_pos_rate"),
    (dict(geometry_seed=-1), "geometry_seed"),
    (dict(separation=0.0, margin=8.0), "margin"),  # keeps Phi(-4/0.5) of the clusters
])
def test_constructor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GaussianClusters(**kwargs)


def test_small_acceptance_checked_only_for_present_labels():
    # Label-1 cluster (std 0.5) would keep Phi(-8) but there is no label 1 when w_pub = 1.
    GaussianClusters(w_pub=1.0, separation=0.0, margin=8.0, public_std=10.0)
    with pytest.raises(ValueError, match="label-1"):
        GaussianClusters(w_pub=0.5, separation=0.0, margin=8.0, public_std=10.0)


def test_method_validation():
    pop = GaussianClusters()
    for bad in (-1, 2.5, None, "3"):
        with pytest.raises(ValueError, match="n must"):
            pop.sample(bad)
    with pytest.raises(ValueError, match="random_state"):
        pop.sample(3, random_state="x")
    with pytest.raises(ValueError, match="n_test"):
        pop.true_error(pop.target_predict, n_test=0)
    with pytest.raises(ValueError, match="predict"):
        pop.true_error(lambda X: np.zeros(3), n_test=10)
    with pytest.raises(ValueError, match="predict"):
        pop.true_error(lambda X: np.full(X.shape[0], 2), n_test=10)
    with pytest.raises(ValueError, match="predict"):
        pop.true_error("not callable")
    with pytest.raises(ValueError, match="features"):
        pop.target_predict(np.zeros((3, 5)))


# ------------------------------------------------------------------------------ GridThresholds
def _grid_mc_error(pop, predict, n, seed):
    X, y, _ = pop.sample(n, random_state=seed)
    return np.mean(predict(X) != y)


@pytest.mark.parametrize("kwargs", [
    dict(T=11, w_pub=0.4, cut=0.5), dict(T=64), dict(T=1000, w_pub=0.8, cut=0.123),
    dict(T=2, w_pub=0.5, cut=0.9),
])
@pytest.mark.parametrize("name,predict", [
    ("threshold 0.3", lambda X: (X[:, 0] >= 0.3).astype(np.int64)),
    ("threshold 0.75", lambda X: (X[:, 0] > 0.75).astype(np.int64)),
    ("const 0", lambda X: np.zeros(X.shape[0], dtype=np.int64)),
    ("const 1", lambda X: np.ones(X.shape[0], dtype=np.int64)),
    ("parity", lambda X: (np.sin(1000 * X[:, 0]) > 0).astype(np.int64)),
])
def test_grid_exact_error_matches_monte_carlo(kwargs, name, predict):
    pop = GridThresholds(**kwargs)
    err, se = pop.true_error(predict)
    assert se == 0.0 and 0.0 <= err <= 1.0
    n = 100000
    mc = _grid_mc_error(pop, predict, n, seed=3)
    assert abs(mc - err) <= _binom_tol(err, n), name


def test_grid_exact_error_by_hand_and_target():
    pop = GridThresholds(T=11, w_pub=0.4, cut=0.5)
    # Grid 0, 0.1, ..., 1: negatives 0..0.4 (5 points), positives 0.5..1 (6 points).
    assert pop.n_negative == 5
    assert pop.true_error(lambda X: (X[:, 0] >= 0.3).astype(int)) == (pytest.approx(0.4 * 2 / 5),
                                                                       0.0)
    assert pop.true_error(lambda X: (X[:, 0] >= 0.7).astype(int))[0] == pytest.approx(0.6 * 2 / 6)
    assert pop.true_error(lambda X: np.zeros(len(X), int))[0] == pytest.approx(0.6)
    assert pop.true_error(pop.target_predict) == (0.0, 0.0)
    # n_test and random_state are ignored.
    assert pop.true_error(pop.target_predict, n_test=5, random_state=1) == (0.0, 0.0)
    # A cut exactly on a grid point puts that point on the positive side.
    assert GridThresholds(T=5, cut=0.25).n_negative == 1
    assert GridThresholds(T=5, cut=0.2500001).n_negative == 2
    assert GridThresholds(T=4, cut=1 / 3).n_negative == 1  # 1/3 is a grid point (k = 1)


def test_grid_large_T_is_chunked():
    T = 2 ** 22
    pop = GridThresholds(T=T, w_pub=0.3, cut=0.6)
    calls = []

    def predict(X):
        calls.append(X.shape)
        return (X[:, 0] >= 0.5).astype(np.int64)

    err, se = pop.true_error(predict)
    assert se == 0.0
    assert all(shape[1] == 1 and shape[0] <= 2 ** 20 for shape in calls)
    assert sum(shape[0] for shape in calls) == T
    # False positives: grid points in [0.5, 0.6) among the negatives.
    k = np.arange(T)
    g = k / (T - 1)
    neg = g < 0.6
    assert pop.n_negative == int(neg.sum())
    expected = 0.3 * np.mean(g[neg] >= 0.5)
    assert err == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("w_pub", [0.0, 0.25, 1.0])
def test_grid_sampling_proportions_and_support(w_pub):
    T, n = 20, 40000
    pop = GridThresholds(T=T, w_pub=w_pub, cut=0.33)
    X, y, public = pop.sample(n, random_state=4)
    assert X.shape == (n, 1) and X.dtype == np.float64
    assert y.dtype == np.int64 and public.dtype == np.bool_
    assert abs(public.mean() - w_pub) <= _binom_tol(w_pub, n)
    np.testing.assert_array_equal(y, (~public).astype(np.int64))  # label-determined
    np.testing.assert_array_equal(pop.target_predict(X), y)  # realizable
    k = np.rint(X[:, 0] * (T - 1)).astype(int)
    np.testing.assert_array_equal(X[:, 0], k / (T - 1))  # exactly on the grid
    t0 = pop.n_negative
    assert t0 == 7  # 6/19 < 0.33 <= 7/19
    counts = np.bincount(k, minlength=T)
    for lo, hi, m in ((0, t0, public.sum()), (t0, T, (~public).sum())):
        if m:
            p = 1.0 / (hi - lo)
            assert np.all(np.abs(counts[lo:hi] / m - p) <= _binom_tol(p, m))
    assert np.all(k[public] < t0) and np.all(k[~public] >= t0)


def test_grid_reproducible_api_and_params():
    pop = GridThresholds(T=100, w_pub=0.3, cut=0.42)
    a, b, c = (pop.sample(500, random_state=s) for s in (7, 7, 8))
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    assert not np.array_equal(a[0], c[0])
    np.testing.assert_array_equal(pop.sample(500, random_state=np.random.default_rng(7))[0], a[0])
    assert pop.d == 1 and pop.opt() == 0.0 and pop.realizable
    assert pop.params() == {"T": 100, "w_pub": 0.3, "cut": 0.42, "support": None}
    assert GridThresholds(**pop.params()).params() == pop.params()
    assert "GridThresholds(" in repr(pop)
    assert pop.label_probabilities() == pytest.approx((0.3, 0.7))
    np.testing.assert_array_equal(pop.grid()[:, 0], np.arange(100) / 99)
    assert pop.sample(0, random_state=0)[0].shape == (0, 1)


@pytest.mark.parametrize("kwargs,match", [
    (dict(T=1), "T"), (dict(T=0), "T"), (dict(T=2.0), "T"), (dict(T=True), "T"),
    (dict(w_pub=-0.1), "w_pub"), (dict(w_pub=1.5), "w_pub"),
    (dict(cut=0.0), "cut"), (dict(cut=1.0), "cut"), (dict(cut=float("nan")), "cut"),
    (dict(cut="0.5"), "cut"), (dict(cut=True), "cut"),
])
def test_grid_constructor_validation(kwargs, match):
    with pytest.raises(ValueError, match=match):
        GridThresholds(**kwargs)


def test_grid_method_validation():
    pop = GridThresholds(T=8)
    with pytest.raises(ValueError, match="n must"):
        pop.sample(-1)
    with pytest.raises(ValueError, match="random_state"):
        pop.sample(3, random_state="x")
    with pytest.raises(ValueError, match="predict"):
        pop.true_error("not callable")
    with pytest.raises(ValueError, match="predict returned shape"):
        pop.true_error(lambda X: np.zeros(3))
    with pytest.raises(ValueError, match="labels"):
        pop.true_error(lambda X: np.full(X.shape[0], 2))
    with pytest.raises(ValueError, match="features"):
        pop.target_predict(np.zeros((3, 2)))


# -- the rule attaining OPT (paired excess-error estimate) -----------------------------------

@pytest.mark.parametrize("d,w_pub", [(1, 0.5), (2, 0.5), (2, 0.2), (3, 0.7)])
def test_opt_predict_attains_opt(d, w_pub):
    pop = GaussianClusters(d=d, w_pub=w_pub, margin=None, geometry_seed=3)
    err, se = pop.true_error(pop.opt_predict, n_test=400_000, random_state=11)
    assert pop.opt() > 0.01
    assert abs(err - pop.opt()) <= 4 * se + 1e-4
    # and it is no worse than the target halfspace and the two constants
    target, _ = pop.true_error(pop.target_predict, n_test=400_000, random_state=11)
    assert err <= target + 1e-12
    assert err <= min(pop.label_probabilities()) + 1e-12


def test_opt_predict_is_the_target_when_realizable():
    pop = GaussianClusters(d=2, margin=0.1)
    X, _, _ = pop.sample(1000, random_state=0)
    np.testing.assert_array_equal(pop.opt_predict(X), pop.target_predict(X))


def test_opt_predict_of_a_degenerate_population_is_a_constant():
    pop = GaussianClusters(d=1, w_pub=1.0, margin=None)   # every label is 0
    X, y, _ = pop.sample(50, random_state=0)
    assert pop.opt() == 0.0
    np.testing.assert_array_equal(pop.opt_predict(X), y)


# -- GridThresholds with a small support (the hard instances of the fully private bound) -----

@pytest.mark.parametrize("T,support", [(4, 1), (64, 4), (2**16, 4), (9, 100)])
def test_grid_support_sampling_and_exact_error(T, support):
    pop = GridThresholds(T=T, w_pub=0.3, cut=0.5, support=support)
    X, y, public = pop.sample(4000, random_state=1)
    k = np.rint(X[:, 0] * (T - 1)).astype(int)
    n_neg = pop.n_negative
    assert (k[public] < n_neg).all() and (k[public] >= n_neg - support).all()
    assert (k[~public] >= n_neg).all() and (k[~public] < n_neg + support).all()
    assert len(np.unique(k)) <= 2 * support
    # exact error of a threshold one grid point off the cut vs a Monte Carlo estimate
    off = (n_neg - 1) / (T - 1)
    rule = lambda Z: (Z[:, 0] >= off).astype(np.int64)  # noqa: E731
    exact, se = pop.true_error(rule)
    assert se == 0.0
    Xt, yt, _ = pop.sample(200_000, random_state=2)
    mc = np.mean(rule(Xt) != yt)
    assert abs(exact - mc) < 4 * math.sqrt(max(exact, 1e-3) / 200_000) + 1e-12
    assert exact == pytest.approx(0.3 / min(support, n_neg))


def test_grid_support_validation():
    with pytest.raises(ValueError, match="support"):
        GridThresholds(T=16, support=0)


def test_every_shipped_population_follows_the_protocol():
    from ppm.populations import BreastCancer, GaussianClusters, GridThresholds, MarginFamily
    from ppm.populations.base import Population, check_population
    from ppm.semi_supervised import BigGridThresholds
    from ppm.set_cover import GridPolygon, PlantedConjunction

    for pop in (GaussianClusters(d=2), GridThresholds(T=8), MarginFamily(), BreastCancer(),
                BigGridThresholds(b=8), GridPolygon(), PlantedConjunction()):
        assert isinstance(pop, Population)
        assert check_population(pop) is pop


def test_something_that_is_not_a_population_is_refused_naming_what_it_lacks():
    from ppm.populations.base import check_population

    class NoTestError:
        d = 1

        def sample(self, n, random_state=None):
            return None

    with pytest.raises(TypeError, match="NoTestError is not a population: it lacks opt, true_error"):
        check_population(NoTestError())


# ------------------------------------------------------------------------------ PopulationBase
def _registered_populations():
    from ppm.registry import registered

    return [e.cls for e in registered("population")]


@pytest.mark.parametrize("cls", _registered_populations(), ids=lambda c: c.__name__)
def test_every_population_takes_its_parameters_from_the_base(cls):
    """Parameters from the signature: params(), get_params(), the repr and one read-only
    attribute each, all in signature order; the repr rebuilds the same population."""
    import inspect

    from ppm.populations.base import PopulationBase

    assert issubclass(cls, PopulationBase)
    names = [p.name for p in inspect.signature(cls).parameters.values()]
    assert names and set(names) == set(cls._parameter_constraints)
    pop = cls()
    assert list(pop.params()) == names and pop.get_params() == pop.params()
    assert repr(pop) == f"{cls.__name__}(" + ", ".join(
        f"{k}={v!r}" for k, v in pop.params().items()) + ")"
    assert cls(**pop.params()).params() == pop.params()
    name = names[0]
    if isinstance(inspect.getattr_static(cls, name), property):
        with pytest.raises(AttributeError):
            setattr(pop, name, getattr(pop, name))


def test_the_base_keeps_each_value_as_its_constraint_types_it():
    pop = GaussianClusters(d=np.int64(3), w_pub=1, separation=2, margin=None,
                           geometry_seed=np.int64(4))
    kept = pop.params()
    assert type(kept["d"]) is int and type(kept["geometry_seed"]) is int
    assert type(kept["w_pub"]) is float and kept["w_pub"] == 1.0 and kept["margin"] is None
    assert type(kept["separation"]) is float and pop.w_pub == 1.0


def test_the_base_refuses_a_bad_value_before_the_constructor_body_runs():
    from numbers import Integral

    from sklearn.utils._param_validation import InvalidParameterError

    from ppm.populations.base import PopulationBase
    from ppm.validation import CLOSED_UNIT, Number

    entered = []

    class Toy(PopulationBase):
        _parameter_constraints = {"m": [Number(Integral, 1, None, closed="left")],
                                  "w_pub": CLOSED_UNIT}

        def __init__(self, *, m=2, w_pub=0.5):
            entered.append((m, w_pub))

    class Child(Toy):
        _parameter_constraints = {**Toy._parameter_constraints, "r": CLOSED_UNIT}

        def __init__(self, *, m=2, w_pub=0.5, r=0.5):
            super().__init__(m=m, w_pub=w_pub)

    with pytest.raises(InvalidParameterError, match=r"'w_pub' parameter of Toy .* Got 2 "):
        Toy(w_pub=2)
    with pytest.raises(InvalidParameterError, match=r"'r' parameter of Child"):
        Child(r=-1)
    with pytest.raises(InvalidParameterError, match=r"'m' parameter of Child"):
        Child(m=0)
    assert entered == []
    child = Child(m=np.int64(5), w_pub=1, r=0)
    assert entered == [(5, 1.0)] and type(entered[0][0]) is int  # the body gets kept values
    assert repr(child) == "Child(m=5, w_pub=1.0, r=0.0)"
    with pytest.raises(TypeError, match="not declared"):
        class Undeclared(PopulationBase):
            _parameter_constraints = {"m": [Number(Integral, 1, None, closed="left")]}

            def __init__(self, *, m=1, extra=0):
                pass
