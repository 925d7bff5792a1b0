"""A second ``make reproduce`` with nothing changed does no work: the steps that derive files
skip themselves when their inputs, code and options are unchanged (``experiments/stamps.py``),
and a changed input redoes exactly what depends on it. Work is counted (calls), never timed.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import matplotlib
import pytest

matplotlib.use("Agg")

from claims.reporting import report  # noqa: E402
from experiments import stamps  # noqa: E402
from claims import registry  # noqa: E402
from claims.reporting import figures  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "results"
# two cheap claims with committed tables (C9 also reads C12's sweep)
TABLES = ("c5_mixture_weight", "c5_mixture_weight_d2", "c9_domain", "c12_grid_halfplanes")


@pytest.fixture()
def root(tmp_path) -> Path:
    out = tmp_path / "root"
    for name in TABLES:
        (out / name).mkdir(parents=True)
        for f in ("trials.csv", "n_hat.csv"):
            shutil.copy(RESULTS / name / f, out / name / f)
    return out


@pytest.fixture()
def analysed(monkeypatch) -> list[str]:
    """The claims the figures step analyses, one entry per call of
    claims.reporting.report.write_claim."""
    calls: list[str] = []
    real = report.write_claim

    def counting(claim, results):
        calls.append(claim.id)
        return real(claim, results)

    monkeypatch.setattr(report, "write_claim", counting)
    return calls


def _figures(root: Path, only=("C5", "C9"), n_boot: int = 20, force: bool = False) -> int:
    """The figures step (``python -m scripts.figures --only ...``) on ``root``, in this
    process."""
    return figures.draw([registry.get(k) for k in only], root, n_boot=n_boot, n_jobs=1,
                        force=force)


def test_a_second_figures_step_does_no_work_and_a_changed_table_redoes_its_claim(
        root, analysed, capsys):
    assert _figures(root) == 0
    assert sorted(analysed) == ["C5", "C9"]
    drawn = {p: p.read_bytes() for p in (root / "figures").glob("*.png")}
    assert len(drawn) == 2
    capsys.readouterr()

    analysed.clear()
    assert _figures(root) == 0
    out = capsys.readouterr().out
    assert analysed == []  # nothing analysed, nothing drawn
    assert "skipped, unchanged" in out and "all 2 claims" in out
    assert all(len(line) <= 100 for line in out.splitlines())
    assert {p: p.read_bytes() for p in (root / "figures").glob("*.png")} == drawn

    # a new modification time, the same bytes: still no work (a clone, a copy)
    nhat = root / "c9_domain" / "n_hat.csv"
    nhat.write_bytes(nhat.read_bytes())
    analysed.clear()
    assert _figures(root) == 0 and analysed == []

    # C9's table changes (a trailing blank line: the same numbers, other bytes): C9 alone
    with open(nhat, "a") as f:
        f.write("\n")
    capsys.readouterr()
    analysed.clear()
    assert _figures(root) == 0
    assert analysed == ["C9"]
    out = capsys.readouterr().out
    assert "1 of 2 claims (C5)" in out

    # C12's table is read by C9 only (recorded, not declared): C9 alone again
    with open(root / "c12_grid_halfplanes" / "n_hat.csv", "a") as f:
        f.write("\n")
    analysed.clear()
    assert _figures(root) == 0 and analysed == ["C9"]


def test_a_missing_output_or_another_option_redoes_the_claim(root, analysed):
    assert _figures(root) == 0
    (root / "figures" / "c5_mixture_weight.png").unlink()
    analysed.clear()
    assert _figures(root) == 0 and analysed == ["C5"]
    analysed.clear()
    assert _figures(root, only=("C9",), n_boot=21) == 0
    assert analysed == ["C9"]
    analysed.clear()
    assert _figures(root, only=("C9",), n_boot=21, force=True) == 0
    assert analysed == ["C9"]


def test_a_step_through_the_stamp_runner_is_skipped_until_what_it_read_changes(
        tmp_path, capsys, monkeypatch):
    """``python -m experiments.stamps ... -- module args``: the files the step read and wrote
    are recorded by the audit hook; the step reruns when one of them changes."""
    pkg = tmp_path / "steps"
    pkg.mkdir()
    (pkg / "stepmod.py").write_text(
        "import sys\nfrom pathlib import Path\n"
        "root = Path(sys.argv[sys.argv.index('--results') + 1])\n"
        "COUNT = Path(sys.argv[sys.argv.index('--count') + 1])\n"
        "COUNT.write_text(str(int(COUNT.read_text() or 0) + 1)) if COUNT.exists() "
        "else COUNT.write_text('1')\n"
        "text = (root / 'in.csv').read_text()\n"
        "(root / 'out.csv').write_text(text.upper())\n"
        "print('digest:', text.strip())\n")
    monkeypatch.syspath_prepend(str(pkg))
    root = tmp_path / "r"
    root.mkdir()
    (root / "in.csv").write_text("a,b\n")
    count = tmp_path / "count"  # outside the root: not an input of the step

    def step() -> str:
        argv = sys.argv[:]
        try:
            assert stamps.main(["--root", str(root), "--name", "demo", "--label", "the demo",
                                "--replay", "--watch", "*/summary.csv", "--", "stepmod",
                                "--results", str(root),
                                "--count", str(count)]) == 0
        finally:
            sys.argv = argv
            sys.modules.pop("stepmod", None)
        return capsys.readouterr().out

    assert "digest: a,b" in step() and count.read_text() == "1"
    again = step()
    assert count.read_text() == "1"  # not run
    assert again.splitlines()[0].startswith("== skipped, unchanged since its last run")
    assert "digest: a,b" in again  # its output replayed
    (root / "out.csv").write_text("tampered")
    step()
    assert count.read_text() == "2" and (root / "out.csv").read_text() == "A,B\n"
    (root / "in.csv").write_text("c,d\n")
    assert "digest: c,d" in step() and count.read_text() == "3"
    step()
    assert count.read_text() == "3"
    # a file the step would read if it existed (a watched glob) appears: a change
    (root / "c9").mkdir()
    (root / "c9" / "summary.csv").write_text("claim\nC9\n")
    step()
    assert count.read_text() == "4"


def test_stamps_live_in_the_ignored_trial_cache():
    """The committed root's stamps sit under results/cache/ (ignored by git, and cleared by
    make clean-cache), so a second run leaves git status clean."""
    path = stamps.stamp_path(RESULTS, "figures", "c5_mixture_weight")
    assert path.relative_to(RESULTS).parts[0] == "cache"
    assert "results/cache/" in (ROOT / ".gitignore").read_text().split()


def test_an_unchanged_sweep_is_neither_composed_nor_aggregated_and_a_new_trial_redoes_it(
        tmp_path, monkeypatch):
    """``scripts.run_sweeps``: a sweep whose stamp is fresh (the same configs and code, each
    cell's stored trials, its two tables) is skipped in one line; one more trial in one of its
    cells, or an edited table, runs its last steps again (experiments/sweep_stamps.py)."""
    import os
    import subprocess

    from experiments import cache
    from experiments.sweep_stamps import stamp_sweeps, sweep_fresh, sweep_options

    monkeypatch.delenv("PPM_ARGS", raising=False)
    results, outputs, name = tmp_path / "r", tmp_path / "o", "c5_mixture_weight"
    key = "0123456789abcdef"
    cache.write_text(results / "cache" / key, 0, "trial,error\n0,0.5\n")
    (outputs / name / "0").mkdir(parents=True)
    (outputs / name / "0" / "trials.csv").write_text(f"cell_key,trial\n{key},0\n")
    (results / name).mkdir(parents=True)
    for table in ("trials.csv", "n_hat.csv"):
        (results / name / table).write_text("a\n1\n")
    options = sweep_options(name, "_quick", [])

    def fresh() -> bool:
        return sweep_fresh(str(results), name, options)

    assert not fresh()  # never stamped
    stamp_sweeps(str(results), str(outputs), [name], "_quick", [])
    assert fresh()
    # the command skips it in one line, composing and aggregating nothing
    env = {k: v for k, v in os.environ.items() if k != "PPM_ARGS"}
    proc = subprocess.run([sys.executable, "-m", "scripts.run_sweeps", "--results", str(results),
                           "--suffix", "_quick", "--outputs", str(outputs), name], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "skipped, unchanged since aggregated" in proc.stdout and "all 1 sweep(s)" in proc.stdout
    assert (outputs / name / "0" / "trials.csv").is_file()  # nothing launched or removed

    cache.write_text(results / "cache" / key, 1, "trial,error\n1,0.25\n")  # one more trial
    assert not fresh()
    stamp_sweeps(str(results), str(outputs), [name], "_quick", [])
    assert fresh()  # stamped again after aggregating
    (results / name / "n_hat.csv").write_text("a\n2\n")
    assert not fresh()
    stamp_sweeps(str(results), str(outputs), [name], "_quick", [])
    assert fresh()
    monkeypatch.setenv("PPM_ARGS", "trials=3")  # other options: not the same sweep
    assert not sweep_fresh(str(results), name, sweep_options(name, "_quick", ["trials=3"]))
