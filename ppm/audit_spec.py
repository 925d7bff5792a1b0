"""What a private learner declares once, beside its class: its privacy audit and its released state.

Every registered class with an ``epsilon`` parameter (:func:`private_learners`) declares, in its
own module and on its own class (never inherited: a subclass declares again):

* ``_privacy_audits``: a classmethod returning its :class:`PrivacyAudit` declarations, one per
  audited variant (the Set Cover Learner has two, over literals and over halfplanes), each of
  kind ``statistical`` (run by :mod:`analysis.privacy_audit` on the declared pairs, probes and
  leak), ``exact`` (an exact audit, run by the analysis layer's runner it names, or recorded
  as living in the test suite) or ``none`` (no audit, with the reason as its ``setting``);
* ``_released``: the fitted attributes that ARE the mechanism's output (the released
  hypothesis and what its analysis releases with it): every other public fitted attribute
  must not depend on a private example (tests/test_private_state.py);
* ``_expected_failed_checks``: the scikit-learn checks its check instance(s) fail by design,
  composed from the named sets of :mod:`ppm.sklearn_checks` (every registered estimator, private
  or not, declares these);
* ``_temperature_cases``: a classmethod returning ``{name: case}``, one per exponential-mechanism
  selection it makes (or that its selection function makes), each ``case(eps, seed=0) ->
  (epsilon_used, release)``: the learner (or that function) run on a tiny fixed input at
  ``eps``, the epsilon its selection must hand :func:`ppm.mechanisms.em_temperature`, and what
  it releases (tests/test_em_temperature.py: every selection asks for its temperature and
  follows a replaced one); ``{}``, with the reason, for a learner with no selection of its own.

Everything that lists learners is derived from these declarations through the registry
(:mod:`ppm.registry`): the audit runner (``analysis.privacy_audit_runs``) and its script
(``scripts/privacy_audits.py``), the claim-like audit rows (``claims.privacy_audits``), the
private-state, audit, temperature and scikit-learn check tests, and docs/usage.md's learners
table. Method, neighbour relations and what each audit can show: docs/privacy_audits.md.

Order: ``index`` is the position of a declaration's rows in ``privacy_audits/audit.csv``; a
statistical audit draws its streams from ``stream_seed(seed, index, control)``, so the index is
part of its seeds and never changes. ``row`` is the position of its verdict row in the claim's
table.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["CONTROL", "KINDS", "MULTIPLIERS", "N_EVAL", "N_SELECT", "PrivacyAudit", "declared",
           "declared_audits", "halfspace_sample", "missing_declarations", "neighbour_pairs",
           "private_learners", "released", "temperature_cases"]

KINDS = ("statistical", "exact", "none")
MULTIPLIERS = (1.5, 2.0, 3.0)  # the power curve of every statistical audit
N_SELECT, N_EVAL = 500, 1500  # runs per side: per pair (selection), on the chosen pair
CONTROL = "the learner at {m:g} epsilon (noise for {m:g}x the loss)"
EVERY = "replace one example (point and label), every example private"
GRID4 = np.array([0.0, 1 / 3, 2 / 3, 1.0])  # the T = 4 grid of [0, 1]: probes of the audits


@dataclass(frozen=True)
class PrivacyAudit:
    """One privacy audit of a learner (module docstring). ``leak(m)``: the learner stated to
    lose ``m`` times its budget, as a mechanism ``(data, random_state) -> predictions on the
    probe points`` (``leak(1.0)`` is the learner as shipped); ``pairs()``: the neighbouring
    datasets, under the learner's own relation ``neighbours``. ``exact``: for a statistical
    audit the name of its exact-loss hook (a loose stated bound, docs/privacy_audits.md), for
    an exact one the name of the runner that computes its rows (none: recorded, with
    ``verdict``, ``setting`` and ``source`` as written)."""

    kind: str
    index: int
    row: int
    paper: str
    neighbours: str
    setting: str = ""
    variant: str = ""
    epsilon: float | Callable[[], float] = 1.0
    delta: float = 0.0
    pairs: Callable[[], list] | None = None
    leak: Callable[[float], Callable] | None = None
    n_select: int = N_SELECT
    n_eval: int = N_EVAL
    multipliers: tuple = MULTIPLIERS
    control: str = CONTROL
    exact: str | None = None
    source: str = ""
    verdict: str = ""

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"PrivacyAudit: kind must be one of {KINDS}, got {self.kind!r}")
        if self.kind == "statistical" and (self.leak is None or self.pairs is None):
            raise ValueError("PrivacyAudit: a statistical audit declares its leak and pairs")

    def stated_epsilon(self) -> float:
        return float(self.epsilon() if callable(self.epsilon) else self.epsilon)


def neighbour_pairs(base: dict, changes: list) -> list:
    """Neighbouring pairs: ``base`` (named arrays) and, per change ``{part: (index, value)}``,
    ``base`` with those entries replaced (one example: its point and label together)."""
    out = []
    first = tuple(np.array(v) for v in base.values())
    for change in changes:
        parts = {k: np.array(v) for k, v in base.items()}
        for k, (i, val) in change.items():
            parts[k][i] = val
        out.append((first, tuple(parts.values())))
    return out


def halfspace_sample(seed: int = 0, n: int = 30):
    """A tiny input of the halfspace learners' temperature cases: ``n`` standard normal points of
    the plane labelled by ``x0 + 0.3 x1 > 0``, the first three labels flipped, the first six
    examples public."""
    r = np.random.default_rng(seed)
    X = r.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    y[:3] = 1 - y[:3]
    public = np.zeros(n, bool)
    public[:6] = True
    return X, y, public


def private_learners() -> list[type]:
    """The registered classes with an ``epsilon`` parameter, in registration order."""
    from ppm.registry import registered
    return [e.cls for e in registered()
            if "epsilon" in getattr(e.cls, "_parameter_constraints", {})]


def _own(cls, name: str):
    return cls.__dict__.get(name)


def declared_audits(cls) -> tuple[PrivacyAudit, ...]:
    """``cls``'s own :class:`PrivacyAudit` declarations (``()`` if it declares none)."""
    own = _own(cls, "_privacy_audits")
    return tuple(own.__get__(None, cls)()) if own is not None else ()


