"""The committed tables of C4's privacy price (results/c4_dimension/privacy_price*.csv) are the
design's (configs/c4_price.yaml): a few samples recomputed here give the committed rows."""

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis import mechanism_price as mp
from ppm.core.halfspaces import construct_halfspaces

ROOT = Path(__file__).resolve().parent.parent


def test_committed_cpu_rows_recompute_exactly():
    committed = pd.read_csv(ROOT / "results" / mp.CSV)
    design = mp.load_design()
    assert sorted(committed["d"].unique()) == list(design.dims_cpu)
    assert committed.groupby("d")["sample"].nunique().eq(design.samples).all()
    assert sorted(committed["epsilon"].unique()) == sorted(design.epsilons)
    for d in design.dims_cpu:
        got = pd.DataFrame(mp.sample_rows(design, d, 1)).drop(columns="histogram_seconds")
        want = committed[(committed.d == d) & (committed["sample"] == 1)]
        want = want.drop(columns="histogram_seconds").reset_index(drop=True)
        pd.testing.assert_frame_equal(got, want, check_dtype=False, rtol=1e-12)


GPU = ROOT / "results" / mp.CSV_GPU


@pytest.mark.skipif(not GPU.exists(), reason="the d = 4 rows of the GPU batch are not committed")
def test_committed_gpu_rows_are_the_designs_samples():
    # the histogram needs a GPU (or minutes of a CPU, below); each sample's draw, its class and
    # Lemma 4.6's bound are cheap: they must be the design's, for every sample and epsilon
    rows = pd.read_csv(GPU)
    design = mp.load_design()
    assert set(rows.d) == set(design.dims_gpu)
    assert rows.groupby("d")["sample"].nunique().eq(design.samples).all()
    assert (rows.groupby(["d", "sample"])["epsilon"].apply(sorted)
            .map(lambda e: e == sorted(design.epsilons)).all())
    assert (rows.n == design.n).all() and (rows.n_pub == design.n_pub).all()
    for s in range(design.samples):
        r = rows[(rows.d == 4) & (rows["sample"] == s)]
        X, _, public = mp.fixed_sample(design, 4, s)
        m = len(construct_halfspaces(X[public], n_features=4))
        assert (r.n_halfspaces == m).all()
        size = 1 + sum(math.comb(m, j) for j in range(1, 5))  # |G| (BMN20's ConstrHalf class)
        assert np.allclose(r.log_G, math.log(size), rtol=1e-12)
        # Lemma 4.6's bound (2/eps)(ln|G| + ln 1/beta)
        assert np.allclose(r.em_bound, 2 / r.epsilon * (math.log(size) - math.log(design.beta)),
                           rtol=1e-12)


@pytest.mark.skipif(os.environ.get("PPM_TEST_LONG") != "1" or not GPU.exists(),
                    reason="recomputes a d = 4 sample's whole histogram on the CPU (2.6e11 "
                           "hypotheses, ~2.5 min on 2 cores): set PPM_TEST_LONG=1")
def test_a_gpu_made_sample_recomputes_on_the_cpu():
    design = mp.load_design()
    got = pd.DataFrame(mp.sample_rows(design, 4, 0, device="cpu"))
    want = pd.read_csv(GPU)
    want = want[(want.d == 4) & (want["sample"] == 0)].reset_index(drop=True)
    pd.testing.assert_frame_equal(got.drop(columns="histogram_seconds"),
                                  want.drop(columns="histogram_seconds"),
                                  check_dtype=False, rtol=1e-12)


NESTED = ROOT / "results" / mp.NESTED_CSV


@pytest.mark.skipif(not NESTED.exists(), reason="the counted nested table is not committed")
def test_committed_nested_rows_are_the_designs_and_recompute():
    committed = pd.read_csv(NESTED)
    design = mp.load_nested_design()
    assert sorted(committed["d"].unique()) == list(design.dims)
    assert committed.groupby("d")["sample"].nunique().eq(design.samples).all()
    assert sorted(committed["n_pub"].unique()) == list(design.n_pubs)
    for d in design.dims:  # the smallest n_pub of sample 2: cheap at every d
        got = pd.DataFrame(mp.nested_rows(design, d, 2, n_pubs=[design.n_pubs[0]]))
        want = committed[(committed.d == d) & (committed["sample"] == 2)
                         & (committed.n_pub == design.n_pubs[0])].reset_index(drop=True)
        pd.testing.assert_frame_equal(got.drop(columns="histogram_seconds"),
                                      want.drop(columns="histogram_seconds"),
                                      check_dtype=False, rtol=1e-12)


def test_nested_public_sets_share_the_private_rows():
    design = mp.load_nested_design()
    X12, y12, p12 = mp.nested_sample(design, 2, 0, 12)
    X20, y20, p20 = mp.nested_sample(design, 2, 0, 20)
    assert int(p12.sum()) == 12 and int(p20.sum()) == 20
    assert np.array_equal(X12[p12], X20[p20][:12])  # the public sets are nested
    assert np.array_equal(X12[~p12], X20[~p20]) and (~p12).sum() == design.n_priv
    assert not np.array_equal(X12, mp.nested_sample(design, 2, 1, 12)[0])


def test_the_blind_prediction_is_the_committed_d3_rows_and_predates_d4():
    # configs/c4_predictions.yaml is what claims.c4.blind.predict gives on the committed
    # d = 3 rows; d^2 and d's intervals do not overlap, so the d = 4 rows can separate them
    from claims.c4 import blind as c4_blind
    pred = c4_blind.load_predictions()
    assert pred == c4_blind.predict(pd.read_csv(ROOT / "results" / mp.CSV))
    m2, m1 = pred["models"]["d^2"], pred["models"]["d"]
    assert m1["hi"] < m2["lo"]
    assert design_uncapped_at_d4()
    if not GPU.exists():
        with pytest.raises(ValueError):  # once d = 4 rows exist, no new prediction
            c4_blind.write_predictions(pd.read_csv(ROOT / "results" / mp.CSV), True,
                                       path=ROOT / "no_such_file.yaml")


def design_uncapped_at_d4() -> bool:
    from claims.c4 import blind as c4_blind
    design = mp.load_design()
    return mp.load_nested_design().uncapped(c4_blind.D_TO, design.n_pub, c4_blind.EPSILON)
