"""A step's stamp: files derived from unchanged inputs by unchanged code are not made again.

``make reproduce`` derives files in steps: a sweep's tables from its cells' trials
(``scripts/run_sweeps.py``), a claim's summary and figure from its tables
(``scripts/figures.py``), the exact audits, the verdict table and the generated docs blocks
(this module's command line, below). A step that finishes writes a stamp,
``<results root>/cache/stamps/<group>/<name>.json`` (under the trial cache: ignored by git,
deleted by ``make clean-cache``), holding

- ``options``: what the step was asked (its command line with the results root written as
  ``<root>``, the ``PPM_*`` environment, whatever else the caller names);
- ``code``: every source file of this repository the step ran (the modules it imported, the
  lock file, for a sweep the configs);
- ``inputs`` and ``outputs``: every file under the results root or the repository that the
  step opened for reading, and every file it wrote (recorded with an audit hook,
  :class:`Recorder`: the ``open`` and ``os.rename`` events, so nothing is declared by hand);
- ``cells``: for a sweep, a digest of each of its cells' stored trials.

Before the step runs again, :func:`fresh` compares each with what is there now (a file by size
and modification time, else by the SHA-256 of its bytes: a fresh clone or a ``cp -r`` only
re-hashes), and the step is skipped if nothing differs. Any difference, a file gone, a new
option, an edited module, makes the step run as before: a stamp can only skip work, never
change a result.

    python -m experiments.stamps --root R --name summary [--replay] [--watch '*/summary.csv']
        -- scripts.summary ...

runs ``python -m scripts.summary ...`` unless its stamp is fresh (then one line, and with
``--replay`` the step's last output again, e.g. the verdict digest). A file the step reads only
if it exists is not recorded while absent: ``--watch`` globs list such files, and a new match
is a change.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STAMPS = Path("cache") / "stamps"
ROOT_MARK = "<root>"
_SKIP_PARTS = {".venv", ".git", "__pycache__", ".hydra", "cache", ".pytest_cache"}


def stamp_path(root, group: str, name: str) -> Path:
    """Where the stamp of step ``name`` of ``group`` lives under results root ``root``."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", name)
    return Path(root) / STAMPS / group / f"{safe}.json"


def env_options() -> dict:
    """The ``PPM_*`` environment (it can choose what a step reads, e.g. the n_hat reading)."""
    return {k: v for k, v in sorted(os.environ.items()) if k.startswith("PPM_")}


def normalise(argv, root) -> list[str]:
    """``argv`` with the results root written as ``<root>``: a copied root keeps its stamps."""
    text = str(root)
    return [str(a).replace(text, ROOT_MARK) if text else str(a) for a in argv]


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def signature(path: Path) -> dict | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "sha256": _sha(path)}


def _key(path: Path, root: Path) -> str:
    """A file's name in a stamp: relative to the results root (``<root>/...``) or to the
    repository (``repo/...``), else absolute."""
    path = Path(os.path.realpath(path))
    for mark, base in ((ROOT_MARK, Path(os.path.realpath(root))), ("repo", REPO)):
        try:
            return f"{mark}/{path.relative_to(base).as_posix()}"
        except ValueError:
            continue
    return str(path)


def _path(key: str, root: Path) -> Path:
    if key.startswith(ROOT_MARK + "/"):
        return Path(root) / key[len(ROOT_MARK) + 1:]
    if key.startswith("repo/"):
        return REPO / key[5:]
    return Path(key)


def signatures(paths, root) -> dict:
    out = {}
    for p in sorted({Path(p) for p in paths}):
        if not p.is_file():  # a directory opened (os.open), a file deleted since
            continue
        sig = signature(p)
        if sig is not None:
            out[_key(p, root)] = sig
    return out


def _same(path: Path, sig: dict) -> bool | None:
    """True if ``path`` holds what ``sig`` says, None if it does but its time changed (the
    stamp then records the new time), False if not."""
    try:
        st = path.stat()
    except OSError:
        return False
    if st.st_size != sig["size"]:
        return False
    if st.st_mtime_ns == sig["mtime_ns"]:
        return True
    if _sha(path) != sig["sha256"]:
        return False
    sig["mtime_ns"] = st.st_mtime_ns
    return None


def code_files(extra=()) -> list[Path]:
    """The repository's source files among the loaded modules, the lock file and ``extra``."""
    out = {REPO / "requirements.lock", *map(Path, extra)}
    for mod in list(sys.modules.values()):
        f = getattr(mod, "__file__", None)
        if f and f.endswith(".py") and _inside_repo(Path(f)):
            out.add(Path(f).resolve())
    return sorted(p for p in out if p.is_file())


def _inside_repo(path: Path) -> bool:
    try:
        rel = path.resolve().relative_to(REPO)
    except ValueError:
        return False
    return not (set(rel.parts) & _SKIP_PARTS)


def fresh(path: Path, root, options: dict, cells: dict | None = None) -> dict | None:
    """The stamp at ``path`` if it matches: the same ``options`` (and ``cells``, if given),
    and every recorded code, input and output file as it was; else ``None``."""
    try:
        stamp = json.loads(Path(path).read_text())
    except (OSError, ValueError):
        return None
    if stamp.get("options") != json.loads(json.dumps(options)):
        return None
    if cells is not None and stamp.get("cells") != cells:
        return None
    moved = False
    for part in ("code", "inputs", "outputs"):
        for key, sig in stamp.get(part, {}).items():
            same = _same(_path(key, root), sig)
            if same is False:
                return None
            moved |= same is None
    if moved:  # same bytes at new times (a clone, a copy): the next check is a stat again
        write(path, stamp)
    return stamp


