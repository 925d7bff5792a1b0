"""PPMHalfspaceLearner: ``verbose`` progress lines, and the size refusal before ConstrHalf."""

from __future__ import annotations

import numpy as np
import pytest

import ppm.core.learner as learner_mod
from ppm import PPMHalfspaceLearner
from ppm.populations import GaussianClusters


def test_verbose_prints_sizes_and_steps(capsys):
    X, y, public = GaussianClusters(d=2, w_pub=0.5).sample(40, random_state=0)
    PPMHalfspaceLearner(epsilon=1.0, random_state=0, verbose=True).fit(X, y, public=public)
    err = capsys.readouterr().err
    assert "|C_pub| =" in err and "|G| =" in err and "sampled a hypothesis" in err
    PPMHalfspaceLearner(epsilon=1.0, random_state=0).fit(X, y, public=public)
    assert capsys.readouterr().err == ""


def test_verbose_is_not_an_experiment_setting():
    from experiments.schema import PPMLearnerConf
    from dataclasses import fields
    assert "verbose" not in {f.name for f in fields(PPMLearnerConf)}
    assert "verbose" in PPMHalfspaceLearner._execution_params


def test_bad_verbose_is_refused():
    X, y, public = GaussianClusters(d=1, w_pub=0.5).sample(20, random_state=0)
    with pytest.raises(ValueError, match="'verbose' parameter of PPMHalfspaceLearner .* Got 'yes'"):
        PPMHalfspaceLearner(verbose="yes").fit(X, y, public=public)


def test_oversize_refused_before_constrhalf_on_all_points(monkeypatch):
    # d = 3, n = 400: |G| ~ 1e18; ConstrHalf on all ~180 public points takes seconds, so the
    # refusal must come from a small prefix of them
    X, y, public = GaussianClusters(d=3, w_pub=0.5, margin=0.2).sample(400, random_state=0)
    seen = []
    real = learner_mod.construct_halfspaces

    def spy(X_pub, *args, **kwargs):
        seen.append(len(X_pub))
        return real(X_pub, *args, **kwargs)

    monkeypatch.setattr(learner_mod, "construct_halfspaces", spy)
    with pytest.raises(ValueError, match=r"\|G\| >= .* exceeds max_hypotheses = 1e\+11"):
        PPMHalfspaceLearner(epsilon=1.0).fit(X, y, public=public)
    assert seen and max(seen) < public.sum() // 2


def test_early_bound_never_refuses_what_fits(monkeypatch):
    # the same public points with max_hypotheses just above the exact |G|: no refusal
    X, y, public = GaussianClusters(d=3, w_pub=0.5, margin=0.2).sample(30, random_state=1)
    from ppm.core.halfspaces import construct_halfspaces
    from ppm.core.hypothesis_class import class_size
    exact = class_size(len(construct_halfspaces(X[public], n_features=3)), 3)
    clf = PPMHalfspaceLearner(epsilon=1.0, random_state=0, max_hypotheses=float(exact),
                              method="blocked")
    clf._refuse_oversize_early(np.unique(X[public], axis=0), 3, int(public.sum()))
    with pytest.raises(ValueError, match="exceeds max_hypotheses"):
        PPMHalfspaceLearner(max_hypotheses=float(exact - 1))._mechanism_scorer(X, y, public)
