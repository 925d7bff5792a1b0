"""Bad input, as a user meets it: rejected before any work, one readable line naming the value.

Command line (``python -m experiments.run`` in a subprocess, as a user runs it): non-zero exit,
the last line of stderr is ``error: ...`` naming the key and the value, no Python traceback,
and no trial cache written. Python API: ``ValueError``/``TypeError`` whose message names the
value. Cases (epsilon 0, negative or nan; d 0; w_pub outside (0, 1); trials 0;
n_jobs 0; n 0; unknown keys and group options; a string where a number belongs; an unwritable
results_root; N_JOBS=0 in the Makefile; empty data; a 1-D row given to predict).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import warnings
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from experiments.pipeline import validate_config
from ppm import PPMHalfspaceLearner
from ppm.validation import NoPublicExamplesWarning
from ppm.baselines import ERMHalfspace, PublicOnly
from ppm.populations import GaussianClusters
from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner
from ppm.registry import registered
from sklearn.utils._param_validation import (InvalidParameterError, generate_invalid_param_val,
                                             make_constraint)

ROOT = Path(__file__).resolve().parent.parent
TINY = ["n=8", "trials=1", "n_test=100", "population.d=1"]

# (command-line overrides, substrings the error line must contain: the key and the value).
# Each case is a Hydra start-up (~2 s): the list covers every kind of error once or twice.
CLI_CASES = [
    (["learner.epsilon=0"], ["epsilon", "0.0"]),
    (["learner.epsilon=nan"], ["epsilon", "nan"]),
    (["learner.epsilon=abc"], ["epsilon", "abc"]),
    (["population.d=0"], ["'d' parameter", "Got 0"]),
    (["population.w_pub=0"], ["w_pub", "0.0"]),
    (["population.w_pub=1.5"], ["w_pub", "1.5"]),
    (["trials=0"], ["trials", "0"]),
    (["n_jobs=0"], ["n_jobs", "0"]),
    (["n=0"], ["n must", "0"]),
    (["n=abc"], ["n=abc", "'abc'"]),
    (["foo=1"], ["foo"]),
    (["population=nope"], ["population/nope"]),
    (["experiment=nope"], ["experiment/nope"]),
    (["hydra/launcher=nope"], ["hydra/launcher/nope"]),
    (["--multirun", "population.w_pub=0.5,1.5"], ["w_pub", "1.5"]),
    (["--multirun", "n=8,16", "hydra.launcher.n_jobs=0"], ["hydra.launcher.n_jobs", "0"]),
    # what Hydra's own per-batch check would catch, which the sweeper plugin
    # (hydra_plugins/ppm_sweeper) leaves to ValidateSweep: bad keys, groups and types in a sweep
    (["--multirun", "foo=1,2"], ["foo"]),
    (["--multirun", "population=gaussian_clusters,nope"], ["population/nope"]),
    (["--multirun", "n=8,abc"], ["n=abc"]),
]


def _run_cli(args: list[str], tmp: Path) -> subprocess.CompletedProcess:
    tmp.mkdir(parents=True)
    env = dict(os.environ, OMP_NUM_THREADS="1", NUMBA_NUM_THREADS="1")
    env.pop("HYDRA_FULL_ERROR", None)
    return subprocess.run(
        [sys.executable, "-m", "experiments.run", *[a for a in args if a.startswith("--")], *TINY,
         *[a for a in args if not a.startswith("--")], f"results_root={tmp / 'res'}",
         f"hydra.run.dir={tmp / 'out'}", f"hydra.sweep.dir={tmp / 'sweep'}"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)


def _assert_readable_rejection(res, must: list[str], results_root: Path) -> None:
    out = res.stdout + res.stderr
    assert res.returncode != 0, out[-2000:]
    assert "Traceback" not in out, out[-2000:]
    # Hydra downgrades an exception in a callback to this warning and launches the sweep anyway
    # (whether a trial then lands before the bad job fails is a race): never rely on that
    assert "raised" not in out or "Callback" not in out, out[-2000:]
    last = res.stderr.strip().splitlines()[-1]
    assert last.startswith("error: "), res.stderr[-2000:]
    for text in must:
        assert text in last, f"{text!r} not in {last!r}"
    assert not list(results_root.glob("cache/*/trials.sqlite")), "a trial ran"


def test_cli_rejects_every_bad_value_with_one_line(tmp_path):
    # subprocesses in parallel: each one is mostly Hydra start-up
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda ic: _run_cli(ic[1][0], tmp_path / str(ic[0])),
                                enumerate(CLI_CASES)))
    for i, ((args, must), res) in enumerate(zip(CLI_CASES, results)):
        try:
            _assert_readable_rejection(res, must, tmp_path / str(i) / "res")
        except AssertionError as exc:
            raise AssertionError(f"case {args}: {exc}") from None


def test_cli_rejects_an_unwritable_results_root(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("HYDRA_FULL_ERROR", None)
    res = subprocess.run([sys.executable, "-m", "experiments.run", "--multirun", "n=8,16",
                          *TINY[1:], f"hydra.sweep.dir={tmp_path / 'sweep'}",
                          f"results_root={blocker / 'results'}"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    _assert_readable_rejection(res, ["results_root", str(blocker / "results")], blocker)
    assert not (tmp_path / "sweep" / "0").exists()  # no job started


def test_full_error_keeps_the_traceback(tmp_path):
    env = dict(os.environ, HYDRA_FULL_ERROR="1", OMP_NUM_THREADS="1")
    res = subprocess.run([sys.executable, "-m", "experiments.run", "learner.epsilon=0", *TINY,
                          f"results_root={tmp_path}", f"hydra.run.dir={tmp_path / 'out'}"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode != 0 and "Traceback" in res.stderr


def test_makefile_rejects_n_jobs_0(tmp_path):
    res = subprocess.run(["make", "--no-print-directory", "reproduce", "N_JOBS=0",
                          f"RESULTS={tmp_path}/res", f"OUTPUTS={tmp_path}/out"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert res.returncode != 0
    assert "N_JOBS" in res.stderr and "'0'" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert not (tmp_path / "res").exists() and not (tmp_path / "out").exists()


def _data(d=2, n=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, (X[:, 0] > 0).astype(int), np.arange(n) % 2 == 0


def _fitted(d=2):
    return PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(*_data(d))


X2, Y2, P2 = _data()
# (callable, exception type, substring naming the value)
API_CASES = [
    (lambda: PPMHalfspaceLearner(epsilon=0).fit(X2, Y2, P2), ValueError, "'epsilon' parameter"),
    (lambda: PPMHalfspaceLearner(epsilon=-1.0).fit(X2, Y2, P2), ValueError, "-1.0"),
    (lambda: PPMHalfspaceLearner(epsilon=math.nan).fit(X2, Y2, P2), ValueError, "nan"),
    (lambda: PPMHalfspaceLearner(epsilon="a").fit(X2, Y2, P2), ValueError, "'a'"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(np.empty((0, 2)), [], np.array([], bool)),
     ValueError, "0 samples"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(np.empty((0, 1)), [], []), ValueError,
     "0 samples"),
    (lambda: ERMHalfspace().fit(X2, Y2[:-1]), ValueError, "(19,)"),
    (lambda: PublicOnly().fit(X2, np.full(len(Y2), 0.5)), ValueError, "0.5"),
    (lambda: SemiPrivateHalfspaceLearner(epsilon=0).fit(X2, Y2, P2), ValueError, "0"),
    (lambda: _fitted(2).predict(X2[0]), ValueError, "1-D with shape (2,)"),
    (lambda: _fitted(2).predict(np.zeros((3, 3))), ValueError, "3 features"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(np.array([[0.0], [np.nan]]), [0, 1],
                                                  [True, False]), ValueError, "nan"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(X2, Y2 * 2, P2), ValueError, "2"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(X2, Y2[:5], P2), ValueError, "(5,)"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit(X2, Y2, None), ValueError, "public"),
    (lambda: PPMHalfspaceLearner(epsilon=1.0).fit([["a", "b"]], [0], [True]), TypeError, "str"),
    (lambda: GaussianClusters(d=0), ValueError, "Got 0 "),
    (lambda: GaussianClusters(w_pub=1.5), ValueError, "1.5"),
    (lambda: GaussianClusters(d="x"), ValueError, "'x'"),
]


@pytest.mark.parametrize("case", range(len(API_CASES)))
def test_api_rejects_bad_input_naming_the_value(case):
    call, exc_type, text = API_CASES[case]
    with pytest.raises(exc_type) as info:
        call()
    assert text in str(info.value), str(info.value)


def test_validate_config_rejects_unwritable_results_root_without_writing(tmp_path):
    from tests.test_pipeline import _compose

    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="results_root"):
        validate_config(_compose([f"results_root={blocker / 'r'}"]))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.parametrize("cls", [PPMHalfspaceLearner, SemiPrivateHalfspaceLearner, PublicOnly])
def test_all_private_data_is_flagged(cls):
    X, y, _ = _data(d=1)
    est = cls(epsilon=1.0) if cls is not PublicOnly else cls()
    with pytest.warns(NoPublicExamplesWarning, match="none public"):
        est.fit(X, y, np.zeros(len(y), bool))
    with warnings.catch_warnings():  # one public example: no warning
        warnings.simplefilter("error", NoPublicExamplesWarning)
        est.fit(X, y, np.arange(len(y)) == 0)


def test_at_least_30_bad_inputs():
    assert len(CLI_CASES) + len(API_CASES) + 3 >= 30


# -- generated from the declared constraints --------------------------------------------------
# Candidates beyond scikit-learn's generated values: a string, a bool (refused by every number),
# inf and nan (refused by the finite ones), a foreign object.
_GENERIC_BAD = ["not a valid value", True, math.inf, math.nan, -1, 0, 2**70, 0.5, object()]


def _violations(constraints) -> list:
    """Values that satisfy none of ``constraints``."""
    made = [make_constraint(c) for c in constraints]
    candidates = list(_GENERIC_BAD)
    for c in made:
        try:
            candidates.append(generate_invalid_param_val(c))
        except NotImplementedError:
            pass
    return [v for v in candidates if not any(c.is_satisfied_by(v) for c in made)][:3]


_BAD_PARAMS = [(e.cls, name, value) for e in registered()
               for name, constraints in e.cls._parameter_constraints.items()
               if constraints != "no_validation" for value in _violations(constraints)]


_REQUIRED = {"GreedyTriangleCover": dict(T=8)}  # parameters without a valid default


class _Untouchable:
    """Data whose every use fails loudly: a parameter error must come before any work."""

    def __getattr__(self, name):
        raise AssertionError(f"data touched before the parameters were validated ({name})")

    def __array__(self, *args, **kwargs):
        raise AssertionError("data touched before the parameters were validated")

    def __len__(self):
        raise AssertionError("data touched before the parameters were validated")


def test_every_constrained_parameter_has_a_generated_bad_value():
    covered = {(cls, name) for cls, name, _ in _BAD_PARAMS}
    for e in registered():
        for name, constraints in e.cls._parameter_constraints.items():
            assert constraints == "no_validation" or (e.cls, name) in covered, (e.cls, name)


@pytest.mark.parametrize("cls,name,value", _BAD_PARAMS,
                         ids=[f"{c.__name__}.{n}={v!r}"[:60] for c, n, v in _BAD_PARAMS])
def test_a_value_violating_a_constraint_is_rejected_naming_it_before_any_work(cls, name, value):
    if hasattr(cls, "fit"):
        est = cls(**_REQUIRED.get(cls.__name__, {})).set_params(**{name: value})
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
            est.fit(_Untouchable(), _Untouchable(), _Untouchable())
    else:  # populations validate in the constructor
        with pytest.raises(InvalidParameterError, match=f"'{name}' parameter of {cls.__name__}"):
            cls(**{name: value})
