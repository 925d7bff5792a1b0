"""The README shows the committed results, not stale numbers."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert head.index("make reproduce") < head.index("make test")


def test_readme_c1_table_is_the_generated_summary():
    summary = (ROOT / "results" / "c1_realizable" / "summary.md").read_text().strip()
    assert summary in (ROOT / "README.md").read_text()


def test_committed_figures_exist():
    assert (ROOT / "results" / "figures" / "c1_realizable.png").stat().st_size > 10_000
