"""The privacy a Set Cover Learner run proves (KMMS19 Claim 3.4), read off its trials: the
theorem's ``(eps, delta)`` for all examples or, with the ``epsilon_hat`` knob (a per-round
epsilon), the overall epsilon that basic composition proves over the rounds
(:func:`ppm.set_cover.base.implied_privacy`). C12 states it in its settings, and C9 in its
d = 2 rows, which read C12's ``c12_grid_halfplanes`` trials."""

from __future__ import annotations

import numpy as np

from experiments.columns import (DELTA, EPSILON, EPSILON_HAT, LEARNER_K, PPM, SET_COVER,
                                 baseline_column)
from ppm.set_cover.base import add_remove_budget, implied_privacy, n_rounds

__all__ = ["privacy_note"]


def privacy_note(trials) -> dict:
    """The Set Cover Learner's privacy in this run (its rows of ``trials``, learner
    ``set_cover``): ``epsilon``, ``delta``, PPM's epsilon (a baseline on the same samples),
    ``text`` and ``short`` (the theorem's ``(eps, delta)``, or with ``epsilon_hat`` the overall
    epsilon of basic composition, then also ``epsilon_hat`` and ``overall``)."""
    main = trials[trials.learner == SET_COVER]
    eps, delta = float(main[EPSILON].iloc[0]), float(main[DELTA].iloc[0])
    k = int(main[LEARNER_K].iloc[0])
    eh = main[EPSILON_HAT].iloc[0]
    out = {"epsilon": eps, "delta": delta, "ppm_epsilon": float(
        trials[trials.learner == PPM][baseline_column(PPM, EPSILON)].iloc[0])}
    if eh is None or not np.isfinite(float(eh)):
        out["text"] = out["short"] = f"({eps:g}, {delta:g})-DP for all examples (Claim 3.4)"
        return out
    imp = implied_privacy(float(eh), add_remove_budget(eps, delta)[1], n_rounds(k, 0.1),
                          add_remove_budget(eps, delta)[0])
    out["epsilon_hat"] = float(eh)
    out["overall"] = imp["basic_epsilon"]
    out["text"] = (f"eps_hat = {float(eh):g} per round, {imp['rounds']} rounds: "
                   f"{imp['basic_epsilon']:.2f}-DP for all examples (basic composition), "
                   f"not ({eps:g}, {delta:g})")
    out["short"] = (f"eps_hat {float(eh):g}/round -> {imp['basic_epsilon']:.2f}-DP, "
                    f"all examples")
    return out
