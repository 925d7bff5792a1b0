"""GPU batches (experiments/gpu_batch.py, their runs analysis/gpu_batch_run.py, the command line
scripts/gpu_batch.py) and their H100 estimate (experiments/cost.py): the replayed |G| is the
learner's, the memo model, one-line errors, the committed batch files within the budget, and the
whole run path on the CPU (``--device cpu``) giving the rows of the same cells run directly,
then reusing every trial."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from analysis import gpu_batch_run as runner
from experiments import cost, gpu_batch, seeding
from experiments.pipeline import run as run_cell

ROOT = Path(__file__).resolve().parent.parent
EXP = "c4_dimension_d3_wpub"  # d = 3, a histogram memo; n <= 96 fits in milliseconds
TINY = ["n=96,64", "learner.epsilon=1.0,10.0", "trials=2"]


def write_batch(path: Path, overrides=TINY, name="tiny", experiment=EXP) -> Path:
    quoted = ", ".join(f'"{o}"' for o in overrides)
    path.write_text(f"# a test batch\nname: {name}\nexperiments:\n  - experiment: {experiment}\n"
                    f"    overrides: [{quoted}]\n")
    return path


def batch_cells(path: Path, out: Path, device="cpu") -> list[cost.Cell]:
    found = gpu_batch.cells(gpu_batch.load(path), out, device=device, workers=1)
    cost.estimate(found)
    return found


@pytest.fixture(scope="module")
def direct(tmp_path_factory):
    """The tiny batch's cells run directly through the pipeline (CPU, one worker)."""
    root = tmp_path_factory.mktemp("direct")
    with cost.hydra_ctx():
        cells = cost.experiment_cells(EXP, TINY, [f"results_root={root}", "n_jobs=1",
                                                  "learner.device=cpu"])
    frames = [run_cell(c.spec) for c in cells]
    return cells, pd.concat(frames, ignore_index=True)


def test_estimated_hypotheses_are_the_learners(direct, tmp_path):
    _, df = direct
    found = batch_cells(write_batch(tmp_path / "b.yaml"), tmp_path / "out")
    ppm = df[df["learner"] == "ppm"]
    assert len(found) == 4
    for cell in found:
        rows = ppm[ppm["cell_key"] == seeding.cell_key(cell.spec)].sort_values("trial")
        assert rows["trial"].tolist() == list(range(cell.trials))
        assert [int(g) for g in rows["n_hypotheses"]] == cell.sizes
    assert max(g for c in found for g in c.sizes) > 10_000  # a real G, not the empty class


def test_memo_model_charges_one_scoring_per_sample(tmp_path):
    found = batch_cells(write_batch(tmp_path / "b.yaml"), tmp_path / "out")
    # run order: epsilon by epsilon (the config's sweep lists learner.epsilon first)
    assert [(c.spec["learner"]["epsilon"], c.n) for c in found] == [
        (1.0, 96), (1.0, 64), (10.0, 96), (10.0, 64)]
    for first, again in zip(found[:2], found[2:]):
        assert first.sizes == again.sizes and first.sum_hypotheses > 0
        assert first.scored_hypotheses == first.sum_hypotheses
        assert again.scored_hypotheses == 0
        assert again.seconds == pytest.approx(again.trials * cost.FIT_OVERHEAD_S / cost.GPU_WORKERS)
        assert first.seconds > again.seconds
    # without a memo every epsilon scores its samples again
    no_memo = batch_cells(write_batch(tmp_path / "c.yaml", [*TINY, "learner.histogram_memo=null"]),
                          tmp_path / "out")
    assert all(c.scored_hypotheses == c.sum_hypotheses for c in no_memo)
    assert sum(c.seconds for c in no_memo) > sum(c.seconds for c in found)


def test_calibration_reproduces_the_measured_run():
    cal = cost.calibrate_overhead()
    assert cal["fits"] == 500
    assert cal["model_seconds"] == pytest.approx(cal["wall_seconds"], rel=0.10)


