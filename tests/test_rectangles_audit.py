"""Exact laws and exact privacy audits of the rectangle learners (BNS15 Corollary 4.17).

Every law the code draws from is recomputed here by an independent route: all rectangles of a
tiny grid ``{0..T-1}^d`` enumerated one by one, each scored by counting its mistakes in a Python
loop, softmax at temperature ``epsilon / 2`` (:func:`brute_law`). The code's own law is composed
from the functions the sampler draws with (:func:`code_law`: the slab log-weights, the last axis'
conditional log-weights and the exact empty-group size, by the chain rule), and must equal it to
rounding. The privacy audits compare exact laws on every neighbouring sample (one example
replaced by any point and label of the grid); a positive control shows the audit fails a
mechanism at twice the temperature. The composed wrapper is audited as in
tests/test_label_boost_audit.py: one forced round (``K = 2`` of ``N = ceil((3 + e^4) K)``
entries), LabelBoost's law from the real :func:`label_boost_rectangles` (``draw_index`` recorded,
then forced to each index), the base learner's from :func:`code_law`.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter, defaultdict
from unittest import mock

import numpy as np
import pytest
from scipy import stats
from scipy.special import logsumexp

import ppm.mechanisms as mechanisms
import ppm.semi_supervised.rectangle_boost as rb
import ppm.semi_supervised.rectangles as R
from ppm.semi_supervised import GridRectangleMechanism, RectangleLabelBoostLearner


def all_rectangles(T, d):
    intervals = [(a, b) for a in range(T) for b in range(a, T)]
    return [tuple(r) for r in itertools.product(intervals, repeat=d)] + [None]


def inside(rect, x) -> bool:
    return rect is not None and all(a <= xi <= b for (a, b), xi in zip(rect, x))


def brute_law(X, y, T, eps, temperature=None) -> dict:
    """The exponential mechanism over every rectangle, scored one by one (independent route)."""
    t = eps / 2 if temperature is None else temperature
    rects = all_rectangles(T, X.shape[1])
    lw = np.array([-t * sum(int(inside(r, x)) != int(v) for x, v in zip(X.tolist(), y))
                   for r in rects])
    return dict(zip(rects, np.exp(lw - logsumexp(lw))))


def code_law(X, y, T, eps) -> dict:
    """The sampler's law composed from its own functions (chain rule over its three draws)."""
    X, y = np.asarray(X, dtype=np.int64), np.asarray(y, dtype=np.int64)
    log_w, (axes, W_cum, pairs, shape, t) = R.slab_log_weights(X, y, T, eps)
    lp = log_w - logsumexp(log_w)
    out = {}
    size_empty = R.empty_group_size(axes)
    for rect in all_rectangles(T, X.shape[1]):  # members of the empty group: uniform
        hits = rect is not None and all(any(a <= v <= b for v in ax.values)
                                        for (a, b), ax in zip(rect, axes))
        if not hits:
            out[rect] = math.exp(lp[-1]) / size_empty
    for g in range(lp.size - 1):
        row = R._slab_rows(W_cum, pairs, shape, np.array([g]))[0]
        log_hi, log_lo = R.last_axis_log_weights(row, axes[-1], t)
        p_hi = np.exp(log_hi - logsumexp(log_hi))
        sub = np.unravel_index(g, shape) if pairs else ()
        head = [(int(p[0][sub[i]]), int(p[1][sub[i]])) for i, p in enumerate(pairs)]
        for hi, ph in enumerate(p_hi):
            lo_w = log_lo(hi)
            for lo, pl in enumerate(np.exp(lo_w - logsumexp(lo_w))):
                ranges = head + [(lo, hi)]
                cells = [[(a, b) for a in range((ax.values[l - 1] if l else -1) + 1,
                                                ax.values[l] + 1)
                          for b in range(ax.values[h], ax.values[h + 1] if h + 1 < ax.u else T)]
                         for ax, (l, h) in zip(axes, ranges)]
                members = list(itertools.product(*cells))
                for rect in members:
                    out[rect] = math.exp(lp[g]) * ph * pl / len(members)
    return out


def _sample(rng, n, d, T):
    return rng.integers(0, T, size=(n, d)), rng.integers(0, 2, size=n)


