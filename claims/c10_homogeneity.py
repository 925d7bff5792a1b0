"""C10 (Section 1): methods built for homogeneous public data fail on a mixture.

``c10_homogeneity``: the semi-private learner (public data unlabeled, assumed to come from the
same distribution as the private data) against PPM as the public and private sub-populations
move apart (shift = 1 - 2 eta: 0 homogeneous, 1 label-determined). At the largest n, the paired
error difference semi-private minus PPM must be > 0 at shift 1 and about 0 at shift 0.
"""

from __future__ import annotations

import numpy as np

from claims import plotting
from claims.base import Claim, VerdictRow
from claims.verdicts import mean_ci, paired_difference

STATEMENT = "methods built for homogeneous public data fail on a mixture"
TOL = 0.02  # "about 0" at shift 0: the difference's upper bound within 2 points of error
GOOD_ERROR = 0.05  # or the semi-private error itself is this small when homogeneous


def _trials(results):
    data = results.load("c10_homogeneity")
    return None if data is None else data[0].assign(shift=1.0 - 2.0 * data[0]["population.eta"])


def analyse(results) -> list[VerdictRow]:
    trials = _trials(results)
    if trials is None:
        return []
    n = int(trials["n"].max())
    big = trials[trials.n == n]
    s0, s1 = big["shift"].min(), big["shift"].max()
    m0, lo0, hi0 = paired_difference(big[big["shift"] == s0], "semi_private", "ppm", ["n"])
    m1, lo1, hi1 = paired_difference(big[big["shift"] == s1], "semi_private", "ppm", ["n"])
    sp0 = mean_ci(big[(big["shift"] == s0) & (big.learner == "semi_private")]["error"])
    variant = ""
    if "semi_private_all" in set(big.learner):
        mv, lov, hiv = paired_difference(big[big["shift"] == s1], "semi_private_all", "ppm",
                                         ["n"])
        variant = (f"; variant scoring public labels too, shift {s1:g}: "
                   f"{mv:+.3f} [{lov:+.3f}, {hiv:+.3f}]")
    fails_on_mixture = np.isfinite(lo1) and lo1 > 0
    works_homogeneous = sp0[0] <= GOOD_ERROR or (np.isfinite(hi0) and hi0 <= TOL)
    d = int(trials["population.d"].iloc[0])
    return [VerdictRow(
        claim="C10", figure="c10_homogeneity",
        setting=f"d={d}, n={n}, shift {s0:g}..{s1:g}",
        paper=STATEMENT,
        measured=(f"error(semi-private) - error(PPM), paired: shift {s0:g}: "
                  f"{m0:+.3f} [{lo0:+.3f}, {hi0:+.3f}]; shift {s1:g}: "
                  f"{m1:+.3f} [{lo1:+.3f}, {hi1:+.3f}]; semi-private error at shift {s0:g}: "
                  f"{sp0[0]:.3f}{variant}"),
        theory="> 0 at shift 1 (mixture); about 0 at shift 0 (homogeneous)",
        verdict=("holds" if fails_on_mixture and works_homogeneous else
                 "holds with caveat: semi-private also weak when homogeneous"
                 if fails_on_mixture else "does not hold"),
        d=d, extra=f"n={n}, shift {s0:g}..{s1:g}")]


def plot(results, rows: list[VerdictRow], out_dir) -> None:
    fig, (ax,) = plotting.panels(1, 7.4, 6.2)
    plotting.error_panel(ax, _trials(results), "shift",
                         "shift = 1 - 2 eta  (0: homogeneous, 1: label-determined)",
                         ["ppm", "semi_private", "semi_private_all", "erm"])
    ax.set_title(f"{rows[0].setting}: {rows[0].verdict}", fontsize=9)
    plotting.save(fig, out_dir, "c10_homogeneity",
                  "C10: semi-private learner (homogeneous assumption) vs PPM")


CLAIM = Claim(id="C10", name="c10_homogeneity", statement=STATEMENT,
              experiments=("c10_homogeneity",), analyse=analyse, plot=plot)
