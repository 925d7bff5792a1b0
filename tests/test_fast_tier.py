"""The slow-test table of tests/conftest.py names tests that exist (a renamed test would
otherwise drop out of the table silently and slow the fast tier down)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.conftest import ALL, FIRST, SLOW

TESTS = Path(__file__).resolve().parent


def _test_functions(path: Path) -> set[str]:
    return {node.name for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.name.startswith("test_")}


@pytest.mark.parametrize("file", sorted(SLOW))
def test_every_slow_name_is_a_test(file):
    path = TESTS / file
    assert path.exists(), f"tests/conftest.py SLOW names a missing file {file}"
    names = SLOW[file]
    if names != ALL:
        missing = sorted(set(names) - _test_functions(path))
        assert not missing, f"tests/conftest.py SLOW names missing tests of {file}: {missing}"


def test_the_table_marks_what_it_names(request):
    """This file's own tests are fast; a test of the table is marked slow (pytest -m works)."""
    assert request.node.get_closest_marker("slow") is None
    assert "test_fast_tier.py" not in SLOW


@pytest.mark.parametrize("file", FIRST)
def test_every_file_ranked_first_exists(file):
    """A renamed file must not drop out of the order `make test` runs the long files in."""
    assert (TESTS / file).exists(), f"tests/conftest.py FIRST names a missing file {file}"
