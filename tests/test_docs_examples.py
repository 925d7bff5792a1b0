"""Every ```python block of README.md and docs/usage.md runs as written.

The blocks of one file run in order in one namespace (a reader pastes them one after another),
from an empty temporary working directory (so a block that reads a file the repository does not
ship fails here), after a fresh import of nothing but what the blocks import themselves.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import sklearn

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", "docs/usage.md"]


def python_blocks(text: str) -> list[str]:
    """The bodies of the fenced ```python blocks of a Markdown text, in order."""
    return re.findall(r"^```python[ \t]*\n(.*?)^```[ \t]*$", text, flags=re.S | re.M)


def run_blocks(text: str, source: str) -> dict:
    """Execute the blocks in order in one namespace; an exception names the block."""
    namespace = {"__name__": "__docs__"}
    try:
        for i, code in enumerate(python_blocks(text)):
            exec(compile(code, f"{source} python block {i + 1}", "exec"), namespace)
    finally:
        sklearn.set_config(enable_metadata_routing=False)
    return namespace


@pytest.mark.parametrize("page", PAGES)
def test_python_blocks_run_in_order(page, tmp_path, monkeypatch):
    text = (ROOT / page).read_text()
    assert python_blocks(text), f"{page} has no python block"
    monkeypatch.chdir(tmp_path)
    run_blocks(text, page)


def test_the_readme_example_predicts_new_rows(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    ns = run_blocks((ROOT / "README.md").read_text(), "README.md")
    assert ns["y_new"].shape == ns["new"].shape and set(ns["y_new"]) <= {0, 1}
    assert ns["X"].shape[1] <= 3  # the README keeps d small


def test_a_failing_or_missing_file_block_fails(tmp_path, monkeypatch):
    """The runner reports a block that raises, with the page and block number, and a block
    that reads a file not shipped fails in the empty working directory."""
    monkeypatch.chdir(tmp_path)
    text = "```python\nx = 1\n```\n\ntext\n\n```python\nassert x == 2\n```\n"
    assert python_blocks(text) == ["x = 1\n", "assert x == 2\n"]
    with pytest.raises(AssertionError) as err:
        run_blocks(text, "page.md")
    assert "page.md python block 2" in "".join(str(t) for t in err.traceback)
    with pytest.raises(FileNotFoundError):
        run_blocks('```python\nimport numpy as np\nnp.load("features.npy")\n```\n', "page.md")
    assert python_blocks("```bash\nmake test\n```\n") == []
