"""Tests of ppm.baselines (docs/model.md §7)."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.optimize import linprog
from sklearn.exceptions import NotFittedError

from ppm.baselines import (
    DPLogisticRegression,
    ERMHalfspace,
    LogisticRegressionBaseline,
    PublicOnly,
    public_scaling,
)
from ppm import PPMHalfspaceLearner
from ppm.populations.datasets import BreastCancer, load_breast_cancer_ppm
from ppm.populations import GaussianClusters


# ------------------------------------------------------------------------------ brute force
def _strictly_separable(X, labels):
    """Is there (w, c) with 1[<w, x> + c > 0] == labels? (LP: s_i (<w, x_i> + c) >= 1)."""
    n, d = X.shape
    if d == 1:
        # Exact: a labelling of reals is a strict threshold rule iff equal points share a label
        # and the labels change at most once along the sorted distinct values.
        order = np.argsort(X[:, 0], kind="stable")
        xs, zs = X[order, 0], labels[order]
        for a, b in zip(range(n - 1), range(1, n)):
            if xs[a] == xs[b] and zs[a] != zs[b]:
                return False
        return int(np.count_nonzero(np.diff(zs))) <= 1
    # Separability is invariant to centring and per-axis scaling: rescale so that an LP
    # solver's feasibility tolerance sees gaps like 1e-12 as gaps.
    X = X - X.mean(axis=0)
    span = np.abs(X).max(axis=0)
    X = X / np.where(span > 0, span, 1.0)
    s = 2.0 * labels - 1.0
    A = -s[:, None] * np.hstack([X, np.ones((n, 1))])
    res = linprog(np.zeros(d + 1), A_ub=A, b_ub=-np.ones(n), bounds=[(None, None)] * (d + 1),
                  method="highs")
    return res.status == 0


def _brute_force_erm(X, y):
    """min over all 2^n labellings realisable by a halfspace of the disagreement with y.

    Labellings are tried by increasing Hamming distance from y, so the first realisable one
    gives the minimum.
    """
    n = len(y)
    for k in range(n + 1):
        for flip in itertools.combinations(range(n), k):
            z = y.copy()
            z[list(flip)] ^= 1
            if _strictly_separable(X, z):
                return k
    raise AssertionError("constant labellings are always realisable")


def _instances(d):
    """Tiny samples: small integer grids (collinear points, duplicates) or generic floats."""
    ints = st.integers(-2, 2).map(float)
    floats = st.floats(-3, 3, allow_nan=False, allow_infinity=False, width=32)
    coords = st.one_of(st.just(ints), st.just(floats))

    @st.composite
    def build(draw):
        n = draw(st.integers(1, 8))
        c = draw(coords)
        X = np.array([[draw(c) for _ in range(d)] for _ in range(n)], dtype=float)
        y = np.array([draw(st.integers(0, 1)) for _ in range(n)], dtype=np.int64)
        return X, y

    return build()


_SETTINGS = settings(max_examples=60, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.too_slow])


@_SETTINGS
@given(_instances(1))
def test_erm_d1_matches_brute_force(data):
    X, y = data
    expected = _brute_force_erm(X, y)
    for method in ("auto", "threshold", "lp"):
        est = ERMHalfspace(method=method).fit(X, y)
        assert est.n_train_errors_ == expected, method
        assert np.sum(est.predict(X) != y) == expected


@_SETTINGS
@given(_instances(2))
def test_erm_d2_matches_brute_force(data):
    X, y = data
    expected = _brute_force_erm(X, y)
    for method in ("auto", "enumerate"):
        est = ERMHalfspace(method=method).fit(X, y)
        assert est.n_train_errors_ == expected, method
        assert np.sum(est.predict(X) != y) == expected


@pytest.mark.parametrize("d", [1, 2])
def test_erm_matches_brute_force_seeded_n8(d):
    # Deterministic complement to the hypothesis tests at the largest brute-force size.
    rng = np.random.default_rng(123 + d)
    for trial in range(12):
        if trial % 2:
            X = rng.integers(-2, 3, size=(8, d)).astype(float)
        else:
            X = rng.standard_normal((8, d))
        y = rng.integers(0, 2, 8)
        est = ERMHalfspace().fit(X, y)
        assert est.n_train_errors_ == _brute_force_erm(X, y)


def test_erm_d2_fixed_non_separable_cases():
    # XOR square: no line separates it; best halfspace misclassifies 1 point.
    X = np.array([[0, 0], [1, 1], [0, 1], [1, 0]], dtype=float)
    y = np.array([0, 0, 1, 1])
    est = ERMHalfspace().fit(X, y)
    assert est.method_ == "enumerate" and est.n_train_errors_ == 1
    # Collinear points alternating labels: 0 1 0 1 0 on a line -> 2 errors.
    X = np.column_stack([np.arange(5.0), 2 * np.arange(5.0)])
    y = np.array([0, 1, 0, 1, 0])
    assert ERMHalfspace().fit(X, y).n_train_errors_ == 2
    # Duplicated point with both labels -> at least 1 error, and exactly 1 here.
    X = np.array([[0.0, 0.0], [0.0, 0.0], [3.0, 1.0]])
    assert ERMHalfspace().fit(X, np.array([0, 1, 1])).n_train_errors_ == 1


def test_erm_d1_threshold_cut_is_between_points():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 0, 1, 1])
    est = ERMHalfspace().fit(X, y)
    assert est.method_ == "threshold" and est.n_train_errors_ == 0
    assert est.predict(np.array([[1.4], [1.6]])).tolist() == [0, 1]
    est = ERMHalfspace().fit(X, 1 - y)  # reversed orientation
    assert est.predict(np.array([[1.4], [1.6]])).tolist() == [1, 0]


@pytest.mark.parametrize("d", [2, 3, 6])
def test_lp_separates_realizable_data(d):
    pop = GaussianClusters(d=d, margin=0.3)
    X, y, public = pop.sample(400, random_state=d)
    est = ERMHalfspace().fit(X, y, public)
    assert est.method_ == "lp" and est.n_train_errors_ == 0
    assert np.all(est.predict(X) == y)
    err, se = pop.true_error(est.predict, n_test=20000, random_state=0)
    assert err < 0.05


def test_auto_falls_back_when_not_separable():
    X, y, _ = GaussianClusters(d=2, margin=None).sample(150, random_state=1)
    est = ERMHalfspace().fit(X, y)
    assert est.method_ == "enumerate"
    lp = ERMHalfspace(method="lp").fit(X, y)
    assert lp.method_ == "enumerate" and lp.n_train_errors_ == est.n_train_errors_
    # The exact ERM is never beaten by the approximate logistic ERM.
    logit = ERMHalfspace(method="logistic").fit(X, y)
    assert logit.method_ == "logistic"
    assert est.n_train_errors_ <= logit.n_train_errors_
    X3, y3, _ = GaussianClusters(d=3, margin=None).sample(150, random_state=1)
    assert ERMHalfspace().fit(X3, y3).method_ == "logistic"


def test_enumerate_beats_random_lines():
    # Exact ERM on a moderately large sample: no line from a random family does better.
    X, y, _ = GaussianClusters(d=2, margin=None, separation=1.0).sample(300, random_state=5)
    est = ERMHalfspace(method="enumerate").fit(X, y)
    rng = np.random.default_rng(0)
    W = rng.standard_normal((2000, 2))
    B = (X[rng.integers(0, 300, 2000)] * W).sum(1) + 0.01 * rng.standard_normal(2000)
    errs = (((X @ W.T - B) > 0).astype(int) != y[:, None]).sum(0)
    assert est.n_train_errors_ <= np.minimum(errs, 300 - errs).min()


def test_single_label_samples_give_constants():
    X = np.random.default_rng(0).standard_normal((5, 2))
    for label in (0, 1):
        est = ERMHalfspace().fit(X, np.full(5, label))
        assert est.method_ == "constant" and est.n_train_errors_ == 0
        assert np.all(est.predict(X + 10) == label)


@pytest.mark.parametrize("d", [1, 2, 3])
def test_erm_refuses_an_empty_sample_like_ppm(d):
    """The same one-line error as PPMHalfspaceLearner's, before any work."""
    empty = (np.empty((0, d)), np.empty(0, dtype=int), np.empty(0, dtype=bool))
    with pytest.raises(ValueError) as erm:
        ERMHalfspace().fit(*empty)
    with pytest.raises(ValueError) as ppm_err:
        PPMHalfspaceLearner(epsilon=1.0).fit(*empty)
    assert str(erm.value) == str(ppm_err.value)
    assert str(erm.value) == f"X has 0 samples (shape (0, {d})); fit needs at least 1 example(s)"


