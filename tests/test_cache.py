"""The trial cache (experiments/cache.py): one SQLite store per cell, one row per trial.

Checked here: a stored trial reads back as the exact text ``DataFrame.to_csv(index=False)``
writes (the former per-trial file's bytes); concurrent writers of one store lose nothing and
never overwrite a stored trial; a cell of the former layout (one CSV per trial) is migrated
into its store; restore stores the committed trials marked restored, forget deletes those and
nothing else; a second restore of an unchanged ``trials.csv`` reads nothing, a changed one is
read again.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from pathlib import Path

import pandas as pd
import pytest
from hydra import compose, initialize_config_dir

import experiments.pipeline as pipeline
from experiments import cache, seeding
from experiments.schema import register_configs
from ppm.files import write_csv_atomic

ROOT = Path(__file__).resolve().parent.parent


def _spec(tmp_path, *extra):
    register_configs()
    with initialize_config_dir(config_dir=str(ROOT / "configs"), version_base="1.3"):
        cfg = compose(config_name="config", overrides=[
            f"results_root={tmp_path}", "n=12", "trials=3", "n_test=400", *extra])
    return pipeline.validate_config(cfg)


def _rows(cell: Path) -> dict[int, tuple[str, int]]:
    with sqlite3.connect(cell / cache.STORE) as con:
        rows = {t: (text, r) for t, text, r in con.execute(
            "SELECT trial, csv, restored FROM trials")}
    con.close()
    return rows


def test_a_stored_trial_is_the_text_of_the_former_trial_file(tmp_path):
    spec = _spec(tmp_path, "experiment=c10_homogeneity")  # several learners
    df = pipeline.run_trial(spec, 1)
    assert df["learner"].nunique() > 1
    cell = tmp_path / "cell"
    assert cache.write_trial(df, cell, 1)
    write_csv_atomic(df, tmp_path / "trial_00001.csv")  # what the former layout wrote
    old = (tmp_path / "trial_00001.csv").read_bytes()
    assert cache.read_texts(cell, [0, 1]) == {1: df.to_csv(index=False)}
    assert cache.read_texts(cell, [1])[1].encode() == old
    back = cache.read_trials(cell, [1])
    pd.testing.assert_frame_equal(back, pd.read_csv(tmp_path / "trial_00001.csv"),
                                  check_exact=True)
    pd.testing.assert_frame_equal(back, df, check_exact=True, check_dtype=False)
    assert back.to_csv(index=False).encode() == old
    assert cache.finished(cell) == {1} and cache.count(cell) == 1 and cache.count(cell, 1) == 0
    # never overwritten
    assert not cache.write_text(cell, 1, "other\n")
    assert cache.read_texts(cell, [1])[1].encode() == old
    with pytest.raises(KeyError):
        cache.read_trials(cell, [0, 1])


def _per_trial(cell, trials):
    """The reference reading: every trial parsed on its own, then concatenated."""
    import io
    from experiments import columns
    texts = cache.read_texts(cell, trials)
    return pd.concat([columns.order_columns(pd.read_csv(io.StringIO(texts[t]))) for t in trials],
                     ignore_index=True)


@pytest.mark.parametrize("frames", [
    # int in one trial, float in another; NaN beside text; bool beside NaN; a float's last digit
    [{"trial": [0], "error": [1], "note": [None], "flag": [True], "x": [0.1 + 0.2]},
     {"trial": [1], "error": [0.25], "note": ["a,b"], "flag": [None], "x": [1e-17]},
     {"trial": [2], "error": [3], "note": ["7"], "flag": [False], "x": [123456789.123456789]}],
    # a trial with several rows (learners), one header
    [{"trial": [0, 0], "learner": ["ppm", "erm"], "error": [0.1, 0.2]},
     {"trial": [1, 1], "learner": ["ppm", "erm"], "error": [0, 1]}],
    # headers that differ (a column added later): read trial by trial
    [{"trial": [0], "error": [0.5]}, {"trial": [1], "error": [0.25], "extra": ["x"]}],
])
def test_reading_a_cell_at_once_equals_reading_it_trial_by_trial(tmp_path, frames):
    cell = tmp_path / "cell"
    for i, f in enumerate(frames):
        cache.write_trial(pd.DataFrame(f), cell, i)
    trials = list(range(len(frames)))
    got, want = cache.read_trials(cell, trials), _per_trial(cell, trials)
    pd.testing.assert_frame_equal(got, want)
    assert got.to_csv(index=False) == want.to_csv(index=False)


def test_reading_a_cell_without_a_store_creates_nothing(tmp_path):
    cell = tmp_path / "cache" / "nokey"
    assert cache.finished(cell) == set() and cache.count(cell, 5) == 0
    assert cache.read_texts(cell, [0]) == {} and cache.trial_times(cell) == {}
    assert cache.forget(tmp_path / "cache") == 0
    assert cache.trials_since(tmp_path / "cache", 0) == (0, 0)
    assert not (tmp_path / "cache").exists()


def _writer(args) -> list[int]:
    cell, name, trials = args
    return [t for t in trials if cache.write_text(cell, t, f"{name},{t}\n")]


def test_concurrent_writers_lose_nothing_and_overwrite_nothing(tmp_path):
    cell = tmp_path / "cell"
    cache.write_text(cell, 150, "first,150\n")  # stored before the writers start
    jobs = [(cell, "a", range(0, 200)), (cell, "b", range(100, 300)),
            (cell, "c", range(0, 300, 7))]
    with multiprocessing.get_context("spawn").Pool(3) as pool:
        stored = pool.map(_writer, jobs)
    rows = _rows(cell)
    assert sorted(rows) == list(range(300))
    # every trial stored exactly once, by whichever writer came first, and never replaced
    claimed = sorted(t for got in stored for t in got)
    assert claimed == sorted(set(range(300)) - {150})
    for (_, name, _), got in zip(jobs, stored):
        for t in got:
            assert rows[t] == (f"{name},{t}\n", 0)
    assert rows[150] == ("first,150\n", 0)
    assert cache.finished(cell) == set(range(300))


def _legacy_cell(cache_root: Path, key: str) -> tuple[Path, dict[int, bytes]]:
    cell = cache_root / key
    cell.mkdir(parents=True)
    (cell / "config.json").write_text("{}")
    texts = {t: f"trial,learner,error\n{t},ppm,0.{t}5\n{t},erm,1e-{t + 1}\n".encode()
             for t in range(4)}
    for t, text in texts.items():
        (cell / f"trial_{t:05d}.csv").write_bytes(text)
    (cell / "restored.txt").write_text("trial_00001.csv\ntrial_00003.csv\n")
    (cell / "trial_00004.csvab12.tmp").write_text("half a fi")  # a killed atomic write
    return cell, texts


def test_a_cell_of_the_former_layout_is_migrated_on_first_open(tmp_path):
    cell, texts = _legacy_cell(tmp_path / "cache", "k1")
    assert cache.finished(cell) == {0, 1, 2, 3}
    assert sorted(p.name for p in cell.iterdir() if not p.name.startswith(cache.STORE)) == [
        "config.json"]
    rows = _rows(cell)
    assert {t: text.encode() for t, (text, _) in rows.items()} == texts
    assert {t for t, (_, r) in rows.items() if r} == {1, 3}
    # the pipeline reads it as it read the files
    df = cache.read_trials(cell, range(4))
    assert list(df["trial"]) == [0, 0, 1, 1, 2, 2, 3, 3]
    # forget deletes the restored trials only (a legacy cell is migrated by forget too)
    other, _ = _legacy_cell(tmp_path / "cache", "k2")
    assert cache.forget(tmp_path / "cache") == 4
    assert sorted(_rows(cell)) == [0, 2] and sorted(_rows(other)) == [0, 2]
    assert not (other / "restored.txt").exists()


def _committed(tmp_path: Path) -> tuple[Path, pd.DataFrame]:
    """A committed trials.csv of two cells made by the pipeline itself."""
    frames = []
    for n in (12, 14):
        spec = _spec(tmp_path / "run", "experiment=c10_homogeneity", f"n={n}")
        df = pipeline.run({**spec, "n_jobs": 1})
        frames.append(df)
    table = pd.concat(frames, ignore_index=True)
    path = tmp_path / "committed" / "trials.csv"
    path.parent.mkdir()
    table.to_csv(path, index=False)
    return path, table


def test_restore_then_forget_deletes_only_the_restored_trials(tmp_path):
    path, table = _committed(tmp_path)
    own = {(k, t): text for k, t, text, _, _ in cache.scan(tmp_path / "run" / "cache")}
    assert len(own) == 6
    target = tmp_path / "target"
    key = table["cell_key"].iloc[0]
    # one trial computed here before the restore: kept as it is, never marked restored
    cache.write_text(target / key, 0, own[(key, 0)])
    assert cache.restore(path, target) == (5, 1)
    got = {(k, t): (text, r) for k, t, text, r, _ in cache.scan(target)}
    assert {kt: text for kt, (text, _) in got.items()} == own  # byte for byte
    assert [kt for kt, (_, r) in got.items() if not r] == [(key, 0)]
    assert cache.forget(target) == 5
    assert [(k, t) for k, t, *_ in cache.scan(target)] == [(key, 0)]
    assert not (target / cache.MANIFEST).exists()
    assert cache.restore(path, target) == (5, 1)  # forgotten: restored again


def test_a_second_restore_of_an_unchanged_file_reads_nothing(tmp_path, monkeypatch):
    path, table = _committed(tmp_path)
    target = tmp_path / "target"
    assert cache.restore(path, target) == (6, 0)
    stores = {p: p.stat().st_mtime_ns for p in target.glob(f"*/{cache.STORE}")}
    assert len(stores) == 2

    def no_reading(*a, **k):
        raise AssertionError("an unchanged trials.csv was read")

    with monkeypatch.context() as m:
        m.setattr(pd, "read_csv", no_reading)
        assert cache.unchanged(path, target) == 6
        assert cache.restore(path, target) == (0, 6)
    assert {p: p.stat().st_mtime_ns for p in target.glob(f"*/{cache.STORE}")} == stores
    # a changed file is read again (one more trial of the first cell)
    key = table["cell_key"].iloc[0]
    extra = table[(table.cell_key == key) & (table.trial == 2)].assign(trial=7)
    pd.concat([table, extra], ignore_index=True).to_csv(path, index=False)
    assert cache.unchanged(path, target) is None
    assert cache.restore(path, target) == (1, 6)
    assert cache.restore(path, target) == (0, 7)
    # so is an unchanged file whose cell was deleted from the cache
    (target / key / cache.STORE).unlink()
    assert cache.unchanged(path, target) is None
    assert cache.restore(path, target) == (4, 3)


def test_restore_cache_says_one_line_for_unchanged_experiments(tmp_path):
    from experiments.restoring import restore_experiments

    path, _ = _committed(tmp_path)
    source = path.parent.parent
    (source / "exp").mkdir()
    path.rename(source / "exp" / "trials.csv")
    lines = []
    restore_experiments(["absent", "exp"], source, tmp_path / "target", say=lines.append)
    assert len(lines) == 2 and "exp: restored 6 trials" in lines[1]
    assert lines[0].startswith("restore_cache: absent: no committed")
    lines.clear()
    restore_experiments(["exp"], source, tmp_path / "target", say=lines.append)
    assert lines == [f"restore_cache: 1 experiment(s) unchanged since restored (6 trials already "
                     f"in {tmp_path / 'target'})"]


def test_the_pipeline_resumes_from_the_store(tmp_path, monkeypatch):
    spec = _spec(tmp_path, "trials=4", "n_jobs=2")
    first = pipeline.run(spec)
    cell = tmp_path / "cache" / seeding.cell_key(spec)
    assert sorted(p.name for p in cell.iterdir() if not p.name.endswith(("-wal", "-shm"))) == [
        "config.json", cache.STORE]
    assert cache.finished(cell) == {0, 1, 2, 3}
    calls = []
    real = pipeline.run_trial
    monkeypatch.setattr(pipeline, "run_trial", lambda s, t: (calls.append(t), real(s, t))[1])
    with sqlite3.connect(cell / cache.STORE) as con:
        con.execute("DELETE FROM trials WHERE trial = 2")
    con.close()
    again = pipeline.run({**spec, "n_jobs": 1})
    assert calls == [2]
    cols = [c for c in first.columns if c != "fit_seconds"]
    pd.testing.assert_frame_equal(first[cols], again[cols], check_exact=True)


def test_a_sweep_complete_in_the_cache_writes_what_its_jobs_write(tmp_path):
    """experiments/finished.py: a sweep whose every cell is in the cache gets each job's
    trials.csv and .hydra/config.yaml byte for byte as Hydra's jobs wrote them (same job
    numbers), without launching it; a sweep short of one trial gets nothing."""
    import os
    import subprocess
    import sys

    from omegaconf import OmegaConf

    from analysis.aggregate import aggregate
    from experiments import finished

    task = ["experiment=c8_eta_quick", f"results_root={tmp_path / 'r'}", "trials=2",
            "n_test=500", "n=8,16", "hydra.launcher.n_jobs=1", "n_jobs=1"]
    assert finished.write_finished(task, tmp_path / "fast") is None
    assert not (tmp_path / "fast").exists()
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "experiments.run", "--multirun", *task,
                    f"hydra.sweep.dir={tmp_path / 'hydra'}"], cwd=ROOT, env=env, check=True,
                   capture_output=True, timeout=600)
    jobs = sorted(p.parent.name for p in (tmp_path / "hydra").glob("*/trials.csv"))
    assert finished.write_finished(task, tmp_path / "fast") == len(jobs) > 2
    assert sorted(p.parent.name for p in (tmp_path / "fast").glob("*/trials.csv")) == jobs
    for job in jobs:
        a, b = tmp_path / "hydra" / job, tmp_path / "fast" / job
        assert (a / "trials.csv").read_bytes() == (b / "trials.csv").read_bytes(), job
        assert (OmegaConf.to_container(OmegaConf.load(a / ".hydra" / "config.yaml"))
                == OmegaConf.to_container(OmegaConf.load(b / ".hydra" / "config.yaml")))
    aggregate(tmp_path / "hydra", tmp_path / "agg_hydra")
    aggregate(tmp_path / "fast", tmp_path / "agg_fast")
    for name in ("trials.csv", "n_hat.csv"):
        assert ((tmp_path / "agg_hydra" / name).read_bytes()
                == (tmp_path / "agg_fast" / name).read_bytes())
    # one trial short: the sweep is launched as before
    store = next((tmp_path / "r" / "cache").glob(f"*/{cache.STORE}"))
    with sqlite3.connect(store) as con:
        con.execute("DELETE FROM trials WHERE trial = 1")
    con.close()
    assert finished.write_finished(task, tmp_path / "again") is None
    assert not (tmp_path / "again").exists()


def test_a_cell_of_like_trials_is_parsed_once(tmp_path, monkeypatch):
    """The common cell (one header, text columns filled in every trial) is one parse, not one
    per trial: what makes a restored sweep's tables quick to write."""
    cell = tmp_path / "cell"
    for t in range(50):
        cache.write_trial(pd.DataFrame({"trial": [t, t], "learner": ["ppm", "erm"],
                                        "error": [0.1 * t, 0.2]}), cell, t)
    calls = []
    real = pd.read_csv
    monkeypatch.setattr(pd, "read_csv", lambda *a, **k: calls.append(1) or real(*a, **k))
    table = cache.read_trials(cell, range(50))
    assert len(calls) == 1 and len(table) == 100
    assert table.to_csv(index=False) == _per_trial(cell, list(range(50))).to_csv(index=False)
