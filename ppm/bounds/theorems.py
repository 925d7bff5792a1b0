"""Explicit sample-complexity bounds of the PPM learner (docs/model.md §4; paper section 4).

Everything here is closed-form arithmetic on the paper's lemmas, with the explicit constants
fixed in docs/model.md §4:

* ``|C_pub|`` and ``|G|`` (Algorithm 1 and 2 counting, docs/model.md §§2-3), exact and in logs;
* the exponential-mechanism excess (Lemma 4.6) and the sample-compression deviation
  (Lemma 4.8, with ``k = d^2``);
* the explicit realizable bound ``B(n)`` (Theorem 4.9) and agnostic bound (Theorem 4.10), and
  the exact smallest ``n`` at which each drops to ``alpha``;
* the O-shapes of both theorems and of the classical non-private rates, for curves with one
  fitted multiplicative constant (:func:`fit_shape_constant`), in :mod:`ppm.bounds.shapes` and
  re-exported here.

Logs are natural logs throughout. Bound functions accept a scalar or an array for ``n``;
the O-shape functions accept arrays for ``alpha`` (and ``epsilon``).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import gammaln, logsumexp

from ppm.bounds.checks import (as_real, check_n,
                               check_w_pub, scalar_or_array)
from ppm.validation import check_epsilon, check_open_unit, check_positive_int
# The O-shapes live in ppm.bounds.shapes (one concept per module); re-exported here.
from ppm.bounds.shapes import (agnostic_shape, fit_shape_constant,  # noqa: F401
                              nonprivate_agnostic_shape, nonprivate_realizable_shape,
                              realizable_shape)

__all__ = [
    "num_halfspaces_upper",
    "hypothesis_class_size",
    "hypothesis_class_size_from_halfspaces",
    "log_hypothesis_class_size",
    "em_excess",
    "compression_deviation",
    "realizable_bound",
    "realizable_sample_complexity",
    "agnostic_bound",
    "agnostic_sample_complexity",
    "realizable_shape",
    "agnostic_shape",
    "nonprivate_realizable_shape",
    "nonprivate_agnostic_shape",
    "fit_shape_constant",
]

# Largest n the sample-complexity searches consider (agnostic, d = 10: alpha = 1e-6 needs
# ~5e16; alpha = 1e-7 needs just over 2^62 and raises). The bound is evaluated in float64,
# so above 2^53 the returned n is exact only up to float rounding of n (relative 1e-16).
_N_MAX = 2**62


# --------------------------------------------------------------------------------------------
# |C_pub| and |G| (docs/model.md §§2-3)
# --------------------------------------------------------------------------------------------


def num_halfspaces_upper(n_pub, d) -> int:
    """Upper bound ``2 * sum_{i=1..d} C(n_pub, i)`` on ``|C_pub|`` (Algorithm 1; docs/model.md §2).

    One opposite pair of halfspaces per non-empty subset of at most ``d`` public points.
    Exact Python int. ``n_pub`` must be an integer >= 0.
    """
    n_pub = check_positive_int(n_pub, "n_pub", minimum=0)
    d = check_positive_int(d, "d")
    return 2 * sum(math.comb(n_pub, i) for i in range(1, d + 1))


def hypothesis_class_size_from_halfspaces(m, d) -> int:
    """``|G| = 1 + sum_{j=1..min(d, m)} C(m, j)`` for ``|C_pub| = m`` (Algorithm 2; docs/model.md §3).

    The empty hypothesis plus one hypothesis per set of at most ``d`` distinct halfspaces.
    Use it with the real (deduplicated) ``|C_pub|``. Exact Python int.
    """
    m = check_positive_int(m, "m", minimum=0)
    d = check_positive_int(d, "d")
    return 1 + sum(math.comb(m, j) for j in range(1, min(d, m) + 1))


def hypothesis_class_size(n_pub, d) -> int:
    """``|G|`` with ``|C_pub|`` at its Algorithm-1 upper bound (docs/model.md §§2-3). Exact int.

    E.g. ``n_pub = 3, d = 2``: ``|C_pub| <= 2 (3 + 3) = 12``, ``|G| = 1 + 12 + 66 = 79``.
    """
    m = num_halfspaces_upper(n_pub, d)
    return hypothesis_class_size_from_halfspaces(m, d)


def _log_binomials(log_m, d: int) -> np.ndarray:
    """``ln C(m, j)`` for ``j = 1..d`` (last axis) from ``ln m``; ``-inf`` where ``C = 0``.

    Real ``m >= 0`` uses the falling factorial ``C(m, j) = m (m-1) ... (m-j+1) / j!`` for
    ``m > j - 1`` and ``0`` otherwise: continuous and nondecreasing in ``m``, and exact on
    integers (where ``C(m, j) = 0`` for ``j > m`` also realises the ``min(d, m)`` cut-off).
    Why not ``gammaln(m+1) - gammaln(m-j+1)``: at ``m ~ 1e80`` (second level of ``|G|``) that
    difference cancels catastrophically; ``ln m + log1p(-t/m)`` never does.
    """
    log_m = np.asarray(log_m, dtype=float)[..., None]
    cols = [np.broadcast_to(log_m, log_m.shape[:-1] + (1,))]  # t = 0 term: ln m
    if d > 1:
        t = np.arange(1, d, dtype=float)
        with np.errstate(over="ignore", invalid="ignore"):
            ratio = t * np.exp(-log_m)  # t / m (inf or nan when m underflows / is 0)
            ok = ratio < 1.0
            rest = np.where(ok, log_m + np.log1p(-np.where(ok, ratio, 0.0)), -np.inf)
        cols.append(rest)
    terms = np.concatenate(cols, axis=-1)
    return np.cumsum(terms, axis=-1) - gammaln(np.arange(2, d + 2, dtype=float))


def _log_G(n_pub, d: int):
    """Unvalidated ``ln |G|`` at real ``n_pub >= 0`` (see :func:`log_hypothesis_class_size`)."""
    x = np.asarray(n_pub, dtype=float)
    with np.errstate(divide="ignore"):
        first = _log_binomials(np.log(x), d)  # ln C(n_pub, i), i = 1..d
        log_m = math.log(2.0) + logsumexp(first, axis=-1)  # ln |C_pub| upper bound
    second = _log_binomials(log_m, d)  # ln C(m, j), j = 1..d
    zeros = np.zeros(second.shape[:-1] + (1,))  # the empty hypothesis: ln 1
    return logsumexp(np.concatenate([zeros, second], axis=-1), axis=-1)


def log_hypothesis_class_size(n_pub, d):
    """Natural log of :func:`hypothesis_class_size`, for real ``n_pub >= 0`` (docs/model.md §4).

    Used at ``n_pub = w_pub * n``. Binomials of a real argument use the falling factorial
    (``C(x, i) = 0`` for ``x <= i - 1``), so the result is continuous and nondecreasing in
    ``n_pub`` and equals ``log(hypothesis_class_size(n_pub, d))`` at integers. Computed in log
    space (falling factorials, ``gammaln``, ``logsumexp``): no overflow for ``n_pub`` up to 1e12
    and ``d`` up to 10 and beyond, where ``|G|`` has more than 1000 digits.
    Accepts a scalar or an array for ``n_pub``.
    """
    x = as_real(n_pub, "n_pub", low=0.0, low_open=False, what="a finite number >= 0")
    d = check_positive_int(d, "d")
    return scalar_or_array(_log_G(x, d))


# --------------------------------------------------------------------------------------------
# Lemma 4.6 and Lemma 4.8
# --------------------------------------------------------------------------------------------


def em_excess(log_G, epsilon, beta):
    """Lemma 4.6 (McSherry-Talwar) in count units: ``(2/epsilon)(ln|G| + ln(1/beta))``.

    With probability ``>= 1 - beta`` the exponential mechanism with score ``-m(g)``
    (sensitivity 1) returns ``g`` with ``m(g) <= min_G m + em_excess``. Divide by ``n`` for
    the error-rate version used in Theorems 4.9-4.10.
    """
    log_G = as_real(log_G, "log_G", low=0.0, low_open=False, what="a finite number >= 0")
    eps = check_epsilon(epsilon)
    beta = check_open_unit(beta, "beta")
    return scalar_or_array(2.0 / eps * (np.asarray(log_G) + math.log(1.0 / beta)))


def compression_deviation(err_hat, k, n, beta):
    """Lemma 4.8 (sample compression, [LW86, SSBD14]) with compression size ``k``.

    ``sqrt(err_hat * 4k ln(n/beta) / n) + 8k ln(n/beta) / n + 2k / n``: with probability
    ``>= 1 - beta``, ``|err(g; D) - err_hat(g; S)|`` is at most this for a rule whose output is
    fixed by ``k`` of the ``n`` sample points (``k = d^2`` for ``G``).
    """
    err_hat = as_real(err_hat, "err_hat", low=0.0, low_open=False, high=1.0,
                       high_open=False, what="in [0, 1]")
    k = check_positive_int(k, "k")
    n = check_n(n)
    beta = check_open_unit(beta, "beta")
    return scalar_or_array(_compression(np.asarray(err_hat), k, np.asarray(n), math.log(1.0 / beta)))


def _compression(err_hat, k, n, log_inv_delta):
    """Lemma 4.8 with confidence ``delta`` passed as ``ln(1/delta)``."""
    lg = np.log(n) + log_inv_delta  # ln(n / delta)
    return np.sqrt(err_hat * 4.0 * k * lg / n) + 8.0 * k * lg / n + 2.0 * k / n


# --------------------------------------------------------------------------------------------
# Theorem 4.9 (realizable) and Theorem 4.10 (agnostic), explicit versions
# --------------------------------------------------------------------------------------------
#
# Each bound is written as F(em, n): em is the exponential-mechanism term (error-rate units,
# the only term that involves |G|) and every other term depends on n alone. F is increasing
# in em, and for integers n >= 1 every other term is nonincreasing in n (checked term by term
# in _rest_* below). This is what the exact minimum search relies on (see _smallest_n).


def _em_rate(n, d, eps, log_inv_delta, w_pub):
    """EM term in error-rate units ``2 (ln|G| + ln(1/delta)) / (epsilon n)``, ``n_pub = w n``."""
    return 2.0 * (_log_G(w_pub * np.asarray(n, dtype=float), d) + log_inv_delta) / (eps * n)


def _realizable_from_em(em, n, k, beta):
    # Thm 4.9 proof: err_hat(g_hat) <= em w.p. 1 - beta/2 (realizable: ERM has err_hat 0),
    # then Lemma 4.8 at confidence beta/2 with err_hat = em. For integer n >= 1 the factor
    # ln(2n/beta)/n is nonincreasing: the real derivative is < 0 for n > e*beta/2, and
    # ln(2/beta) >= ln(4/beta)/2 covers the step n = 1 -> 2.
    lg = np.log(2.0 * n / beta)
    return em + np.sqrt(em * 4.0 * k * lg / n) + 8.0 * k * lg / n + 2.0 * k / n


def _log_growth(n2, D):
    """ln of an upper bound on the growth function of halfspaces (VC dim ``D``) at ``n2``.

    Sauer-Shelah ``(e n2 / D)^D`` (valid for ``n2 >= D``) and the trivial ``2^n2``; the min of
    the two is continuous and nondecreasing in ``n2``. The Sauer term alone (the form of docs/model.md §4)
    is what is used for every ``n >= 1.55 D``; below that the bound exceeds 1 anyway.
    """
    n2 = np.asarray(n2, dtype=float)
    triv = n2 * math.log(2.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        sauer = D * np.log(math.e * n2 / D)
    return np.where(n2 >= D, np.minimum(triv, sauer), triv)


def _agnostic_rest(n, d, beta):
    """Theorem 4.10, every term except the EM one (beta split in quarters).

    Compression deviation (Lemma 4.8, confidence beta/4) with ``err_hat <= 1`` plus twice the
    VC uniform-convergence deviation (confidence beta/4 for ERM and for the optimum):
    ``sqrt((8/n)(ln Pi(2n) + ln(16/beta)))``. All terms are nonincreasing in real ``n >= 1``:
    ``ln(4n/beta)/n`` decreases for ``n > e beta/4``, and ``(ln Pi(2n) + c)/n`` decreases
    because ``ln Pi`` is either ``2n ln 2`` or ``D ln(2en/D)`` with ``2n >= D``.

    Erratum (docs/model.md §4): the paper's proof writes the compression deviation as
    ``8k ln(4n/beta)/n + 2k/n`` without the square-root term. With ``err_hat = Theta(1)``
    (the agnostic case) that square root, ``sqrt(4k ln(4n/beta)/n)``, is the dominant term and
    is what produces the ``1/alpha^2`` rate, so it is kept here.
    """
    k = d * d
    D = d + 1
    comp = _compression(1.0, k, np.asarray(n, dtype=float), math.log(4.0 / beta))
    vc = np.sqrt(8.0 / n * (_log_growth(2.0 * np.asarray(n, dtype=float), D)
                            + math.log(16.0 / beta)))
    return comp + 2.0 * vc


def realizable_bound(n, d, epsilon, beta, w_pub=1.0):
    """Explicit Theorem 4.9 bound ``B(n)`` on the error, w.p. ``>= 1 - beta`` (docs/model.md §4).

    ``e(n) = 2 (ln|G| + ln(2/beta)) / (epsilon n)`` (Lemma 4.6 at confidence ``beta/2``),
    ``B(n) = e(n) + sqrt(e(n) 4k ln(2n/beta)/n) + 8k ln(2n/beta)/n + 2k/n`` (Lemma 4.8 at
    confidence ``beta/2`` with ``err_hat <= e(n)``), ``k = d^2``, ``|G|`` from
    ``n_pub = w_pub * n``; ``w_pub = 1`` (``n_pub = n``) is the theorem's worst case.
    ``n`` may be a scalar or an array (real values >= 1 allowed).
    """
    n = check_n(n)
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    beta = check_open_unit(beta, "beta")
    w = check_w_pub(w_pub)
    n_arr = np.asarray(n, dtype=float)
    em = _em_rate(n_arr, d, eps, math.log(2.0 / beta), w)
    return scalar_or_array(_realizable_from_em(em, n_arr, d * d, beta))


def agnostic_bound(n, d, epsilon, beta, w_pub=1.0):
    """Explicit Theorem 4.10 bound on the excess error, w.p. ``>= 1 - beta`` (docs/model.md §4).

    Beta split in quarters: EM term ``2 (ln|G| + ln(4/beta)) / (epsilon n)`` + compression
    deviation with ``err_hat <= 1``, ``sqrt(4k ln(4n/beta)/n) + 8k ln(4n/beta)/n + 2k/n`` +
    twice the VC deviation ``sqrt((8/n)((d+1) ln(2en/(d+1)) + ln(16/beta)))``; ``k = d^2``.

    Erratum: the paper's proof of Theorem 4.10 writes the compression deviation without the
    square-root term; with ``err_hat = Theta(1)`` that term gives the ``1/alpha^2`` rate, so
    it is kept. The growth function is capped by ``2^(2n)`` where Sauer's lemma does not apply
    (``n < 1.55 (d+1)``, where the bound exceeds 1 anyway).
    """
    n = check_n(n)
    d = check_positive_int(d, "d")
    eps = check_epsilon(epsilon)
    beta = check_open_unit(beta, "beta")
    w = check_w_pub(w_pub)
    n_arr = np.asarray(n, dtype=float)
    em = _em_rate(n_arr, d, eps, math.log(4.0 / beta), w)
    return scalar_or_array(em + _agnostic_rest(n_arr, d, beta))


def _smallest_n(bound, lower, alpha: float) -> int:
    """Exact ``min{n >= 1 integer : bound(n) <= alpha}``, by doubling then branch and bound.

    ``lower(a, b)`` must be a valid lower bound of ``bound`` on the integers of ``[a, b]``.
    Doubling finds ``hi`` with ``bound(hi) <= alpha`` (the minimum lies in ``[1, hi]``). Then
    intervals are explored left-first and discarded when ``lower > alpha``: the first integer
    found is the exact minimum whether or not ``bound`` is monotone.

    Why not plain bisection: ``B`` need not be monotone. ``ln|G|(n)/n`` can increase at small
    ``n`` (e.g. d >= 3, epsilon = 0.01, beta = 0.99: ``B(1) < B(2) < ...``, values in the
    hundreds). On a scan of n <= 2e5, d <= 10, beta in {0.01, 0.5, 0.99}, epsilon in
    {0.01, 1, 100}, w_pub in {1, 0.3, 1e-3}, every increase happened where B > 100, so for
    ``alpha < 1`` the pruning makes this an integer bisection with a few extra evaluations
    near the crossing (about 10-20 ms also at alpha = 1e-4, d = 10).
    """
    hi = 1
    while float(bound(hi)) > alpha:
        hi *= 2
        if hi > _N_MAX:
            raise ValueError(f"no n <= 2^62 brings the bound down to alpha = {alpha!r}")
    if hi == 1:
        return 1
    stack = [(hi // 2 + 1, hi), (1, hi // 2)]  # bound(hi/2) > alpha is already known
    while stack:
        a, b = stack.pop()
        if b - a < 16:
            ns = np.arange(a, b + 1, dtype=float)
            hit = np.flatnonzero(bound(ns) <= alpha)
            if hit.size:
                return int(a + hit[0])
            continue
        if float(lower(a, b)) > alpha:
            continue
        mid = (a + b) // 2
        stack.append((mid + 1, b))
        stack.append((a, mid))  # popped first: left-first search
    raise AssertionError("unreachable: bound(hi) <= alpha")  # pragma: no cover


def realizable_sample_complexity(alpha, beta, epsilon, d, w_pub=1.0) -> int:
    """Smallest integer ``n >= 1`` with ``realizable_bound(n) <= alpha`` (Theorem 4.9 explicit).

    Exact: doubling, then a left-first branch and bound that reduces to an integer bisection
    when ``B`` is decreasing. Exactness does not rest on monotonicity: on ``[a, b]``,
    ``ln|G|`` is nondecreasing in ``n`` and every non-EM term is nonincreasing, so
    ``F(2 (ln|G|(w a) + ln(2/beta)) / (epsilon b), b) <= B(n)`` for all integers ``n`` in
    ``[a, b]`` is a valid lower bound used to discard intervals.
    """
    return _realizable_n(float(check_open_unit(alpha, "alpha")),
                         float(check_open_unit(beta, "beta")), float(check_epsilon(epsilon)),
                         int(check_positive_int(d, "d")), float(check_w_pub(w_pub)))


# The claims' theory bands ask for the same (alpha, beta, epsilon, d, w_pub) many times (each
# figure and row, every bootstrap of a band); the search is exact and pure, so it is memoised.
@functools.lru_cache(maxsize=65536)
def _realizable_n(alpha: float, beta: float, eps: float, d: int, w: float) -> int:
    k = d * d
    log_fail = math.log(2.0 / beta)  # the exponential mechanism's share of beta

    def bound(n):
        return _realizable_from_em(_em_rate(n, d, eps, log_fail, w), n, k, beta)

    def lower(a, b):
        em_low = 2.0 * (_log_G(w * a, d) + log_fail) / (eps * b)
        return _realizable_from_em(em_low, float(b), k, beta)

    return _smallest_n(bound, lower, alpha)


def agnostic_sample_complexity(alpha, beta, epsilon, d, w_pub=1.0) -> int:
    """Smallest integer ``n >= 1`` with ``agnostic_bound(n) <= alpha`` (Theorem 4.10 explicit).

    Same exact search as :func:`realizable_sample_complexity`; the interval lower bound is the
    EM term with ``ln|G|`` at the left end and ``1/n`` at the right end, plus the non-EM terms
    (all nonincreasing in ``n``) at the right end. Keeps the square-root compression term the
    paper's proof drops (see :func:`agnostic_bound`).
    """
    return _agnostic_n(float(check_open_unit(alpha, "alpha")),
                       float(check_open_unit(beta, "beta")), float(check_epsilon(epsilon)),
                       int(check_positive_int(d, "d")), float(check_w_pub(w_pub)))


@functools.lru_cache(maxsize=65536)
def _agnostic_n(alpha: float, beta: float, eps: float, d: int, w: float) -> int:
    log_fail = math.log(4.0 / beta)  # the exponential mechanism's share of beta

    def bound(n):
        return _em_rate(n, d, eps, log_fail, w) + _agnostic_rest(n, d, beta)

    def lower(a, b):
        em_low = 2.0 * (_log_G(w * a, d) + log_fail) / (eps * b)
        return em_low + _agnostic_rest(float(b), d, beta)

    return _smallest_n(bound, lower, alpha)

