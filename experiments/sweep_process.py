"""The process of one sweep of ``make reproduce``: forked with its imports done, or started.

A sweep is ``python -m experiments.run --multirun experiment=<name> ...``. Started as a new
interpreter, each one first spends about 1.5 s of CPU importing Hydra, scikit-learn, SciPy,
numba and this package before its first cell; the quick profile's 40 sweeps spent a minute of
CPU on that alone. On Linux the sweep is therefore forked from the runner after these imports
were made once (:func:`preload`): the child runs ``experiments.run`` as ``__main__`` with the
sweep's arguments (:func:`runpy.run_module`, as ``python -m`` does), so its configs, seeds,
results and messages are those of the command it replaces. Nothing is composed or run before
the fork, so no Hydra, numba or joblib state is shared: only imported modules.

:class:`multiprocessing.Process` (the ``fork`` context) forks and reaps the child; the child
leaves as an interpreter exit would, in its order (:func:`_exit`: joblib's worker pools shut
down before multiprocessing joins its children). Forking is safe only from a
single-threaded process: the runner relays the sweeps' output with :mod:`selectors`, not
threads. Elsewhere (macOS, where forking after these imports is not safe, or Windows), or with
``PPM_SWEEP_SUBPROCESS=1``, each sweep is a new interpreter (:class:`subprocess.Popen`).
Either way the handle has ``Popen``'s ``poll``, ``wait``, ``send_signal``, ``terminate`` and
``kill``, and the sweep's stdout and stderr are two unbuffered pipes
(:attr:`SweepProcess.streams`, raw binary files the runner reads and closes).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys

# What ``python -m experiments.run`` imports before its first cell (its own module is not
# imported here: runpy executes it afresh as __main__ in the child).
PRELOAD = ("hydra", "hydra._internal.utils", "hydra_plugins.hydra_joblib_launcher.joblib_launcher",
           "experiments.pipeline", "experiments.schema", "experiments.callbacks")
MODULE = "experiments.run"
SUBPROCESS_ENV = "PPM_SWEEP_SUBPROCESS"


def forking() -> bool:
    """Whether sweeps are forked from this process (Linux, unless ``PPM_SWEEP_SUBPROCESS=1``)."""
    return sys.platform.startswith("linux") and os.environ.get(SUBPROCESS_ENV) != "1"


def preload() -> None:
    """Import once, in this process, what every forked sweep would import (idempotent)."""
    import importlib

    for name in PRELOAD:
        importlib.import_module(name)


def _child(args: list[str], env: dict, out_w: int, err_w: int, close: list[int]) -> None:
    """In the forked child: stdout and stderr onto the pipes, then ``experiments.run`` as
    ``__main__`` with ``args`` (a SystemExit carries its status out, as in ``python -m``)."""
    import runpy
    import signal

    for fd in close:  # the runner's ends of other sweeps' pipes
        os.close(fd)
    os.dup2(out_w, 1)
    os.dup2(err_w, 2)
    os.close(out_w)
    os.close(err_w)
    # unbuffered, as the runner starts every sweep (PYTHONUNBUFFERED=1): lines arrive as printed
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding=sys.stdout.encoding,
                                  errors=sys.stdout.errors, line_buffering=True,
                                  write_through=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding=sys.stderr.encoding,
                                  errors="backslashreplace", line_buffering=True,
                                  write_through=True)
    os.environ.clear()
    os.environ.update(env)
    signal.signal(signal.SIGINT, signal.default_int_handler)  # a fresh interpreter's handler
    from experiments import lifecycle

    lifecycle.SESSION.update(results_root=None, start=__import__("time").time())
    sys.argv = [MODULE, *args]
    code = 0
    try:
        runpy.run_module(MODULE, run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # as the interpreter reads sys.exit's argument
        if isinstance(exc.code, str):
            print(exc.code, file=sys.stderr)
        code = exc.code if isinstance(exc.code, int) else int(exc.code is not None)
    except KeyboardInterrupt:
        code = 130
    except BaseException:  # noqa: BLE001 - printed as the interpreter prints it
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        _exit(code)


def _exit(code: int) -> None:
    """Leave as ``python -m experiments.run`` leaves, in the interpreter's order
    (``Py_FinalizeEx``): first threading's exit hooks and its non-daemon threads (joblib shuts
    its worker pool down there), then the ``atexit`` handlers (multiprocessing's joins its child
    processes there), then the streams flushed. :class:`multiprocessing.Process` alone would run
    the second before the first, joining joblib's workers before they are told to stop: a
    sweep with ``hydra.launcher.n_jobs > 1`` would never end."""
    import atexit
    import threading

    try:
        threading._shutdown()  # the interpreter's own first step at exit (no public name)
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(code)


class SweepProcess:
    """One sweep's process: ``cmd`` is ``[python, "-m", "experiments.run", *args]``; forked
    (after :func:`preload`) when :func:`forking`, else started with :class:`subprocess.Popen`."""

    def __init__(self, cmd: list[str], env: dict, close: list[int] = ()):
        # close: file descriptors the child must not keep (the runner's ends of other pipes)
        if cmd[1:3] != ["-m", MODULE]:
            raise ValueError(f"not a sweep command: {cmd[:3]}")
        if not forking():
            self._popen = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, bufsize=0)
            self.pid = self._popen.pid
            self.streams = (self._popen.stdout, self._popen.stderr)
            self._process = None
            return
        import multiprocessing

        preload()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        self._popen = None
        self._process = multiprocessing.get_context("fork").Process(
            target=_child, args=(cmd[3:], env, out_w, err_w, [*close, out_r, err_r]),
            name=f"sweep {cmd[3:]}", daemon=False)
        try:
            self._process.start()
        finally:
            os.close(out_w)
            os.close(err_w)
        self.pid = self._process.pid
        self.streams = (io.FileIO(out_r, "r"), io.FileIO(err_r, "r"))

    def poll(self) -> int | None:
        """The exit status (``-signal`` when a signal ended it), or None while it runs."""
        if self._process is None:
            return self._popen.poll()
        return self._process.exitcode

    def wait(self) -> int:
        if self._process is None:
            return self._popen.wait()
        self._process.join()
        return self._process.exitcode

    def send_signal(self, sig: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def close(self) -> None:
        """Release the process's handle once it has ended (the pipes are the runner's)."""
        if self._process is not None:
            self._process.close()
