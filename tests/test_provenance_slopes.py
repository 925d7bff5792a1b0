"""Provenance of the slope claims C1, C2, C3, C5, C8 and C9 (``VerdictRow.statistic`` and
``trials``), and C5's equivalence rule.

The rule is tested on synthetic intervals (inside, outside and across the margin; the margin in
slope units shrinks as the swept range's ln ratio grows); the provenance on the committed
results: every row names what it computes and the trials it reads, those trials are the
claim's own experiments (or a table that is not a sweep), and rows that read different cells
do not share trials while rows that read the same trials are counted once, jointly.
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from claims import c1_realizable, c3_epsilon, c5_mixture_weight, c8_relaxations, c9_domain
from claims.c2 import agnostic as c2_agnostic
from claims.c2 import two_term as c2_two_term
from claims.rules.accounting import row_kind
from claims.base import parse_trial_set, share_trials
from claims.rules.outcomes import FAILS, HOLDS
from claims.rules.verdicts import counted
from tests import committed_rows

ROOT = Path(__file__).resolve().parents[1]
MODULES = (c1_realizable, c2_agnostic, c3_epsilon, c5_mixture_weight, c8_relaxations,
           c9_domain)
# Sweeps a claim reads that belong to another claim's experiments, taken from the module that
# reads them (C9's d = 2 rows read C12's trials, which C12 counts).
BORROWED = {"C9": {c9_domain.D2_EXPERIMENT}}
M = math.log(c5_mixture_weight.EQUIVALENCE_FACTOR)


# --- C5: the equivalence rule on synthetic intervals -----------------------------------------

def _fit(lo, hi, **more):
    return dict(slope=(lo + hi) / 2, lo=lo, hi=hi, n_points=5, **more)


def _verdict(lo, hi, w_min=0.25, w_max=0.75, **more):
    return c5_mixture_weight.equivalence_verdict(_fit(lo, hi, **more), w_min, w_max)


def test_margin_is_a_factor_1_25_over_the_range():
    assert c5_mixture_weight.EQUIVALENCE_FACTOR == 1.25
    r = c5_mixture_weight.log_ratio(_fit(-0.1, 0.2), 0.05, 0.95)
    assert r["scale"] == pytest.approx(math.log(19))
    assert (r["lo"], r["hi"]) == pytest.approx((-0.1 * math.log(19), 0.2 * math.log(19)))
    with pytest.raises(ValueError):
        c5_mixture_weight.log_ratio(_fit(-0.1, 0.1), 0.5, 0.5)


def test_inside_the_margin_holds():
    v = _verdict(-0.05, 0.05)
    assert v.startswith(HOLDS) and "factor 1.25" in v and "w_pub 0.25..0.75" in v


@pytest.mark.parametrize("lo, hi", [(0.4, 0.6), (-0.6, -0.4)])
def test_entirely_outside_the_margin_does_not_hold(lo, hi):
    assert _verdict(lo, hi).startswith(FAILS)


@pytest.mark.parametrize("lo, hi", [(0.1, 0.3), (-0.3, -0.1), (-0.5, 0.5)])
def test_across_the_margin_is_inconclusive(lo, hi):
    v = _verdict(lo, hi)
    assert v.startswith("inconclusive") and "margin" in v


def test_the_margin_in_slope_units_shrinks_as_the_range_grows():
    # slope interval +-0.15 holds while 0.15 ln(w_max/w_min) <= ln 1.25, i.e. ln ratio <= 1.488
    edge = M / 0.15
    w_min = 0.05
    inside = w_min * math.exp(edge * 0.99)
    outside = w_min * math.exp(edge * 1.01)
    assert _verdict(-0.15, 0.15, w_min, inside).startswith(HOLDS)
    assert _verdict(-0.15, 0.15, w_min, outside).startswith("inconclusive")
    # the same slope interval holds over C5's d = 2 range and not over its d = 1 range
    assert _verdict(-0.1, 0.1, 0.25, 0.75).startswith(HOLDS)
    assert _verdict(-0.1, 0.1, 0.05, 0.95).startswith("inconclusive")
    # a slope of 0.1 is a factor 1.34 over 0.05..0.95: outside the margin there, inside at d = 2
    assert _verdict(0.09, 0.11, 0.05, 0.95).startswith(FAILS)
    assert _verdict(0.09, 0.11, 0.25, 0.75).startswith(HOLDS)


def test_an_interval_that_cannot_be_weighed_is_inconclusive():
    no_interval = dict(slope=0.0, lo=math.nan, hi=math.nan, n_points=5)
    assert c5_mixture_weight.equivalence_verdict(no_interval, 0.25, 0.75).startswith(
        "inconclusive (no bootstrap interval")
    assert _verdict(math.nan, math.nan) == "not measured"  # no estimate
    assert _verdict(-0.05, 0.05, lack_of_fit="cell 2").startswith("inconclusive (lack of fit")
    few = dict(slope=0.0, lo=-0.05, hi=0.05, n_points=2)
    assert c5_mixture_weight.equivalence_verdict(few, 0.25, 0.75).startswith("inconclusive")


def test_a_censored_bound_only_shows_the_side_it_bounds():
    assert _verdict(-0.05, 0.05, direction="lower bound").startswith("inconclusive")
    assert _verdict(0.4, 0.6, direction="lower bound").startswith(FAILS)
    assert _verdict(-0.6, -0.4, direction="lower bound").startswith("inconclusive")
    assert _verdict(-0.6, -0.4, direction="upper bound").startswith(FAILS)
    assert _verdict(0.4, 0.6, direction="bound both ways").startswith("inconclusive")


# --- provenance on the committed results -------------------------------------------------------

@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """``report.analyse`` of each claim on the committed results, once per test session
    (tests/committed_rows.py)."""
    return {m.CLAIM.id: committed_rows.rows(m.CLAIM.id, tmp_path_factory) for m in MODULES}


def _kind(r):
    if r.statistic.startswith("every("):
        return "joint"
    k = row_kind(r.verdict, r.extra)
    return "counted" if k == "statistical" and counted(r.verdict) else k


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.CLAIM.id)
def test_every_row_names_its_statistic_and_its_own_trials(rows, module):
    claim = module.CLAIM
    mine = rows[claim.id]
    assert mine
    allowed = set(claim.experiments) | BORROWED.get(claim.id, set())
    for r in mine:
        assert r.statistic and r.trials, (r.setting, r.statistic, r.trials)
        for exp, where in parse_trial_set(r.trials):
            table = ROOT / "results" / exp
            assert exp in allowed or (table.is_dir() and not (table / "trials.csv").exists()), \
                (claim.id, exp)
            # alphas (and beta) are read off the same trials: never a narrowing key
            assert not {"alpha", "beta"} & set(where), (r.setting, where)
        if set(e for e, _ in parse_trial_set(r.trials)) & BORROWED.get(claim.id, set()):
            assert _kind(r) == "breakdown", r.setting  # the other claim counts those trials


def test_counted_rows_of_a_claim_share_no_trial(rows):
    for claim, mine in rows.items():
        live = [r for r in mine if _kind(r) in ("counted", "joint")]
        for i, a in enumerate(live):
            for b in live[i + 1:]:
                assert not share_trials(a.trials, b.trials), (claim, a.setting, b.setting)


def test_c1_one_row_per_experiment_no_joint(rows):
    mine = rows["C1"]
    assert sorted(r.trials for r in mine) == sorted(c1_realizable.EXPERIMENTS)
    assert {_kind(r) for r in mine} <= {"counted"}


@pytest.mark.parametrize("module", [c3_epsilon, c5_mixture_weight], ids=["C3", "C5"])
def test_the_alphas_of_one_sweep_are_counted_once(rows, module):
    mine = rows[module.CLAIM.id]
    joint = [r for r in mine if _kind(r) == "joint"]
    assert sorted(r.trials for r in joint) == sorted(module.EXPERIMENTS)
    stat = c3_epsilon.FLOOR_STAT if module is c3_epsilon else c5_mixture_weight.STATISTIC
    for exp in module.EXPERIMENTS:
        per_alpha = [r for r in mine if r.statistic == stat and r.trials == exp]
        assert len(per_alpha) >= 2 and {_kind(r) for r in per_alpha} == {"breakdown"}
        others = [r for r in mine if r.statistic == stat and r.trials != exp]
        assert others and not any(share_trials(a.trials, b.trials)
                                  for a in per_alpha for b in others)
    if module is c3_epsilon:  # the plain slopes stay breakdowns of their own
        plain = [r for r in mine if r.statistic == c3_epsilon.PLAIN_STAT]
        assert plain and all(r.verdict.startswith(c3_epsilon.PLAIN_NOTE) for r in plain)


def test_c5_slope_columns_keep_the_slope(rows):
    for r in rows["C5"]:
        if r.statistic == c5_mixture_weight.STATISTIC:
            assert f"{r.slope:.2f}" in r.measured.split("slope of log n_hat vs log w_pub = ")[1]
            assert r.measured.startswith("log change of n_hat over w_pub")


def test_c2_family_cells(rows):
    mine = rows["C2"]
    fam = [r for r in mine if r.extra.startswith("hard family")]
    small = [r for r in fam if r.statistic == c2_agnostic.FAMILY_STAT and r.epsilon == 1.0
             and "pure slope" not in r.extra]
    two = [r for r in fam if r.statistic == c2_two_term.TWO_TERM_STAT]
    eps01 = [r for r in fam if r.epsilon == 0.1]
    assert len(small) == 1 and len(two) == 1 and eps01
    # the small-alpha range and the two-term range share only the alpha = 0.01 population
    shared = {(e, w["alpha_target"]) for e, w in parse_trial_set(small[0].trials)} & \
        {(e, w["alpha_target"]) for e, w in parse_trial_set(two[0].trials)}
    assert shared and {a for _, a in shared} == {"0.01"}
    assert any(_kind(r) == "joint" and share_trials(r.trials, two[0].trials) for r in mine)
    # another epsilon is another set of cells
    assert not any(share_trials(a.trials, b.trials) for a in eps01 for b in small + two)
    for r in fam:
        assert {e for e, _ in parse_trial_set(r.trials)} <= set(c2_agnostic.CLAIM.experiments)
    smooth = [r for r in mine if r.extra.startswith("smooth population")
              and r.statistic == c2_agnostic.SMOOTH_STAT and math.isfinite(r.epsilon)]
    by_eps = {}
    for r in smooth:
        by_eps.setdefault(r.epsilon, []).append(r)
    assert len(by_eps) >= 2
    (ea, ra), (eb, rb) = list(by_eps.items())[:2]
    assert not share_trials(ra[0].trials, rb[0].trials)


def test_c8_rows_read_their_own_relaxation(rows):
    mine = rows["C8"]
    # the counted rows: n_hat's log ratio, one per sample-complexity sweep; the rows at one n
    # (the paired error difference) are references
    by_stat = {}
    for r in mine:
        by_stat.setdefault(r.statistic, []).append(r)
    n_rows = by_stat.get(c8_relaxations.N_STATISTIC, [])
    ref_rows = by_stat.get(c8_relaxations.STATISTIC, [])
    assert [r.trials for r in n_rows] == [exp for exp, *_ in c8_relaxations.N_RELAXATIONS]
    assert [parse_trial_set(r.trials)[0][0] for r in ref_rows] == \
        [exp for exp, *_ in c8_relaxations.RELAXATIONS]
    assert all(_kind(r) == "reference" for r in ref_rows)
    assert not any(share_trials(a.trials, b.trials)
                   for i, a in enumerate(mine) for b in mine[i + 1:])


def test_c9_contrasts_are_counted_jointly_and_the_flat_rows_are_breakdowns(rows):
    mine = rows["C9"]
    d1 = [r for r in mine if r.d == 1 and _kind(r) != "joint"]
    assert {r.trials for r in d1} == {c9_domain.CLAIM.experiments[0]}
    flat = [r for r in d1 if r.statistic == c9_domain.FLAT_STAT]
    contrast = [r for r in d1 if r.statistic == c9_domain.CONTRAST_STAT]
    assert flat and all(_kind(r) == "breakdown" for r in flat)
    assert len(contrast) >= 2 and all(_kind(r) == "breakdown" for r in contrast)
    joint = [r for r in mine if _kind(r) == "joint"]
    assert len(joint) == 1 and joint[0].trials == c9_domain.EXPERIMENT
    d2 = [r for r in mine if r.d == 2]
    assert d2 and {r.trials for r in d2} == {c9_domain.D2_EXPERIMENT}