def test_predict_shape_dtype_and_attributes():
    X, y, _ = GaussianClusters(d=2, margin=None).sample(50, random_state=0)
    for method in ("auto", "lp", "enumerate", "logistic"):
        est = ERMHalfspace(method=method).fit(X, y)
        pred = est.predict(X[:7])
        assert pred.shape == (7,) and pred.dtype == np.int64
        assert set(np.unique(pred)) <= {0, 1}
        assert est.coef_.shape == (2,) and isinstance(est.intercept_, float)
        assert est.n_features_in_ == 2


def test_erm_validation():
    X = np.random.default_rng(0).standard_normal((6, 2))
    y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="method"):
        ERMHalfspace(method="svm").fit(X, y)
    with pytest.raises(ValueError, match="threshold"):
        ERMHalfspace(method="threshold").fit(X, y)
    with pytest.raises(ValueError, match="enumerate"):
        ERMHalfspace(method="enumerate").fit(X[:, :1], y)
    with pytest.raises(ValueError, match="random_state"):
        ERMHalfspace(random_state="x").fit(X, y)
    Xnan = X.copy()
    Xnan[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ERMHalfspace().fit(Xnan, y)
    with pytest.raises(ValueError, match="Only binary classification"):
        ERMHalfspace().fit(X, y + np.arange(y.size) % 3)  # three labels
    with pytest.raises(ValueError, match="y must have shape"):
        ERMHalfspace().fit(X, y[:3])
    with pytest.raises(NotFittedError):
        ERMHalfspace().predict(X)
    est = ERMHalfspace().fit(X, y)
    with pytest.raises(ValueError, match="NaN"):
        est.predict(Xnan)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :1])