def write(path: Path, stamp: dict) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(json.dumps(stamp, indent=1, sort_keys=True))
    os.replace(tmp, path)


def make(root, options: dict, code=(), inputs=(), outputs=(), cells=None, stdout="") -> dict:
    """A stamp's content (``options`` as JSON has it, every file's signature)."""
    stamp = {"options": json.loads(json.dumps(options)), "code": signatures(code, root),
             "inputs": signatures(inputs, root), "outputs": signatures(outputs, root)}
    if cells is not None:
        stamp["cells"] = cells
    if stdout:
        stamp["stdout"] = stdout
    return stamp


# -- what a step reads and writes ------------------------------------------------------------
_ACTIVE: list["Recorder"] = []
_HOOKED = [False]


def _hook(event: str, args) -> None:
    if not _ACTIVE or event not in ("open", "os.rename"):
        return
    try:
        if event == "open":
            path, mode, flags = args
            if isinstance(path, int) or path is None:
                return
            if mode is None:
                written = bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
            else:
                written = any(c in mode for c in "wax+")
            for rec in _ACTIVE:
                rec.note(os.fsdecode(path), written)
        else:
            dst = os.fsdecode(args[1])
            for rec in _ACTIVE:
                rec.note(dst, True)
    except Exception:  # noqa: BLE001  an audit hook must never fail the step
        return


class Recorder:
    """Within ``with Recorder(roots) as rec:``, ``rec.read`` and ``rec.written`` collect the
    files under ``roots`` that this process opens (Python's ``open`` audit event, raised by
    every ``open``, ``io.open`` and ``os.open``) or renames into place, source files and
    caches excepted. A file both read and written counts as written."""

    def __init__(self, roots):
        self.roots = [Path(os.path.realpath(r)) for r in roots]
        self.read: set[Path] = set()
        self.written: set[Path] = set()

    def note(self, path: str, written: bool) -> None:
        if path.endswith((".py", ".pyc", ".tmp")):
            return
        real = Path(os.path.realpath(path))
        for base in self.roots:
            try:
                rel = real.relative_to(base)
            except ValueError:
                continue
            if set(rel.parts) & _SKIP_PARTS or rel.name.startswith("."):
                return
            (self.written if written else self.read).add(real)
            return

    @property
    def inputs(self) -> set[Path]:
        return self.read - self.written

    def __enter__(self) -> "Recorder":
        if not _HOOKED[0]:
            sys.addaudithook(_hook)
            _HOOKED[0] = True
        _ACTIVE.append(self)
        return self

    def __exit__(self, *exc) -> None:
        _ACTIVE.remove(self)


class _Tee:
    def __init__(self, stream):
        self.stream, self.parts = stream, []

    def write(self, text):
        self.parts.append(text)
        return self.stream.write(text)

    def __getattr__(self, name):
        return getattr(self.stream, name)


def skip_line(label: str, why: str = "inputs, code, options", width: int = 100) -> str:
    """The one line of a skipped step, at most ``width`` columns."""
    line = f"== skipped, unchanged since its last run ({why}): {label}"
    return line if len(line) <= width else line[:width - 1] + "\u2026"


def main(argv=None) -> int:
    """``--root R --name NAME [--label TEXT] [--replay] -- module args...``: run ``python -m
    module args`` unless its stamp is fresh; write the stamp when it exits with status 0."""
    import argparse
    import runpy
    import signal

    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv:
        print("error: experiments.stamps: give the step after --", file=sys.stderr)
        return 2
    cut = argv.index("--")
    parser = argparse.ArgumentParser(prog="python -m experiments.stamps")
    parser.add_argument("--root", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--label", default="")
    parser.add_argument("--replay", action="store_true")
    parser.add_argument("--watch", nargs="*", default=[],
                        help="globs under the root whose matches are part of the options (a "
                             "file the step would read if it existed, e.g. */summary.csv)")
    opts = parser.parse_args(argv[:cut])
    module, *args = argv[cut + 1:]
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:  # the step sets its own later
        line = f"interrupted: {opts.label or module} stopped; rerun the same command\n"
        signal.signal(signal.SIGINT, lambda *_: (os.write(2, line.encode()), os._exit(130)))
    root = Path(opts.root)
    where = stamp_path(root, "steps", opts.name)
    options = {"module": module, "argv": normalise(args, opts.root), "env": env_options(),
               "present": sorted(p.relative_to(root).as_posix() for g in opts.watch
                                 for p in root.glob(g) if p.is_file())}
    stamp = fresh(where, root, options)
    if stamp is not None:
        print(skip_line(opts.label or module), flush=True)
        if opts.replay:
            sys.stdout.write(stamp.get("stdout", ""))
        return 0
    where.unlink(missing_ok=True)
    tee = _Tee(sys.stdout)
    sys.argv = [module, *args]
    status = 0
    with Recorder([root, REPO]) as rec:
        sys.stdout = tee
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        finally:
            sys.stdout = tee.stream
    if status == 0:
        write(where, make(root, options, code_files(), rec.inputs, rec.written,
                          stdout="".join(tee.parts)))
    return status


if __name__ == "__main__":
    sys.exit(main())
