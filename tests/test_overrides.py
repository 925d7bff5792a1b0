"""ARGS checked against every selected sweep before any trial runs (experiments/overrides.py):
a sweep that cannot take an override is left out with one line saying why, an override that
fixes a swept axis is noted, an override no sweep can take is one error line."""

from __future__ import annotations

import pytest

from experiments import overrides


@pytest.fixture
def root(tmp_path):
    return str(tmp_path / "r")


def test_a_sweep_without_the_key_is_left_out_and_the_others_kept(root):
    res = overrides.check(["c16_greedy_quick", "c1_realizable_d1_quick"],
                          ["learner.epsilon=0.5"], root, "_quick")
    assert res.error is None
    assert res.kept == ["c1_realizable_d1_quick"]
    line = res.left_out["c16_greedy_quick"]
    assert "\n" not in line and line.endswith("left out")
    assert "GreedyTriangleCover has no epsilon" in line and "learner.epsilon=0.5" in line


def test_a_rejected_value_leaves_the_sweep_out_and_a_fixed_swept_axis_is_noted(root):
    from claims.selection import claims_of
    res = overrides.check(["c2_hard_family_quick", "c5_mixture_weight_quick"],
                          ["population.w_pub=0.3"], root, "_quick", claims_of=claims_of)
    assert res.kept == ["c5_mixture_weight_quick"]
    assert ("'w_pub' parameter of MarginFamily must be a float among {0.5}. Got 0.3"
            in res.left_out["c2_hard_family_quick"])
    (note,) = res.notes
    assert note.startswith("note: population.w_pub=0.3 fixes an axis swept by C5")
    assert "one point" in note


def test_every_value_of_a_swept_override_is_checked(root):
    # the Set Cover learner takes epsilon in (0, 1): 0.5 passes, 2 does not
    res = overrides.check(["c11_set_cover_k_quick", "c8_eta_quick"],
                          ["learner.epsilon=0.5,2"], root, "_quick")
    assert res.kept == ["c8_eta_quick"]
    assert "learner.epsilon=2 rejected" in res.left_out["c11_set_cover_k_quick"]
    only_half = overrides.check(["c11_set_cover_k_quick"], ["learner.epsilon=0.5"], root,
                                "_quick")
    assert only_half.kept == ["c11_set_cover_k_quick"] and not only_half.left_out


@pytest.mark.parametrize("args, words", [
    (["learner.epsilonn=1"], ["learner.epsilonn=1", "did you mean learner.epsilon?"]),
    (["learner.epsilon=0"], ["learner.epsilon=0", "must be a finite float", "Got 0.0 instead"]),
])
def test_an_override_no_sweep_takes_is_one_error_line(root, args, words):
    res = overrides.check(["c8_eta_quick", "c5_mixture_weight_quick"], args, root, "_quick")
    assert res.error is not None and "\n" not in res.error
    assert res.error.startswith(args[0] + ": no selected sweep can take it")
    for w in words:
        assert w in res.error


def test_launcher_overrides_are_left_to_the_sweeps(root):
    res = overrides.check(["c8_eta_quick"], ["hydra.launcher.n_jobs=1", "trials=3"], root)
    assert res.kept == ["c8_eta_quick"] and res.error is None and not res.notes
