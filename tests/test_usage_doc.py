"""The code blocks of docs/usage.md run as written (in order, one namespace)."""

import re
from pathlib import Path

import sklearn

DOC = Path(__file__).resolve().parent.parent / "docs" / "usage.md"


def test_usage_code_blocks_run():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)
    assert len(blocks) >= 4
    namespace = {}
    try:
        for i, code in enumerate(blocks):
            exec(compile(code, f"docs/usage.md block {i + 1}", "exec"), namespace)
    finally:
        sklearn.set_config(enable_metadata_routing=False)
