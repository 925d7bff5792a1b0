"""A setting keeps its name and type from ``trials.csv`` through ``n_hat.csv`` to a verdict row
(``analysis.aggregate``: typed setting columns beside the ``params`` label;
``claims.base.row_settings``: a verdict row's d, epsilon, w_pub read from the rows it judges)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.aggregate import PARAMS, curve_config, n_hat_table, setting_columns, unique_trials
from claims import c14_label_boost as c14
from claims.base import ResultStore, row_settings
from experiments.columns import D, EPSILON, GAP_THRESHOLD, baseline_column

ROOT = Path(__file__).resolve().parents[1]
BASE_EPS = baseline_column(GAP_THRESHOLD, EPSILON)


def _tiny_trials(epsilons=(0.5, 2.0)) -> pd.DataFrame:
    """Two epsilons of a main learner and one ERM-like baseline, errors falling with n."""
    rows = []
    for eps in epsilons:
        for n in (10, 20, 40, 80):
            for trial in range(6):
                err = 0.4 * 10 / n / eps
                rows.append({"trial": trial, "learner": "ppm", "n": n, "error": err,
                             "excess_error": err, "seed": 1, D: 1, EPSILON: eps,
                             "cell_key": f"c{eps}-{n}"})
                rows.append({"trial": trial, "learner": "erm", "n": n, "error": 1 / n,
                             "excess_error": 1 / n, "seed": 1, D: 1, EPSILON: np.nan,
                             "cell_key": f"c{eps}-{n}"})
    return pd.DataFrame(rows)


def test_n_hat_carries_the_setting_as_a_typed_column(tmp_path):
    trials = _tiny_trials()
    assert setting_columns(trials) == [EPSILON]
    nh = n_hat_table(trials, [0.05, 0.1], 0.1, 0.95)
    nh.to_csv(tmp_path / "n_hat.csv", index=False)
    back = pd.read_csv(tmp_path / "n_hat.csv")
    assert EPSILON in back.columns and PARAMS in back.columns
    assert back[EPSILON].dtype == np.float64
    ppm = back[back.learner == "ppm"]
    assert sorted(ppm[EPSILON].unique()) == [0.5, 2.0]
    assert back.loc[back.learner == "erm", EPSILON].isna().all()  # not ERM's setting
    # the constant settings come back from the trials, the typed ones stay as written
    joined = curve_config(back, unique_trials(trials))
    assert (joined[D] == 1).all()
    assert joined[EPSILON].equals(back[EPSILON])
    assert row_settings(joined[joined.learner == "ppm"])["epsilon"] != row_settings(
        joined[joined.learner == "ppm"])["epsilon"]  # two epsilons: NaN, not one of them
    assert row_settings(joined[(joined.learner == "ppm") & (joined[EPSILON] == 0.5)]) == {
        "d": 1, "epsilon": 0.5, "w_pub": pytest.approx(np.nan, nan_ok=True)}


def test_committed_n_hat_has_the_typed_epsilon_of_its_trials():
    nh = pd.read_csv(ROOT / "results" / "c3_epsilon_d1" / "n_hat.csv")
    trials = pd.read_csv(ROOT / "results" / "c3_epsilon_d1" / "trials.csv", low_memory=False)
    assert nh[EPSILON].dtype == np.float64
    assert set(nh[EPSILON].dropna()) == set(trials.loc[trials.learner == "ppm", EPSILON])


def _c14_root(tmp_path, epsilon: float) -> Path:
    """The committed C14 tables with every learner's epsilon set to ``epsilon`` (as a run with
    ``ARGS="learner.epsilon=..."`` writes them; the errors are kept: only the label is read)."""
    for exp in c14.EXPERIMENTS:
        src = ROOT / "results" / exp
        trials = pd.read_csv(src / "trials.csv", low_memory=False, dtype={"cell_key": str})
        for col in (EPSILON, BASE_EPS):
            if col in trials:
                trials[col] = trials[col].where(trials[col].isna(), epsilon)
        nhat = pd.read_csv(src / "n_hat.csv")
        (tmp_path / exp).mkdir()
        trials.to_csv(tmp_path / exp / "trials.csv", index=False)
        nhat.to_csv(tmp_path / exp / "n_hat.csv", index=False)
    return tmp_path


def test_c14_verdict_rows_report_the_epsilon_of_their_trials(tmp_path):
    rows = c14.analyse(ResultStore(_c14_root(tmp_path, 0.5), n_boot=10))
    extras = {r.extra for r in rows}
    assert {"wrapper", "base learner alone", "wrapper noisy", "wrapper fixed n",
            "base learner fixed n"} <= extras
    for r in rows:
        assert r.epsilon == 0.5, (r.extra, r.epsilon)
        assert "epsilon=0.5" in r.setting and "epsilon=1" not in r.setting, r.setting
        assert r.d == 1
