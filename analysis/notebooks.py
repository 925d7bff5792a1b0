"""Executing a notebook (a jupytext percent script in ``notebooks/``) on a results root, and
writing it as one self-contained HTML page, its figures inline (``make notebook``:
``python -m scripts.notebook``).

:func:`execute` reads the notebook with jupytext and executes it with nbclient in a ``python3``
kernel (ipykernel) from the notebook's directory, on the results root passed to the kernel as
``PPM_RESULTS``; :func:`to_html` writes it by nbconvert to ``<name>.html`` (every figure a PNG
embedded in the page) and ``<name>.ipynb`` beside it. A cell that fails raises its error.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

RESULTS_ENV = "PPM_RESULTS"


def _local_kernel(sockets: Path) -> dict:
    """Talk to the kernel over IPC (Unix sockets), where the platform has it: over TCP,
    ipykernel 7 warns on every start that its local loopback traffic is unencrypted (known and
    harmless for a kernel this process starts and stops on the same machine), and IPC
    has nothing to warn about."""
    if os.name != "posix":
        return {}
    from jupyter_client import KernelManager
    return {"km": KernelManager(kernel_name="python3", transport="ipc",
                                ip=str(sockets / "kernel"))}  # its socket files, removed after


def execute(path: Path, results: Path, timeout: int = 600):
    """The executed notebook of ``path`` (a jupytext script) on the results root ``results``."""
    import jupytext
    from nbclient import NotebookClient

    nb = jupytext.read(path)
    before = os.environ.get(RESULTS_ENV)
    os.environ[RESULTS_ENV] = str(Path(results).resolve())  # the kernel inherits it
    try:
        with tempfile.TemporaryDirectory(prefix="ppm-kernel-") as sockets:
            local = _local_kernel(Path(sockets))
            try:
                NotebookClient(nb, timeout=timeout, kernel_name="python3",
                               resources={"metadata": {"path": str(path.parent)}},
                               **local).execute()
            finally:
                km = local.get("km")  # a kernel manager of ours: nbclient leaves it running
                if km is not None and km.has_kernel:
                    km.shutdown_kernel(now=False)
    finally:
        if before is None:
            os.environ.pop(RESULTS_ENV, None)
        else:
            os.environ[RESULTS_ENV] = before
    return nb


def to_html(nb, out: Path) -> Path:
    import nbformat
    from nbconvert import HTMLExporter

    out.parent.mkdir(parents=True, exist_ok=True)
    body, _ = HTMLExporter().from_notebook_node(nb)
    out.write_text(body, encoding="utf-8")
    nbformat.write(nb, out.with_suffix(".ipynb"))
    return out