@pytest.mark.parametrize("d,T", [(1, 6), (2, 4), (3, 3)])
def test_the_samplers_law_is_the_exponential_mechanism_exactly(d, T):
    rng = np.random.default_rng(d)
    for _ in range(3):
        X, y = _sample(rng, 5, d, T)
        exact, code = brute_law(X, y, T, 1.3), code_law(X, y, T, 1.3)
        assert set(code) == set(exact)
        assert max(abs(code[r] - exact[r]) for r in exact) < 1e-12
        assert abs(sum(code.values()) - 1) < 1e-12


def test_the_group_sizes_add_up_to_the_class_exactly_for_a_huge_grid():
    T = 2**200 + 7
    X = np.array([[0, 5], [2**150, T - 1], [2**150, 3]], dtype=object)
    axes = [R.axis_cells(X[:, i], T) for i in range(2)]
    hit = 1
    for ax in axes:
        groups = sum(ax.a_size(lo) * ax.b_size(hi) for lo in range(ax.u) for hi in range(lo, ax.u))
        assert groups + ax.n_empty == ax.n_all == T * (T + 1) // 2
        hit *= groups
    assert hit + R.empty_group_size(axes) == (T * (T + 1) // 2) ** 2 + 1


@pytest.mark.parametrize("d,T", [(1, 7), (2, 4)])
def test_the_empty_group_is_decoded_one_to_one(d, T):
    X = np.array([[1] * d, [T - 2] * d])
    axes = [R.axis_cells(X[:, i], T) for i in range(d)]
    size = R.empty_group_size(axes)
    ranks = iter(range(size))
    with mock.patch.object(R, "uniform_below", lambda n, rng: next(ranks)):
        drawn = [R._draw_empty_group(axes, None) for _ in range(size)]
    expected = [r for r in all_rectangles(T, d)
                if r is None or not all(any(a <= v <= b for v in ax.values)
                                        for (a, b), ax in zip(r, axes))]
    assert len(set(drawn)) == size and set(drawn) == set(expected)


def test_fit_draws_follow_the_exact_law():
    X, y, T = np.array([[0, 1], [2, 2], [1, 0], [2, 0]]), np.array([1, 1, 0, 0]), 3
    exact = brute_law(X, y, T, 2.0)
    n = 6000
    draws = Counter(GridRectangleMechanism(epsilon=2.0, T=T, random_state=s).fit(X, y).rectangle_
                    for s in range(n))
    assert set(draws) <= set(exact)
    keys = sorted(exact, key=str)
    expected = np.array([exact[k] for k in keys]) * n
    observed = np.array([draws[k] for k in keys])
    assert _chi_square_p(observed, expected) > 1e-3


def _chi_square_p(observed, expected) -> float:
    """Chi-square p-value, the cells expected below 5 pooled into one (when it is not empty)."""
    keep = expected >= 5
    obs, exp_ = observed[keep], expected[keep]
    if expected[~keep].sum() > 0:
        obs, exp_ = np.append(obs, observed[~keep].sum()), np.append(exp_, expected[~keep].sum())
    return stats.chisquare(obs, exp_ * obs.sum() / exp_.sum()).pvalue


def _neighbours(X, y, T):
    for i, point, label in itertools.product(range(len(y)), itertools.product(range(T),
                                                                               repeat=X.shape[1]),
                                             (0, 1)):
        X2, y2 = X.copy(), y.copy()
        X2[i], y2[i] = point, label
        yield X2, y2


def worst_log_ratio(law, X, y, T) -> float:
    base = law(X, y)
    return max(max(abs(math.log(base[r]) - math.log(other[r])) for r in base)
               for other in (law(X2, y2) for X2, y2 in _neighbours(X, y, T)))


@pytest.mark.parametrize("d,T,eps", [(1, 5, 1.0), (2, 3, 0.5)])
def test_base_mechanism_is_epsilon_dp_exactly_with_a_positive_control(d, T, eps):
    X, y = _sample(np.random.default_rng(7), 3, d, T)
    worst = worst_log_ratio(lambda a, b: code_law(a, b, T, eps), X, y, T)
    assert worst <= eps + 1e-9
    assert worst > 0.5 * eps  # the audit sees the mechanism move
    # positive control: the same class at twice the temperature is caught
    broken = worst_log_ratio(lambda a, b: brute_law(a, b, T, eps, temperature=eps), X, y, T)
    assert broken > eps + 0.1 * eps


# --- LabelBoost over rectangles ----------------------------------------------------------------


def realizable_subsets(P: np.ndarray) -> set:
    """Every subset of the points (as a frozenset of distinct coordinates) a rectangle of the grid
    ``{0..max}`` cuts out, empty set included: brute force over the grid's rectangles."""
    T = int(P.max()) + 1
    pts = {tuple(p) for p in P.tolist()}
    return {frozenset(p for p in pts if inside(r, p)) for r in all_rectangles(T, P.shape[1])}


@pytest.mark.parametrize("d,T,n", [(2, 5, 7), (2, 6, 9), (3, 3, 6)])
def test_tight_boxes_are_one_per_realizable_dichotomy(d, T, n):
    rng = np.random.default_rng(n)
    for _ in range(4):
        P = rng.integers(0, T, size=(n, d))
        values, lo, hi, score = rb.tight_boxes(P, np.zeros(n))
        pts = {tuple(p) for p in P.tolist()}
        subsets = [frozenset(p for p in pts if all(values[i][lo[j, i]] <= p[i] <= values[i][hi[j, i]]
                                                   for i in range(d))) for j in range(lo.shape[0])]
        assert len(set(subsets)) == len(subsets)  # one box per dichotomy
        assert set(subsets) | {frozenset()} == realizable_subsets(P)


def labelboost_law(S_L, y_L, U, eps: float = 1.0) -> dict:
    """The real label_boost_rectangles' law over relabellings: draw_index recorded, then each
    index (and, at d = 1, each conditional index) forced in turn."""
    seen = []

    def record(log_w, rng):
        seen.append(np.asarray(log_w, dtype=float))
        return 0

    def run(forced):
        it = iter(forced)
        with mock.patch.object(mechanisms, "draw_index", lambda log_w, rng: next(it)):
            return rb.label_boost_rectangles(S_L, y_L, U, None, epsilon=eps)

    with mock.patch.object(mechanisms, "draw_index", record):
        rb.label_boost_rectangles(S_L, y_L, U, None, epsilon=eps)
    first = seen[0] - logsumexp(seen[0])
    out = defaultdict(float)
    for i, lp in enumerate(first):
        if S_L.shape[1] == 1 and i < first.size - 1:  # d = 1: then lo given hi
            seen.clear()
            with mock.patch.object(mechanisms, "draw_index",
                                   lambda log_w, rng: seen.append(np.asarray(log_w)) or (
                                       i if len(seen) == 1 else 0)):
                rb.label_boost_rectangles(S_L, y_L, U, None, epsilon=eps)
            second = seen[1] - logsumexp(seen[1])
            for j, lq in enumerate(second):
                X, y, _ = run([i, j])
                out[(X.tobytes(), y.tobytes())] += math.exp(lp + lq)
        else:
            X, y, _ = run([i])
            out[(X.tobytes(), y.tobytes())] += math.exp(lp)
    return out


def brute_labelboost_law(S_L, y_L, U, eps=1.0) -> dict:
    """EM(eps) over the distinct realizable dichotomies, scored on S_L (independent route)."""
    X = np.concatenate([S_L, U])
    subsets = sorted(realizable_subsets(X), key=sorted)
    lw = np.array([-eps / 2 * sum(int(tuple(p) in s) != v for p, v in zip(S_L.tolist(), y_L))
                   for s in subsets])
    out = defaultdict(float)
    for s, lp in zip(subsets, lw - logsumexp(lw)):
        y = np.array([int(tuple(p) in s) for p in X.tolist()], dtype=np.int64)
        out[(X.tobytes(), y.tobytes())] += math.exp(lp)
    return out


@pytest.mark.parametrize("d,T", [(1, 9), (2, 4)])
def test_label_boost_law_is_the_em_over_dichotomies_exactly(d, T):
    rng = np.random.default_rng(3)
    for _ in range(3):
        S_L, y_L = _sample(rng, 4, d, T)
        U = rng.integers(0, T, size=(3, d))
        code, exact = labelboost_law(S_L, y_L, U), brute_labelboost_law(S_L, y_L, U)
        assert set(code) == set(exact)
        assert max(abs(code[k] - exact[k]) for k in exact) < 1e-12


# --- the composed wrapper (one forced round) ---------------------------------------------------

K = 2
N = math.ceil(rb.ROUND_SUBSAMPLE * K)  # 116
_PAIRS: dict = {}


def _boost_then_base(lab, unl, d, T, eps: float = 1.0) -> dict:
    S_L = np.array([x for x, _ in lab], dtype=np.int64).reshape(-1, d)
    y_L = np.array([v for _, v in lab], dtype=np.int64)
    U = np.array(unl, dtype=np.int64).reshape(-1, d)
    out = defaultdict(float)
    for (xb, yb), p in labelboost_law(S_L, y_L, U, eps).items():
        X = np.frombuffer(xb, dtype=np.int64).reshape(-1, d)
        for rect, q in code_law(X, np.frombuffer(yb, dtype=np.int64), T, eps).items():
            out[rect] += p * q
    return out


def wrapper_law(lab, unl, d, T, eps: float = 1.0) -> dict:
    types = Counter([("L", x, v) for x, v in lab] + [("U", x) for x in unl])
    total, keys, out = sum(types.values()), sorted(types), defaultdict(float)
    for i, a in enumerate(keys):
        for b in keys[i:]:
            count = types[a] * (types[a] - 1) // 2 if a == b else types[a] * types[b]
            if count:
                key = (a, b, d, T, eps)
                if key not in _PAIRS:
                    _PAIRS[key] = _boost_then_base([(t[1], t[2]) for t in (a, b) if t[0] == "L"],
                                                   [t[1] for t in (a, b) if t[0] == "U"], d, T,
                                                   eps)
                for h, p in _PAIRS[key].items():
                    out[h] += count / math.comb(total, 2) * p
    return out


def _wrapper_worst(lab, unl, d, T, eps: float = 1.0) -> float:
    base = wrapper_law(lab, unl, d, T, eps)
    worst = 0.0
    points = list(itertools.product(range(T), repeat=d))
    for i, x, v in itertools.product(range(len(lab)), points, (0, 1)):
        other = wrapper_law(lab[:i] + [(x, v)] + lab[i + 1:], unl, d, T, eps)
        worst = max(worst, max(abs(math.log(base[h]) - math.log(other[h])) for h in base))
    for i in sorted({unl.index(x) for x in set(unl)}):
        for x in points:
            other = wrapper_law(lab, unl[:i] + [x] + unl[i + 1:], d, T, eps)
            worst = max(worst, max(abs(math.log(base[h]) - math.log(other[h])) for h in base))
    return worst


@pytest.mark.parametrize("d,T", [(1, 3), (2, 2)])
def test_composed_wrapper_is_1_dp_exactly(d, T):
    rng = np.random.default_rng(d)
    points = list(itertools.product(range(T), repeat=d))
    lab = [(points[0], 0), (points[-1], 1)]
    unl = [points[int(k)] for k in rng.integers(0, len(points), size=N - 2)]
    worst = _wrapper_worst(lab, unl, d, T)
    assert worst <= math.log(1 + K / N * (math.e ** 4 - 1)) + 1e-9  # Claim 4.3, eps* = 4
    assert worst <= 1.0
    assert _wrapper_worst(lab, [], d, T) > 10 * worst  # without the subsampling: far larger
    # 2x control: LabelBoost and the base learner at 2 epsilon. The exact audit resolves the
    # leak (the loss grows by more than 1.5x), but the stated 1 is loose by a factor of
    # hundreds here: the 2x leak stays far below it, so no audit against the stated epsilon
    # can catch it at any run count (docs/privacy_audits.md, "Loose bounds")
    doubled = _wrapper_worst(lab, unl, d, T, eps=2.0)
    assert 1.5 * worst < doubled < 1.0


def test_wrapper_fit_follows_the_enumerated_law():
    d, T = 2, 2
    points = list(itertools.product(range(T), repeat=d))
    lab = [(points[0], 0), (points[-1], 1)]
    unl = [points[k % len(points)] for k in range(N - 2)]
    exact = wrapper_law(lab, unl, d, T)
    X = np.array([x for x, _ in lab])
    y = np.array([v for _, v in lab])
    U = np.array(unl)
    draws = Counter()
    with mock.patch.object(rb, "boost_schedule", lambda *a, **k: ([(N, K)], True)):
        for s in range(2000):
            est = RectangleLabelBoostLearner(T=T, base_n=K, random_state=s).fit(
                X, y, X_unlabelled=U)
            assert est.rounds_ == [(N, K)] and not est.failed_
            draws[est.rectangle_] += 1
    assert set(draws) <= set(exact)
    keys = sorted(exact, key=str)
    expected = np.array([exact[k] for k in keys]) * 2000
    observed = np.array([draws[k] for k in keys])
    assert _chi_square_p(observed, expected) > 1e-3
