"""C4 at d = 4, blind (claims/c4/blind.py): the predictions scale the measured d = 3, and the
row weighs the measured d = 4 against both (synthetic rows with known k_eff)."""

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from analysis import mechanism_price as mp
from claims.c4 import blind as c4_blind


def _rows(d, k, samples=200, sd=0.1, eps=10.0, seed=0):
    rng = np.random.default_rng(seed + d)
    ks = k * np.exp(sd * rng.standard_normal(samples))
    return pd.DataFrame({"d": d, "sample": np.arange(samples), "epsilon": eps,
                         "excess_mean": ks / math.expm1(eps / 2)})


def test_predictions_scale_k3_by_each_models_growth():
    pred = c4_blind.predict(_rows(3, 9.0, sd=0.0))
    assert pred["anchor"]["k_eff"] == pytest.approx(9.0)
    assert pred["models"]["d^2"]["k_eff"] == pytest.approx(16.0)
    assert pred["models"]["d"]["k_eff"] == pytest.approx(12.0)


@pytest.mark.parametrize("k4, outcome", [(16.0, "holds"), (12.0, "does not hold"),
                                         (20.0, "does not hold")])
def test_the_d4_row_judges_the_measured_k_eff(tmp_path, monkeypatch, k4, outcome):
    pred = c4_blind.predict(_rows(3, 9.0))
    path = tmp_path / "pred.yaml"
    import yaml
    path.write_text(yaml.safe_dump(pred))
    monkeypatch.setattr(c4_blind, "PREDICTIONS", path)
    results = SimpleNamespace(root=tmp_path, n_boot=300)
    (row,) = c4_blind.analyse(results)
    assert row.verdict.startswith("reference") and "wait for the GPU batch" in row.verdict
    (tmp_path / "c4_dimension").mkdir()
    _rows(4, k4, seed=7).to_csv(tmp_path / mp.CSV_GPU, index=False)
    (row,) = c4_blind.analyse(results)
    assert row.verdict.startswith(outcome), row.verdict
    assert row.trials == mp.CSV_GPU.removesuffix(".csv")
