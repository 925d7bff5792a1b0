"""``n_hat`` as the ED_{1-beta} of a dose-response curve (docs/model.md §5, "the fitted reading").

The success indicators of a learner (excess error ``<= alpha``) are Bernoulli trials whose
probability rises with the sample size ``n``: a quantal dose-response experiment with ``log n``
as the dose. ``n_hat(alpha, beta)`` is the effective dose ED_p at ``p = 1 - beta``, the ``n`` at
which the success probability reaches ``p`` (Finney 1971, *Probit Analysis*; the ED_p of a
binomial GLM). This module reads it in two ways:

* :func:`read_curves`, the **fitted reading** (what the claims count): a binomial GLM with a
  probit link (logit as a sensitivity reading) of successes on ``log n`` over the cells around
  the crossing (the window rule below), inverted at ``p``. The point fit of one curve is
  statsmodels' GLM (:func:`glm_fit`); the bootstrap's thousands of refits run through
  :func:`fisher_scoring`, the same maximum-likelihood iteration vectorised over curves, which
  tests/test_dose_response.py checks against statsmodels to 1e-6.
* :func:`cir_crossing`, the **model-free companion**: centred isotonic regression (Oron and
  Flournoy 2017): the pool-adjacent-violators fit (scipy's ``isotonic_regression``) of the fractions (weighted by trials), each
  pooled block placed at its trials-weighted mean ``log n`` and the blocks joined linearly; its
  crossing of ``p`` needs no model.

The window rule, fixed before any claim was read: the crossing bracket is where the isotonic
fit first reaches ``p`` (cells ``j - 1`` and ``j``); the GLM is fitted on the cells
``j - 1 - WINDOW .. j + WINDOW`` (at most ``2 WINDOW + 2`` cells). Far cells carry almost no
information about ED_p and most of the risk of model misfit.

Failure modes are outcomes, not numbers:

* **censored**: the isotonic fit never reaches ``p`` ("right": ``n_hat`` is beyond the last
  cell, a lower bound there) or already does at the first cell ("left": an upper bound there);
  a fitted ED_p beyond the range of the cells is censored the same way: no extrapolation past
  the data.
* **bracket**: the window's trials are separated (every failure at a smaller ``n`` than every
  success, or all in one cell), so the maximum-likelihood fit does not exist; the data say only
  that the crossing lies in the bracket. The point reading is the bracket's geometric midpoint
  and a bootstrap replicate draws a uniform position in it (as the grid reading does).
* **lack of fit**, read by the caller over the cells of one statistic (:func:`lack_of_fit`):
  the GLM's deviance test rejects, or the model-free crossing lies outside the fitted
  reading's bootstrap interval. A statistic with a lack of fit is inconclusive.
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression
from scipy.special import expit, logit as logit_fn
from scipy.stats import chi2, norm

__all__ = ["READINGS", "LINKS", "WINDOW", "LOF_LEVEL", "reading", "use_reading", "use_link",
           "current_link", "pava", "cir_crossing", "window_of", "separated", "glm_fit",
           "fisher_scoring", "read_curves", "CurveReads", "deviance_p", "lack_of_fit",
           "fieller_interval", "read_cell"]

READINGS = ("fit", "grid")
LINKS = ("probit", "logit")
WINDOW = 2  # cells on each side of the crossing bracket that enter the GLM
LOF_LEVEL = 0.01  # family-wise level of the lack-of-fit tests of one statistic
_FRAC_TOL = 1e-9  # 19 of 20 reaches 0.95 (as analysis.sample_complexity)

_READING = contextvars.ContextVar("ppm_n_hat_reading", default="fit")
_LINK = contextvars.ContextVar("ppm_n_hat_link", default="probit")


def reading() -> str:
    """The reading of ``n_hat`` in force: "fit" (counted) or "grid" (the reference)."""
    return _READING.get()


def current_link() -> str:
    """The GLM's link in force: "probit" (counted) or "logit" (the sensitivity reading)."""
    return _LINK.get()


