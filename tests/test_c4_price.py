"""C4's counted test (claims/c4_price.py): the growth of the mechanism's exact privacy price in d
read one-sidedly against d and the bound's ln|G|, on synthetic price tables with known growth."""

import numpy as np
import pandas as pd
import pytest

from claims import c4_price
from claims.outcomes import BETWEEN, FAILS, HOLDS
from claims.verdicts import CHECK_FAILED, CHECK_PASSED, combined_verdict


def _table(means, log_g, samples=200, sd=0.3, seed=0, eps=1.0):
    rng = np.random.default_rng(seed)
    rows = []
    for d, (mu, lg) in enumerate(zip(means, log_g), start=1):
        for s, e in enumerate(mu + sd * rng.standard_normal(samples)):
            rows.append({"d": d, "sample": s, "epsilon": eps, "excess_mean": e,
                         "excess_q": 2 * e, "em_bound": 2 * (lg + 2.3) / eps, "log_G": lg,
                         "log_c_min": 0.5 * lg})
    return pd.DataFrame(rows)


def _verdict(means, log_g, **kw):
    fit = c4_price.price_growth(_table(means, log_g, **kw), 1.0, n_boot=400)
    return fit, c4_price.growth_verdict(fit)


def test_a_price_linear_or_slower_in_d_does_not_hold():
    fit, v = _verdict([2.0, 5.0, 6.5], [3.0, 9.0, 17.0])  # increments 3, 1.5: R = 0.5
    assert fit["ratio"] == pytest.approx(0.5, abs=0.05)
    assert v.startswith(FAILS) and "no faster than d" in v


def test_a_price_between_d_and_the_bound_is_its_own_outcome():
    # increments 3, 4.5 (R = 1.5) against ln|G| increments 6, 12 (R = 2)
    fit, v = _verdict([2.0, 5.0, 9.5], [3.0, 9.0, 21.0])
    assert fit["refs"]["ln|G|"] == pytest.approx(2.0)
    assert v.startswith(BETWEEN) and "loose in d here by a factor 1.3" in v
    assert combined_verdict([v, "breakdown (x)"]).startswith(BETWEEN)


def test_a_price_growing_like_ln_g_holds_and_a_noisy_one_is_inconclusive():
    assert _verdict([2.0, 5.0, 11.0], [3.0, 9.0, 21.0])[1].startswith(HOLDS)
    _, v = _verdict([2.0, 5.0, 8.0], [3.0, 9.0, 21.0], samples=20, sd=3.0)
    assert v.startswith("inconclusive")


def test_d4_reads_the_last_increment_over_the_first():
    fit, _ = _verdict([1.0, 3.0, 4.0, 8.0], [3.0, 9.0, 17.0, 26.0], sd=0.0)
    assert fit["dims"] == [1, 2, 3, 4] and fit["ratio"] == pytest.approx(2.0)
    assert fit["refs"]["ln|G|"] == pytest.approx(1.5)
    assert fit["refs"]["ln(|G|/c_min)"] == pytest.approx(1.5)
    # two dimensions carry no growth
    assert np.isnan(c4_price.price_growth(_table([1, 2], [1, 2]), 1.0, 50)["ratio"])


def test_lemma_4_6_bound_row_fails_on_one_pair():
    from analysis.mechanism_price import PriceDesign
    design = PriceDesign(n=192, n_pub=12, samples=2, dims_cpu=(1, 2, 3), dims_gpu=(4,),
                         epsilons=(1.0,), counted_epsilon=1.0, beta=0.1, seed=0, w_pub=0.5,
                         margin=0.1)
    df = _table([2.0, 5.0, 9.5], [3.0, 9.0, 21.0], samples=5)
    assert c4_price.bound_row(df, design).verdict == CHECK_PASSED
    df.loc[3, "excess_q"] = df.loc[3, "em_bound"] + 1
    v = c4_price.bound_row(df, design).verdict
    assert v.startswith(CHECK_FAILED) and "1 of 15 pairs above the bound" in v
    row = c4_price.growth_row(c4_price.price_growth(df, 1.0, 50), design, counted=True)
    assert "waits for the GPU batch" in row.setting


def test_the_counted_interval_covers_on_the_claims_own_design(monkeypatch):
    # the committed per-sample prices as the population: the 95% interval covers the truth in
    # about 95% of simulated data sets of the design's size; at a 50% level it cannot
    from pathlib import Path
    df = pd.read_csv(Path(__file__).resolve().parent.parent / "results" / "c4_dimension"
                     / "privacy_price.csv")
    cov = c4_price.growth_coverage(df, 1.0, datasets=100, n_boot=200)
    assert 0.90 <= cov["coverage"] <= 1.0, cov
    monkeypatch.setattr(c4_price, "LEVEL", 0.5)
    assert c4_price.growth_coverage(df, 1.0, datasets=100, n_boot=200)["coverage"] < 0.8