def released(cls) -> tuple[str, ...] | None:
    """``cls``'s own ``_released`` attribute names (None if it declares none)."""
    return _own(cls, "_released")


def temperature_cases(cls=None) -> dict[str, Callable] | None:
    """``cls``'s own temperature cases (None if it declares none); without ``cls``, every private
    learner's, in registration order."""
    if cls is None:
        return {name: case for c in private_learners() for name, case in
                (temperature_cases(c) or {}).items()}
    own = _own(cls, "_temperature_cases")
    return dict(own.__get__(None, cls)()) if own is not None else None


def declared() -> list[tuple[str, type, PrivacyAudit]]:
    """``(learner name, class, declaration)`` of every private learner, in ``index`` order; the
    name is the class name, with `` (<variant>)`` for a variant."""
    out = [(cls.__name__ + (f" ({a.variant})" if a.variant else ""), cls, a)
           for cls in private_learners() for a in declared_audits(cls)]
    return sorted(out, key=lambda t: t[2].index)


def missing_declarations() -> list[str]:
    """One line per private learner that lacks a declaration, saying what to add (``[]`` when
    every one is complete), and per clash of ``index`` or ``row``."""
    lines = []
    for cls in private_learners():
        where = f"{cls.__module__}.{cls.__name__}"
        if not declared_audits(cls):
            lines.append(f"{where}: add a classmethod _privacy_audits returning its "
                         f"ppm.audit_spec.PrivacyAudit(s) (kind 'none' with the reason if "
                         f"it is not audited)")
        if not released(cls):
            lines.append(f"{where}: add _released = (<the fitted attributes its mechanism "
                         f"releases>, ...)")
        if _own(cls, "_expected_failed_checks") is None:
            lines.append(f"{where}: add _expected_failed_checks (named sets of "
                         f"ppm.sklearn_checks; {{}} if it passes every check)")
        if temperature_cases(cls) is None:
            lines.append(f"{where}: add a classmethod _temperature_cases returning {{name: "
                         f"case(eps, seed=0) -> (epsilon_used, release)}} per exponential-"
                         f"mechanism selection ({{}} with the reason if it makes none)")
    every = [a for cls in private_learners() for a in declared_audits(cls)]
    for attr in ("index", "row"):
        values = sorted(getattr(a, attr) for a in every)
        if values != list(range(len(every))):
            lines.append(f"PrivacyAudit.{attr}: the declarations must number 0..{len(every) - 1} "
                         f"once each, got {values}")
    names = [n for cls in private_learners() for n in (temperature_cases(cls) or {})]
    lines += [f"_temperature_cases: the case name {n!r} is declared twice"
              for n in sorted({n for n in names if names.count(n) > 1})]
    return lines
