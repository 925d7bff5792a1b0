"""A results root made with a swept override: one series per value (verdict rows and figures
name it), a claim that cannot be analysed says so in the verdict table, and summary.md stays
readable (long cells cut, pointing to summary_details.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

import matplotlib
import pandas as pd

matplotlib.use("Agg")

from analysis.aggregate import n_hat_table  # noqa: E402
from claims import registry  # noqa: E402
from claims.base import ResultStore  # noqa: E402
from claims.reporting.report import (CANNOT, MD_WIDTHS, MORE, NOT_RUN, PAGE_WIDTH,  # noqa: E402
                                     override_series,
                                     write_claims, write_table)

ROOT = Path(__file__).resolve().parent.parent
C1 = registry.get("C1")


def _root_with_two_epsilons(tmp: Path) -> Path:
    """C1's committed d = 1 trials, plus a copy of its PPM rows at epsilon = 2 with larger errors
    (what ARGS="learner.epsilon=1,2" would make), aggregated as scripts/aggregate.py does."""
    trials = pd.read_csv(ROOT / "results" / "c1_realizable_d1" / "trials.csv", low_memory=False,
                         dtype={"cell_key": str})
    ppm = trials[trials.learner == "ppm"].copy()
    ppm["learner.epsilon"] = 2.0
    ppm["cell_key"] = ppm["cell_key"] + "e2"
    for col in ("error", "excess_error"):
        ppm[col] = ppm[col] * 3
    both = pd.concat([trials, ppm], ignore_index=True)
    out = tmp / "c1_realizable_d1"
    out.mkdir(parents=True)
    both.to_csv(out / "trials.csv", index=False)
    n_hat_table(both, [0.01, 0.05, 0.2], 0.1, 0.95).to_csv(out / "n_hat.csv", index=False)
    return tmp


def test_the_committed_root_has_no_override_series():
    store = ResultStore(ROOT / "results", n_boot=10)
    for claim in registry.CLAIMS:
        if claim.available(store) and not claim.needs:
            assert override_series(claim, store) == {}, claim.id


def test_a_swept_override_gives_one_series_per_value(tmp_path):
    root = _root_with_two_epsilons(tmp_path)
    store = ResultStore(root, n_boot=20)
    assert override_series(C1, store) == {"learner.epsilon": [1.0, 2.0]}
    nhat = pd.read_csv(root / "c1_realizable_d1" / "n_hat.csv")
    assert sorted(nhat.loc[nhat.learner == "ppm", "params"].unique()) == ["epsilon=1",
                                                                        "epsilon=2"]
    done, failed = write_claims([C1], store)
    assert not failed
    rows = done["C1"]
    assert [r.setting.rsplit("[", 1)[1] for r in rows] == ["learner.epsilon = 1]",
                                                           "learner.epsilon = 2]"]
    assert [r.epsilon for r in rows] == [1.0, 2.0]  # each verdict covers its own epsilon
    assert rows[0].slope != rows[1].slope
    figures = sorted(p.name for p in (root / "figures").iterdir())
    assert figures == ["c1_realizable__epsilon1.png", "c1_realizable__epsilon2.png"]
    assert [r.figure for r in rows] == ["c1_realizable__epsilon1", "c1_realizable__epsilon2"]


def test_a_baseline_that_follows_the_swept_parameter_is_split_with_it(tmp_path):
    """C9's fully private learner takes epsilon: ${learner.epsilon}: each series holds the
    baseline at its own epsilon (one row per T, n, trial and learner), so C9 is analysed."""
    trials = pd.read_csv(ROOT / "results" / "c9_domain" / "trials.csv", low_memory=False,
                         dtype={"cell_key": str})
    trials = trials[trials["n"] <= 64]  # a few cells keep the test short
    other = trials[trials.learner.isin(["ppm", "fully_private"])].copy()
    other.loc[other.learner == "ppm", "learner.epsilon"] = 2.0
    other.loc[other.learner == "fully_private", "baselines.fully_private.epsilon"] = 2.0
    other["cell_key"] = other["cell_key"] + "e2"
    both = pd.concat([trials, other], ignore_index=True)
    out = tmp_path / "c9_domain"
    out.mkdir()
    both.to_csv(out / "trials.csv", index=False)
    n_hat_table(both, [0.1, 0.2], 0.1, 0.95).to_csv(out / "n_hat.csv", index=False)
    store = ResultStore(tmp_path, n_boot=10)
    c9 = registry.get("C9")
    assert override_series(c9, store) == {"learner.epsilon": [1.0, 2.0]}
    done, failed = write_claims([c9], store)
    assert not failed, failed
    tags = {r.setting.rsplit("[", 1)[1] for r in done["C9"]}
    assert tags == {"learner.epsilon = 1]", "learner.epsilon = 2]"}


def test_a_claim_that_cannot_be_analysed_says_so_in_the_table(tmp_path):
    root = tmp_path / "root"
    for exp in ("c3_epsilon_d1", "c8_eta"):
        shutil.copytree(ROOT / "results" / exp, root / exp,
                        ignore=shutil.ignore_patterns("summary.*"))
    trials = pd.read_csv(root / "c3_epsilon_d1" / "trials.csv", low_memory=False)
    # a column C3 reads is gone (fewer epsilons than C3 compares is a verdict now, not a
    # failure: tests/test_override_c3.py)
    trials = trials.drop(columns=["population.w_pub"])
    trials.to_csv(root / "c3_epsilon_d1" / "trials.csv", index=False)
    store = ResultStore(root, n_boot=10)
    done, failed = write_claims([registry.get("C3"), registry.get("C8")], store)
    assert list(failed) == ["C3"] and "C8" in done
    table = write_table(root).set_index("claim")
    assert table.loc["C3", "verdict"].startswith(CANNOT + " (")
    assert table.loc["C1", "verdict"] == NOT_RUN
    # analysed again once the root holds what it needs: the marker goes
    shutil.copy(ROOT / "results" / "c3_epsilon_d1" / "trials.csv", root / "c3_epsilon_d1")
    done, failed = write_claims([registry.get("C3")], ResultStore(root, n_boot=10))
    assert not failed
    assert not write_table(root).set_index("claim").loc["C3", "verdict"].startswith(CANNOT)


def test_summary_md_cuts_long_cells_and_keeps_them_in_the_details(tmp_path):
    root = tmp_path / "root"
    shutil.copytree(ROOT / "results", root, ignore=shutil.ignore_patterns("cache", "*.png"))
    table = write_table(root)
    longest = table["measured"].astype(str).str.len().max()
    assert longest > MD_WIDTHS["deciding number"]  # the committed table has long cells
    md = (root / "summary.md").read_text().splitlines()
    width = max(len(line) for line in md)
    assert width <= PAGE_WIDTH, width  # the table fits a page, whatever the root's path
    assert any(MORE.strip() in line for line in md)
    assert md[-1].startswith("¹ cut here; every word is in summary_details.md")
    details = (root / "summary_details.md").read_text()
    assert max(len(line) for line in details.splitlines()) > width  # every word kept there
    csv = pd.read_csv(root / "summary.csv")
    assert csv["measured"].astype(str).str.len().max() == longest  # the CSV is not cut
