"""The public benchmark of known-buggy private mechanisms, written from the papers'
descriptions, and the measure of the statistical audit (analysis.privacy_audit) against it.

The mechanisms are the ones StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel et al.,
IEEE S&P 2021) are evaluated on: report-noisy-max with Laplace or exponential noise (returning
the index: private; returning the noisy value: not), the Laplace histogram (scale 1/epsilon:
private; scale epsilon: not) and the Sparse Vector Technique variants of Lyu, Su and Li
("Understanding the Sparse Vector Technique for Differential Privacy", VLDB 2017): their
Algorithm 1 (private), 3 (outputs the noisy query value: not private), 4 (query noise not
scaled with the cutoff c: ``(1 + 6c)/4 epsilon``-DP, not epsilon-DP), 5 (no query noise) and
6 (no cutoff; both not private). Inputs: vectors of counting queries (sensitivity 1 each);
neighbours as in StatDP: every query may move by one (the histogram: one query).

For each mechanism :func:`oracle` computes, from a large sample, its largest privacy loss over
events of probability at least ``p_min`` and the runs an *oracle* audit (handed that event,
Clopper-Pearson on fresh runs) needs for 80% power; :func:`auditor_runs` the runs the audit
needs (selection included) for the same power. ``python -m tests.audit_benchmark`` prints the
table of docs/privacy_audits.md.
"""

from __future__ import annotations

import math
import sys

import numpy as np
from scipy import stats

from analysis import privacy_audit as pa

EPSILON = 0.5
P_MIN = pa.P_MIN
SVT_T, SVT_C = 1.0, 1  # threshold and cutoff of the SVT variants
VALUE_BINS = pa.bins(np.arange(-12.0, 14.0, 1.0))  # declared bins of a released noisy value


def _queries(data, n):
    return np.broadcast_to(np.asarray(data, dtype=float), (n, len(data)))


def noisy_max(noise: str, value: bool, epsilon: float = EPSILON):
    """Report noisy max, ``Lap(2/epsilon)`` or ``Exp(2/epsilon)`` noise on every query; the
    index (private) or the noisy value (not private)."""
    @pa.batched
    def mech(data, n, rng):
        q = _queries(data, n)
        z = (rng.laplace(0.0, 2.0 / epsilon, q.shape) if noise == "laplace"
             else rng.exponential(2.0 / epsilon, q.shape))
        noisy = q + z
        return noisy.max(axis=1)[:, None] if value else noisy.argmax(axis=1)[:, None]
    return mech


def histogram(scale_is_epsilon: bool, epsilon: float = EPSILON):
    """The Laplace histogram, first bin released: scale ``1/epsilon`` (private) or ``epsilon``
    (the bug)."""
    @pa.batched
    def mech(data, n, rng):
        q = _queries(data, n)
        scale = epsilon if scale_is_epsilon else 1.0 / epsilon
        return (q + rng.laplace(0.0, scale, q.shape))[:, :1]
    return mech


def svt(algorithm: int, epsilon: float = EPSILON, T: float = SVT_T, c: int = SVT_C):
    """Lyu-Su-Li's SVT Algorithm 1, 3, 4, 5 or 6 (module docstring): per query 1 (above the
    noisy threshold), 0 (below), -1 (not answered: the cutoff was reached); Algorithm 3
    releases the noisy query value where the others release 1."""
    eps1 = epsilon / 4 if algorithm == 4 else epsilon / 2
    eps2 = epsilon - eps1
    rho_scale = 1.0 / eps1 if algorithm in (3, 4, 5, 6) else 2.0 / epsilon
    nu_scale = {1: 2.0 * c / eps2, 3: c / eps2, 4: 1.0 / eps2, 5: 0.0, 6: 1.0 / eps2}[algorithm]
    cutoff = algorithm not in (5, 6)

    @pa.batched
    def mech(data, n, rng):
        q = _queries(data, n)
        rho = rng.laplace(0.0, rho_scale, (n, 1))
        nu = rng.laplace(0.0, nu_scale, q.shape) if nu_scale > 0 else np.zeros(q.shape)
        above = q + nu >= T + rho
        out = np.where(above, q + nu if algorithm == 3 else 1.0, -100.0)  # -100: "below"
        if cutoff:  # answered until the c-th "above" (included)
            done_before = np.cumsum(above, axis=1) - above >= c
            out[done_before] = -1000.0
        return out
    return mech


