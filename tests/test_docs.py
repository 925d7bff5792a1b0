"""The README and docs/ show the committed results, stay short, link to files that exist, and
cite the papers, never internal planning material."""

import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from claims.reporting import docs_blocks
from claims.registry import CLAIMS

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
# Pages another branch of the same change adds; drop an entry once the page is in the tree.
PENDING_PAGES = {"docs/usage.md"}


def test_readme_starts_with_the_two_commands():
    head = (ROOT / "README.md").read_text().split("\n## ")[0]
    assert head.index("make reproduce") < head.index("make test")


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


def test_generated_blocks_are_the_committed_results():
    """Every block equals what claims/reporting/docs_blocks.py renders from results/ (make figures)."""
    assert docs_blocks.stale(ROOT / "results", ROOT) == []
    readme = (ROOT / "README.md").read_text()
    table = docs_blocks.read_block(readme, "verdicts")
    assert [f"[{c.id}]" in table for c in CLAIMS] == [True] * len(CLAIMS)
    assert "not run" not in table
    for claim in CLAIMS:
        assert (ROOT / "docs" / "claims" / f"{claim.name}.md").exists(), claim.name


def _copy_results(tmp_path: Path) -> Path:
    out = tmp_path / "results"
    for rel in ["summary.csv", "bench.csv", *(f"{c.name}/summary.csv" for c in CLAIMS)]:
        if (ROOT / "results" / rel).exists():
            (out / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(ROOT / "results" / rel, out / rel)
    return out


def test_a_changed_verdict_makes_the_blocks_stale(tmp_path):
    results = _copy_results(tmp_path)
    assert docs_blocks.stale(results, ROOT) == []
    summary = pd.read_csv(results / "summary.csv")
    summary.loc[summary["claim"] == "C1", "verdict"] = "does not hold in 2 of 2 settings"
    summary.to_csv(results / "summary.csv", index=False)
    assert set(docs_blocks.stale(results, ROOT)) == {
        "README.md: verdicts", "docs/claims/c1_realizable.md: claim-c1_realizable"}


def test_refresh_writes_only_where_told(tmp_path):
    """refresh() on a copy of the tree rewrites a stale block there and leaves ROOT alone."""
    root = tmp_path / "tree"
    (root / "docs").mkdir(parents=True)
    shutil.copy(ROOT / "README.md", root / "README.md")
    shutil.copy(ROOT / "docs" / "performance.md", root / "docs" / "performance.md")
    shutil.copy(ROOT / "docs" / "usage.md", root / "docs" / "usage.md")
    results = _copy_results(tmp_path)
    summary = pd.read_csv(results / "summary.csv")
    summary.loc[summary["claim"] == "C2", "verdict"] = "holds in 9 of 9 settings"
    summary.to_csv(results / "summary.csv", index=False)
    before = (ROOT / "README.md").read_text()
    changed = docs_blocks.refresh(results, root)
    assert "README.md" in changed
    assert "holds in 9 of 9 settings" in (root / "README.md").read_text()
    assert (root / "docs" / "claims" / "c2_agnostic.md").exists()  # created around its block
    assert (ROOT / "README.md").read_text() == before


def test_replace_block_keeps_the_text_around_it():
    text = "intro\n<!-- BEGIN GENERATED: x -->\nold\n<!-- END GENERATED: x -->\noutro\n"
    new = docs_blocks.replace_block(text, "x", "new")
    assert new == "intro\n<!-- BEGIN GENERATED: x -->\nnew\n<!-- END GENERATED: x -->\noutro\n"
    with pytest.raises(KeyError):
        docs_blocks.replace_block(text, "y", "new")


def _product_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    keep = (".py", ".md", ".yaml", ".yml", ".cff", ".toml", ".sh")
    return [ROOT / f for f in out
            if (f.endswith(keep) or Path(f).name == "Makefile") and (ROOT / f).exists()]


# Built from pieces so that this file does not match itself.
FORBIDDEN = [re.compile(r"\b" + "SP" + r"EC\b"),
             re.compile("se" + r"eds?[ /_]?0{2}\d", re.IGNORECASE),
             re.compile("iss" + r"ues? #?\d", re.IGNORECASE)]


def test_no_internal_references_in_the_product():
    """The product cites docs/model.md and the papers by name (BMN20, KMMS19, BNS15), never
    internal planning files, source-file numbers or tracker numbers."""
    bad = []
    for path in _product_files():
        for i, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
            if any(p.search(line) for p in FORBIDDEN):
                bad.append(f"{path.relative_to(ROOT)}:{i}: {line.strip()[:100]}")
    assert not bad, "\n".join(bad)


LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def test_relative_links_point_to_existing_files():
    broken = []
    for page in DOCS:
        text = re.sub(r"```.*?```", "", page.read_text(), flags=re.DOTALL)
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#")[0]).resolve()
            rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
            if not path.exists() and rel not in PENDING_PAGES:
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, "\n".join(broken)


def test_model_page_keeps_the_section_numbers_the_code_cites():
    """Code comments cite "docs/model.md §N": every cited section exists as a heading."""
    model = (ROOT / "docs" / "model.md").read_text()
    headings = set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\. ", model, flags=re.MULTILINE))
    headings |= set(re.findall(r"^### (\d+\.\d+) ", model, flags=re.MULTILINE))
    assert {str(i) for i in range(1, 10)} | {f"9.{i}" for i in range(1, 7)} <= headings
    cited = set()
    for path in _product_files():
        for m in re.finditer(r"docs/model\.md §§?([\d.]+(?:(?:-|, | and )[\d.]+)*)",
                             path.read_text(errors="replace")):
            for part in re.split(r"-|, | and ", m.group(1)):
                cited.add(part.rstrip("."))
    assert cited and cited <= headings, sorted(cited - headings)