# ------------------------------------------------------------------------------ PublicOnly
def test_public_only_label_determined_predicts_zero():
    pop = GaussianClusters(d=2)
    X, y, public = pop.sample(300, random_state=0)
    est = PublicOnly().fit(X, y, public)
    assert est.label_ == 0 and est.n_public_ == public.sum()
    pred = est.predict(X)
    assert pred.dtype == np.int64 and np.all(pred == 0)
    err, _ = pop.true_error(est.predict, n_test=20000, random_state=1)
    assert abs(err - pop.label_probabilities()[1]) < 0.02


def test_public_only_majority_ties_and_no_public():
    X = np.zeros((5, 1))
    y = np.array([1, 1, 0, 1, 1])
    public = np.array([True, True, True, False, False])
    assert PublicOnly().fit(X, y, public).label_ == 1  # 2 vs 1 among public
    assert PublicOnly().fit(X, y, np.array([1, 0, 1, 0, 0])).label_ == 0  # tie 1-1 -> 0
    assert PublicOnly().fit(X, y, np.zeros(5, dtype=bool)).label_ == 0  # no public examples
    assert PublicOnly().fit(X, y).label_ == 1  # public=None: every example public
    # Only public labels matter: private labels all 1 do not move it.
    assert PublicOnly().fit(X, np.array([0, 0, 0, 1, 1]), public).label_ == 0


def test_public_only_validation():
    X = np.zeros((3, 2))
    with pytest.raises(NotFittedError):
        PublicOnly().predict(X)
    with pytest.raises(ValueError, match="public"):
        PublicOnly().fit(X, [0, 1, 0], public=[True, False])
    with pytest.raises(ValueError, match="NaN"):
        PublicOnly().fit(np.array([[np.nan, 0.0]] * 3), [0, 1, 0])
    est = PublicOnly().fit(X, [0, 1, 0])
    with pytest.raises(ValueError, match="NaN"):
        est.predict(np.array([[np.nan, 0.0]]))


# ------------------------------------------------------------------------------ logistic baselines
_LOGISTIC = [LogisticRegressionBaseline, DPLogisticRegression]


def _mixture(seed=0, n=200, d=2):
    return GaussianClusters(d=d, margin=None, w_pub=0.5).sample(n, random_state=seed)


def test_public_scaling_reads_public_rows_only():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((10, 3)) * [1.0, 5.0, 0.0] + [2.0, -1.0, 7.0]
    public = np.arange(10) < 6
    center, scale = public_scaling(X, public)
    np.testing.assert_allclose(center, X[:6].mean(0))
    np.testing.assert_allclose(scale[:2], X[:6, :2].std(0))
    assert scale[2] == 1.0  # zero std -> 1
    for few in (np.zeros(10, bool), np.arange(10) == 3):  # < 2 public rows: no scaling
        c, s_ = public_scaling(X, few)
        assert np.all(c == 0) and np.all(s_ == 1)


