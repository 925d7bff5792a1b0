"""The privacy audits of every private learner, run from what each learner declares beside its
class (:mod:`ppm.audit_spec`): statistical audits with their power curves
(:mod:`analysis.privacy_audit`), exact ones, and the recorded rows of audits that live in the
test suite or do not exist. ``scripts/privacy_audits.py`` parses its arguments and writes
``privacy_audits/audit.csv`` from these rows; method and columns: docs/privacy_audits.md.

Every statistical audit comes with its power curve: the learner's declared *leak* ``leak(m)``
audited against the SAME stated epsilon at every multiplier of its declaration; the row with
``factor`` :data:`CONTROL_FACTOR` (2) is the positive control the verdict requires caught, and
every row of a learner carries ``smallest_detected``, the smallest multiplier from which on
every control is caught at that run count, and ``event``, the chosen event in words. Where the
stated epsilon is a loose bound and the instance is small enough (a declaration naming an
exact-loss hook of :data:`EXACT_LOSS`: the Set Cover and Disjunction Learners over literals,
:mod:`analysis.set_cover_exact`), ``exact_loss`` is the exact largest loss of each leak on the
audit's pairs and ``control_factor`` the control the verdict reads (:func:`control_factor`;
docs/privacy_audits.md, "Loose bounds").

Seeds: every audit and every control draws from its own stream, ``stream_seed(seed, index,
control index)`` with ``index`` the declaration's (:func:`audit_seeds`), written in the ``seed``
column; exact rows draw nothing and leave it empty.
"""

from __future__ import annotations

import math

import pandas as pd

from analysis.privacy_audit import FAILS, P_MIN, PASSES, audit, smallest_detected, stream_seed
from ppm.audit_spec import declared

CONTROL_FACTOR = 2.0  # the control the verdict needs caught: epsilon where epsilon/2 belongs
FACTOR = CONTROL_FACTOR  # the exact audits' control: the mechanism at FACTOR epsilon
COLUMNS = ["learner", "paper", "kind", "control", "factor", "setting", "neighbours", "epsilon",
           "delta", "epsilon_lb", "runs", "pairs", "event_size", "verdict",
           "smallest_detected", "seed", "source", "exact_loss", "control_factor", "event"]


def one_thread():
    """Numba kernels in one thread: the fits are tiny, thread start-up would dominate."""
    try:
        import numba
        numba.set_num_threads(1)
    except Exception:  # noqa: BLE001 - numba missing or already fixed: nothing to do
        pass


def set_cover_loss(hypotheses: str, T=None):
    """The hook of the Set Cover audits over ``hypotheses`` (grid size ``T``): for learner class
    ``cls``, the exact largest loss of its leak ``m`` on the audit's pairs, over events of
    probability at least ``P_MIN`` (:mod:`analysis.set_cover_exact`)."""
    def hook(cls):
        from ppm.set_cover.learner import SC_ALPHA0, SC_DELTA, SC_EPS, set_cover_hat

        def loss(m, pairs):
            from analysis.set_cover_exact import pair_loss, prediction_law
            est = cls(k=1, epsilon=SC_EPS, delta=SC_DELTA, hypotheses=hypotheses, T=T,
                      alpha0=SC_ALPHA0, epsilon_hat=set_cover_hat(m))
            return max(pair_loss(prediction_law(est, *a), prediction_law(est, *b), P_MIN)
                       for a, b in pairs)
        return loss
    return hook


# the exact-loss hooks by the names the declarations give (``PrivacyAudit.exact``)
EXACT_LOSS = {"set_cover_literals": set_cover_loss("literals"),
              "set_cover_halfplanes": set_cover_loss("halfplanes", T=2)}


def statistical_specs() -> list[dict]:
    """The statistical audits, in the order of their ``index`` (their streams' index): one dict
    each with the learner's name, its leak as ``make``, its pairs, stated epsilon, run counts,
    multipliers, control text and (a loose bound) its ``exact`` loss hook."""
    out = []
    for name, cls, a in declared():
        if a.kind != "statistical":
            continue
        spec = dict(index=a.index, learner=name, paper=a.paper, make=a.leak,
                    epsilon=a.stated_epsilon(), n_select=a.n_select, n_eval=a.n_eval,
                    multipliers=a.multipliers, control=a.control, neighbours=a.neighbours,
                    setting=a.setting, pairs=a.pairs())
        if a.exact:
            spec["exact"] = EXACT_LOSS[a.exact](cls)
        out.append(spec)
    return out


def audit_seeds(seed: int, index: int, n_controls: int) -> list[int]:
    """The seeds of audit ``index``'s real run and of its ``n_controls`` controls: one stream
    each (:func:`analysis.privacy_audit.stream_seed`)."""
    return [stream_seed(seed, index, j) for j in range(n_controls + 1)]


def control_factor(exact: dict, epsilon: float, multipliers) -> float:
    """The multiplier of the control the verdict reads: :data:`CONTROL_FACTOR` unless the
    exact loss of that leak does not exceed the stated ``epsilon`` (a loose bound: no audit
    can catch it at any run count); then the smallest multiplier whose exact loss does
    (``inf`` if none of ``multipliers``)."""
    if not exact or exact.get(CONTROL_FACTOR, math.inf) > epsilon:
        return CONTROL_FACTOR
    return min((m for m in multipliers if exact[m] > epsilon), default=math.inf)


