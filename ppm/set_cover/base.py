"""The Set Cover Learner's interface and privacy bookkeeping (KMMS19, section 3; docs/model.md §9.1).

Kaplan, Mansour, Matias, Stemmer (ICML 2019), algorithm *Set Cover Learner*: for a target class
``C ⊆ H^{∧k}`` run ``R = ceil(2k ln(2/alpha_0))`` rounds; each round releases one hypothesis of
the base class ``H``, drawn by a *selection procedure*. This module fixes

* the selection-procedure protocol (:class:`BaseClassSelector`, :class:`Hypothesis`) that the
  base classes implement (literals: :mod:`ppm.set_cover.literals`; halfplanes on the grid:
  ``ppm.set_cover.halfplanes``, exact Select Halfplane of section 4);
* the formulas of the algorithm box and of the privacy analysis (rounds, Laplace scale,
  ``Delta``, per-round budget of Claim 3.4 or of Example 3.3), each as a small function, so the
  tests and the learner use one definition.

Neighbouring relation. The seed proves Claim 3.4 for add/remove neighbours (``S' = S ∪ {(x',
sigma')}``); the repository's neighbours replace one example (docs/model.md §1). A replacement is a
removal followed by an addition, so by group privacy an ``(eps', delta')`` add/remove guarantee
gives ``(2 eps', delta' + e^{eps'} delta')`` under replacement. We therefore run the whole
algorithm at ``(eps', delta') = (eps / 2, delta / (1 + e^{eps/2}))`` [P] (docs/model.md §9.1), which is
``(eps, delta)``-DP under replace-one. :func:`add_remove_budget` is that map; *every* formula
below (Laplace scale, ``Delta``, per-round ``eps_hat``) receives ``(eps', delta')``.
"""

from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Hypothesis(Protocol):
    """A member of the base class ``H``: a 0/1 predicate on the domain."""

    def predict(self, X) -> np.ndarray:  # {0, 1}, int
        ...


@runtime_checkable
class BaseClassSelector(Protocol):
    """A selection procedure ``A`` of the Set Cover Learner (algorithm box, step 1e).

    ``select`` is the exponential mechanism over the base class ``H`` with score
    ``q(h) = min(#h_0(S_0) - threshold, -#h_0(S_1))`` (``S_0``/``S_1`` = rows of ``X`` with
    ``y = 0``/``1``, ``#h_0`` = points that ``h`` labels 0, ``threshold = b_j / k``), drawing
    ``h`` with probability (density) proportional to ``mu(h) exp(epsilon q(h) / 2)``
    (``mu`` = counting measure for literals, area in the dual plane for halfplanes).
    """

    def check_X(self, X) -> np.ndarray:
        ...

    def select(self, X, y, threshold: float, epsilon: float,
               rng: np.random.Generator) -> Hypothesis:
        ...


def n_rounds(k: int, alpha0: float) -> int:
    """``R = ceil(2 k ln(2 / alpha_0))`` (algorithm box, step 1; docs/model.md §9.1).

    The seed writes ``2k log(2/alpha)``; Claim 3.1's proof shrinks the negatives by a factor
    ``(1 - 1/(2k))`` per round down to ``alpha n / 2``, which needs ``2k ln(2/alpha)`` rounds:
    natural logarithm [R].
    """
    return int(math.ceil(2 * k * math.log(2.0 / alpha0)))


def add_remove_budget(epsilon: float, delta: float) -> tuple[float, float]:
    """``(eps / 2, delta / (1 + e^{eps/2}))``: the add/remove budget giving replace-one
    ``(eps, delta)``-DP by group privacy (module docstring) [P]."""
    half = epsilon / 2.0
    return half, delta / (1.0 + math.exp(half))