def svt_outcome(algorithm: int):
    """The declared outcome of an SVT output: the symbols as integers; Algorithm 3's released
    values in :data:`VALUE_BINS` (offset past the symbols)."""
    def outcome(out):
        sym = np.where(out == -1000.0, -1, np.where(out == -100.0, 0, 1))
        if algorithm != 3:
            return sym
        return np.where(sym == 1, 2 + VALUE_BINS(out), sym)
    return outcome


ONES = [1, 1, 1, 1, 1]
ALL_DIFFER = [(ONES, [2, 0, 0, 0, 0]), (ONES, [0, 2, 2, 2, 2]), (ONES, [0, 0, 0, 0, 0]),
              (ONES, [2, 2, 2, 2, 2]), ([1, 1, 0, 0, 0], [0, 0, 1, 1, 1])]
ONE_DIFFER = [(ONES, [0, 1, 1, 1, 1]), (ONES, [2, 1, 1, 1, 1])]

# name, mechanism, declared outcome, neighbouring pairs, private (from the papers)
BENCHMARK = [
    ("NoisyMax, Laplace, index", noisy_max("laplace", False), None, ALL_DIFFER, True),
    ("NoisyMax, exponential, index", noisy_max("exponential", False), None, ALL_DIFFER, True),
    ("NoisyMax, Laplace, value", noisy_max("laplace", True), VALUE_BINS, ALL_DIFFER, False),
    ("NoisyMax, exponential, value", noisy_max("exponential", True), VALUE_BINS, ALL_DIFFER,
     False),
    ("Histogram, scale 1/epsilon", histogram(False), VALUE_BINS, ONE_DIFFER, True),
    ("Histogram, scale epsilon", histogram(True), VALUE_BINS, ONE_DIFFER, False),
    ("SVT, Lyu Alg. 1", svt(1), svt_outcome(1), ALL_DIFFER, True),
    ("SVT, Lyu Alg. 3 (noisy values)", svt(3), svt_outcome(3), ALL_DIFFER, False),
    ("SVT, Lyu Alg. 4 (query noise not x c)", svt(4), svt_outcome(4), ALL_DIFFER, False),
    ("SVT, Lyu Alg. 5 (no query noise)", svt(5), svt_outcome(5), ALL_DIFFER, False),
    ("SVT, Lyu Alg. 6 (no cutoff)", svt(6), svt_outcome(6), ALL_DIFFER, False),
]


def oracle(mech, outcome, pairs, n: int = 400_000, seed: int = 1, p_min: float = P_MIN):
    """The largest loss over events with probability ``>= p_min`` (likelihood-ratio prefixes,
    both directions, every pair): the event found on ``n`` runs per side, its probabilities
    ``P1, P2`` and loss re-estimated on ``n`` fresh runs per side (no winner's curse):
    ``(loss, P1, P2)``."""
    best = (0.0, 0.0, 0.0, None, 0, True)
    for i, (a, b) in enumerate(pairs):
        ca = pa._keyed(pa.sample_outcomes(mech, a, n, seed, i, 0, 8, outcome))
        cb = pa._keyed(pa.sample_outcomes(mech, b, n, seed, i, 1, 8, outcome))
        for fwd, (c1, c2) in ((True, (ca, cb)), (False, (cb, ca))):
            loss, event, p1, p2 = pa.largest_loss(c1, c2, n, p_min)
            if loss > best[0]:
                best = (loss, p1, p2, event, i, fwd)
    if best[3] is None:
        return 0.0, 0.0, 0.0
    _, _, _, event, i, fwd = best
    a, b = pairs[i]
    fa = pa._keyed(pa.sample_outcomes(mech, a, n, seed, i, 0, 9, outcome))
    fb = pa._keyed(pa.sample_outcomes(mech, b, n, seed, i, 1, 9, outcome))
    ka, kb = sum(fa.get(o, 0) for o in event), sum(fb.get(o, 0) for o in event)
    p1, p2 = (ka / n, kb / n) if fwd else (kb / n, ka / n)
    return (math.inf if p2 == 0 < p1 else math.log(p1 / p2) if p1 > 0 else 0.0), p1, p2


