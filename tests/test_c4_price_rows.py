"""The committed tables of C4's privacy price (results/c4_dimension/privacy_price*.csv) are the
design's (configs/c4_price.yaml): a few samples recomputed here give the committed rows."""

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
    # the histogram needs a GPU; the sample and its class are cheap: they must be the design's
    rows = pd.read_csv(GPU)
    design = mp.load_design()
    for s in range(3):
        r = rows[(rows.d == 4) & (rows["sample"] == s)].iloc[0]
        X, _, public = mp.fixed_sample(design, 4, s)
        hs = construct_halfspaces(X[public], n_features=4)
        assert int(r.n_halfspaces) == len(hs)
        assert np.isclose(r.log_G, np.log(float(mp.class_sizes(design, 4, s + 1)[s])))
