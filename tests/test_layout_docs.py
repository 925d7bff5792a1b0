"""The layout trees of the documentation name what is there, and the full one names everything.

A layout tree is a fenced block of a page (docs/*.md, README.md) that starts with ``ppm/``: a
directory at the start of a line opens a section, an indented name (``  core/``) a subsection,
and every path-like word of a section (``learner.py``, ``population/``, ``_*_kernels.py``,
``docs/gpu.md``) is read relative to its subsection, its section or the repository root.
docs/developing.md's tree must also name every package and module of ppm/ and every module of
experiments/, analysis/, claims/ and scripts/ (a glob such as ``c*_*.py`` names its matches).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
COMPLETE = ROOT / "docs" / "developing.md"
LISTED_DIRS = ("ppm", "experiments", "analysis", "claims", "scripts")
_PATH = re.compile(r"(?<![\w./*-])[\w*.-]+(?:/[\w*.-]+)*(?:/|\.(?:py|sh|yaml|md))(?![\w/])")
_ENTRY = re.compile(r"^( *)(\S+)")


def layout_trees(text: str) -> list[str]:
    """The fenced blocks of ``text`` that start with ``ppm/``."""
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.M | re.S)
    return [b for b in blocks if b.startswith("ppm/")]


def named_paths(tree: str) -> list[tuple[str, list[Path]]]:
    """``(word, candidate paths)`` for every path-like word of ``tree``, the candidates in the
    order they are tried: the subsection, the section, the repository root."""
    out, section, sub = [], ROOT, None
    for line in tree.splitlines():
        indent, first = _ENTRY.match(line).groups() if line.strip() else ("", "")
        if first and len(indent) == 0 and first.endswith("/"):
            section, sub = ROOT / first, None
        elif first and len(indent) == 2:
            sub = section / first if first.endswith("/") else None
        for word in _PATH.findall(line):
            bases = [b for b in (sub, section) if b is not None] + [ROOT]
            out.append((word, [b / word for b in bases]))
    return out


def resolve(word: str, candidates: list[Path]) -> list[Path]:
    """The existing paths a word names (a glob names all its matches), first base that has any."""
    for path in candidates:
        if "*" in word:
            found = sorted(path.parent.glob(path.name))
            if found:
                return found
        elif path.exists():
            return [path]
    return []


def _trees():
    return [(page, tree) for page in PAGES for tree in layout_trees(page.read_text())]


@pytest.mark.parametrize("page,tree", _trees(), ids=lambda v: getattr(v, "name", "tree"))
def test_every_path_a_layout_tree_names_exists(page, tree):
    missing = [word for word, candidates in named_paths(tree) if not resolve(word, candidates)]
    assert missing == [], f"{page.name}: {missing}"


def test_the_developing_tree_names_every_package_and_module():
    trees = layout_trees(COMPLETE.read_text())
    assert len(trees) == 1
    named = {p.resolve() for word, c in named_paths(trees[0]) for p in resolve(word, c)}
    missing = []
    for top in LISTED_DIRS:
        for path in sorted((ROOT / top).iterdir()):
            package = path.is_dir() and (path / "__init__.py").exists()
            module = path.suffix in (".py", ".sh") and path.name != "__init__.py"
            if (package or module) and path.resolve() not in named:
                missing.append(str(path.relative_to(ROOT)))
    assert missing == [], f"docs/developing.md's layout tree does not name {missing}"


def test_the_check_can_fail():
    """A tree naming a module that is gone, and one that omits a module, are both caught."""
    tree = "ppm/   the library\n  core/   mechanism.py, learner.py\n"
    words = {w: resolve(w, c) for w, c in named_paths(tree)}
    assert words["mechanism.py"] == [] and words["learner.py"] == [ROOT / "ppm/core/learner.py"]
    assert words["core/"] == [ROOT / "ppm/core/"]
    named = {p for ps in words.values() for p in ps}
    assert ROOT / "ppm" / "registry.py" not in named