@contextlib.contextmanager
def _using(var, name, allowed, what):
    if name not in allowed:
        raise ValueError(f"{what} must be one of {allowed}, got {name!r}")
    token = var.set(name)
    try:
        yield
    finally:
        var.reset(token)


def use_reading(name: str):
    """Read every ``n_hat`` inside the block with ``name`` ("fit" or "grid")."""
    return _using(_READING, name, READINGS, "reading")


def use_link(name: str):
    """Fit every dose-response curve inside the block with the link ``name``."""
    return _using(_LINK, name, LINKS, "link")


# --------------------------------------------------------------------------------------------
# the model-free companion
# --------------------------------------------------------------------------------------------


def pava(k, t) -> np.ndarray:
    """Isotonic (non-decreasing) fit of the fractions ``k / t`` weighted by the trials ``t``
    (scipy's pool-adjacent-violators)."""
    t = np.asarray(t, dtype=float)
    return isotonic_regression(np.asarray(k, dtype=float) / t, weights=t).x


def cir_crossing(ns, k, t, target) -> tuple[float, str]:
    """Centred isotonic regression's crossing of ``target`` (Oron and Flournoy 2017).

    The PAVA fit's pooled blocks are placed at their trials-weighted mean ``log n`` (a block at
    0 or 1 keeps its cells) and joined linearly; the crossing is read on that line. Returns
    ``(n, censored)`` with ``censored`` "right" (``n = ns[-1]``) when the fit stays below the
    target, "left" (``n = ns[0]``) when it starts at or above it, else "".
    """
    t = np.asarray(t, dtype=float)
    return _cir_from_iso(np.log(np.asarray(ns, dtype=float)), t, pava(k, t), target)


def _cir_from_iso(x, t, fit, target) -> tuple[float, str]:
    if fit[-1] < target - _FRAC_TOL:
        return float(math.exp(x[-1])), "right"
    if fit[0] >= target - _FRAC_TOL:
        return float(math.exp(x[0])), "left"
    # blocks: runs of equal fitted values. An interior block shrinks to one point at its
    # trials-weighted mean log n; a block on the boundary (0 or 1) keeps every cell, as
    # Oron and Flournoy's CIR does: a run of all-success cells is no monotonicity violation,
    # and centring it would move the curve's arrival at 1 far past the crossing.
    starts = np.flatnonzero(np.r_[True, np.abs(np.diff(fit)) > 1e-12])
    ends = np.r_[starts[1:], fit.size]
    px, py = [], []
    for s0, e0 in zip(starts, ends):
        y = fit[s0]
        if y <= 1e-12 or y >= 1.0 - 1e-12:
            px.extend(x[s0:e0])
            py.extend([y] * (e0 - s0))
        else:
            px.append(float(np.average(x[s0:e0], weights=t[s0:e0])))
            py.append(y)
    px, py = np.asarray(px), np.asarray(py)
    j = int(np.flatnonzero(py >= target - _FRAC_TOL)[0])
    if j == 0:  # the first point straddles the crossing: its centre is the best reading
        return float(math.exp(px[0])), ""
    y0, y1 = py[j - 1], py[j]
    u = min(max((target - y0) / (y1 - y0), 0.0), 1.0)
    return float(math.exp(px[j - 1] + u * (px[j] - px[j - 1]))), ""


# --------------------------------------------------------------------------------------------
# the window and the GLM
# --------------------------------------------------------------------------------------------


def window_of(fit_iso, target, window=WINDOW) -> tuple[int, int, str]:
    """``(first, last + 1, censored)``: the cells the GLM reads, from the isotonic fit."""
    if fit_iso[-1] < target - _FRAC_TOL:
        return 0, 0, "right"
    if fit_iso[0] >= target - _FRAC_TOL:
        return 0, 0, "left"
    j = int(np.flatnonzero(fit_iso >= target - _FRAC_TOL)[0])
    return max(0, j - 1 - window), min(fit_iso.size, j + 1 + window), ""


