"""C4's d = 3 tail at w_pub = 0.06 (``c4_wpub06_d3_tail``: epsilon 1, 2 at n = 480, 512, made on
an H200; docs/gpu.md "C4 on the GPU"), checked on the CPU where that is cheap and exact.

A PPM fit there scores |G| = 1e9-6e12 hypotheses (up to a day of one core), so no PPM row is
recomputed whole (tests/test_seeding.py does that for a smaller GPU-made cell of the same
sweep). What is checked instead: the cells are ``c4_wpub06_d3``'s own cells past its n grid (the
same keys and seeds), every row's learner seed and the columns the pipeline derives from others,
and for two trials everything but the mechanism's draw: the sample (n_pub, n_priv), ConstrHalf's
``|C_pub|`` on its public rows, ``|G|`` and its log, and the ERM row whole.
"""

from __future__ import annotations

import copy
import io
import math
from pathlib import Path

import pandas as pd
import pytest
from hydra.utils import instantiate

from experiments import pipeline, seeding
from ppm.bounds.theorems import hypothesis_class_size_from_halfspaces
from ppm.core.halfspaces import construct_halfspaces
from tests.test_seeding import _cells, _compose

ROOT = Path(__file__).resolve().parent.parent
TAIL, PARENT = "c4_wpub06_d3_tail", "c4_wpub06_d3"
D = 3


def _text(path_or_df) -> pd.DataFrame:
    """A trials table as the text written (every cell a string, empty for NaN)."""
    src = path_or_df
    if isinstance(path_or_df, pd.DataFrame):
        src = io.StringIO(path_or_df.to_csv(index=False))
    return pd.read_csv(src, dtype=str, keep_default_na=False)


@pytest.fixture(scope="module")
def tail():
    return _text(ROOT / "results" / TAIL / "trials.csv")


@pytest.fixture(scope="module")
def specs():
    return {seeding.cell_key(spec): spec for spec in _cells(TAIL)}


def test_the_tail_cells_are_c4_wpub06_d3_past_its_grid(tail, specs):
    """Each tail cell, composed as a c4_wpub06_d3 cell at its (epsilon, n), has the same key:
    the tail continues that sweep (experiment_name is an execution key), and no n of it is in
    the parent's committed grid."""
    assert sorted((s["learner"]["epsilon"], s["n"]) for s in specs.values()) == [
        (1.0, 480), (1.0, 512), (2.0, 480), (2.0, 512)]
    for key, spec in specs.items():
        parent = _compose([f"experiment={PARENT}", f"learner.epsilon={spec['learner']['epsilon']}",
                           f"n={spec['n']}"])
        assert seeding.cell_key(seeding.to_container(parent)) == key
    assert set(tail["cell_key"]) == set(specs)
    assert set(tail["experiment_name"]) == {TAIL}
    parent_rows = pd.read_csv(ROOT / "results" / PARENT / "trials.csv", usecols=["n"])
    assert not set(tail["n"].astype(int)) & set(parent_rows["n"])
    assert list(tail.columns) == list(pd.read_csv(ROOT / "results" / PARENT / "trials.csv",
                                                  nrows=0).columns)
    counts = tail.groupby(["cell_key", "learner"])["trial"].agg(["nunique", "size"])
    assert (counts["nunique"] == 100).all() and (counts["size"] == 100).all()
    assert set(tail["learner"]) == {"ppm", "erm"}