BAD = {
    "unknown top-level key": ("name: x\nexperiment: []\n", "unknown key 'experiment'"),
    "unknown entry key": ("name: x\nexperiments:\n  - experiment: c4_wpub06_d3\n"
                          "    overides: [n=64]\n", "unknown key 'overides'"),
    "no config": ("name: x\nexperiments:\n  - experiment: c4_wpub06_d33\n",
                  "configs/experiment/c4_wpub06_d33.yaml"),
    "bad value": (f"name: x\nexperiments:\n  - experiment: {EXP}\n"
                  "    overrides: ['learner.epsilon=-1.0', 'trials=2']\n", "-1.0"),
    "bad value in a later cell": (f"name: x\nexperiments:\n  - experiment: {EXP}\n"
                                  "    overrides: ['n=64,-5', 'trials=2']\n", "-5"),
    "unknown override key": (f"name: x\nexperiments:\n  - experiment: {EXP}\n"
                             "    overrides: ['learner.epsilonn=1.0']\n", "epsilonn"),
    "runner key": (f"name: x\nexperiments:\n  - experiment: {EXP}\n"
                   "    overrides: ['learner.device=cpu']\n", "learner.device"),
    "not yaml": ("name: x\nexperiments: [\n", "not valid YAML"),
    "bad name": ("name: a b\nexperiments:\n  - experiment: c4_wpub06_d3\n", "'a b'"),
    "price dims": ("name: x\nprice:\n  dims: [0]\n", "price.dims must be"),
    "price and experiments": (f"name: x\nprice:\n  dims: [4]\nexperiments:\n  - experiment: "
                              f"{EXP}\n", "either experiments or price"),
}


def test_price_batch_runs_the_price_table_on_the_device(tmp_path, capsys):
    from analysis import mechanism_price

    batch = gpu_batch.load(ROOT / "batches" / "gpu" / "c4_price_d4.yaml")
    assert batch.price_dims == (4,) and not batch.entries
    # the run is the library's price table at the batch's d, where make reproduce reads it
    # (here at d = 1 on 2 samples of the design, on the CPU)
    small = gpu_batch.Batch(batch.path, batch.name, [], (1,))
    dest = runner.run_price(small, tmp_path, device="cpu", samples=2)
    assert dest == tmp_path / mechanism_price.CSV_GPU == tmp_path / gpu_batch.PRICE_CSV_GPU
    got = pd.read_csv(dest).drop(columns="histogram_seconds")
    want = mechanism_price.price_table(mechanism_price.load_design(), (1,), 2)
    pd.testing.assert_frame_equal(got, want.drop(columns="histogram_seconds"), check_exact=True)
    assert f"wrote {dest}" in capsys.readouterr().out
    # the level-4 model: 200 samples of |G| = 2.6e11 at the H100's measured one-launch rate
    # (bench_gpu.csv: 1.9e11/s), plus the host's 0.25 s
    assert cost.price_seconds([2.6e11] * 200, 4, 192) == pytest.approx(
        200 * (2.6e11 / 1.9e11 + 0.25))


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_batch_fails_in_one_line(case, tmp_path):
    text, expected = BAD[case]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(gpu_batch.BatchError) as exc:  # before any cell is estimated or run
        batch = gpu_batch.load(path)
        gpu_batch.cells(batch, tmp_path / "out", device="cpu", workers=1)
    assert "\n" not in str(exc.value) and expected in str(exc.value)


def test_the_command_line_says_a_bad_batch_in_one_line(tmp_path):
    text, expected = BAD["unknown entry key"]
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "scripts.gpu_batch", str(path), "--estimate",
                           "--out", str(tmp_path / "out")], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 2 and proc.stdout == ""  # nothing estimated, nothing run
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], proc.stderr