def run_statistical(spec: dict, seed: int, scale: float) -> list[dict]:
    """The audit of ``spec``'s learner and its power curve (one control per multiplier)."""
    one_thread()
    kw = dict(n_select=max(20, int(spec["n_select"] * scale)),
              n_eval=max(40, int(spec["n_eval"] * scale)))
    multipliers = spec["multipliers"]
    seeds = audit_seeds(seed, spec["index"], len(multipliers))
    results = [(1.0, audit(spec["make"](1.0), spec["pairs"], spec["epsilon"], seed=seeds[0],
                           **kw))]
    results += [(m, audit(spec["make"](m), spec["pairs"], spec["epsilon"], seed=s, **kw))
                for m, s in zip(multipliers, seeds[1:])]
    smallest = smallest_detected(results[1:])
    control = spec["control"]
    exact = ({m: spec["exact"](m, spec["pairs"]) for m, _ in results} if "exact" in spec
             else {})
    chosen = control_factor(exact, spec["epsilon"], multipliers)
    return [dict(
        learner=spec["learner"], paper=spec["paper"], kind="statistical", control=m != 1.0,
        factor=m, setting=spec["setting"] + ("; CONTROL: " + control.format(m=m)
                                             if m != 1.0 else ""),
        neighbours=spec["neighbours"], epsilon=r.epsilon, delta=r.delta,
        epsilon_lb=r.epsilon_lb, runs=r.runs, pairs=r.n_pairs, event_size=r.event_size,
        verdict=r.verdict, smallest_detected=smallest, seed=r.seed,
        source="analysis/privacy_audit.py", exact_loss=exact.get(m, math.nan),
        control_factor=chosen, event=r.event, seconds=r.seconds) for m, r in results]


# ---- exact audits and recorded rows ---------------------------------------------------------

def exact_active(name: str, a) -> list[dict]:
    """The private active learner (BNS15 Algorithm 4): the exact audit of claim C15; control:
    the same learner without its pool (no amplification), which must exceed epsilon."""
    from ppm.diagnostics import active_audit

    rows = list(active_audit.audit())
    worst = max(rows, key=lambda r: r["loss"] / r["epsilon"])
    teeth = max(rows, key=lambda r: r["no_pool_loss"] / r["epsilon"])
    pairs = sum(r["neighbour_pairs"] for r in rows)
    common = dict(learner=name, paper=a.paper, kind="exact", neighbours=a.neighbours,
                  delta=a.delta, event_size=math.nan, source=a.source)
    setting = (f"GenericLearner inside, grid of 2 points, every pool and neighbour, epsilon in "
               f"{sorted({r['epsilon'] for r in rows})}")
    ok = all(r["loss"] <= r["epsilon"] + active_audit.TOL for r in rows)
    return [dict(common, control=False, factor=1.0, setting=setting + f"; worst at epsilon "
                 f"{worst['epsilon']:g}", epsilon=worst["epsilon"], epsilon_lb=worst["loss"],
                 runs=pairs, pairs=pairs, verdict=PASSES if ok else FAILS),
            dict(common, control=True, factor=math.nan, setting=setting + "; CONTROL: without "
                 f"the pool (n_pool = n_A), at epsilon {teeth['epsilon']:g}",
                 epsilon=teeth["epsilon"], epsilon_lb=teeth["no_pool_loss"], runs=pairs,
                 pairs=pairs, verdict=PASSES if teeth["no_pool_loss"] <= teeth["epsilon"]
                 + active_audit.TOL else FAILS)]


def recorded(name: str, a) -> list[dict]:
    """The row of an audit that is not rerun here (in the test suite) or does not exist (kind
    ``none``): the declaration's words, no number."""
    return [dict(learner=name, paper=a.paper, kind=a.kind, control=False, factor=1.0,
                 setting=a.setting, neighbours=a.neighbours, epsilon=a.stated_epsilon(),
                 delta=a.delta, epsilon_lb=math.nan, runs=math.nan, pairs=math.nan,
                 event_size=math.nan, verdict=a.verdict, source=a.source)]


RUNNERS = {"active": exact_active}  # exact runners by the declarations' names (the script adds
#                                     the one that reads a claim's committed audit)


def exact_rows(runners: dict) -> list[dict]:
    """The rows of every declaration that is not statistical, in ``index`` order: its runner's
    (``runners``, by the name it declares as ``exact``) or its recorded row."""
    rows = []
    for name, _, a in declared():
        if a.kind == "statistical":
            continue
        rows += runners[a.exact](name, a) if a.exact else recorded(name, a)
    return rows


def audit_table(rows: list[dict]) -> pd.DataFrame:
    """``rows`` as the audit file's table: :data:`COLUMNS` first, counts as nullable integers;
    refused when two audits share a seed."""
    df = pd.DataFrame(rows)
    df = df[COLUMNS + [c for c in df.columns if c not in COLUMNS]]
    seeds = df["seed"].dropna() if "seed" in df else pd.Series(dtype=float)
    if seeds.duplicated().any():
        raise AssertionError("two audits share a seed: every audit needs its own stream")
    for col in ("runs", "pairs", "event_size", "seed"):
        df[col] = df[col].astype("Int64")  # counts (empty where they do not apply)
    return df