def oracle_power(p1: float, p2: float, n: int, epsilon: float = EPSILON, draws: int = 4000,
                 seed: int = 0, alpha: float = pa.ALPHA) -> float:
    """P[the Clopper-Pearson bound on the fixed event exceeds epsilon] at ``n`` runs per side."""
    rng = np.random.default_rng(seed)
    k1, k2 = rng.binomial(n, p1, draws), rng.binomial(n, p2, draws)
    lo = np.where(k1 > 0, stats.beta.ppf(alpha / 2, np.maximum(k1, 1), n - k1 + 1), 0.0)
    hi = np.where(k2 < n, stats.beta.ppf(1 - alpha / 2, k2 + 1, np.maximum(n - k2, 1)), 1.0)
    return float(np.mean(lo > math.exp(epsilon) * hi))


GRID = np.unique(np.round(np.geomspace(100, 10_000_000, 41)).astype(int))  # runs per side


def oracle_runs(p1: float, p2: float, epsilon: float = EPSILON, power: float = 0.8):
    """The smallest total runs (both sides) of :data:`GRID` at which the oracle audit has
    ``power``; ``inf`` when no grid point has."""
    if p1 <= math.exp(epsilon) * p2:
        return math.inf
    for n in GRID:
        if oracle_power(p1, p2, int(n), epsilon) >= power:
            return 2 * int(n)
    return math.inf


def audit_kwargs(n_eval: int, n_pairs: int) -> dict:
    """The auditor's split of its runs: ``n_select = n_eval / (2 pairs)`` per pair and side, so
    that the selection costs half the evaluation."""
    return dict(n_select=max(50, n_eval // (2 * n_pairs)), n_eval=n_eval)


def caught(mech, outcome, pairs, n_eval: int, seeds, epsilon: float = EPSILON,
           families=pa.FAMILIES) -> int:
    """How many audits (one per seed) at ``n_eval`` fail the mechanism (candidate events from
    ``families``: all of them, or ``LIKELIHOOD`` alone, the auditor before the ordered and
    learned events)."""
    kw = audit_kwargs(n_eval, len(pairs))
    return sum(pa.audit(mech, pairs, epsilon, seed=s, outcome=outcome, families=families,
                        **kw).verdict == pa.FAILS for s in seeds)


LIKELIHOOD = ("likelihood",)  # the likelihood-ratio prefixes alone


def auditor_runs(mech, outcome, pairs, start: int, stop: int = 2_000_000, repeats: int = 10,
                 power: float = 0.8, epsilon: float = EPSILON, families=pa.FAMILIES):
    """The smallest total runs (selection and evaluation) of a doubling grid from ``start``
    evaluation runs per side at which ``repeats`` audits catch the mechanism with rate
    ``>= power``; ``(inf, ...)`` past ``stop``."""
    n = start
    while n <= stop:
        k = caught(mech, outcome, pairs, n, range(1000, 1000 + repeats), epsilon, families)
        if k >= power * repeats:
            kw = audit_kwargs(n, len(pairs))
            return 2 * kw["n_select"] * len(pairs) + 2 * kw["n_eval"], k
        n *= 2
    return math.inf, 0


def table(oracle_n: int = 200_000) -> list[dict]:
    rows = []
    for name, mech, outcome, pairs, private in BENCHMARK:
        loss, p1, p2 = oracle(mech, outcome, pairs, oracle_n)
        o_runs = math.inf if private else oracle_runs(p1, p2)  # private: nothing to detect
        if math.isfinite(o_runs):
            a_runs, k = auditor_runs(mech, outcome, pairs, start=max(200, o_runs // 8),
                                       stop=1_000_000)
        else:
            a_runs, k = math.inf, 0
        rows.append(dict(mechanism=name, private=private, loss=loss, p1=p1, p2=p2,
                         oracle_runs=o_runs, auditor_runs=a_runs, caught=k))
    return rows


def _fmt(v):
    return "undetectable" if not math.isfinite(v) else f"{int(v):,}"


def main() -> None:
    print(f"| mechanism | private | largest loss (P >= {P_MIN:g}) vs epsilon = {EPSILON:g} | "
          "oracle: runs for 80% power | auditor: runs for 80% power | ratio |")
    print("|---|---|---|---|---|---|")
    for r in table():
        ratio = (f"{r['auditor_runs'] / r['oracle_runs']:.1f}"
                 if math.isfinite(r["auditor_runs"]) and math.isfinite(r["oracle_runs"])
                 else "–")
        print(f"| {r['mechanism']} | {'yes' if r['private'] else 'no'} | {r['loss']:.3f} "
              f"(P = {r['p1']:.3f} vs {r['p2']:.3f}) | {_fmt(r['oracle_runs'])} | "
              f"{_fmt(r['auditor_runs'])} | {ratio} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
