"""The privacy budget accountant (ppm.budget) and the one-line message for an unrouted mask."""

from __future__ import annotations

import math

import pytest
from sklearn.model_selection import KFold, cross_val_score

from ppm import PPMHalfspaceLearner
from ppm.baselines.fully_private import GridExponentialMechanism
from ppm.budget import (BudgetAccountant, BudgetExceededError, accounted_fit,
                        active_accountant)
from ppm.populations import GaussianClusters
from ppm.registry import registered
from ppm.semi_supervised.big_grid import BigGridThresholds
from ppm.semi_supervised.label_boost import (LabelBoostLearner, boost_schedule,
                                             unlabelled_needed)
from ppm.semi_supervised.threshold_em import GapThresholdMechanism
from ppm.validation import PublicNotRoutedWarning


def _sample(n=60, seed=0):
    return GaussianClusters(d=1, w_pub=0.5, margin=0.2).sample(n, random_state=seed)


def test_cross_validation_spends_one_epsilon_per_fold():
    X, y, public = _sample()
    with BudgetAccountant() as acc:
        cross_val_score(PPMHalfspaceLearner(epsilon=0.7, random_state=0), X, y,
                        cv=KFold(4, shuffle=True, random_state=0), params={"public": public})
    assert acc.history == [("PPMHalfspaceLearner", 0.7)] * 4
    assert math.isclose(acc.spent, 2.8)
    assert active_accountant() is None  # gone with the with-block


def test_a_fit_past_the_budget_is_refused_before_any_work(monkeypatch):
    X, y, public = _sample()
    calls = []
    orig = PPMHalfspaceLearner._mechanism_scorer
    monkeypatch.setattr(PPMHalfspaceLearner, "_mechanism_scorer",
                        lambda self, *a: calls.append(1) or orig(self, *a))
    with BudgetAccountant(epsilon=1.5) as acc:
        PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public=public)
        with pytest.raises(BudgetExceededError, match=r"total to 2, past .* budget 1.5"):
            PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public=public)
    assert len(calls) == 1 and acc.spent == 1.0  # the refused fit never started


def test_a_learner_fitted_inside_another_is_counted_once(monkeypatch):
    # LabelBoost runs its base learner (itself private, with its own epsilon) inside its fit:
    # the wrapper's stated epsilon covers the whole, so one entry.
    pop = BigGridThresholds(b=512, support=5)
    X, y, _ = pop.sample(4200, random_state=0)
    rounds, _ = boost_schedule(4200, 6000, 0.5, 0.5)
    U, _, _ = pop.sample(unlabelled_needed(rounds, 4200), random_state=1)
    inner = []
    unwrapped = GapThresholdMechanism.fit.__wrapped__
    monkeypatch.setattr(GapThresholdMechanism, "fit", accounted_fit(
        lambda self, *a, **k: inner.append(1) or unwrapped(self, *a, **k)))
    with BudgetAccountant() as acc:
        LabelBoostLearner(random_state=1, b=512, alpha0=0.5, beta0=0.5,
                          base_n=6000).fit(X, y, X_unlabelled=U)
    assert inner, "the base learner ran inside the wrapper"
    assert [name for name, _ in acc.history] == ["LabelBoostLearner"]
    with BudgetAccountant() as alone:  # fitted on its own, the base learner is charged
        GapThresholdMechanism(epsilon=0.5, b=512, random_state=0).fit(X, y)
    assert alone.history == [("GapThresholdMechanism", 0.5)]


def test_without_an_accountant_nothing_is_recorded_and_results_are_unchanged():
    X, y, public = _sample()
    a = PPMHalfspaceLearner(epsilon=1.0, random_state=5).fit(X, y, public=public)
    with BudgetAccountant() as acc:
        b = PPMHalfspaceLearner(epsilon=1.0, random_state=5).fit(X, y, public=public)
    assert a.hypothesis_ == b.hypothesis_ and acc.spent == 1.0


def test_every_registered_private_learner_reports_its_fits():
    private = [c.cls for c in registered() if "epsilon" in getattr(c.cls, "_parameter_constraints", {})]
    assert GridExponentialMechanism in private and len(private) >= 8
    for cls in private:
        assert getattr(cls.fit, "__ppm_accounted__", False), cls.__name__


@pytest.mark.parametrize("bad", [0, -1.0, float("nan"), True, "1"])
def test_a_bad_budget_is_refused_in_one_line(bad):
    with pytest.raises(ValueError, match="epsilon must be a positive number"):
        BudgetAccountant(epsilon=bad)


def test_an_unrouted_public_mask_is_named_above_scikit_learns_report():
    X, y, _ = _sample()
    with pytest.warns(PublicNotRoutedWarning, match=r"params=\{'public': mask\}"):
        with pytest.raises(ValueError, match="fits failed"):
            cross_val_score(PPMHalfspaceLearner(epsilon=1.0), X, y, cv=3)
