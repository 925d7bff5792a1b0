"""The statistical privacy audit (analysis.privacy_audit) can fail: it catches a mis-scaled
Laplace mechanism and a mis-scaled exponential mechanism, passes the correct ones, and does the
same on a real learner with its positive control. Also the claim rows of claims.privacy_audits."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest

from analysis import privacy_audit as pa

LAPLACE_PAIRS = [(np.array([1, 1, 0]), np.array([1, 1, 1]))]
EM_PAIRS = [(np.array([0, 1]), np.array([1, 1]))]
RUNS = dict(n_select=600, n_eval=1500)


def test_clopper_pearson_bounds():
    assert pa.cp_lower(0, 10, 0.025) == 0.0 and pa.cp_upper(10, 10, 0.025) == 1.0
    lo, hi = pa.cp_lower(50, 100, 0.025), pa.cp_upper(50, 100, 0.025)
    assert lo < 0.5 < hi and hi - lo == pytest.approx(0.2, abs=0.02)
    # the textbook exact interval for 3 of 20 at 95%: [0.032, 0.379]
    assert pa.cp_lower(3, 20, 0.025) == pytest.approx(0.0321, abs=1e-3)
    assert pa.cp_upper(3, 20, 0.025) == pytest.approx(0.3789, abs=1e-3)


def test_loss_bound_is_below_the_plug_in_ratio_and_subtracts_delta():
    lb = pa.loss_lower_bound(600, 1000, 200, 1000)
    assert 0 < lb < math.log(3)
    assert pa.loss_lower_bound(600, 1000, 200, 1000, delta=0.1) < lb
    assert pa.loss_lower_bound(5, 1000, 5, 1000, delta=0.1) == 0.0


def test_event_selection_picks_the_high_ratio_outcomes():
    first = Counter({b"a": 500, b"b": 300, b"c": 200})
    second = Counter({b"a": 50, b"b": 300, b"c": 650})
    event, lb = pa.select_event(first, second, 1000)
    assert event == frozenset({b"a"}) and lb > 1.5


@pytest.mark.parametrize("factory, pairs", [(pa.laplace_count, LAPLACE_PAIRS),
                                            (pa.exponential_choice, EM_PAIRS)])
def test_correct_mechanism_passes_and_mis_scaled_one_is_caught(factory, pairs):
    real, control = pa.audit_with_control(lambda f: factory(f, 1.0), pairs, 1.0, factor=3.0,
                                          seed=7, **RUNS)
    assert real.verdict == pa.PASSES and 0.2 < real.epsilon_lb <= 1.0
    assert control.verdict == pa.FAILS and control.epsilon_lb > 1.0
    assert control.runs == 2 * RUNS["n_select"] * len(pairs) + 2 * RUNS["n_eval"]


def test_an_exponential_mechanism_without_the_half_is_caught():
    """The classic bug: exp(epsilon q) instead of exp(epsilon q / 2). On ``[0, 0]`` against
    ``[0, 1]`` (scores (2, 0) and (1, 1)) item 1 has probability 1/(e^2 + 1) against 1/2: a loss
    of 1.43 > epsilon = 1 (the correct mechanism: 0.62)."""
    pairs = [(np.array([0, 0]), np.array([0, 1]))]
    bug = pa.audit(pa.exponential_choice(2.0, 1.0, 2), pairs, 1.0, seed=3, n_select=1000,
                   n_eval=4000)
    assert bug.verdict == pa.FAILS and bug.epsilon_lb < 1.43
    right = pa.audit(pa.exponential_choice(1.0, 1.0, 2), pairs, 1.0, seed=3, n_select=1000,
                     n_eval=4000)
    assert right.verdict == pa.PASSES and right.epsilon_lb < 0.62


def test_audits_are_reproducible():
    a = pa.audit(pa.laplace_count(), LAPLACE_PAIRS, 1.0, seed=11, n_select=200, n_eval=300)
    b = pa.audit(pa.laplace_count(), LAPLACE_PAIRS, 1.0, seed=11, n_select=200, n_eval=300)
    assert a.epsilon_lb == b.epsilon_lb and a.k_first == b.k_first


def test_a_real_learner_passes_and_its_control_is_caught():
    """GridExponentialMechanism through its own fit/predict, and the same learner with its
    noise 3x too small audited against the stated epsilon."""
    from scripts.privacy_audits import statistical_specs
    spec = next(s for s in statistical_specs() if s["learner"] == "GridExponentialMechanism")
    real, control = pa.audit_with_control(spec["make"], spec["pairs"], spec["epsilon"],
                                          factor=3.0, seed=5, n_select=400, n_eval=1200)
    assert real.verdict == pa.PASSES
    assert control.verdict == pa.FAILS


def _row(learner, kind, control, eps, lb, verdict):
    return dict(learner=learner, paper="p", kind=kind, control=control, setting="s",
                neighbours="n", epsilon=eps, delta=0.0, epsilon_lb=lb, runs=10, pairs=1,
                event_size=1, verdict=verdict, source="src")


def _learner(row) -> str:
    """The learner a claim row names ("privacy audit of NAME (kind...)"; names may hold " (")."""
    head = row.setting.removeprefix("privacy audit of ")
    kinds = (" (exact", " (statistical", " (none")
    return head[:min(head.find(k) for k in kinds if k in head)]


def test_claim_rows_check_both_the_audit_and_its_control(tmp_path):
    from claims import privacy_audits as cpa
    from claims.accounting import PRIVACY_AUDIT, failed, row_kind
    from claims.base import ResultStore
    rows = [_row("A", "statistical", False, 1.0, 0.4, "passes"),
            _row("A", "statistical", True, 1.0, 1.6, "fails"),
            _row("B", "statistical", False, 1.0, 0.3, "passes"),
            _row("B", "statistical", True, 1.0, 0.5, "passes"),  # control not caught
            _row("C", "statistical", False, 1.0, 1.3, "fails"),  # a violation
            _row("E", "none", False, 1.0, math.nan, "not audited")]
    (tmp_path / "privacy_audits").mkdir()
    pd.DataFrame(rows).to_csv(tmp_path / cpa.AUDIT, index=False)
    out = {_learner(r): r for r in cpa.analyse(ResultStore(tmp_path),
                                               learners=("A", "B", "C", "D", "E"))}
    assert out["A"].verdict == "statistical audit: passes (10 runs)"
    assert failed(out["B"].verdict) and "no power" in out["B"].verdict
    assert failed(out["C"].verdict) and "violated" in out["C"].verdict
    assert failed(out["D"].verdict) and "none" in out["D"].measured
    assert out["E"].verdict.startswith(cpa.NOT_AUDITED) and not failed(out["E"].verdict)
    for r in out.values():
        assert r.extra == PRIVACY_AUDIT and row_kind(r.verdict, r.extra) == "audit"


def test_every_private_estimator_has_a_row():
    """Every estimator of ppm with an ``epsilon`` parameter is one of the claim's learners."""
    import inspect

    from sklearn.base import BaseEstimator

    import ppm.baselines
    import ppm.core.learner
    import ppm.semi_supervised
    import ppm.set_cover
    from claims.privacy_audits import LEARNERS
    found = set()
    for module in (ppm.baselines, ppm.core.learner, ppm.semi_supervised, ppm.set_cover):
        for name, obj in vars(module).items():
            if (inspect.isclass(obj) and issubclass(obj, BaseEstimator)
                    and "epsilon" in inspect.signature(obj.__init__).parameters):
                found.add(name)
    assert {"PPMHalfspaceLearner", "SetCoverLearner", "LabelBoostLearner"} <= found
    covered = {name.split(" ")[0] for name in LEARNERS}
    assert found <= covered, sorted(found - covered)


def test_the_committed_audit_passes_with_every_control_caught():
    from pathlib import Path

    from claims import privacy_audits as cpa
    from claims.base import ResultStore
    root = Path(__file__).resolve().parents[1] / "results"
    if not (root / cpa.AUDIT).exists():
        pytest.skip("no committed privacy audit (python -m scripts.privacy_audits)")
    rows = cpa.analyse(ResultStore(root))
    assert [_learner(r) for r in rows] == list(cpa.LEARNERS)
    for r in rows:
        if r.verdict.startswith(("statistical audit", "exact audit: p", "exact audit: F")):
            assert ": passes (" in r.verdict and "caught" in r.measured, r.measured