def test_over_budget_is_refused_without_force(tmp_path, monkeypatch):
    path = write_batch(tmp_path / "b.yaml")
    minutes, _ = gpu_batch.estimate_minutes(path, tmp_path / "out")
    assert 0 < minutes and runner.over_budget("tiny", minutes) is None
    monkeypatch.setattr(gpu_batch, "BUDGET_MINUTES", minutes / 2)
    refusal = runner.over_budget("tiny", minutes, " (--force to run it)")
    assert "\n" not in refusal and refusal.endswith("(--force to run it)")
    assert refusal.startswith(f"batch tiny estimates {minutes:.1f} H100-minutes, over the budget")


COMMITTED = sorted((ROOT / "batches" / "gpu").glob("*.yaml"))


def test_there_are_committed_batches():
    assert COMMITTED


@pytest.mark.parametrize("path", COMMITTED, ids=[p.name for p in COMMITTED])
def test_committed_batch_fits_the_budget(path):
    batch = gpu_batch.load(path)
    if batch.price_dims:  # C4's price table: the exact |G| of every sample of the design
        minutes, lines = runner.price_estimate(batch)
        assert 0 < minutes <= gpu_batch.BUDGET_MINUTES, "\n".join(lines)
        assert batch.name == path.stem
        return
    minutes, found = gpu_batch.estimate_minutes(path)
    assert found and 0 < minutes <= gpu_batch.BUDGET_MINUTES, f"{path.name}: {minutes:.1f} min"
    assert gpu_batch.load(path).name == path.stem
    assert all(c.max_hypotheses <= gpu_batch.MAX_HYPOTHESES for c in found)


def _run_script(batch: Path, out: Path) -> str:
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT), "CI": "1"}
    proc = subprocess.run([sys.executable, "-m", "scripts.gpu_batch", str(batch), "--out",
                           str(out), "--device", "cpu", "--workers", "1"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_cpu_run_equals_the_cells_run_directly_and_resumes(direct, tmp_path):
    cells, df = direct
    batch, out = write_batch(tmp_path / "tiny.yaml"), tmp_path / "out"
    first = _run_script(batch, out)
    assert "8 trials: 0 in the trial cache (reused), 8 to compute" in first
    table = out / EXP / "trials.csv"
    got = pd.read_csv(table, low_memory=False, dtype={"cell_key": str})
    assert (out / EXP / "n_hat.csv").is_file()
    # every column but the fit times and the execution-only settings (device, memo path, ...)
    own = seeding.execution_params(cells[0].spec["learner"])
    skip = {"fit_seconds", *(f"learner.{p}" for p in own)}
    assert set(got.columns) == set(df.columns)
    cols = [c for c in df.columns if c not in skip]
    order = ["cell_key", "learner", "trial"]
    a = got[cols].sort_values(order).reset_index(drop=True)
    b = df[cols].astype({"cell_key": str}).sort_values(order).reset_index(drop=True)
    pd.testing.assert_frame_equal(a, b, check_dtype=False)
    # the execution-only columns are the config's (as make reproduce writes them), not the run's
    with cost.hydra_ctx():
        plain = seeding.to_container(cost.compose_cell([f"experiment={EXP}"]))
    ppm = got[got["learner"] == "ppm"]
    assert (ppm["learner.device"] == plain["learner"]["device"]).all()
    assert (ppm["learner.histogram_memo"] == plain["learner"]["histogram_memo"]).all()
    # the memo model is the run's: one stored histogram per sample the estimate charges
    found = batch_cells(batch, out)
    stored = list((out / "cache" / "histograms").glob("*/*.joblib"))
    assert len(stored) == sum(sum(c.scored) for c in found) == 4
    # a second run computes nothing and writes the same table
    before = table.read_bytes()
    second = _run_script(batch, out)
    assert "8 trials: 8 in the trial cache (reused), 0 to compute" in second
    assert table.read_bytes() == before
