"""The ``n_hat`` against ``T`` panel of ``c12_grid_halfplanes`` (halfplanes on the grid
``{0..T}^2``): KMMS19's Set Cover Learner with exact Select Halfplane, PPM and non-private ERM
on the same samples. C12 draws it as its figure's first panel, C9 as its d = 2 panel."""

from __future__ import annotations

from analysis.set_cover_privacy import privacy_note
from claims.base import alphas_of, beta_of
from claims.reporting import plotting
from experiments.columns import ERM, PPM, SET_COVER, T

EXPERIMENT = "c12_grid_halfplanes"
# (learner, label, colour, marker, line style), in drawing order
LEARNERS = ((SET_COVER, "Set Cover Learner + Select Halfplane", "C3", "D", "-"),
            (PPM, "PPM (Alg. 2), d = 2", "C0", "o", "-"),
            (ERM, "non-private ERM", "C2", "s", "-."))


def draw_panel(ax, results, alpha=None) -> str:
    """n_hat vs T for the three learners (every alpha, or ``alpha``); returns the Set Cover
    Learner's privacy in a few words (:func:`analysis.set_cover_privacy.privacy_note`)."""
    trials, nhat = results.load(EXPERIMENT)
    top = float(trials["n"].max())
    for i, a in enumerate(alphas_of(nhat) if alpha is None else [alpha]):
        for learner, label, color, marker, ls in LEARNERS:
            sub = nhat[(nhat.learner == learner) & (nhat.alpha == a)].sort_values(T)
            if sub.empty:
                continue
            style = dict(color=color, marker=marker, ls=ls if i == 0 else ":")
            plotting.draw_nhat(ax, sub[T], sub, top, style, f"{label}, alpha = {a:g}")
    plotting.log_axes(ax, None, "grid {0..T}^2: T (d = 2 domain)",
                      plotting.nhat_label(beta_of(nhat)), base=2)
    plotting.legend_below(ax, ncol=1)
    return privacy_note(trials)["short"]
