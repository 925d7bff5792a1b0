"""A privacy budget for repeated fits on the same private data (basic sequential composition).

Every private learner in ``ppm`` is epsilon-DP *for one fit* (for the private rows of the
sample it is given). Cross-validation, a grid search or simply fitting twice runs it several
times on overlapping private rows, and by basic sequential composition (Dwork and Roth 2014,
Theorem 3.16) ``k`` epsilon-DP fits of the same rows are ``k * epsilon``-DP together, not
epsilon. :class:`BudgetAccountant` keeps that sum, in the manner of diffprivlib's
``BudgetAccountant`` (pure DP only: every ``ppm`` learner has ``delta = 0``)::

    with BudgetAccountant(epsilon=5.0) as acc:
        cross_val_score(PPMHalfspaceLearner(epsilon=1.0), X, y, cv=5, params={"public": public})
    acc.spent      # 5.0: five fits at epsilon 1
    acc.history    # [("PPMHalfspaceLearner", 1.0), ...]

While an accountant is active (``with``), every private learner's ``fit`` checks it *before any
work* (a fit that would take the total past the budget is refused with one line,
:class:`BudgetExceededError`) and records its ``epsilon`` once it returns. A learner fitted
inside another (LabelBoost's base learner, a ``Pipeline`` step) is counted once, at the
outermost private ``fit`` (its stated epsilon covers the whole). Nothing is tracked when no
accountant is active, which is how the experiments run.

What it does not do: it tracks fits in this process only (scikit-learn's ``n_jobs > 1`` fits in
other processes, where no accountant is active: keep ``n_jobs=None`` while accounting); it
composes sequentially, which overstates the cost of fits on disjoint private rows (parallel
composition would charge the largest, not the sum); and it records the learner's stated
epsilon, not a measured one.
"""

from __future__ import annotations

import contextvars
import functools
import math

__all__ = ["BudgetAccountant", "BudgetExceededError", "active_accountant", "accounted_fit"]

_ACTIVE: contextvars.ContextVar = contextvars.ContextVar("ppm_budget_accountant", default=None)
_DEPTH: contextvars.ContextVar = contextvars.ContextVar("ppm_private_fit_depth", default=0)
# float sums of budgets such as 0.1 + 0.2 are compared with this slack
_SLACK = 1e-9


class BudgetExceededError(ValueError):
    """A fit would take the total epsilon past the active accountant's budget."""


class BudgetAccountant:
    """The epsilon spent by private fits under basic sequential composition (module docstring).

    ``epsilon``: the total budget (``inf``: record only, never refuse). ``spent``: the sum of
    the recorded fits' epsilons; ``remaining``: ``epsilon - spent``; ``history``: one
    ``(learner, epsilon)`` per recorded fit, in order.
    """

    def __init__(self, epsilon: float = math.inf):
        if isinstance(epsilon, bool) or not isinstance(epsilon, (int, float)) or \
                math.isnan(epsilon) or epsilon <= 0:
            raise ValueError(f"epsilon must be a positive number (or inf), got {epsilon!r}")
        self.epsilon = float(epsilon)
        self.history: list[tuple[str, float]] = []
        self._token = None

    @property
    def spent(self) -> float:
        return math.fsum(eps for _, eps in self.history)

    @property
    def remaining(self) -> float:
        return self.epsilon - self.spent

    def check(self, epsilon: float, what: str = "a fit") -> None:
        """Refuse, in one line, a spend of ``epsilon`` that the budget cannot cover."""
        if self.spent + float(epsilon) > self.epsilon * (1 + _SLACK):
            raise BudgetExceededError(
                f"{what} at epsilon {epsilon:g} would take the total to "
                f"{self.spent + float(epsilon):g}, past this BudgetAccountant's budget "
                f"{self.epsilon:g} ({len(self.history)} fits recorded, {self.spent:g} spent)")

    def spend(self, epsilon: float, what: str = "a fit") -> None:
        """Record ``epsilon`` (after :meth:`check`)."""
        self.check(epsilon, what)
        self.history.append((what, float(epsilon)))

    def __enter__(self) -> "BudgetAccountant":
        if self._token is not None:
            raise RuntimeError("this BudgetAccountant is already active")
        self._token = _ACTIVE.set(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.reset(self._token)
        self._token = None

    def __repr__(self) -> str:
        return (f"BudgetAccountant(epsilon={self.epsilon:g}, spent={self.spent:g}, "
                f"fits={len(self.history)})")


def active_accountant() -> BudgetAccountant | None:
    """The accountant of the innermost active ``with BudgetAccountant(...)``, or ``None``."""
    return _ACTIVE.get()


def accounted_fit(fit):
    """Wrap a private learner's ``fit`` (``self.epsilon``: its guarantee for one fit) so that an
    active accountant is checked before the fit and charged after it, once per outermost fit."""

    @functools.wraps(fit)
    def wrapper(self, *args, **kwargs):
        acc = _ACTIVE.get()
        outer = _DEPTH.get() == 0
        name = type(self).__name__
        if acc is not None and outer:
            acc.check(self.epsilon, name)
        token = _DEPTH.set(_DEPTH.get() + 1)
        try:
            out = fit(self, *args, **kwargs)
        finally:
            _DEPTH.reset(token)
        if acc is not None and outer:
            acc.spend(self.epsilon, name)
        return out

    wrapper.__ppm_accounted__ = True
    return wrapper
