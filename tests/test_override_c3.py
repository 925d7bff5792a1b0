"""An override that fixes the axis a claim compares gives a readable verdict, not an internal
error (``ARGS="learner.epsilon=0.5"`` leaves C3 one epsilon)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from claims import c3_epsilon
from claims.base import ResultStore
from claims.reporting.report import write_claims

ROOT = Path(__file__).resolve().parents[1]


def _one_epsilon_root(tmp_path, epsilon):
    """The committed C3 tables cut to one epsilon (and ERM), as an override run leaves them."""
    for exp in c3_epsilon.EXPERIMENTS:
        src = ROOT / "results" / exp
        trials = pd.read_csv(src / "trials.csv")
        eps = trials["learner.epsilon"]
        trials = trials[eps.isna() | (eps == epsilon)]
        nhat = pd.read_csv(src / "n_hat.csv")
        nhat = nhat[(nhat["learner"] != "ppm") | (nhat["learner.epsilon"] == epsilon)]
        # one epsilon: no parameter of the learner varies, so n_hat.csv has no setting column
        # and its label is "-" (as the aggregation of an override run writes it)
        nhat = nhat.drop(columns="learner.epsilon")
        nhat.loc[nhat["learner"] == "ppm", "params"] = "-"
        (tmp_path / exp).mkdir()
        trials.to_csv(tmp_path / exp / "trials.csv", index=False)
        nhat.to_csv(tmp_path / exp / "n_hat.csv", index=False)
    return tmp_path


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_one_epsilon_is_a_readable_verdict(tmp_path, epsilon):
    root = _one_epsilon_root(tmp_path, epsilon)
    store = ResultStore(root, n_boot=20)
    done, failed = write_claims([c3_epsilon.CLAIM], store)
    assert not failed, failed
    rows = done["C3"]
    # the alphas of one sweep read the same trials: one joint row per sweep stands for them
    # (claims.rules.accounting.one_per_trial_set), each alpha's row a breakdown of it
    joint = [r for r in rows if r.statistic.startswith("every(")]
    single = [r for r in rows if r not in joint]
    assert single and all(f"inconclusive (this results root holds epsilon {epsilon:g} only"
                          in r.verdict for r in single)
    assert sorted(r.trials for r in joint) == sorted(c3_epsilon.EXPERIMENTS)
    assert all(r.verdict.startswith("inconclusive") for r in joint)
    assert all("n_hat(eps=" in r.measured for r in rows)
    assert all(r.epsilon == epsilon for r in rows)  # the setting, from the trials it judged
    assert (root / "c3_epsilon" / "summary.md").exists()


def test_two_low_epsilons_measure_the_low_slope_only(tmp_path):
    # epsilons 0.5 and 1 (none above 1 but 1 itself): the eps <= 1 slope is measured and the
    # eps >= 1 slope is said to be not measured, instead of an empty-selection error
    root = tmp_path
    for exp in c3_epsilon.EXPERIMENTS:
        src = ROOT / "results" / exp
        trials = pd.read_csv(src / "trials.csv")
        eps = trials["learner.epsilon"]
        trials = trials[eps.isna() | eps.isin([0.5, 1.0])]
        nhat = pd.read_csv(src / "n_hat.csv")
        nhat = nhat[(nhat["learner"] != "ppm") | nhat["learner.epsilon"].isin([0.5, 1.0])]
        (root / exp).mkdir()
        trials.to_csv(root / exp / "trials.csv", index=False)
        nhat.to_csv(root / exp / "n_hat.csv", index=False)
    rows = c3_epsilon.analyse(ResultStore(root, n_boot=20))
    plain = [r for r in rows if r.verdict.startswith(c3_epsilon.PLAIN_NOTE)]
    floor = [r for r in rows if r not in plain]
    assert plain and len(plain) == len(floor)
    assert all("slope for eps>=1 not measured" in r.measured for r in plain)
    assert all("slope vs epsilon (eps<=1) = " in r.measured for r in plain)
    # the floor is epsilon 1 itself: one epsilon below it, no floor-subtracted slope
    assert all(r.measured.startswith("floor-subtracted slope not measured") for r in floor)
    assert all(r.verdict.startswith("inconclusive (no floor-subtracted slope") for r in floor)
