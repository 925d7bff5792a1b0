"""A rerun that reproduces a committed table leaves its file alone (``git status`` stays clean).

Only timings (``*_seconds``) and execution-only settings (``learner.max_hypotheses`` raised
since the committed run, ...) may differ between the committed table and a reproduction; any
other cell that differs, even in its last written digit, replaces the file. Summary tables
write float noise (6.2e-16 for a slope that is 0 by construction) as 0.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pandas as pd

from experiments import committed
from ppm.files import write_csv_atomic, zero_float_noise

ROOT = Path(__file__).resolve().parents[1]
TRIALS = ROOT / "results" / "c4_dimension_d3" / "trials.csv"  # PPM rows: every setting column


def test_volatile_columns_are_timings_and_execution_settings_only():
    cols = pd.read_csv(TRIALS, nrows=1).columns
    volatile = set(committed.volatile_columns(cols))
    assert {"fit_seconds", "learner.max_hypotheses", "learner.method", "learner.device",
            "learner.block_elements"} <= volatile
    assert not volatile & {"error", "n", "trial", "learner.epsilon", "population.d", "seed",
                           "learner_seed", "n_hypotheses", "cell_key"}


def _rewritten(tmp_path, change):
    dest = tmp_path / "trials.csv"
    shutil.copy(TRIALS, dest)
    before = dest.read_bytes()
    df = pd.read_csv(TRIALS, dtype=str, keep_default_na=False)
    change(df)
    replaced = committed.write_csv_settled(df, dest)
    return replaced, dest.read_bytes() == before, list(tmp_path.iterdir())


def test_new_timings_and_execution_settings_keep_the_file(tmp_path):
    def change(df):
        df["fit_seconds"] = [str(float(v) * 1.37) if v else v for v in df["fit_seconds"]]
        ppm = df["learner"] == "ppm"
        df.loc[ppm, "learner.max_hypotheses"] = "100000000000000.0"  # 1e14 instead of 2e12
    replaced, same_bytes, left = _rewritten(tmp_path, change)
    assert not replaced and same_bytes
    assert [p.name for p in left] == ["trials.csv"]  # no temporary file left behind


def test_a_changed_result_replaces_the_file(tmp_path):
    def change(df):
        err = df.loc[0, "error"]
        df.loc[0, "error"] = err[:-1] + ("1" if err[-1] != "1" else "2")  # last digit
    replaced, same_bytes, _ = _rewritten(tmp_path, change)
    assert replaced and not same_bytes


def test_a_new_column_replaces_the_file(tmp_path):
    replaced, same_bytes, _ = _rewritten(tmp_path, lambda df: df.insert(3, "extra", "1"))
    assert replaced and not same_bytes


def test_float_noise_is_written_as_zero(tmp_path):
    df = pd.DataFrame({"slope": [6.2e-16, -7.5e-16, 0.05, np.nan], "name": ["a", "b", "c", "d"]})
    for noise in (df, df.assign(slope=[7.5e-16, -6.2e-16, 0.05, np.nan])):
        write_csv_atomic(zero_float_noise(noise), tmp_path / "s.csv", float_format="%.10g")
        text = (tmp_path / "s.csv").read_text()
        assert text == "slope,name\n0,a\n0,b\n0.05,c\n,d\n"


def test_committed_summaries_carry_no_float_noise():
    for path in sorted((ROOT / "results").glob("*/summary.csv")):
        df = pd.read_csv(path)
        floats = df.select_dtypes("float").to_numpy()
        tiny = np.abs(floats[np.isfinite(floats)])
        assert not ((tiny > 0) & (tiny < 1e-12)).any(), path
