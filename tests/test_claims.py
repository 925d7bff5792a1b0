"""The claim registry: every claim is complete, reads existing configs, and analyses the
committed results into VerdictRows; missing results are skipped, not an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from claims import registry
from claims.reporting import plotting
from claims.base import ResultStore, VerdictRow
from claims.reporting.report import write_claim
from claims.rules.verdicts import comparison_verdict, verdict
from tests import committed_rows

ROOT = Path(__file__).resolve().parent.parent
CONFIGS = ROOT / "configs" / "experiment"


def test_claims_are_listed_once_in_paper_order():
    ids = [c.id for c in registry.CLAIMS]
    # C1..C10, then the BNS15/KMMS19 claims (C11-C16), the real data, the privacy audits (PA)
    nums = [int(i[1:]) for i in ids[:-2]]
    assert nums[:10] == list(range(1, 11)) and nums == sorted(set(nums))
    assert ids[-2:] == ["real data", "PA"]
    assert len({c.name for c in registry.CLAIMS}) == len(ids)


def _claim_modules() -> dict[str, str]:
    """Every module of a claim under claims/, by its claim's top-level name: ``c9_domain`` for
    claims/c9_domain.py, ``c4`` for every module of the package claims/c4/."""
    tops = {m.split(".")[0] for m in registry.MODULES}
    out = {}
    for path in sorted((ROOT / "claims").rglob("*.py")):
        rel = path.relative_to(ROOT / "claims").with_suffix("").parts
        if rel[0] in tops:
            out[".".join(("claims",) + rel)] = rel[0]
    return out


def _other_claims_imported(source: str, own: str, tops: set[str]) -> list[str]:
    """The modules of claims other than ``own`` that ``source`` imports (lazily too)."""
    import ast

    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [node.module] + [f"{node.module}.{a.name}" for a in node.names]
    parts = [m.split(".") for m in found]
    return sorted({".".join(p) for p in parts
                   if len(p) > 1 and p[0] == "claims" and p[1] in tops and p[1] != own})


def test_the_registry_names_each_claim_module_once_and_every_one():
    assert len(set(registry.MODULES)) == len(registry.MODULES)
    # every module that defines a CLAIM is listed, and each listed module defines one
    defining = {name.removeprefix("claims.") for name, _ in _claim_modules().items()
                if "\nCLAIM = " in (ROOT / (name.replace(".", "/") + ".py")).read_text()}
    assert defining == set(registry.MODULES)
    assert [c.analyse.__module__ for c in registry.CLAIMS] == [
        f"claims.{m}" for m in registry.MODULES]


def test_no_claim_imports_another_claims_module():
    """What two claims share lives in analysis/ (a statistic), claims/rules/ (a rule) or
    claims/reporting/ (a panel), never in one of them."""
    tops = {m.split(".")[0] for m in registry.MODULES}
    bad = {name: _other_claims_imported(
               (ROOT / (name.replace(".", "/") + ".py")).read_text(), own, tops)
           for name, own in _claim_modules().items()}
    assert {k: v for k, v in bad.items() if v} == {}
    # the check sees a sideways import, top-level or lazy, and allows one within a package
    assert _other_claims_imported("from claims import c12_grid_halfplanes as c12\n"
                                  "def f():\n    from claims.c4 import price\n", "c9_domain",
                                  tops) == ["claims.c12_grid_halfplanes", "claims.c4",
                                            "claims.c4.price"]
    assert _other_claims_imported("from claims.c4 import blind\nfrom claims.rules import "
                                  "verdicts\n", "c4", tops) == []


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
def test_analyse_on_committed_results_gives_verdict_rows(claim, tmp_path_factory):
    # claim.analyse(ResultStore(ROOT / "results", n_boot=10)), analysed once per test session
    rows = committed_rows.raw_rows(claim.id, tmp_path_factory)
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
    from claims.c4.mechanism import _resample

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


def test_c4_a_slope_interval_is_a_bootstrap_of_the_slope():
    """Replicate b of every d's A gives one slope; an A(d) that is exactly proportional to
    ln|G| + ln(1/beta) in every replicate gives the interval [1, 1], one that is off by a
    d-dependent factor moves it, and too many replicates with A <= 0 leave no interval."""
    from claims.c4.mechanism import _slope_of

    rng = np.random.default_rng(0)
    x = np.array([3.0, 11.0, 25.0])  # ln|G| + ln(1/beta) at d = 1, 2, 3
    alpha = 0.1
    noise = np.exp(0.3 * rng.standard_normal(200))  # shared by every d: slope unchanged

    def table(a_boot, a=None):
        a = x * 10 if a is None else a
        return pd.DataFrame({"d": [1, 2, 3], "alpha": alpha, "em_A": 2 * x / alpha, "A": a,
                             "A_boot": list(a_boot)})

    s, lo, hi = _slope_of(table(np.outer(x * 10, noise)), x)
    assert (s, lo, hi) == pytest.approx((1.0, 1.0, 1.0))
    s, lo, hi = _slope_of(table(np.outer(x ** 2, noise), a=x ** 2), x)
    assert (s, lo, hi) == pytest.approx((2.0, 2.0, 2.0))
    indep = np.outer(x * 10, [1.0] * 200) * np.exp(0.3 * rng.standard_normal((3, 200)))
    _, lo, hi = _slope_of(table(indep), x)
    assert lo < 1.0 < hi and hi - lo > 0.1
    bad = np.outer(x * 10, noise)
    bad[2, :50] = -1.0  # 25% of the replicates without a log slope
    assert np.isnan(_slope_of(table(bad), x)[1])


def test_c4_lemma_4_6_is_tested_one_sidedly():
    """A(d) far below Lemma 4.6's bound passes the check (the old two-sided shape test could
    call it 'does not hold'); an interval above the bound at one d fails it; one reaching it
    passes and says where."""
    from claims.c4.mechanism import lemma_4_6_verdict

    def tab(a_lo, a_hi, em=(100.0, 300.0, 600.0)):
        return pd.DataFrame({"d": [1, 2, 3], "A": [(a + b) / 2 for a, b in zip(a_lo, a_hi)],
                             "A_lo": a_lo, "A_hi": a_hi, "em_A": list(em)})
    assert lemma_4_6_verdict(tab([5, 40, 80], [10, 60, 150])) == "check: passed"  # any shape
    assert lemma_4_6_verdict(tab([5, 40, 650], [10, 60, 700])).startswith("check: FAILED")
    assert "reaching the bound, at d = 3" in lemma_4_6_verdict(tab([5, 40, 500], [10, 60, 700]))


def test_c4_sample_key_marks_rows_run_on_one_sample():
    """C4's counted test resamples rows with one `samples` key jointly: on the committed trials
    every such (d, n, trial) group must really be one sample scored at several epsilons (one
    |G|, one ERM error), and different d must never share a key."""
    from claims.c4.dimension import ERROR_COL, _short
    from experiments.columns import D, EPSILON, ERM, PPM

    store = ResultStore(ROOT / "results")
    for exp in ("c4_epsilon_fit", "c4_dimension_d3_wpub", "c4_epsilon_fit_d3", "c4_wpub06_d12",
                "c4_wpub06_d3"):
        t = _short(store.load(exp)[0])
        ppm = t[t.learner == PPM]
        g = ppm.groupby(["samples", "n", "trial"])
        assert (g[EPSILON].nunique() >= 2).all(), exp
        assert (g["log_n_hypotheses"].nunique() == 1).all(), exp
        assert (ppm.groupby("samples")[D].nunique() == 1).all(), exp
    d3 = [_short(store.load(e)[0]) for e in ("c4_dimension_d3_wpub", "c4_epsilon_fit_d3")]
    keys = [set(t.loc[t.learner == ERM, "samples"]) for t in d3]
    assert keys[0] == keys[1]  # the two d = 3 sweeps draw the same samples ...
    erm = [t[t.learner == ERM].set_index(["n", "trial"])[ERROR_COL].sort_index() for t in d3]
    pd.testing.assert_series_equal(erm[0], erm[1])  # ... and ERM confirms it


def test_c12_below_bound_is_computed_from_the_data(monkeypatch):
    """The Set Cover rows compare n_hat with Theorem 4.7's bound (it was hardcoded True): a
    bound shrunk below the measured n_hat must show in the verdict."""
    from claims import c12_grid_halfplanes as c12
    from claims.base import ResultStore
    b1, b2 = (c12.theorem_bound(2.0 ** b, 0.1, 0.1, 0.9, 1e-6) for b in (6, 20))
    assert 0 < b1 < b2  # grows with log T
    store = ResultStore(Path("results"), n_boot=0)
    if store.load(c12.EXPERIMENT) is None:
        pytest.skip("no committed C12 results")
    def set_cover_rows():  # the rows at the sweep's per-round budget (not the theorem-budget rows)
        return [r for r in c12.analyse(store)
                if r.extra.startswith(c12.MAIN) and "theorem budget" not in r.extra]
    rows = set_cover_rows()
    assert rows and all("n_hat exceeds" not in r.verdict for r in rows)
    monkeypatch.setattr(c12, "theorem_bound", lambda *a, **k: 1.0)
    rows = set_cover_rows()
    assert all("n_hat exceeds the explicit bound" in r.verdict for r in rows
               if r.verdict != "not measured")