@pytest.mark.parametrize("cls", _LOGISTIC)
def test_logistic_scaling_ignores_private_rows(cls):
    X, y, public = _mixture(seed=1)
    a = cls(random_state=0).fit(X, y, public)
    X2 = X.copy()
    X2[~public] = 100.0 * np.random.default_rng(5).standard_normal(((~public).sum(), 2)) + 42
    b = cls(random_state=0).fit(X2, y, public)
    np.testing.assert_array_equal(a.center_, b.center_)
    np.testing.assert_array_equal(a.scale_, b.scale_)
    np.testing.assert_allclose(a.center_, X[public].mean(0))
    np.testing.assert_allclose(a.scale_, X[public].std(0))


def _breast_cancer_accuracy(est, seeds=range(5)):
    accs = []
    for seed in seeds:
        pop = BreastCancer()
        X, y, public = pop.sample(400, random_state=seed)
        est.set_params(random_state=seed).fit(X, y, public)
        accs.append(1.0 - pop.true_error(est.predict)[0])
    return float(np.mean(accs))


def test_logistic_accuracy_on_breast_cancer():
    _, y, _ = load_breast_cancer_ppm()
    majority = max(y.mean(), 1 - y.mean())  # 357/569 = 0.627
    assert _breast_cancer_accuracy(LogisticRegressionBaseline()) > majority + 0.2
    assert _breast_cancer_accuracy(DPLogisticRegression(epsilon=100.0)) > majority + 0.2


def test_dp_logistic_noise_hurts_at_tiny_epsilon():
    # epsilon = 1e-3 (noise dominates): worse on average than epsilon = 100.
    low = _breast_cancer_accuracy(DPLogisticRegression(epsilon=1e-3), seeds=range(10))
    high = _breast_cancer_accuracy(DPLogisticRegression(epsilon=100.0), seeds=range(10))
    assert low < high - 0.05


def test_dp_logistic_deterministic_given_seed():
    X, y, public = load_breast_cancer_ppm()
    a = DPLogisticRegression(epsilon=0.5, random_state=3).fit(X, y, public)
    b = DPLogisticRegression(epsilon=0.5, random_state=3).fit(X, y, public)
    c = DPLogisticRegression(epsilon=0.5, random_state=4).fit(X, y, public)
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.intercept_ == b.intercept_
    assert not np.array_equal(a.coef_, c.coef_)
    g1, g2 = np.random.default_rng(11), np.random.default_rng(11)
    np.testing.assert_array_equal(DPLogisticRegression(random_state=g1).fit(X, y, public).coef_,
                                  DPLogisticRegression(random_state=g2).fit(X, y, public).coef_)
    lr = [LogisticRegressionBaseline(random_state=s).fit(X, y, public).coef_ for s in (0, 0)]
    np.testing.assert_array_equal(*lr)


def test_dp_logistic_no_privacy_leak_warning():
    from diffprivlib.utils import PrivacyLeakWarning

    X, y, public = load_breast_cancer_ppm()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every warning, PrivacyLeakWarning included
        est = DPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y, public)
        est.predict(X)
        DPLogisticRegression(random_state=0).fit(X[y == 1], y[y == 1], public[y == 1])
    assert issubclass(PrivacyLeakWarning, Warning)


def test_dp_logistic_rows_clipped_and_attributes():
    X, y, public = load_breast_cancer_ppm()
    est = DPLogisticRegression(epsilon=2.0, data_norm=1.5, C=0.5, random_state=0)
    est.fit(X, y, public)
    assert est.epsilon == 2.0 and est.data_norm == 1.5 and est.C == 0.5
    Z = (X - est.center_) / est.scale_
    assert int((np.linalg.norm(Z, axis=1) > 1.5).sum()) > 0  # clipping is exercised
    assert est.coef_.shape == (2,) and isinstance(est.intercept_, float)
    assert est.n_features_in_ == 2
    # The rule in the original space is the scaled-space rule on (unclipped) scaled features.
    w, b = est.coef_ * est.scale_, est.intercept_ + est.coef_ @ est.center_
    np.testing.assert_array_equal(est.predict(X), (Z @ w + b > 0).astype(np.int64))
    assert not hasattr(est, "model_") and not hasattr(est, "n_clipped_")  # not released
    pred = est.predict(X[:7])
    assert pred.shape == (7,) and pred.dtype == np.int64


def test_logistic_baseline_matches_sklearn_on_scaled_data():
    from sklearn.linear_model import LogisticRegression

    X, y, public = load_breast_cancer_ppm()
    est = LogisticRegressionBaseline(C=0.3).fit(X, y, public)
    Z = (X - X[public].mean(0)) / X[public].std(0)
    ref = LogisticRegression(C=0.3, max_iter=1000).fit(Z, y)
    np.testing.assert_array_equal(est.predict(X), ref.predict(Z))
    np.testing.assert_allclose(est.coef_ * est.scale_, ref.coef_[0], rtol=1e-6)
    assert est.model_ is not None and est.n_features_in_ == 2


