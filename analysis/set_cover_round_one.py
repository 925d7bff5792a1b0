"""C12's diagnostic of alpha 0.01 at the theorem's budget: the Set Cover Learner's first round
(KMMS19 step 1e, Select Halfplane's exponential mechanism) computed exactly on the expected
sample of ``c12_theorem_budget_dense``'s population (claims/c12_grid_halfplanes.py,
docs/claims/c12_grid_halfplanes.md "What alpha 0.01 measures")."""

from __future__ import annotations

import numpy as np

from ppm.set_cover.base import add_remove_budget, n_rounds, per_round_epsilon

__all__ = ["ROUND_ONE", "round_one_exact", "round_one_table"]

ROUND_ONE = "round_one.csv"  # results/c12_theorem_budget_dense/: :func:`round_one_exact`


def round_one_exact(b: int, ns, alpha: float = 0.1, eps: float = 0.9, delta: float = 1e-6,
                    beta0: float = 0.1) -> list[dict]:
    """Why alpha 0.01 is a second term: the Set Cover Learner's FIRST round (KMMS19 step 1e,
    Select Halfplane's exponential mechanism, computed exactly by
    :meth:`~ppm.set_cover.halfplanes.HalfplaneSelector.bucket_distribution`) on the EXPECTED
    sample of ``c12_theorem_budget_dense``'s population at ``T = 2^b`` (each support point
    ``n / 64`` times; the Laplace count at its mean, so the threshold is ``|S_0| - Delta``).
    A diagnostic, not the learner (no sampling, no noise, one round of six): per ``n``,
    ``p_alpha`` = P[the released halfplane misclassifies at most ``alpha n`` examples],
    ``p_exact`` = P[it misclassifies none] (score ``q >= 0``), and ``area_ratio``, the dual
    area of the cells that miss about one support point (``-1.5 n/64 <= q < 0``) over the
    zero-error cells' area: the T-free factor that exact recovery pays (the same at every
    ``n > 128 Delta``, ~7000, where two missed negatives leave that window)."""
    from ppm.set_cover import GridPolygon
    from ppm.set_cover.base import noise_margin
    from ppm.set_cover.halfplanes import HalfplaneSelector

    eps_p, delta_p = add_remove_budget(eps, delta)
    rounds = n_rounds(1, 0.1)
    eh = per_round_epsilon(eps_p, delta_p, rounds, "set_cover")
    margin = noise_margin(rounds, eps_p, beta0)
    pos, neg = GridPolygon(T=2 ** int(b), k=1, w_pub=0.5, support=32).support_points()
    sel, out = HalfplaneSelector(2 ** int(b)), []
    for n in ns:
        cp, cn = round(n / 2 / len(pos)), round(n / 2 / len(neg))
        X = np.vstack([np.repeat(pos, cp, 0), np.repeat(neg, cn, 0)]).astype(float)
        y = np.r_[np.ones(cp * len(pos), int), np.zeros(cn * len(neg), int)]
        d = sel.bucket_distribution(X, y, cn * len(neg) - margin, eh)
        a0 = d.area[d.q >= 0].sum()
        out.append({"b": int(b), "n": int(n), "p_alpha": d.probability[d.q >= -alpha * n].sum(),
                    "p_exact": d.probability[d.q >= 0].sum(),
                    "area_ratio": d.area[(d.q < 0) & (d.q >= -1.5 * n / 64)].sum() / a0})
    return out


def round_one_table(ns=None, bs=range(6, 21, 2)):
    """:func:`round_one_exact` over the dense design's ``b`` and its PLANNED ``n`` grid
    (``2^(105/8)..2^(126/8)``: wider than the run's, to reach exact recovery at every ``b``)."""
    import pandas as pd

    ns = [round(2 ** (k / 8)) for k in range(105, 127)] if ns is None else ns
    return pd.DataFrame([r for b in bs for r in round_one_exact(b, ns)])


if __name__ == "__main__":  # python -m analysis.set_cover_round_one OUT.csv (a few CPU-minutes)
    import sys

    from ppm.files import write_csv_atomic

    write_csv_atomic(round_one_table(), sys.argv[1])
