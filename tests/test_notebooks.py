"""Every notebook (jupytext percent scripts in notebooks/) executes headless on the committed
CSVs through the code path of ``make notebook`` (``analysis/notebooks.py``), its figures inline."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.notebooks import execute, to_html

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.py"))


def test_there_is_a_notebook():
    assert NOTEBOOKS


# What each notebook must print (its stdout) and how many figures it must draw at least.
EXPECTED = {
    # n_hat vs alpha, n_hat vs a swept column
    "inspect_results.py": (("n_hat",), 2),
    # accuracy vs epsilon, the paired differences; the accountant's sums over the 10 splits
    # (10 fits at epsilon 1 spend 10), and every learner of the real-data figure
    "privacy_utility.py": (("spent=10, fits=10", "fair DP-LR", "diffprivlib", "public only",
                            "PPM - fair DP-LR"), 2),
}


def test_every_notebook_has_its_expectations():
    assert {p.name for p in NOTEBOOKS} == set(EXPECTED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_with_its_figures_inline(path, tmp_path, monkeypatch):
    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel picks its inline backend
    nb = execute(path, ROOT / "results")  # any cell error raises here
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.get("output_type") == "stream")
    words, n_images = EXPECTED[path.name]
    for word in words:
        assert word in text, word
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert len(images) >= n_images
    html = to_html(nb, tmp_path / f"{path.stem}.html")
    assert html.read_text().count("data:image/png;base64,") >= len(images)
