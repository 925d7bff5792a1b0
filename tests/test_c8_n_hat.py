"""C8 read as sample complexity: the counted rows' statistic (ln n_hat(largest level) /
n_hat(level 0)), its rule (an upper reading with the margin ln 1.5), their provenance, and bad
input.

The rule is exercised on synthetic trials whose true success curves are known (so the true
ratio of n_hat is known without the code under test), and on synthetic intervals; the
provenance on the committed results (skipped where they are absent).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from claims import c8_relaxations as c8
from claims.rules.accounting import row_kind
from claims.base import ResultStore, parse_trial_set, share_trials
from claims.rules.outcomes import FAILS, HOLDS, NOT_MEASURED
from claims.rules.verdicts import counted
from experiments.columns import ETA, PUBLIC_POS_RATE

ROOT = Path(__file__).resolve().parents[1]
M = math.log(c8.FACTOR)
GRID = np.round(2.0 ** np.arange(5.0, 9.01, 0.25)).astype(int)  # 32 .. 512
ALPHA, BETA, SLOPE = 0.1, 0.1, 3.0  # success probability Phi(SLOPE * ln(n / n_star))


def true_n_hat(n_star: float) -> float:
    """The n where the success probability reaches 1 - beta, from the generator alone."""
    return n_star * math.exp(norm.ppf(1 - BETA) / SLOPE)


def _trials(n_stars: dict, x_col=ETA, trials=200, seed=0) -> pd.DataFrame:
    """PPM trials at each level with success probability Phi(SLOPE ln(n / n_star[level]))."""
    rng = np.random.default_rng(seed)
    rows = []
    for level, n_star in n_stars.items():
        for n in GRID:
            ok = rng.random(trials) < norm.cdf(SLOPE * math.log(n / n_star))
            err = np.where(ok, ALPHA / 2, 2 * ALPHA)
            rows += [dict(learner="ppm", n=int(n), trial=t, error=e, excess_error=e,
                          **{x_col: float(level)}) for t, e in enumerate(err)]
    return pd.DataFrame(rows)


def _fit(lo, hi, est=None, **more):
    return dict(slope=(lo + hi) / 2 if est is None else est, lo=lo, hi=hi, **more)


# --- the statistic on synthetic trials with a known truth ------------------------------------

@pytest.mark.parametrize("factor", [1.0, 1.25, 0.8])
def test_the_log_ratio_recovers_the_true_ratio(factor):
    n0 = 70.0
    fit = c8.ratio_fit(_trials({0.0: n0, 0.2: n0 * factor ** 0.5, 0.4: n0 * factor}), ETA,
                       ALPHA, BETA, n_boot=200)
    truth = math.log(true_n_hat(n0 * factor) / true_n_hat(n0))
    assert fit["lo"] <= truth <= fit["hi"]
    assert fit["slope"] == pytest.approx(truth, abs=0.15)
    assert list(fit["levels"]) == [0.0, 0.2, 0.4]
    assert fit["n_hat"][0] == pytest.approx(true_n_hat(n0), rel=0.15)


def test_the_line_reading_uses_every_level():
    # n_hat triples at the middle level only: the end ratio stays 0, the least-squares line
    # through (0, a), (0.1, a + L), (0.4, a) has slope -L / 1.3, i.e. -L * 0.4 / 1.3 over
    # the range 0.4
    t = _trials({0.0: 70.0, 0.1: 210.0, 0.4: 70.0})
    end = c8.ratio_fit(t, ETA, ALPHA, BETA, n_boot=0)
    line = c8.ratio_fit(t, ETA, ALPHA, BETA, n_boot=0, line=True)
    assert end["slope"] == pytest.approx(0.0, abs=0.12)
    assert line["slope"] == pytest.approx(-math.log(3) * 0.4 / 1.3, abs=0.12)


@pytest.mark.parametrize("factor, word", [(1.0, HOLDS), (0.7, HOLDS), (4.0, FAILS)])
def test_the_rule_on_synthetic_trials(factor, word):
    fit = c8.ratio_fit(_trials({0.0: 60.0, 0.4: 60.0 * factor}), ETA, ALPHA, BETA, n_boot=200)
    assert c8.growth_verdict(fit, "eta = 0.4").startswith(word)


# --- the rule on synthetic intervals ---------------------------------------------------------

def test_upper_end_within_the_margin_holds():
    v = c8.growth_verdict(_fit(-0.3, 0.1), "eta = 0.4")
    assert v.startswith(HOLDS) and "factor 1.5" in v and "eta = 0.4" in v
    assert "drops" not in v and "near miss" not in v


def test_a_drop_is_within_the_prediction_and_named():
    v = c8.growth_verdict(_fit(-0.5, -0.1), "eta = 0.4")
    assert v.startswith(HOLDS) and "n_hat drops" in v


def test_lower_end_above_the_margin_does_not_hold():
    assert c8.growth_verdict(_fit(M + 0.01, M + 0.5), "rho = 0.5").startswith(FAILS)


def test_straddling_the_margin_is_inconclusive():
    v = c8.growth_verdict(_fit(M - 0.2, M + 0.2), "eta = 0.4")
    assert v.startswith("inconclusive") and "crosses ln 1.5" in v


def test_a_near_miss_is_named():
    v = c8.growth_verdict(_fit(M - 0.4, M - 0.001), "eta = 0.4")
    assert v.startswith(HOLDS) and "near miss" in v


@pytest.mark.parametrize("direction, lo, hi, word", [
    ("lower bound", -0.2, 0.1, "inconclusive"),  # truth may be higher: cannot show "holds"
    ("upper bound", -0.2, 0.1, HOLDS),
    ("lower bound", M + 0.1, M + 0.3, FAILS),
    ("upper bound", M + 0.1, M + 0.3, "inconclusive"),
])
def test_censored_cells_make_a_bound_that_shows_one_side(direction, lo, hi, word):
    assert c8.growth_verdict(_fit(lo, hi, direction=direction), "x").startswith(word)


def test_what_cannot_be_weighed():
    assert c8.growth_verdict(_fit(math.nan, math.nan, est=math.nan), "x") == NOT_MEASURED
    assert c8.growth_verdict(_fit(math.nan, math.nan, est=0.0), "x").startswith("inconclusive")
    assert c8.growth_verdict(_fit(-0.1, 0.1, lack_of_fit="deviance"), "x").startswith(
        "inconclusive (lack of fit")


def test_the_alternative_is_label_noise_on_the_privacy_proxy():
    assert c8.noise_alternative(ETA, 0.4, 0.5) == pytest.approx(math.log(25))
    assert c8.noise_alternative(PUBLIC_POS_RATE, 0.5, 0.5) == pytest.approx(math.log(4))
    assert c8.noise_alternative(ETA, 0.0, 0.5) == 0.0
    assert c8.noise_alternative(PUBLIC_POS_RATE, 1.0, 1.0) == math.inf
    # the margin lies far below both alternatives at the levels the claim covers
    assert M < c8.noise_alternative(PUBLIC_POS_RATE, 0.5, 0.5) / 3


# --- bad input -------------------------------------------------------------------------------

def test_bad_input_is_refused_before_any_work():
    t = _trials({0.0: 70.0}, trials=5)
    with pytest.raises(ValueError, match="two levels"):
        c8.ratio_fit(t, ETA, ALPHA, BETA, n_boot=0)
    with pytest.raises(ValueError, match="no column"):
        c8.ratio_fit(t, PUBLIC_POS_RATE, ALPHA, BETA, n_boot=0)
    with pytest.raises(ValueError, match="alpha"):
        c8.ratio_fit(_trials({0.0: 70.0, 0.4: 70.0}, trials=5), ETA, 1.5, BETA, n_boot=0)
    with pytest.raises(ValueError, match="factor"):
        c8.growth_verdict(_fit(-0.1, 0.1), "x", factor=1.0)
    with pytest.raises(ValueError, match="level"):
        c8.noise_alternative(ETA, -0.1, 0.5)


# --- provenance on the committed results -----------------------------------------------------

@pytest.fixture(scope="module")
def committed():
    store = ResultStore(ROOT / "results", n_boot=20)
    if not all(store.load(e) is not None for e, *_ in c8.N_RELAXATIONS):
        pytest.skip("no committed c8_*_n results")
    return c8.analyse(store)


def test_the_counted_rows_read_their_own_sweep(committed):
    n_rows = [r for r in committed if r.statistic == c8.N_STATISTIC]
    assert [r.trials for r in n_rows] == [e for e, *_ in c8.N_RELAXATIONS]
    assert all(row_kind(r.verdict, r.extra) == "statistical" for r in n_rows)
    # the statistic's interval is in the slope columns, the margin in the theory text
    assert all(r.slope_lo <= r.slope <= r.slope_hi for r in n_rows)
    assert all(f"{M:.3f}" in r.theory for r in n_rows)


def test_the_rows_at_one_n_are_references_on_other_trials(committed):
    refs = [r for r in committed if r.statistic == c8.STATISTIC]
    assert refs and all(row_kind(r.verdict) == "reference" and not counted(r.verdict)
                        for r in refs)
    assert {parse_trial_set(r.trials)[0][0] for r in refs} == {e for e, *_ in c8.RELAXATIONS}
    assert not any(share_trials(a.trials, b.trials)
                   for i, a in enumerate(committed) for b in committed[i + 1:])


def test_each_sweep_has_its_own_seed():
    import yaml
    seeds = {}
    for name in [e for e, *_ in c8.N_RELAXATIONS]:
        cfg = yaml.safe_load((ROOT / "configs" / "experiment" / f"{name}.yaml").read_text())
        seeds[name] = cfg.get("seed")
        assert cfg["analysis"]["alphas"] == [0.1]
    root = yaml.safe_load((ROOT / "configs" / "config.yaml").read_text())["seed"]
    assert len(set(seeds.values()) | {root}) == len(seeds) + 1
    assert set(c8.CLAIM.committed) == set(c8.CLAIM.experiments)