def laplace_scale(rounds: int, epsilon: float) -> float:
    """Scale of ``w_j ~ Lap(R / eps)`` (step 1c) [R].

    The seed's box lost the fraction; Claim 3.1's proof draws ``R`` Laplace variables whose
    maximum is at most ``Delta`` with probability ``1 - beta``, and Claim 3.4's proof shifts up
    to ``R`` of them by 1 at a cost of ``e^eps`` in total: scale ``R / eps`` (docs/model.md §9.1).
    ``epsilon`` is the add/remove budget ``eps'``.
    """
    return rounds / epsilon


def noise_margin(rounds: int, epsilon: float, beta0: float) -> float:
    """``Delta = (R / eps) ln(R / beta_0)`` [R]: ``P[max_j |w_j| > Delta] <= beta_0`` for ``R``
    draws of ``Lap(R / eps)``, so ``|S_0| - 2 Delta <= b_j <= |S_0|`` (Claim 3.1's proof)."""
    return (rounds / epsilon) * math.log(rounds / beta0)


def per_round_epsilon(epsilon: float, delta: float, rounds: int, composition: str) -> float:
    """Per-round budget ``eps_hat`` of the exponential mechanism (``epsilon``, ``delta`` are the
    add/remove budget ``(eps', delta')``).

    * ``"set_cover"``: Claim 3.4, ``eps_hat = eps / (2 ln(e / delta))``, independent of ``R``;
    * ``"naive"``: Example 3.3 via advanced composition over the ``R`` rounds,
      ``eps_hat = eps / (2 sqrt(2 R ln(1 / delta)))`` [P] (docs/model.md §9.1).
    """
    if composition == "set_cover":
        return epsilon / (2.0 * math.log(math.e / delta))
    if composition == "naive":
        return epsilon / (2.0 * math.sqrt(2.0 * rounds * math.log(1.0 / delta)))
    raise ValueError(f"composition must be 'set_cover' or 'naive', got {composition!r}")


def implied_privacy(epsilon_hat: float, delta: float, rounds: int,
                    laplace_epsilon: float) -> dict:
    """What a *given* per-round budget ``epsilon_hat`` implies for a whole run (replace-one).

    For runs with the ``epsilon_hat`` knob of :class:`~ppm.set_cover.SetCoverLearner` (more
    budget per round than the theorem's ``eps < 1`` allows on 2 cores). ``laplace_epsilon`` is
    the budget ``eps'`` of the ``R`` Laplace counts (scale ``R / eps'``, sensitivity 1 under
    replace-one: ``eps'`` in total). Each exponential mechanism is ``epsilon_hat``-DP under
    replace-one for its (released) threshold. Returns

    * ``basic_epsilon``: ``R epsilon_hat + eps'`` (pure composition, delta 0): proven;
    * ``advanced_epsilon``: ``sqrt(2 R ln(1/delta)) e + R e (e^e - 1) + eps'`` with ``e =
      epsilon_hat`` (advanced composition, Dwork-Rothblum-Vadhan 2010, with this ``delta``):
      proven;
    * ``claim_3_4_epsilon``: ``2 eps_ar`` with ``eps_ar = 2 epsilon_hat ln(e/delta)``, Claim
      3.4 read backwards at add/remove ``delta`` and doubled for replace-one (group privacy;
      overall delta ``delta (1 + e^{eps_ar})``, key ``claim_3_4_delta``). Claim 3.4 is proved
      only for ``eps_ar < 1`` (key ``claim_3_4_valid``): above that it is a formula, not a
      guarantee.
    """
    e = float(epsilon_hat)
    eps_ar = 2.0 * e * math.log(math.e / delta)
    return {
        "epsilon_hat": e,
        "delta": delta,
        "rounds": rounds,
        "basic_epsilon": rounds * e + laplace_epsilon,
        "advanced_epsilon": (math.sqrt(2 * rounds * math.log(1 / delta)) * e
                             + rounds * e * math.expm1(e) + laplace_epsilon),
        "claim_3_4_epsilon": 2.0 * eps_ar,
        "claim_3_4_delta": delta * (1.0 + math.exp(eps_ar)),
        "claim_3_4_valid": eps_ar < 1.0,
    }
