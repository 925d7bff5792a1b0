"""Intervals and the verdict table (each case can fail); the slope and combined verdict rules
are in tests/test_verdicts.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from claims.reporting.report import verdict_table
from claims.rules.verdicts import mean_ci, paired_difference


def test_mean_ci_covers_the_mean_at_the_nominal_rate():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        m, lo, hi = mean_ci(rng.normal(1.0, 2.0, size=50))
        hits += lo <= 1.0 <= hi
    assert 0.91 <= hits / 400 <= 0.98
    assert all(math.isnan(v) for v in mean_ci([]))


def test_paired_difference_pairs_on_trial():
    df = pd.DataFrame({
        "learner": ["a"] * 3 + ["b"] * 3,
        "n": [10] * 6,
        "trial": [0, 1, 2, 2, 1, 0],          # b's rows in another order
        "error": [0.3, 0.4, 0.5, 0.1, 0.2, 0.3],
    })
    m, lo, hi = paired_difference(df, "a", "b", ["n"])
    # pairs: (0.3-0.3, 0.4-0.2, 0.5-0.1) = (0, 0.2, 0.4)
    assert m == pytest.approx(0.2)
    assert lo < 0.2 < hi


def test_verdict_table_has_one_row_per_claim_and_marks_missing_ones():
    details = pd.DataFrame([
        dict(claim="C5", setting="d=1, alpha=0.01", measured="slope 0.1", theory="0",
             looseness=10.0, verdict="holds", figure="c5_mixture_weight", alpha=0.01, d=2),
        dict(claim="C5", setting="d=2, alpha=0.1", measured="slope 0.0", theory="0",
             looseness=30.0, verdict="does not hold", figure="c5_mixture_weight", alpha=0.1, d=2),
    ])
    table = verdict_table(details).set_index("claim")
    assert list(table.index[:10]) == [f"C{i}" for i in range(1, 11)]
    assert table.loc["C5", "measured"] == "slope 0.0"        # C5's headline setting (d=2, alpha=0.1)
    assert table.loc["C5", "verdict"] == "mixed: holds in 1 of 2 settings, does not hold in 1"
    assert table.loc["C5", "looseness"] == pytest.approx(20.0)
    assert table.loc["C1", "verdict"] == "not run in this results root"


def test_titles_leave_out_nan_values():
    from claims.reporting.plotting import fmt_values
    assert fmt_values([("alpha 0.1", math.nan), ("alpha 0.2", 0.6), ("alpha 0.3", math.nan)]) \
        == "alpha 0.2: 0.60"
    assert fmt_values([("a", math.nan)]) == "not measured"
    assert "nan" not in fmt_values([("", math.nan), ("", 1.234)])


def test_compact_drops_empty_panels_and_rows():
    import matplotlib.pyplot as plt
    from claims.reporting.plotting import compact
    fig, axes = plt.subplots(2, 3, figsize=(9, 6), squeeze=False)
    used = [axes[0][1]]
    compact(fig, axes, used, (3, 3))
    assert fig.axes == used
    assert tuple(fig.get_size_inches()) == (3, 3)
    plt.close(fig)


def test_plotting_leaves_the_backend_to_its_caller():
    """claims/reporting/plotting.py chooses no backend, so a notebook's figures show inline."""
    import subprocess
    import sys
    code = ("import matplotlib; matplotlib.use('svg'); import claims.reporting.plotting, claims.registry; "
            "print(matplotlib.get_backend())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "svg"


def test_a_quick_root_marks_every_verdict_and_figure_as_a_smoke_run(tmp_path):
    from PIL import Image
    import matplotlib.pyplot as plt
    from claims.reporting import plotting
    from claims.base import PROFILE_FILE, SMOKE_PREFIX
    from claims.reporting.report import write_table
    root = tmp_path / "quick"
    (root / "c5_mixture_weight").mkdir(parents=True)
    pd.DataFrame([dict(claim="C5", setting="d=1", measured="slope 0.1", theory="0",
                       looseness=10.0, verdict="inconclusive (2 uncensored points)",
                       figure="c5_mixture_weight", alpha=0.01, d=1)]).to_csv(
        root / "c5_mixture_weight" / "summary.csv", index=False)
    plain = write_table(root).set_index("claim")
    assert plain.loc["C5", "verdict"] == "inconclusive (2 uncensored points)"
    (root / PROFILE_FILE).write_text("quick\n")
    table = write_table(root).set_index("claim")
    assert table.loc["C5", "verdict"] == SMOKE_PREFIX + "inconclusive (2 uncensored points)"
    assert table.loc["C1", "verdict"] == "not run in this results root"
    assert (root / "summary.md").read_text().startswith("**Quick profile: a smoke run")
    assert table.loc["C5", "figure"] == f"{root.as_posix()}/figures/c5_mixture_weight.png"
    # the banner sits above the figure's title, inside the saved image
    sizes = []
    for text in (None, plotting.SMOKE_BANNER):
        fig, (ax,) = plotting.panels(1)
        ax.plot([1, 2], [1, 2], label="x")
        plotting.legend_below(ax)
        with plotting.banner(text):
            out = plotting.save(fig, tmp_path / str(bool(text)), "f", "title")
        sizes.append(Image.open(out).size)
        assert not plt.get_fignums()
    assert sizes[1][1] > sizes[0][1]