def separated(x, k, t) -> bool:
    """Is the maximum-likelihood fit of a monotone binomial GLM on ``(x, k of t)`` missing?

    In one dose dimension the MLE exists iff some failure lies at a larger dose than some
    success (overlap); a failure and a success sharing only one dose is quasi-separation."""
    x, k, t = (np.asarray(v, dtype=float) for v in (x, k, t))
    fails, succ = x[k < t], x[k > 0]
    if fails.size == 0 or succ.size == 0:
        return True
    return not fails.max() > succ.min()


def _link_functions(link):
    if link == "probit":
        return norm.cdf, norm.pdf, norm.ppf
    if link == "logit":
        return expit, (lambda e: expit(e) * (1.0 - expit(e))), logit_fn
    raise ValueError(f"link must be one of {LINKS}, got {link!r}")


def glm_fit(x, k, t, link="probit"):
    """statsmodels' binomial GLM of ``k`` successes of ``t`` on ``x``: ``(b0, b1, deviance)``."""
    # the GLM module alone: statsmodels.api would import the time-series packages too
    from statsmodels.genmod.families import Binomial, links
    from statsmodels.genmod.generalized_linear_model import GLM
    lk = links.Probit() if link == "probit" else links.Logit()
    k, t = np.asarray(k, dtype=float), np.asarray(t, dtype=float)
    exog = np.column_stack([np.ones(len(k)), np.asarray(x, dtype=float)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a steep curve warns of near-separation; we test it
        res = GLM(np.column_stack([k, t - k]), exog, family=Binomial(link=lk)).fit()
    return float(res.params[0]), float(res.params[1]), float(res.deviance)


def fisher_scoring(x, k, t, w, link="probit", iters=60, tol=1e-10):
    """Maximum-likelihood ``(b0, b1)`` of many binomial GLMs at once (IRLS, Fisher scoring).

    ``x, k, t, w``: arrays of shape (curves, cells); ``w`` in {0, 1} masks the cells of each
    curve's window. The same iteration statsmodels runs for one GLM (start at the empirical
    link of ``(k + 1/2) / (t + 1)``, weighted least squares on the working response), written
    over a batch because a bootstrap refits thousands of two-parameter curves; curves must not
    be separated (:func:`separated`). Returns ``(b0, b1, converged)``.
    """
    cdf, pdf, ppf = _link_functions(link)
    x, k, t, w = (np.asarray(v, dtype=float) for v in (x, k, t, w))
    tw = t * w
    y = np.where(t > 0, k / np.maximum(t, 1), 0.0)
    eta = ppf((k + 0.5) / (t + 1.0))
    b0 = np.zeros(x.shape[0])
    b1 = np.zeros(x.shape[0])
    converged = np.zeros(x.shape[0], dtype=bool)
    for it in range(iters):
        mu = np.clip(cdf(eta), 1e-12, 1 - 1e-12)
        d = np.maximum(pdf(eta), 1e-300)
        wt = tw * d * d / (mu * (1.0 - mu))
        z = eta + (y - mu) / d
        sw, sx, sz = wt.sum(1), (wt * x).sum(1), (wt * z).sum(1)
        sxx, sxz = (wt * x * x).sum(1), (wt * x * z).sum(1)
        det = sw * sxx - sx * sx
        with np.errstate(invalid="ignore", divide="ignore"):
            nb1 = (sw * sxz - sx * sz) / det
            nb0 = (sz - nb1 * sx) / sw
        if it > 0:
            converged = (np.abs(nb0 - b0) <= tol * (1 + np.abs(b0))) & (
                np.abs(nb1 - b1) <= tol * (1 + np.abs(b1)))
        b0, b1 = nb0, nb1
        eta = b0[:, None] + b1[:, None] * x
        if it > 0 and converged.all():
            break
    return b0, b1, converged & np.isfinite(b0) & np.isfinite(b1)


def deviance_p(x, k, t, b0, b1, link="probit") -> tuple[float, int]:
    """The deviance goodness-of-fit p-value of a fitted window and its degrees of freedom
    (cells - 2); ``(nan, df)`` with fewer than 3 cells."""
    cdf = _link_functions(link)[0]
    x, k, t = (np.asarray(v, dtype=float) for v in (x, k, t))
    df = x.size - 2
    if df < 1:
        return math.nan, df
    mu = np.clip(cdf(b0 + b1 * x), 1e-15, 1 - 1e-15)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(k > 0, k * np.log(k / (t * mu)), 0.0)
        b = np.where(t - k > 0, (t - k) * np.log((t - k) / (t * (1 - mu))), 0.0)
    dev = 2.0 * float(np.sum(a + b))
    return float(chi2.sf(dev, df)), df


def _deviance_p_batch(x, k, t, w, b0, b1, link):
    cdf = _link_functions(link)[0]
    mu = np.clip(cdf(b0[:, None] + b1[:, None] * x), 1e-15, 1 - 1e-15)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(k > 0, k * np.log(k / (t * mu)), 0.0)
        b = np.where(t - k > 0, (t - k) * np.log((t - k) / (t * (1 - mu))), 0.0)
    dev = 2.0 * np.sum(w * (a + b), axis=1)
    df = w.sum(1) - 2
    with np.errstate(invalid="ignore"):
        return np.where(df >= 1, chi2.sf(dev, np.maximum(df, 1)), math.nan)


# --------------------------------------------------------------------------------------------
# reading many curves
# --------------------------------------------------------------------------------------------


@dataclass
class CurveReads:
    """The fitted reading of a batch of curves (one entry per curve)."""

    value: np.ndarray  # n_hat (censored: the grid's edge; bracket: midpoint or drawn)
    censored: np.ndarray  # "", "left", "right"
    status: np.ndarray  # "fit", "bracket", "flat" (no increasing fit), "censored"
    cir: np.ndarray  # the centred-isotonic crossing
    dev_p: np.ndarray  # deviance test p-value of the window's fit (nan: not a fit)
    # the same crossing read off the fitted curve's probabilities at the grid's cells (nan: not
    # a fit): what the isotonic crossing should be, interpolation and all, if the model holds
    cir_model: np.ndarray = None


def read_curves(curves, target, link=None, rng=None, window=WINDOW, u=None) -> CurveReads:
    """Read ``n_hat`` = ED_target on every curve of ``curves``, a list of ``(ns, k, t)``.

    The fitted reading of the module docstring: window from the isotonic fit, GLM (one batch of
    :func:`fisher_scoring` for all curves) on the window, inverted at ``target``; censored and
    separated ("bracket") curves as described there. ``rng``: a bootstrap replicate's generator
    (a bracket reads a uniform position in it); ``None`` reads the bracket's midpoint; ``u``
    (one per curve) gives the positions instead. A curve with no increasing fit ("flat", a
    lack of fit) reads the model-free crossing.
    """
    link = link or current_link()
    cdf, _, ppf = _link_functions(link)
    m = len(curves)
    value = np.full(m, math.nan)
    cens = np.full(m, "", dtype=object)
    status = np.full(m, "fit", dtype=object)
    cir = np.full(m, math.nan)
    dev_p = np.full(m, math.nan)
    cir_model = np.full(m, math.nan)
    kmax = max((len(c[0]) for c in curves), default=0)
    X = np.zeros((m, kmax))
    K = np.zeros((m, kmax))
    T = np.ones((m, kmax))
    W = np.zeros((m, kmax))
    todo, cir_cens = [], {}
    for i, (ns, k, t) in enumerate(curves):
        ns = np.asarray(ns, dtype=float)
        k = np.asarray(k, dtype=float)
        t = np.asarray(t, dtype=float)
        x = np.log(ns)
        iso = pava(k, t)
        lo, hi, c = window_of(iso, target, window)
        cir[i], cir_c = _cir_from_iso(x, t, iso, target)
        cir_cens[i] = cir_c
        if c:
            cens[i], status[i] = c, "censored"
            value[i] = ns[-1] if c == "right" else ns[0]
            continue
        if separated(x[lo:hi], k[lo:hi], t[lo:hi]):
            status[i] = "bracket"
            j = int(np.flatnonzero(iso >= target - _FRAC_TOL)[0])
            ui = u[i] if u is not None else (0.5 if rng is None else rng.random())
            value[i] = math.exp(x[j - 1] + ui * (x[j] - x[j - 1]))
            continue
        n_c = hi - lo
        X[i, :n_c], K[i, :n_c], T[i, :n_c], W[i, :n_c] = x[lo:hi], k[lo:hi], t[lo:hi], 1.0
        todo.append((i, ns))
    if todo:
        idx = np.array([i for i, _ in todo])
        b0, b1, ok = fisher_scoring(X[idx], K[idx], T[idx], W[idx], link)
        q = ppf(target)
        dev_p[idx] = _deviance_p_batch(X[idx], K[idx], T[idx], W[idx], b0, b1, link)
        for r, (i, ns) in enumerate(todo):
            if not ok[r] or not b1[r] > 0:
                status[i] = "flat"
                value[i], cens[i] = cir[i], cir_cens[i]
                dev_p[i] = math.nan
                continue
            xs = (q - b0[r]) / b1[r]
            x_all = np.log(ns)
            cir_model[i] = _cir_from_iso(x_all, np.ones_like(x_all),
                                         cdf(b0[r] + b1[r] * x_all), target)[0]
            if xs > math.log(ns[-1]):
                value[i], cens[i] = ns[-1], "right"
            elif xs < math.log(ns[0]):
                value[i], cens[i] = ns[0], "left"
            else:
                value[i] = math.exp(xs)
    return CurveReads(value, cens, status, cir, dev_p, cir_model)


def lack_of_fit(point: CurveReads, boot: CurveReads, level=LOF_LEVEL) -> list[str]:
    """Reasons (one per cell) that the fitted reading does not describe the data.

    Over the ``m`` fitted cells of one statistic (Bonferroni, family-wise ``level``): the
    window's deviance test rejects the GLM at ``level / m``; or the model-free crossing departs
    from the fit: ``log cir - log cir_model`` (the isotonic crossing of the data against the
    same crossing read off the fitted curve at the same cells, so that the interpolation
    between cells, which biases the isotonic crossing on a coarse grid, cancels) has a
    bootstrap interval at ``1 - level / m`` that excludes 0, and at the point estimate it
    exceeds the half-width of the fitted ``log n_hat``'s bootstrap interval at the same level
    (``boot``: the replicates' reads, arrays of shape replicates x cells). A cell whose fit found no increasing curve ("flat") is
    a lack of fit outright. Returns ``[]`` when the model stands.
    """
    fitted = np.flatnonzero(point.status == "fit")
    reasons = [f"cell {i}: no increasing dose-response curve through its window"
               for i in np.flatnonzero(point.status == "flat")]
    m = max(fitted.size, 1)
    a = level / m
    for i in fitted:
        p = point.dev_p[i]
        if np.isfinite(p) and p < a:
            reasons.append(f"cell {i}: deviance test p = {p:.2g}")
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            d = np.log(boot.cir[:, i]) - np.log(boot.cir_model[:, i])
        d = d[np.isfinite(d)]
        v = boot.value[:, i][boot.status[:, i] == "fit"]
        if d.size < 20 or v.size < 20:
            continue
        d_lo, d_hi = np.quantile(d, [a / 2, 1 - a / 2])
        v_lo, v_hi = np.quantile(v, [a / 2, 1 - a / 2])
        gap = abs(math.log(point.cir[i]) - math.log(point.cir_model[i]))
        # both: a departure the bootstrap can tell from noise, and one larger than the fit's
        # own half-width (data that reach exactly 1 where the fitted curve only nears it give
        # a tiny gap of one sign in every replicate: no misfit)
        if not d_lo <= 0.0 <= d_hi and gap > (math.log(v_hi) - math.log(v_lo)) / 2:
            reasons.append(f"cell {i}: the isotonic crossing {point.cir[i]:.4g} departs from "
                           f"the fitted curve's own {point.cir_model[i]:.4g} by more than the "
                           f"fit's half-width (interval [{v_lo:.4g}, {v_hi:.4g}])")
    return reasons


def fieller_interval(x, k, t, b0, b1, target, link="probit", confidence=0.95):
    """Fieller's interval for ED_target = exp((q - b0) / b1) of a fitted GLM (Finney 1971 §4.6).

    The ``log n`` values whose fitted linear predictor is within ``z`` standard errors of
    ``q = link(target)`` (the Fisher information of the window's fit gives the covariance).
    Returns ``(lo, hi)`` in ``n``; ``hi`` is ``nan`` when the set is unbounded above (the slope
    is not significant at this level), ``lo`` ``nan`` when unbounded below.
    """
    cdf, pdf, ppf = _link_functions(link)
    x, k, t = (np.asarray(v, dtype=float) for v in (x, k, t))
    eta = b0 + b1 * x
    mu = np.clip(cdf(eta), 1e-12, 1 - 1e-12)
    w = t * pdf(eta) ** 2 / (mu * (1 - mu))
    info = np.array([[w.sum(), (w * x).sum()], [(w * x).sum(), (w * x * x).sum()]])
    try:
        v = np.linalg.inv(info)
    except np.linalg.LinAlgError:
        return math.nan, math.nan
    z = norm.ppf(0.5 + confidence / 2.0)
    q = ppf(target)
    a = b1 * b1 - z * z * v[1, 1]
    b = 2.0 * (b1 * (b0 - q) - z * z * v[0, 1])
    c = (b0 - q) ** 2 - z * z * v[0, 0]
    disc = b * b - 4 * a * c
    if a <= 0 or disc < 0:
        return math.nan, math.nan
    r = np.sort([(-b - math.sqrt(disc)) / (2 * a), (-b + math.sqrt(disc)) / (2 * a)])
    return float(math.exp(r[0])), float(math.exp(r[1]))


def read_cell(ns, k, t, target, confidence=0.95, link=None):
    """One curve's fitted reading with its interval, for the ``n_hat`` tables.

    Returns ``(n_hat, lo, hi, censored, status, dev_p)``: a fitted cell's interval is
    Fieller's (:func:`fieller_interval`; its upper end ``nan`` past the last cell: no
    extrapolation); a "bracket" cell's is its bracket; a right-censored cell reads
    ``n_hat = nan`` (beyond the grid) and a left-censored one the first ``n`` (an upper bound),
    as the grid reading does.
    """
    link = link or current_link()
    ns, k, t = (np.asarray(v, dtype=float) for v in (ns, k, t))
    r = read_curves([(ns, k, t)], target, link=link)
    val, cens, status = float(r.value[0]), str(r.censored[0]), str(r.status[0])
    x = np.log(ns)
    if cens == "right":
        return math.nan, math.nan, math.nan, cens, status, math.nan
    if cens == "left":
        return float(ns[0]), math.nan, float(ns[0]), cens, status, math.nan
    if status == "bracket":
        iso = pava(k, t)
        j = int(np.flatnonzero(iso >= target - _FRAC_TOL)[0])
        return val, float(ns[j - 1]), float(ns[j]), cens, status, math.nan
    if status == "flat":
        return val, math.nan, math.nan, cens, status, math.nan
    lo, hi, _ = window_of(pava(k, t), target)
    b0, b1, _ = fisher_scoring(x[None, lo:hi], k[None, lo:hi], t[None, lo:hi],
                               np.ones((1, hi - lo)), link)
    f_lo, f_hi = fieller_interval(x[lo:hi], k[lo:hi], t[lo:hi], b0[0], b1[0], target, link,
                                  confidence)
    if np.isfinite(f_hi) and f_hi > ns[-1]:
        f_hi = math.nan
    return val, f_lo, f_hi, cens, status, float(r.dev_p[0])