def test_every_tail_row_has_the_seed_and_derived_columns_the_pipeline_writes(tail, specs):
    """Learner seeds from the cell's config; error_se = sqrt(error (1 - error) / n_test),
    train_error = k / n and ln|G| as the pipeline writes them (not a GPU host's shorter print,
    about 16 significant digits); |G| from |C_pub| by the
    formula 1 + sum_{j <= d} C(m, j); |C_pub| = 2 sum_{i <= d} C(n_pub, i) (Gaussian public
    points are in general position); every |G| within the config's max_hypotheses, so a CPU
    rerun (RECOMPUTE=1) computes these rows exactly instead of refusing them."""
    for row in tail.itertuples(index=False):
        spec = specs[row.cell_key]
        est = spec["learner"] if row.learner == "ppm" else spec["baselines"][row.learner]
        assert seeding.learner_seed(spec, int(row.trial), row.learner, est) == int(row.learner_seed)
        err = float(row.error)
        assert float(row.error_se) == math.sqrt(err * (1.0 - err) / int(row.n_test))
        mistakes = round(float(row.train_error) * int(row.n))  # a fraction of the n examples
        assert float(row.train_error) == mistakes / int(row.n)
    ppm = tail[tail.learner == "ppm"]
    n_pub = ppm["n_pub"].astype(int)
    m = ppm["n_halfspaces"].astype(float).astype(int)
    assert (m == n_pub.map(lambda k: 2 * sum(math.comb(k, i) for i in range(1, D + 1)))).all()
    size = m.map(lambda k: 1 + sum(math.comb(k, j) for j in range(1, D + 1)))
    assert (ppm["n_hypotheses"].astype(float) == size.astype(float)).all()
    assert (ppm["log_n_hypotheses"].astype(float) == size.map(math.log)).all()
    limit = {float(s["learner"]["max_hypotheses"]) for s in specs.values()}
    assert len(limit) == 1 and size.max() <= limit.pop()


@pytest.mark.parametrize("epsilon, n, trial", [(1.0, 480, 0), (2.0, 512, 1)])
def test_a_tail_trial_recomputed_but_for_the_mechanism(tail, specs, epsilon, n, trial):
    """The pipeline's own trial with a constant main learner in PPM's place (its seeds and the
    baselines' do not involve the main learner): the ERM row in every column but its fit time;
    the PPM row's sample sizes; ConstrHalf on the replayed sample's public rows and |G|."""
    key = next(k for k, s in specs.items() if (s["learner"]["epsilon"], s["n"]) == (epsilon, n))
    spec = specs[key]
    rows = tail[(tail.cell_key == key) & (tail.trial == str(trial))].set_index("learner")
    cheap = copy.deepcopy(spec)
    cheap["learner"] = {"_target_": "ppm.baselines.PublicOnly"}
    fresh = _text(pipeline.run_trial(cheap, trial)).set_index("learner")
    cols = [c for c in fresh.columns if c in rows.columns and c != "fit_seconds"]
    assert {"n_pub", "error", "error_se", "train_error", "learner_seed"} <= set(cols)
    pd.testing.assert_series_equal(fresh.loc["erm", cols], rows.loc["erm", cols],
                                   check_names=False)
    for c in ("n_pub", "n_priv", "opt", "opt_test", "n_test", "seed"):
        assert rows.loc["ppm", c] == fresh.loc["erm", c], c

    population = instantiate(spec["population"])
    X, _, public = population.sample(n, random_state=seeding.stream_seed(spec, trial,
                                                                          seeding.SAMPLE))
    hs = construct_halfspaces(X[public], n_features=D, rel_tol=spec["learner"]["rel_tol"])
    assert len(hs) == int(float(rows.loc["ppm", "n_halfspaces"]))
    size = hypothesis_class_size_from_halfspaces(len(hs), D)
    assert float(rows.loc["ppm", "n_hypotheses"]) == float(size)
    assert float(rows.loc["ppm", "log_n_hypotheses"]) == math.log(size)


def test_both_epsilons_of_a_tail_trial_scored_one_sample(tail):
    """C4's breakdown resamples a trial's rows jointly (one sample scored at each epsilon, and
    ERM on it): at each (n, trial) the two epsilon cells drew the same public points (one
    |G|) and ERM made the same errors in both."""
    ppm = tail[tail.learner == "ppm"].groupby(["n", "trial"])
    assert (ppm["learner.epsilon"].nunique() == 2).all()
    assert (ppm[["n_pub", "n_hypotheses"]].nunique() == 1).all().all()
    erm = tail[tail.learner == "erm"].groupby(["n", "trial"])
    assert (erm["cell_key"].nunique() == 2).all()
    assert (erm[["n_pub", "error", "train_error", "learner_seed"]].nunique() == 1).all().all()
