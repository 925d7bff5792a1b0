"""A black-box statistical privacy audit: a lower confidence bound on a learner's privacy loss.

In the style of StatDP (Ding, Wang, Wang, Zhang and Kifer, CCS 2018) and DP-Sniper (Bichsel,
Steffen, Bogunovic and Vechev, IEEE S&P 2021); our own code, numpy and scipy only
(docs/privacy_audits.md). An ``(epsilon, delta)``-DP mechanism ``M`` satisfies, for every pair
of neighbouring inputs ``D, D'`` and every event ``E``,

    P[M(D) in E] <= e^epsilon P[M(D') in E] + delta.

The audit estimates both sides for one pair and one event and turns them into a one-sided
lower confidence bound on the smallest epsilon the inequality allows:

1. **Outputs, declared.** ``mechanism(data, random_state)`` returns a vector of integers (or
   booleans): a learner's predictions on fixed probe points, post-processing of the released
   model, so any set of such vectors is a legitimate event. A mechanism with real-valued
   output must declare its discretisation (``outcome``: a function of the stacked outputs to
   integers, e.g. :func:`bins`); a float output without one is refused, never truncated.
2. **Selection batch.** For every candidate pair (built by the caller under the learner's own
   neighbour relation) ``n_select`` runs on each side. The candidate events, in both
   directions, come from three families (:mod:`analysis.audit_events`): the prefixes of the
   outcomes sorted by their smoothed likelihood ratio (by Neyman-Pearson, the most powerful
   events of each size among the outcomes seen); the ordered events ``{f <= t}``, ``{f >= t}``
   of every coordinate of the outcome and of their sum; and, for vector outcomes, DP-Sniper's
   learned event, a logistic regression of the two sides thresholded. The events are built
   on the first half of the batch (the likelihood order, the classifier's fit) and scored on
   the second, so that no family profits from fitting the batch's noise. An event is eligible
   only if its probability on the numerator side is at least ``p_min`` (DP-Sniper's ``c``)
   and it holds at least ``min_count`` runs of the scoring half (StatDP's count threshold).
   Among the eligible ones the event kept is the one whose bound *would be largest on the
   evaluation batch*: :func:`loss_lower_bound` at ``n_eval`` runs with the scoring half's
   pessimistic frequencies (:func:`predicted_bound`).
   This weighs the ratio against the evaluation's power, so tiny events whose selection
   advantage is noise are not chosen (their ratio vanishes on fresh runs).
3. **Evaluation batch.** ``n_eval`` FRESH runs on each side of the chosen pair only. With
   ``k`` of ``n`` runs in ``E`` on the first side and ``k'`` on the second, Clopper-Pearson
   bounds at ``alpha / 2`` each give ``p_lo <= P[M(D) in E]`` and ``p'_hi >= P[M(D') in E]``
   jointly with probability ``>= 1 - alpha`` (union bound), hence

       epsilon_lb = ln((p_lo - delta) / p'_hi)      (0 when p_lo <= delta)

   is a ``(1 - alpha)`` lower confidence bound on the true loss of ``M`` for that event (the
   event was fixed before the evaluation batch was drawn, so the selection does not bias it).

Verdict: "passes" if ``epsilon_lb <= epsilon`` (no evidence against the stated guarantee),
"fails" otherwise (the stated guarantee is violated with confidence ``1 - alpha``). A pass
shows nothing by itself: the audit only has power where the chosen pair and event bring the
true loss near the stated epsilon. Every audit therefore comes with positive controls
(:func:`audit_with_control`, :func:`power_curve`): the mechanism's declared *leak*
``leak(m)``, the same learner stated to lose ``m`` times its privacy budget (for a learner:
its own ``epsilon`` parameter times ``m``, whichever way that moves its noise), audited
against the SAME stated epsilon, must fail; the smallest multiplier caught is reported.

Seeds: every run's ``random_state`` comes from ``numpy.random.SeedSequence([seed, pair,
side, stage])``, so an audit is a function of its arguments; each audit and each control is
given its own ``seed`` by the caller (:func:`stream_seed`).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import stats

from analysis.audit_events import FAMILIES, KeySet, candidates  # noqa: F401 (FAMILIES: API)

ALPHA = 0.05  # one-sided: the bound holds with probability >= 1 - ALPHA
P_MIN = 0.01  # smallest numerator-side probability of an eligible event (DP-Sniper's c)
MIN_COUNT = 10  # fewest selection runs an eligible event holds (StatDP-style count threshold)
SHRINK = 0.16  # the selection scores events at their one-standard-error pessimistic frequencies
PASSES, FAILS = "passes", "fails"
SELECT, EVALUATE = 0, 1  # the two stages' seed words

Mechanism = Callable[[object, int], np.ndarray]  # (dataset, random_state) -> outputs
Outcome = Callable[[np.ndarray], np.ndarray]     # stacked outputs (runs, ...) -> integers


def cp_lower(k: float, n: int, a: float) -> float:
    """One-sided Clopper-Pearson lower bound at level ``1 - a`` on a binomial ``p``."""
    return 0.0 if k <= 0 else float(stats.beta.ppf(a, k, n - k + 1))


def cp_upper(k: float, n: int, a: float) -> float:
    """One-sided Clopper-Pearson upper bound at level ``1 - a`` on a binomial ``p``."""
    return 1.0 if k >= n else float(stats.beta.ppf(1.0 - a, k + 1, n - k))


def loss_lower_bound(k: float, n: int, k2: float, n2: int, delta: float = 0.0,
                     alpha: float = ALPHA) -> float:
    """``ln((p_lo - delta) / p'_hi)``, ``p_lo`` from ``k`` of ``n``, ``p'_hi`` from ``k2`` of
    ``n2``, each Clopper-Pearson at ``alpha / 2``; 0 when ``p_lo <= delta`` (module doc)."""
    p_lo = cp_lower(k, n, alpha / 2) - delta
    if p_lo <= 0.0:
        return 0.0
    return max(0.0, math.log(p_lo / cp_upper(k2, n2, alpha / 2)))


def bins(edges) -> Outcome:
    """A declared discretisation of a real-valued output: every value ``v`` becomes the index
    of its bin, ``numpy.digitize(v, edges)`` (``len(edges) + 1`` bins, the outer ones open)."""
    edges = np.asarray(edges, dtype=float)
    if edges.ndim != 1 or not np.all(np.diff(edges) > 0):
        raise ValueError("bins: edges must be a strictly increasing 1-d sequence")
    return lambda out: np.digitize(np.asarray(out, dtype=float), edges)


def outcome_rows(outputs, outcome: Outcome | None = None) -> np.ndarray:
    """The runs' outcomes as an ``(runs, k)`` int64 array: ``outputs`` stacked (one run per
    row), passed through ``outcome`` when one is declared. Refused (one line) when the result is
    not integer or boolean: a float output needs a declared discretisation."""
    arr = np.asarray(outputs) if outcome is None else np.asarray(outcome(np.asarray(outputs)))
    if arr.dtype.kind not in "biu":
        what = "a float" if arr.dtype.kind == "f" else f"a {arr.dtype} (mixed?)"
        raise ValueError(f"the mechanism's output is {what}: declare its discretisation "
                         f"(outcome=..., e.g. analysis.privacy_audit.bins(edges)); it is "
                         f"never truncated")
    return arr.reshape(len(arr), -1).astype(np.int64)


def batched(fn: Callable[[object, int, np.random.Generator], np.ndarray]):
    """Mark ``fn(data, n, rng) -> outputs of n runs`` as a vectorised mechanism: the audit
    calls it once per (pair, side, stage) with the generator of that stream."""
    fn.batched = True
    return fn


def _stream(seed: int, pair: int, side: int, stage: int) -> np.random.Generator:
    ss = np.random.SeedSequence([int(seed), int(pair), int(side), int(stage)])
    return np.random.Generator(np.random.PCG64(ss))


def stream_seed(*words: int) -> int:
    """A seed of its own for one audit: a 63-bit word of ``SeedSequence(words)`` (e.g. the
    script's seed, the learner's index and the control's index), distinct streams per audit."""
    a, b = np.random.SeedSequence([int(w) for w in words]).generate_state(2)
    return int((int(a) << 31) ^ int(b)) & (2 ** 63 - 1)


def sample_outcomes(mechanism: Mechanism, data, n: int, seed: int, pair: int, side: int,
                    stage: int, outcome: Outcome | None = None) -> np.ndarray:
    """The outcome rows (:func:`outcome_rows`) of ``n`` runs of ``mechanism`` on ``data``."""
    rng = _stream(seed, pair, side, stage)
    if getattr(mechanism, "batched", False):
        return outcome_rows(mechanism(data, n, rng), outcome)
    seeds = rng.integers(0, 2 ** 63 - 1, size=n)
    return outcome_rows([mechanism(data, int(s)) for s in seeds], outcome)


def _keyed(rows: np.ndarray) -> dict:
    """``{outcome key: count}`` of outcome rows."""
    if len(rows) == 0:
        return {}
    uniq, counts = np.unique(rows, axis=0, return_counts=True)
    return {u.tobytes(): int(c) for u, c in zip(uniq, counts)}


def predicted_bound(k1: float, k2: float, n: int, n_eval: int, delta: float = 0.0,
                    alpha: float = ALPHA, shrink: float = SHRINK) -> float:
    """The selection's score of an event with ``k1`` and ``k2`` of ``n`` selection runs: the
    bound the evaluation batch (``n_eval`` runs per side) would give if it saw the selection's
    *pessimistic* frequencies, the one-sided Clopper-Pearson bounds at level ``1 - shrink``
    (lower on the numerator, upper on the denominator; ``shrink = 0.16``: one standard error).
    The pessimism is what keeps a 10-vs-0 event, whose ratio is mostly selection noise, from
    beating a 300-vs-100 one."""
    p1, p2 = cp_lower(k1, n, shrink), cp_upper(k2, n, shrink)
    return loss_lower_bound(p1 * n_eval, n_eval, p2 * n_eval, n_eval, delta, alpha)


def select_event(first: dict, second: dict, n: int, n_eval: int | None = None,
                 delta: float = 0.0, alpha: float = ALPHA, p_min: float = P_MIN,
                 min_count: int = MIN_COUNT) -> tuple[frozenset, float]:
    """The likelihood family scored in-sample (the audit itself builds and scores on separate
    halves, :func:`_selection`): the event (set of outcome keys) of ``first`` over ``second``
    (``{key: count}`` of ``n`` runs each) with the largest :func:`predicted_bound` at ``n_eval`` (default ``n``) among the
    eligible prefixes of the outcomes sorted by the smoothed ratio ``(c1 + 1/2) / (c2 + 1/2)``
    (numerator count ``>= max(min_count, p_min n)``). Returns ``(event, score)``; the event is
    the first outcome alone (score 0) when none is eligible."""
    n_eval = n if n_eval is None else n_eval
    keys = sorted(first, key=lambda o: (-(first[o] + 0.5) / (second.get(o, 0) + 0.5), o))
    floor = max(min_count, p_min * n)
    best, best_m, k1, k2 = 0.0, 0, 0, 0
    for m, o in enumerate(keys, 1):
        k1, k2 = k1 + first[o], k2 + second.get(o, 0)
        if k1 < floor:
            continue
        lb = predicted_bound(k1, k2, n, n_eval, delta, alpha)
        if lb > best:
            best, best_m = lb, m
    return frozenset(keys[:max(best_m, 1)]), best


@dataclass
class AuditResult:
    """One audit: the stated guarantee, the bound, and what it was computed from."""

    epsilon: float          # the stated epsilon the audit is judged against
    delta: float
    epsilon_lb: float       # (1 - alpha) lower confidence bound on the privacy loss
    verdict: str            # PASSES (epsilon_lb <= epsilon) or FAILS
    pair: int               # index of the chosen neighbouring pair
    forward: bool           # event favours the pair's first dataset (else the second)
    event_size: int         # number of outcomes in the event
    selection_score: float  # the selection's predicted bound (for choosing only)
    k_first: int            # evaluation runs in the event, numerator side
    k_second: int           # evaluation runs in the event, denominator side
    n_select: int           # runs per side per candidate pair in the selection batch
    n_eval: int             # fresh runs per side on the chosen pair
    n_pairs: int
    runs: int               # all mechanism runs of the audit
    seed: int
    alpha: float
    seconds: float
    event: str = ""         # the chosen event, in words (its family and threshold)

    def as_dict(self) -> dict:
        return asdict(self)


def _check(pairs, epsilon, n_select, n_eval, alpha, p_min):
    if not pairs:
        raise ValueError("audit needs at least one neighbouring pair")
    if not (epsilon >= 0 and n_select >= 1 and n_eval >= 1 and 0 < alpha < 1
            and 0 <= p_min < 1):
        raise ValueError(f"audit: need epsilon >= 0, n_select, n_eval >= 1, alpha in (0, 1), "
                         f"p_min in [0, 1); got {epsilon}, {n_select}, {n_eval}, {alpha}, "
                         f"{p_min}")


def _selection(ra: np.ndarray, rb: np.ndarray, n: int, n_eval: int, delta: float,
               alpha: float, p_min: float, min_count: int, families) -> list:
    """The best event of each direction of one pair's selection batches ``ra``, ``rb`` (``n``
    runs each): ``[(score, forward, event)]`` (module docstring, step 2).

    The likelihood family is built and scored on the whole batch (its in-sample score is
    optimistic); the ordered and learned events are built on the first half and scored on the
    second (:func:`analysis.audit_events.candidates`), so they replace the likelihood event
    only where their held-out score beats its in-sample one."""
    half = n // 2
    held = n - half
    uniq, inv = np.unique(np.vstack([ra, rb]), axis=0, return_inverse=True)
    inv = np.asarray(inv).reshape(-1)
    parts = [np.bincount(inv[lo:hi], minlength=len(uniq))
             for lo, hi in ((0, half), (half, n), (n, n + half), (n + half, 2 * n))]
    fa, sa, fb, sb = parts
    keys = [u.tobytes() for u in uniq]
    floor = max(min_count, p_min * held)
    others = tuple(f for f in families if f != "likelihood")
    out = []
    for forward, (f1, f2, c1, c2) in ((True, (fa, fb, sa, sb)), (False, (fb, fa, sb, sa))):
        t1, t2 = f1 + c1, f2 + c2
        if "likelihood" in families:
            event, score = select_event({k: int(c) for k, c in zip(keys, t1) if c},
                                        {k: int(c) for k, c in zip(keys, t2) if c},
                                        n, n_eval, delta, alpha, p_min, min_count)
            best = (score, KeySet(event))
        else:  # nothing eligible: the first side's commonest outcome (score 0)
            best = (0.0, KeySet(frozenset([keys[int(np.argmax(t1))]])))
        for event, k1, k2 in (candidates(uniq, c1, c2, f1, f2, others) if others else ()):
            if k1 >= floor:
                score = predicted_bound(k1, k2, held, n_eval, delta, alpha)
                if score > best[0]:
                    best = (score, event)
        out.append((best[0], forward, best[1]))
    return out


def audit(mechanism: Mechanism, pairs: Sequence[tuple], epsilon: float, *, delta: float = 0.0,
          n_select: int = 2000, n_eval: int = 4000, seed: int = 0, alpha: float = ALPHA,
          outcome: Outcome | None = None, p_min: float = P_MIN,
          min_count: int = MIN_COUNT, families: Sequence[str] = FAMILIES) -> AuditResult:
    """Statistical audit of ``mechanism`` on the neighbouring ``pairs`` (module docstring);
    ``families``: the candidate events' families (:data:`analysis.audit_events.FAMILIES`)."""
    _check(pairs, epsilon, n_select, n_eval, alpha, p_min)
    bad = set(families) - set(FAMILIES)
    if bad or not families:
        raise ValueError(f"audit: families must be a non-empty subset of {FAMILIES}, got "
                         f"{tuple(families)}")
    t0 = time.perf_counter()
    best = (-1.0, 0, True, None)
    for i, (a, b) in enumerate(pairs):
        ra = sample_outcomes(mechanism, a, n_select, seed, i, 0, SELECT, outcome)
        rb = sample_outcomes(mechanism, b, n_select, seed, i, 1, SELECT, outcome)
        for score, forward, event in _selection(ra, rb, n_select, n_eval, delta, alpha, p_min,
                                                min_count, families):
            if score > best[0]:
                best = (score, i, forward, event)
    score, i, forward, event = best
    a, b = pairs[i]
    ea = sample_outcomes(mechanism, a, n_eval, seed, i, 0, EVALUATE, outcome)
    eb = sample_outcomes(mechanism, b, n_eval, seed, i, 1, EVALUATE, outcome)
    ka, kb = int(event.contains(ea).sum()), int(event.contains(eb).sum())
    k1, k2 = (ka, kb) if forward else (kb, ka)
    lb = loss_lower_bound(k1, n_eval, k2, n_eval, delta, alpha)
    if isinstance(event, KeySet):
        size = len(event.keys)
    else:  # the distinct outcomes of the fresh runs that fall in the event
        both = np.vstack([ea, eb])
        inside = both[event.contains(both)]
        size = len(np.unique(inside, axis=0)) if len(inside) else 0
    return AuditResult(
        epsilon=float(epsilon), delta=float(delta), epsilon_lb=lb,
        verdict=PASSES if lb <= epsilon else FAILS, pair=i, forward=forward,
        event_size=size, selection_score=score, k_first=k1, k_second=k2,
        n_select=n_select, n_eval=n_eval, n_pairs=len(pairs),
        runs=2 * n_select * len(pairs) + 2 * n_eval, seed=int(seed), alpha=alpha,
        seconds=time.perf_counter() - t0, event=event.describe())


def audit_with_control(leak: Callable[[float], Mechanism], pairs: Sequence[tuple],
                       epsilon: float, *, factor: float = 2.0, seed: int = 0,
                       control_seed: int | None = None, **kwargs) -> tuple[AuditResult,
                                                                            AuditResult]:
    """The audit of ``leak(1)`` and its positive control ``leak(factor)``.

    ``leak(m)`` returns the mechanism *stated* to lose ``m`` times the privacy budget of
    ``leak(1)`` (the learner as shipped): for a learner, its ``epsilon`` parameter times ``m``,
    so the control's direction follows the guarantee, not an assumption about the noise. The
    control is audited against the SAME stated ``epsilon``: it must fail, or the audit had no
    power on these pairs and run counts. It draws its own stream (``control_seed``, default
    :func:`stream_seed` of ``seed`` and the factor). ``kwargs``: :func:`audit`'s."""
    if not factor > 1:
        raise ValueError(f"audit_with_control: the control's factor must be > 1, got {factor}")
    if control_seed is None:
        control_seed = stream_seed(seed, round(1000 * factor))
    if control_seed == seed:
        raise ValueError("audit_with_control: the control must draw its own seed")
    real = audit(leak(1.0), pairs, epsilon, seed=seed, **kwargs)
    control = audit(leak(factor), pairs, epsilon, seed=control_seed, **kwargs)
    return real, control


def power_curve(leak: Callable[[float], Mechanism], pairs: Sequence[tuple], epsilon: float,
                multipliers: Sequence[float], seeds: Sequence[int],
                **kwargs) -> list[tuple[float, AuditResult]]:
    """One audit of ``leak(m)`` against the stated ``epsilon`` per multiplier ``m > 1``, each on
    its own seed: ``[(m, result)]`` in increasing ``m``."""
    ms = [float(m) for m in multipliers]
    if len(ms) != len(seeds) or len(set(seeds)) != len(seeds) or not all(m > 1 for m in ms):
        raise ValueError("power_curve: one distinct seed per multiplier, every multiplier > 1")
    out = [(m, audit(leak(m), pairs, epsilon, seed=s, **kwargs)) for m, s in zip(ms, seeds)]
    return sorted(out, key=lambda t: t[0])


def smallest_detected(curve: Sequence[tuple[float, AuditResult]]) -> float:
    """The smallest multiplier from which on every control of ``curve`` fails (is caught);
    ``inf`` when the largest one is not caught."""
    smallest = math.inf
    for m, r in sorted(curve, key=lambda t: -t[0]):
        if r.verdict != FAILS:
            break
        smallest = m
    return smallest


# Toy mechanisms with known guarantees: the audit's own tests and a sanity row of the script.

def laplace_count(scale_factor: float = 1.0, epsilon: float = 1.0, width: float = 0.5):
    """The Laplace mechanism on a count (sensitivity 1) at ``epsilon``, noise scale ``1 /
    (scale_factor epsilon)`` (``scale_factor > 1``: mis-scaled), released as the bin
    ``floor(noisy / width)`` (post-processing). Data: a 0/1 array."""
    def mechanism(data, random_state):
        rng = np.random.default_rng(random_state)
        noisy = float(np.sum(data)) + rng.laplace(0.0, 1.0 / (scale_factor * epsilon))
        return np.array([math.floor(noisy / width)])
    return mechanism


def exponential_choice(scale_factor: float = 1.0, epsilon: float = 1.0, n_items: int = 4):
    """The exponential mechanism over ``n_items`` items, score ``q_j`` = the number of entries
    equal to ``j`` in the data (sensitivity 1 under replace-one), ``P[j] ∝ exp(scale_factor
    epsilon q_j / 2)`` (``scale_factor > 1``: mis-scaled). Data: an int array in
    ``{0..n_items-1}``."""
    def mechanism(data, random_state):
        rng = np.random.default_rng(random_state)
        q = np.bincount(np.asarray(data, dtype=np.int64), minlength=n_items)
        w = scale_factor * epsilon * q / 2.0
        p = np.exp(w - w.max())
        return np.array([int(rng.choice(n_items, p=p / p.sum()))])
    return mechanism


def largest_loss(first: dict, second: dict, n: int, p_min: float = P_MIN,
                 delta: float = 0.0) -> tuple[float, frozenset, float, float]:
    """The plug-in largest loss ``ln((P1 - delta) / P2)`` of ``first`` over ``second`` (``{key:
    count}`` of ``n`` runs each, or exact probabilities times ``n``) over the likelihood-ratio
    prefixes with ``P1 >= p_min``: ``(loss, event, P1, P2)``. An oracle's view of a mechanism
    (from a very large sample or its exact law); ``inf`` where ``P2 = 0 < P1``."""
    keys = sorted(first, key=lambda o: (-(first[o] + 1e-12) / (second.get(o, 0) + 1e-12), o))
    best = (0.0, frozenset(), 0.0, 0.0)
    k1 = k2 = 0.0
    for m, o in enumerate(keys, 1):
        k1, k2 = k1 + first[o], k2 + second.get(o, 0)
        p1, p2 = k1 / n, k2 / n
        if p1 < p_min or p1 <= delta:
            continue
        loss = math.inf if p2 == 0 else math.log((p1 - delta) / p2)
        if loss > best[0]:
            best = (loss, frozenset(keys[:m]), p1, p2)
    return best
