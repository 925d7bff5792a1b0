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
    assert row.verdict.startswith(f"{c4_blind.BREAKDOWN}: {outcome}"), row.verdict
    assert "as an exponent of d" not in row.measured  # no d = 3 table in this root
    _rows(3, 9.0).to_csv(tmp_path / mp.CSV, index=False)
    (row,) = c4_blind.analyse(results)
    assert row.verdict.startswith(f"{c4_blind.BREAKDOWN}: {outcome}"), row.verdict
    # the d = 4 rows measured and the d = 3 rows the prediction read
    assert row.trials == ";".join(sorted(t.removesuffix(".csv") for t in (mp.CSV, mp.CSV_GPU)))
    assert "as an exponent of d" in row.measured


def test_the_exponents_read_k_eff_growth_in_d():
    cpu = pd.concat([_rows(d, d ** 2, sd=0.05) for d in (1, 2, 3)])
    local, lo, hi, fit = c4_blind.exponents(cpu, _rows(4, 16.0, sd=0.05))
    assert lo < local < hi and lo < 2.0 < hi and hi - lo < 0.2
    assert fit == pytest.approx(2.0, abs=0.02)
    local, lo, hi, fit = c4_blind.exponents(cpu, _rows(4, 9.0 * (4 / 3) ** 3, sd=0.05))
    assert local == pytest.approx(3.0, abs=0.02) and lo > 2.0
    assert 2.0 < fit < 3.0
    text = c4_blind._reading(21.3, 21.0, 21.6, c4_blind.predict(_rows(3, 9.0)),
                             (local, lo, hi, fit))
    assert text.startswith("it lies above d^2's interval") and "above d^2's 2" in text
