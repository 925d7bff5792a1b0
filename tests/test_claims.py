"""The claim registry: every claim is complete, reads existing configs, and analyses the
committed results into VerdictRows; missing results are skipped, not an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claims import plotting, registry
from claims.base import ResultStore, VerdictRow
from claims.report import write_claim
from claims.verdicts import comparison_verdict, verdict

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs" / "experiment"


def test_claims_are_listed_once_in_paper_order():
    ids = [c.id for c in registry.CLAIMS]
    nums = [int(i[1:]) for i in ids[:-1]]  # C1..C10, then the seed 002/004 claims (C11-C15)
    assert nums[:10] == list(range(1, 11)) and nums == sorted(set(nums))
    assert ids[-1] == "real data"
    assert len({c.name for c in registry.CLAIMS}) == len(ids)


@pytest.mark.parametrize("claim", registry.CLAIMS, ids=lambda c: c.name)
def test_claim_has_a_statement_and_a_source(claim):
    assert len(claim.statement) > 10
    assert claim.experiments or claim.needs  # sweeps, or the exact audits' files


@pytest.mark.parametrize("name", registry.experiments(), ids=str)
def test_every_registered_experiment_has_a_config_and_a_quick_twin(name):
    # results land where the claim reads them: <results>/<experiment_name>/
    assert f"experiment_name: {name}\n" in (CONFIGS / f"{name}.yaml").read_text()
    twin = CONFIGS / f"{name}{registry.QUICK_SUFFIX}.yaml"
    if name in registry.long_experiments() and not twin.exists():
        return  # a long experiment is left out of the quick profile
    assert f"\n  - {name}\n" in twin.read_text()  # the quick twin only overrides the full config


@pytest.mark.parametrize("name", registry.restored_experiments(), ids=str)
def test_long_experiments_commit_their_trials(name):
    trials = pd.read_csv(ROOT / "results" / name / "trials.csv", usecols=["cell_key", "trial"])
    assert len(trials) and trials.notna().all().all()  # what the restored cache needs


def test_experiment_list_for_the_makefile():
    quick = registry.experiments(quick=True)
    short = [e for e in registry.experiments() if e not in registry.long_experiments()]
    assert quick == [e + "_quick" for e in short]
    assert len(set(quick)) == len(quick)


@pytest.mark.parametrize("claim", registry.CLAIMS, ids=lambda c: c.name)
def test_analyse_on_committed_results_gives_verdict_rows(claim):
    rows = claim.analyse(ResultStore(ROOT / "results", n_boot=10))
    assert rows and all(isinstance(r, VerdictRow) for r in rows)
    assert {r.claim for r in rows} == {claim.id}
    assert all(r.verdict and r.measured and r.setting for r in rows)


def test_missing_results_are_skipped_with_a_notice(tmp_path, capsys):
    store = ResultStore(tmp_path, n_boot=10)
    for claim in registry.CLAIMS:
        assert write_claim(claim, store) is None
    out = capsys.readouterr().out
    assert out.count("skipped") == len(registry.CLAIMS)
    assert not list(tmp_path.iterdir())


def test_the_slope_verdict_fails_both_ways():
    # the interval [lo, hi] must lie within the theory's range [1, 1.2] +- 0.25
    assert verdict(0.9, 1.1, 1.0, 1.0, 1.2, 5) == "holds"
    assert verdict(1.5, 1.7, 1.6, 1.0, 1.2, 5) == "does not hold"      # too steep
    assert verdict(0.3, 0.5, 0.4, 1.0, 1.2, 5) == "does not hold"      # too flat
    assert verdict(0.7, 0.8, 0.75, 1.0, 1.2, 5).startswith("inconclusive")  # crosses 0.75


def test_comparison_verdict_reads_the_epsilon_column():
    rows = pd.DataFrame({"verdict": ["PPM better", "no difference"], "epsilon": [0.1, 10.0]})
    assert comparison_verdict(rows) == "PPM better at epsilon 0.1; no difference at epsilon 10"


def test_unknown_learner_gets_a_stable_style():
    s = plotting.style("set_cover")
    assert s == plotting.style("set_cover") and s["label"] == "set_cover"
    assert {"color", "marker"} <= set(s)
    assert plotting.style("ppm")["label"] == "PPM (Alg. 2)"


def test_c4_epsilon_fit_bootstrap_keeps_each_sample_at_every_epsilon():
    """A(d)'s bootstrap resamples trial indices once per n and uses them at every epsilon (each
    (n, trial) is one sample scored at every epsilon), never per (epsilon, n) cell."""
    from claims.c4_mechanism import _resample

    rows = [{"epsilon": e, "n": n, "trial": k, "error": 0.0}
            for e in (1.0, 2.0, 10.0) for n in (8, 16) for k in range(12)]
    t = pd.DataFrame(rows)
    rng = np.random.default_rng(3)
    for _ in range(5):
        r = _resample(t, rng)
        assert len(r) == len(t)
        for n, g in r.groupby("n"):
            picks = [sorted(h["trial"]) for _, h in g.groupby("epsilon")]
            assert all(p == picks[0] for p in picks), n
            assert len(set(picks[0])) < 12  # a real resample (with replacement)
