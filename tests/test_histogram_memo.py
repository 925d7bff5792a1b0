"""The histogram memo (ppm.core.histogram_memo) is an execution setting: same output, fewer passes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ppm import PPMHalfspaceLearner
from ppm.core.histogram_memo import memo_key
from ppm.populations import BreastCancer, GaussianClusters, is_synthetic

# the memo stores functions of the private examples: the samples here are synthetic
SYNTHETIC = {"allow_private_on_disk": True}

def _sample(d, n, seed, w_pub=0.4):
    pop = GaussianClusters(d=d, w_pub=w_pub, margin=0.1)
    return pop.sample(n, random_state=seed)


def _fit(X, y, public, **kw):
    return PPMHalfspaceLearner(**kw).fit(X, y, public)


@settings(max_examples=15, deadline=None)
@given(d=st.sampled_from([2, 3]), n=st.integers(8, 40), seed=st.integers(0, 2**31),
       method=st.sampled_from(["bitset", "sweep"]))
def test_memo_gives_the_same_hypothesis_at_every_epsilon(tmp_path_factory, d, n, seed, method):
    X, y, public = _sample(d, n, seed)
    memo = tmp_path_factory.mktemp("memo")
    for i, eps in enumerate([1.0, 0.3, 4.0]):
        plain = _fit(X, y, public, epsilon=eps, random_state=seed + i, method=method)
        memod = PPMHalfspaceLearner(epsilon=eps, random_state=seed + i, method=method,
                                    histogram_memo=str(memo), **SYNTHETIC)
        hs, scorer, _, _ = memod._mechanism_scorer(X, y, public)
        memod.fit(X, y, public)
        assert memod.hypothesis_ == plain.hypothesis_
        # the first fit computed and stored the histogram; every later scorer reads it
        scorer.histogram()
        assert scorer.hit is True
    assert len(list(memo.rglob("*.joblib"))) == 1


def test_memo_hits_after_the_first_fit_and_reads_what_it_stored(tmp_path):
    X, y, public = _sample(3, 40, 7)
    learner = PPMHalfspaceLearner(epsilon=1.0, histogram_memo=str(tmp_path), **SYNTHETIC)
    _, first, _, _ = learner._mechanism_scorer(X, y, public)
    h1 = first.histogram()
    assert first.hit is False
    _, second, _, _ = learner._mechanism_scorer(X, y, public)
    h2 = second.histogram()
    assert second.hit is True
    np.testing.assert_array_equal(h1, h2)
    # the rank pass over restored records finds the same hypotheses as over fresh ones
    for level in np.flatnonzero(h1)[:5]:
        assert first.find(int(level), int(h1[level]) - 1) == second.find(int(level),
                                                                           int(h1[level]) - 1)


def test_neighbouring_samples_never_share_a_memo_entry(tmp_path):
    """Replacing one private example (label or position) changes the key: a stale histogram of
    the neighbour can never be sampled from."""
    X, y, public = _sample(2, 30, 3)
    priv = int(np.flatnonzero(~public)[0])
    learner = PPMHalfspaceLearner(epsilon=1.0, histogram_memo=str(tmp_path), **SYNTHETIC)
    _, scorer, _, _ = learner._mechanism_scorer(X, y, public)
    keys = {memo_key(scorer._scorer, X, y, public, learner.rel_tol)}
    y2 = y.copy()
    y2[priv] = 1 - y2[priv]
    X2 = X.copy()
    X2[priv, 0] += 1e-12
    for Xa, ya in ((X, y2), (X2, y)):
        _, sc, _, _ = learner._mechanism_scorer(Xa, ya, public)
        keys.add(memo_key(sc._scorer, Xa, ya, public, learner.rel_tol))
        plain = PPMHalfspaceLearner(epsilon=1.0)._mechanism_scorer(Xa, ya, public)[1]
        np.testing.assert_array_equal(sc.histogram(), plain.histogram())
    assert len(keys) == 3


def test_a_torn_memo_file_is_recomputed(tmp_path):
    X, y, public = _sample(2, 30, 11)
    learner = PPMHalfspaceLearner(epsilon=1.0, histogram_memo=str(tmp_path), **SYNTHETIC)
    _, scorer, _, _ = learner._mechanism_scorer(X, y, public)
    expected = scorer.histogram()
    scorer.path.write_bytes(b"not a joblib file")
    _, again, _, _ = learner._mechanism_scorer(X, y, public)
    np.testing.assert_array_equal(again.histogram(), expected)
    assert again.hit is False


@pytest.mark.parametrize("bad", [0, "", 3.5, ["dir"]])
def test_bad_histogram_memo_is_rejected_before_any_work(bad):
    X, y, public = _sample(2, 10, 0)
    with pytest.raises(ValueError, match="histogram_memo"):
        PPMHalfspaceLearner(histogram_memo=bad).fit(X, y, public)


def test_the_memo_is_refused_on_data_not_marked_synthetic(tmp_path):
    """One line naming what would be written, before any work; nothing reaches the disk."""
    X, y, public = _sample(2, 20, 1)
    memo = tmp_path / "memo"
    for learner in (PPMHalfspaceLearner(histogram_memo=str(memo)),
                    PPMHalfspaceLearner(histogram_memo=str(memo), allow_private_on_disk=False)):
        with pytest.raises(ValueError, match=f"histogram_memo='{memo}' would write score "
                                             "histograms of G computed from the private "
                                             "examples to disk") as err:
            learner.fit(X, y, public)
        assert "\n" not in str(err.value)
    assert not memo.exists()
    with pytest.raises(ValueError, match="'allow_private_on_disk' parameter .* Got 'yes'"):
        PPMHalfspaceLearner(histogram_memo=str(memo), allow_private_on_disk="yes").fit(X, y, public)
    # without a memo the flag changes nothing; with it, the fit stores one entry
    plain = PPMHalfspaceLearner(random_state=0).fit(X, y, public)
    memod = PPMHalfspaceLearner(random_state=0, histogram_memo=str(memo), **SYNTHETIC)
    assert memod.fit(X, y, public).hypothesis_ == plain.hypothesis_
    assert len(list(memo.rglob("*.joblib"))) == 1


def test_only_model_populations_are_synthetic():
    assert is_synthetic(GaussianClusters()) and not is_synthetic(BreastCancer())
    assert not is_synthetic(object())  # a population that says nothing counts as real records
