"""A black-box statistical privacy audit: a lower confidence bound on a learner's privacy loss.

In the style of StatDP (Ding, Wang, Wang, Zhang and Kifer, CCS 2018) and DP-Sniper (Bichsel,
Steffen, Bogunovic and Vechev, IEEE S&P 2021); our own code, numpy and scipy only
(docs/privacy_audits.md). An ``(epsilon, delta)``-DP mechanism ``M`` satisfies, for every pair
of neighbouring inputs ``D, D'`` and every event ``E``,

    P[M(D) in E] <= e^epsilon P[M(D') in E] + delta.

The audit estimates both sides for one pair and one event and turns them into a one-sided
lower confidence bound on the smallest epsilon the inequality allows:

1. **Outputs.** ``mechanism(data, random_state)`` returns a vector of predictions (on fixed
   probe points, chosen in advance): post-processing of the released model, so any set of
   prediction vectors is a legitimate event and the guarantee covers it.
2. **Selection batch.** For every candidate pair (the caller builds them under the learner's
   own neighbour relation) ``n_select`` runs on each side; outcomes are counted. Candidate
   events are the prefixes of the outcomes ordered by their (smoothed) empirical likelihood
   ratio, in both directions (``D`` over ``D'`` and back): by Neyman-Pearson these are the
   sets that maximise the ratio at each size. The pair, direction and event with the largest
   bound *computed on the selection batch* (:func:`loss_lower_bound`) is kept; nothing else.
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
true loss near the stated epsilon. Every audit therefore comes with a positive control
(:func:`audit_with_control`): the same learner with its noise deliberately mis-scaled (its
internal budget multiplied by ``factor``), audited against the stated epsilon, must fail.

Seeds: every run's ``random_state`` comes from ``numpy.random.SeedSequence([seed, pair,
side, stage])``, so an audit is a function of its arguments.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

import numpy as np
from scipy import stats

ALPHA = 0.05  # one-sided: the bound holds with probability >= 1 - ALPHA
PASSES, FAILS = "passes", "fails"
SELECT, EVALUATE = 0, 1  # the two stages' seed words

Mechanism = Callable[[object, int], np.ndarray]  # (dataset, random_state) -> prediction vector


def cp_lower(k: int, n: int, a: float) -> float:
    """One-sided Clopper-Pearson lower bound at level ``1 - a`` on a binomial ``p``."""
    return 0.0 if k <= 0 else float(stats.beta.ppf(a, k, n - k + 1))


def cp_upper(k: int, n: int, a: float) -> float:
    """One-sided Clopper-Pearson upper bound at level ``1 - a`` on a binomial ``p``."""
    return 1.0 if k >= n else float(stats.beta.ppf(1.0 - a, k + 1, n - k))


def loss_lower_bound(k: int, n: int, k2: int, n2: int, delta: float = 0.0,
                     alpha: float = ALPHA) -> float:
    """``ln((p_lo - delta) / p'_hi)``, ``p_lo`` from ``k`` of ``n``, ``p'_hi`` from ``k2`` of
    ``n2``, each Clopper-Pearson at ``alpha / 2``; 0 when ``p_lo <= delta`` (module doc)."""
    p_lo = cp_lower(k, n, alpha / 2) - delta
    if p_lo <= 0.0:
        return 0.0
    return max(0.0, math.log(p_lo / cp_upper(k2, n2, alpha / 2)))


def outcome_key(predictions) -> bytes:
    """A hashable key of one run's prediction vector (the event space is sets of these)."""
    return np.ascontiguousarray(np.asarray(predictions).ravel(), dtype=np.int64).tobytes()


def _seeds(seed: int, pair: int, side: int, stage: int, n: int) -> np.ndarray:
    ss = np.random.SeedSequence([int(seed), int(pair), int(side), int(stage)])
    return np.random.Generator(np.random.PCG64(ss)).integers(0, 2 ** 63 - 1, size=n)


def sample_outcomes(mechanism: Mechanism, data, n: int, seed: int, pair: int, side: int,
                    stage: int) -> Counter:
    """Counts of the outcome keys of ``n`` runs of ``mechanism`` on ``data``."""
    return Counter(outcome_key(mechanism(data, int(s)))
                   for s in _seeds(seed, pair, side, stage, n))


def select_event(first: Counter, second: Counter, n: int, delta: float = 0.0,
                 alpha: float = ALPHA) -> tuple[frozenset, float]:
    """The event (set of outcome keys) with the largest :func:`loss_lower_bound` of ``first``
    over ``second`` on these counts (``n`` runs each): prefixes of the outcomes sorted by the
    smoothed ratio ``(c1 + 1/2) / (c2 + 1/2)``. Returns ``(event, bound)``."""
    keys = sorted(first, key=lambda o: (-(first[o] + 0.5) / (second[o] + 0.5), o))
    best, best_m, k1, k2 = 0.0, 0, 0, 0
    for m, o in enumerate(keys, 1):
        k1, k2 = k1 + first[o], k2 + second[o]
        lb = loss_lower_bound(k1, n, k2, n, delta, alpha)
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
    event_size: int         # number of prediction vectors in the event
    selection_lb: float     # the bound on the selection batch (biased: for choosing only)
    k_first: int            # evaluation runs in the event, numerator side
    k_second: int           # evaluation runs in the event, denominator side
    n_select: int           # runs per side per candidate pair in the selection batch
    n_eval: int             # fresh runs per side on the chosen pair
    n_pairs: int
    runs: int               # all mechanism runs of the audit
    alpha: float
    seconds: float

    def as_dict(self) -> dict:
        return asdict(self)


def audit(mechanism: Mechanism, pairs: Sequence[tuple], epsilon: float, *, delta: float = 0.0,
          n_select: int = 2000, n_eval: int = 4000, seed: int = 0,
          alpha: float = ALPHA) -> AuditResult:
    """Statistical audit of ``mechanism`` on the neighbouring ``pairs`` (module docstring)."""
    if not pairs:
        raise ValueError("audit needs at least one neighbouring pair")
    t0 = time.perf_counter()
    best = (-1.0, 0, True, frozenset())
    for i, (a, b) in enumerate(pairs):
        ca = sample_outcomes(mechanism, a, n_select, seed, i, 0, SELECT)
        cb = sample_outcomes(mechanism, b, n_select, seed, i, 1, SELECT)
        for forward, (c1, c2) in ((True, (ca, cb)), (False, (cb, ca))):
            event, lb = select_event(c1, c2, n_select, delta, alpha)
            if lb > best[0]:
                best = (lb, i, forward, event)
    sel_lb, i, forward, event = best
    a, b = pairs[i]
    ea = sample_outcomes(mechanism, a, n_eval, seed, i, 0, EVALUATE)
    eb = sample_outcomes(mechanism, b, n_eval, seed, i, 1, EVALUATE)
    ka, kb = sum(ea[o] for o in event), sum(eb[o] for o in event)
    k1, k2 = (ka, kb) if forward else (kb, ka)
    lb = loss_lower_bound(k1, n_eval, k2, n_eval, delta, alpha)
    return AuditResult(
        epsilon=float(epsilon), delta=float(delta), epsilon_lb=lb,
        verdict=PASSES if lb <= epsilon else FAILS, pair=i, forward=forward,
        event_size=len(event), selection_lb=sel_lb, k_first=k1, k_second=k2,
        n_select=n_select, n_eval=n_eval, n_pairs=len(pairs),
        runs=2 * n_select * len(pairs) + 2 * n_eval, alpha=alpha,
        seconds=time.perf_counter() - t0)


def audit_with_control(make: Callable[[float], Mechanism], pairs: Sequence[tuple],
                       epsilon: float, *, factor: float = 3.0, delta: float = 0.0,
                       n_select: int = 2000, n_eval: int = 4000, seed: int = 0,
                       alpha: float = ALPHA) -> tuple[AuditResult, AuditResult]:
    """The audit of ``make(1)`` and its positive control.

    ``make(scale)`` returns the mechanism with its internal privacy budget multiplied by
    ``scale`` (``make(1)``: the learner as shipped). The control, ``make(factor)``, uses noise
    ``factor`` times too small and is audited against the SAME stated ``epsilon``: it must
    fail, or the audit had no power on these pairs and run counts. The control draws its own
    seeds (``seed + 1``)."""
    real = audit(make(1.0), pairs, epsilon, delta=delta, n_select=n_select, n_eval=n_eval,
                 seed=seed, alpha=alpha)
    control = audit(make(factor), pairs, epsilon, delta=delta, n_select=n_select,
                    n_eval=n_eval, seed=seed + 1, alpha=alpha)
    return real, control


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