def test_dp_logistic_single_label_uses_the_same_mechanism():
    from diffprivlib.models.logistic_regression import _logistic_regression_path

    # On a two-label sample the direct path call equals diffprivlib's fit (same seed), so the
    # single-label route (which diffprivlib's fit refuses) runs the identical mechanism.
    X, y, public = load_breast_cancer_ppm()
    est = DPLogisticRegression(epsilon=1.0, C=2.0, random_state=7).fit(X, y, public)
    seed = int(np.random.default_rng(7).integers(0, 2 ** 32 - 1))
    Z = (X - est.center_) / est.scale_
    norms = np.linalg.norm(Z, axis=1, keepdims=True)
    Z = np.where(norms > 3.0, Z * 3.0 / norms, Z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        coefs, _, _ = _logistic_regression_path(Z, y, epsilon=1.0, data_norm=3.0, pos_class=1,
                                                Cs=[2.0], fit_intercept=True, max_iter=1000,
                                                tol=1e-4, random_state=seed, check_input=False)
    np.testing.assert_allclose(est.coef_ * est.scale_, coefs[0, :-1], rtol=1e-10)
    np.testing.assert_allclose(est.intercept_ + est.coef_ @ est.center_, coefs[0, -1],
                               rtol=1e-10, atol=1e-12)
    # Single-label samples: a private, seeded, non-constant fit (no data-dependent shortcut).
    for label in (0, 1):
        m = y == label
        a = DPLogisticRegression(epsilon=1.0, random_state=1).fit(X[m], y[m], public[m])
        b = DPLogisticRegression(epsilon=1.0, random_state=1).fit(X[m], y[m], public[m])
        assert np.all(np.isfinite(a.coef_))
        np.testing.assert_array_equal(a.coef_, b.coef_)
    empty = DPLogisticRegression().fit(np.empty((0, 2)), np.empty(0, int), np.empty(0, bool))
    assert empty.predict(X[:3]).tolist() == [0, 0, 0]


def test_logistic_baseline_single_label_and_empty():
    X = np.random.default_rng(0).standard_normal((5, 2))
    for label in (0, 1):
        est = LogisticRegressionBaseline().fit(X, np.full(5, label))
        assert est.model_ is None and np.all(est.predict(X + 10) == label)
    est = LogisticRegressionBaseline().fit(np.empty((0, 2)), np.empty(0, dtype=int))
    assert est.predict(X).tolist() == [0] * 5


@pytest.mark.parametrize("cls,kwargs,match", [
    (LogisticRegressionBaseline, dict(C=0.0), "C"),
    (LogisticRegressionBaseline, dict(C=-1.0), "C"),
    (LogisticRegressionBaseline, dict(C="1"), "C"),
    (LogisticRegressionBaseline, dict(random_state="x"), "random_state"),
    (DPLogisticRegression, dict(epsilon=0.0), "epsilon"),
    (DPLogisticRegression, dict(epsilon=-1.0), "epsilon"),
    (DPLogisticRegression, dict(epsilon=float("inf")), "epsilon"),
    (DPLogisticRegression, dict(data_norm=0.0), "data_norm"),
    (DPLogisticRegression, dict(data_norm=None), "data_norm"),
    (DPLogisticRegression, dict(C=0.0), "C"),
    (DPLogisticRegression, dict(C=float("nan")), "C"),
    (DPLogisticRegression, dict(random_state=-3), "random_state"),
])
def test_logistic_validation(cls, kwargs, match):
    X, y, public = _mixture(n=20)
    with pytest.raises(ValueError, match=match):
        cls(**kwargs).fit(X, y, public)
    with pytest.raises(ValueError, match=match):
        cls(**kwargs)._validate_params()


@pytest.mark.parametrize("cls", _LOGISTIC)
def test_logistic_input_validation(cls):
    X, y, public = _mixture(n=20)
    with pytest.raises(NotFittedError):
        cls().predict(X)
    Xnan = X.copy()
    Xnan[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        cls().fit(Xnan, y, public)
    with pytest.raises(ValueError, match="Only binary classification"):
        cls().fit(X, y + np.arange(y.size) % 3, public)  # three labels
    with pytest.raises(ValueError, match="public"):
        cls().fit(X, y, public[:3])
    est = cls(random_state=0).fit(X, y, public)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :1])
    assert cls().get_params()["random_state"] is None  # sklearn conventions
