"""The fair DP logistic regression of the real-data comparison
(``ppm.baselines.dp_logistic_public``): objective perturbation (Chaudhuri, Monteleoni and
Sarwate 2011, Algorithm 2) over the private rows, the public rows' loss in the regularizer.

The checks re-derive what the construction promises by other routes: the noise parameters from
the paper's formulas with numbers typed in, the released rule as the exact minimiser (against
scipy's optimiser), the noise vector recovered from the released rule (stationarity) and its
norm's distribution, and the sensitivity bound that the clipping buys."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit

from ppm.baselines.dp_logistic_public import (PublicAwareDPLogisticRegression,
                                              perturbation_parameters)
from ppm.budget import BudgetAccountant
from ppm.populations import BreastCancer


def _sample(seed=0, n=200):
    return BreastCancer().sample(n, random_state=seed)


def _augmented(est, X, public, clip=True):
    """The rows as the estimator maps them (scaled, private rows clipped, intercept column)."""
    Z = (X - est.center_) / est.scale_
    if clip:
        norms = np.linalg.norm(Z, axis=1)
        over = (~public) & (norms > est.data_norm_)
        Z[over] *= (est.data_norm_ / norms[over])[:, None]
    return np.hstack([Z / est.data_norm_, np.ones((len(X), 1))]) / math.sqrt(2)


def _f(est):
    """The released rule back in the augmented space."""
    w = est.coef_ * est.scale_
    b = est.intercept_ + est.coef_ @ est.center_
    return np.append(w * est.data_norm_ * math.sqrt(2), b * math.sqrt(2))


def _noise_from_rule(est, X, y, public):
    """``b`` recovered from the released ``f`` by stationarity: ``b = -n grad(J without b)``,
    the gradient written with scipy's expit (not the estimator's code)."""
    A = _augmented(est, X, public)
    s = 2.0 * y - 1.0
    f = _f(est)
    n = len(y)
    eps_prime, delta = perturbation_parameters(est.epsilon, n, est.C)
    grad_loss = -(A.T @ (s * expit(-s * (A @ f))))
    return -(grad_loss + n * (1.0 / (est.C * n) + delta) * f)


def test_noise_parameters_are_cms11_algorithm_2():
    # eps' = eps - log(1 + 2c/(n Lambda) + c^2/(n Lambda)^2) with c = 1/4, n Lambda = 1/C
    # C = 0.1, eps = 1: 1 - ln(1.050625) = 0.950614...
    eps_prime, delta = perturbation_parameters(1.0, 200, 0.1)
    assert eps_prime == pytest.approx(1.0 - math.log(1.050625), rel=1e-12)
    assert delta == 0.0
    # C = 1, eps = 0.1: eps' = 0.1 - ln(1.5625) < 0, so eps' = eps / 2 and
    # Delta = c / (n (e^{eps/4} - 1)) - Lambda = 0.25 / (200 * 0.0253151205...) - 0.005
    eps_prime, delta = perturbation_parameters(0.1, 200, 1.0)
    assert eps_prime == pytest.approx(0.05, rel=1e-12)
    assert delta == pytest.approx(0.25 / (200 * 0.025315120524429) - 0.005, rel=1e-9)


def _drawn_noise(random_state, epsilon, n, C, k=3):
    """The noise vector the fit draws, replayed from its seed (density ~ exp(-(eps'/2)||b||):
    a uniform direction times a Gamma(k, 2/eps') norm)."""
    from ppm.baselines.dp_logistic_public import noise_seed
    rng = np.random.default_rng(noise_seed(random_state))
    eps_prime, _ = perturbation_parameters(epsilon, n, C)
    u = rng.standard_normal(k)
    return rng.gamma(shape=k, scale=2.0 / eps_prime) * u / np.linalg.norm(u)


def test_release_is_the_exact_minimiser():
    X, y, public = _sample(1)
    est = PublicAwareDPLogisticRegression(epsilon=1.0, C=0.1, random_state=7).fit(X, y, public)
    A = _augmented(est, X, public)
    s = 2.0 * y - 1.0
    n = len(y)
    b = _drawn_noise(7, 1.0, n, 0.1)
    _, delta = perturbation_parameters(1.0, n, 0.1)
    ridge = 1.0 / (0.1 * n) + delta

    def J(f):
        return np.logaddexp(0, -s * (A @ f)).sum() / n + 0.5 * ridge * f @ f + b @ f / n

    ref = minimize(J, np.zeros(3), method="BFGS", options={"gtol": 1e-12}).x
    assert np.allclose(_f(est), ref, atol=1e-6)
    # stationarity read back from the released rule gives the drawn noise
    assert np.allclose(_noise_from_rule(est, X, y, public), b, atol=1e-6)


def test_noise_norm_has_the_calibrated_gamma_distribution():
    """||b|| ~ Gamma(d + 1, 2 / eps'): mean 3 * 2 / eps' for d = 2 (a factor 2 off would show)."""
    X, y, public = _sample(2)
    eps = 1.0
    eps_prime, _ = perturbation_parameters(eps, len(y), 0.1)
    norms = [np.linalg.norm(_noise_from_rule(
        PublicAwareDPLogisticRegression(epsilon=eps, C=0.1, random_state=seed).fit(X, y, public),
        X, y, public)) for seed in range(300)]
    mean = 3 * 2 / eps_prime
    # sd of the mean: sqrt(3) (2 / eps') / sqrt(300), about 3.3% of the mean
    assert np.mean(norms) == pytest.approx(mean, rel=0.12)
    assert np.var(norms) == pytest.approx(3 * (2 / eps_prime) ** 2, rel=0.35)


def test_one_private_row_moves_the_noise_by_at_most_two():
    """The sensitivity step of the proof: for the same output f, replacing a private row by any
    (x, y) changes the noise that produces f by at most 2 in norm (clipping makes ||x|| <= 1)."""
    X, y, public = _sample(3)
    est = PublicAwareDPLogisticRegression(epsilon=1.0, C=0.1, random_state=0).fit(X, y, public)
    b = _noise_from_rule(est, X, y, public)
    i = int(np.flatnonzero(~public)[0])
    for x_new, y_new in (([1e4, 1e7], 0), ([-50.0, -1e5], 1), ([0.0, 0.0], 0)):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = x_new, y_new
        b2 = _noise_from_rule(est, X2, y2, public)  # est keeps its public-only scaling
        assert np.linalg.norm(b - b2) <= 2.0 + 1e-9
    # without the clipping the same replacement moves it far more: the clipping is what counts
    A = _augmented(est, X2, public, clip=False)
    assert np.linalg.norm(A[i]) > 1.0


def test_scaling_and_clipping_norm_never_read_private_rows():
    X, y, public = _sample(4)
    a = PublicAwareDPLogisticRegression(epsilon=1.0, random_state=0).fit(X, y, public)
    X2 = X.copy()
    X2[~public] = X2[~public] * 3.0 + 100.0  # every private row moved
    b = PublicAwareDPLogisticRegression(epsilon=1.0, random_state=0).fit(X2, y, public)
    assert np.array_equal(a.center_, b.center_) and np.array_equal(a.scale_, b.scale_)
    assert a.data_norm_ == b.data_norm_
    # "public": the largest norm of a scaled public row
    Z = (X[public] - a.center_) / a.scale_
    assert a.data_norm_ == pytest.approx(np.linalg.norm(Z, axis=1).max())


def test_public_rows_are_used_free_and_more_epsilon_means_less_noise():
    """On real splits the fair baseline beats the public-only rule at epsilon 3 (it learns from
    the private rows) and is more accurate at epsilon 3 than at 0.1 on average."""
    pop = BreastCancer()
    acc = {0.1: [], 3.0: []}
    for seed in range(12):
        X, y, public = pop.sample(200, random_state=seed)
        for eps in acc:
            est = PublicAwareDPLogisticRegression(epsilon=eps, C=0.1, random_state=seed)
            acc[eps].append(1 - pop.true_error(est.fit(X, y, public).predict)[0])
    assert np.mean(acc[3.0]) > 0.85 > 0.63  # public only: about 0.63 (the benign share)
    assert np.mean(acc[3.0]) > np.mean(acc[0.1])


def test_seeded_fits_repeat_and_the_budget_counts_them():
    X, y, public = _sample(5)
    with BudgetAccountant(epsilon=2.0) as acc:
        a = PublicAwareDPLogisticRegression(epsilon=1.0, random_state=3).fit(X, y, public)
        b = PublicAwareDPLogisticRegression(epsilon=1.0, random_state=3).fit(X, y, public)
    assert acc.spent == pytest.approx(2.0)
    assert np.array_equal(a.coef_, b.coef_) and a.intercept_ == b.intercept_


@pytest.mark.parametrize("bad", [{"data_norm": "private"}, {"data_norm": -1.0}, {"C": 0.0},
                                 {"epsilon": math.inf}])
def test_bad_parameters_are_refused_by_name(bad):
    X, y, public = _sample(6, n=50)
    (name, value), = bad.items()
    with pytest.raises(ValueError, match=name):
        PublicAwareDPLogisticRegression(**bad).fit(X, y, public)
