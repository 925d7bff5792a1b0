"""scikit-learn conventions the check suite does not cover: labels and the role parameters,
predictions in the original label space, the public mask routed through Pipeline,
cross_val_score and GridSearchCV, the public-only scaler, and bit-identical 0/1 behaviour."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest
import sklearn
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer, StandardScaler

from ppm import PPMHalfspaceLearner
from ppm.baselines import ERMHalfspace, PublicOnly
from ppm.baselines.fully_private import GridExponentialMechanism
from ppm.preprocessing import PrivacyWarning, PublicStandardScaler, check_pipeline
from ppm.baselines.semi_private import SemiPrivateHalfspaceLearner
from ppm.set_cover import GreedySetCover, SetCoverLearner


def _sample(n=60, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64)
    return X, y, y == 0


@pytest.fixture
def routing():
    sklearn.set_config(enable_metadata_routing=True)
    yield
    sklearn.set_config(enable_metadata_routing=False)


def test_public_is_required_and_never_guessed():
    X, y, _ = _sample()
    with pytest.raises(ValueError, match="public"):
        PPMHalfspaceLearner().fit(X, y)


def test_zero_one_labels_are_bit_identical_to_the_internal_learner():
    X, y, public = _sample()
    a = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    b = PPMHalfspaceLearner(epsilon=1.0, random_state=3, public_label=0).fit(X, y, public)
    pa = a.predict(X)
    assert pa.dtype == np.int64 and list(a.classes_) == [0, 1] and a.public_label_ == 0
    assert np.array_equal(pa, b.predict(X)) and a.hypothesis_ == b.hypothesis_


@pytest.mark.parametrize("labels", [("pub", "priv"), (5, -1), (2.0, 7.0)])
def test_any_two_labels_with_public_label(labels):
    X, y, public = _sample()
    ref = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, y, public)
    y_named = np.where(y == 0, labels[0], labels[1])
    with pytest.raises(ValueError, match="public_label"):
        PPMHalfspaceLearner().fit(X, y_named, public)
    est = PPMHalfspaceLearner(epsilon=1.0, random_state=3, public_label=labels[0])
    est.fit(X, y_named, public)
    assert set(est.classes_) == set(labels) and est.public_label_ == labels[0]
    # same random draws, same hypothesis, predictions relabelled
    assert est.hypothesis_ == ref.hypothesis_
    assert np.array_equal(est.predict(X), np.where(ref.predict(X) == 0, labels[0], labels[1]))
    assert np.array_equal(pickle.loads(pickle.dumps(est)).predict(X), est.predict(X))


def test_public_label_one_swaps_the_roles():
    X, y, public = _sample()
    ref = PPMHalfspaceLearner(epsilon=1.0, random_state=3).fit(X, 1 - y, public)
    est = PPMHalfspaceLearner(epsilon=1.0, random_state=3, public_label=1).fit(X, y, public)
    assert est.hypothesis_ == ref.hypothesis_
    assert np.array_equal(est.predict(X), 1 - ref.predict(X))


@pytest.mark.parametrize("make", [lambda: ERMHalfspace(), lambda: PublicOnly(),
                                  lambda: SemiPrivateHalfspaceLearner(random_state=0)])
def test_symmetric_learners_take_any_two_labels(make):
    X, y, public = _sample()
    ref = make().fit(X, y, public)
    est = make().fit(X, np.where(y == 1, "b", "a"), public)
    assert list(est.classes_) == ["a", "b"]
    assert np.array_equal(est.predict(X), np.where(ref.predict(X) == 1, "b", "a"))


def test_grid_mechanism_string_labels_and_errors():
    x = np.linspace(0, 1, 20)
    y = (x > 0.5).astype(int)
    ref = GridExponentialMechanism(random_state=0).fit(x, y)
    est = GridExponentialMechanism(random_state=0).fit(x, np.where(y == 1, "up", "down"))
    assert est.hypothesis_ == ref.hypothesis_
    with pytest.raises(ValueError, match="Only binary classification"):
        GridExponentialMechanism().fit(x, np.arange(20) % 3)
    with pytest.raises(ValueError, match="Unknown label type"):
        GridExponentialMechanism().fit(x, x)


@pytest.mark.parametrize("cls", [SetCoverLearner, GreedySetCover])
def test_set_cover_pos_label(cls):
    X = np.random.default_rng(0).integers(0, 2, size=(80, 6))
    y = X[:, 0] & (1 - X[:, 1])
    params = {"random_state": 0} if cls is SetCoverLearner else {}
    ref = cls(**params).fit(X, y)
    y_named = np.where(y == 1, "yes", "no")
    with pytest.raises(ValueError, match="pos_label"):
        cls(**params).fit(X, y_named)
    est = cls(**params, pos_label="yes").fit(X, y_named)
    assert est.hypotheses_ == ref.hypotheses_
    assert np.array_equal(est.predict(X), np.where(ref.predict(X) == 1, "yes", "no"))


def test_encoding_params_stay_out_of_the_experiment_configs():
    from experiments.schema import PPMLearnerConf, SetCoverLearnerConf

    assert "public_label" not in PPMLearnerConf.__dataclass_fields__
    assert "pos_label" not in SetCoverLearnerConf.__dataclass_fields__


def test_public_scaler_ignores_private_rows():
    X, y, public = _sample()
    X2 = X.copy()
    X2[~public] = np.random.default_rng(9).normal(10.0, 5.0, size=(int((~public).sum()), 2))
    a = PublicStandardScaler().fit(X, public=public)
    b = PublicStandardScaler().fit(X2, public=public)
    assert np.array_equal(a.mean_, b.mean_) and np.array_equal(a.scale_, b.scale_)
    assert np.allclose(a.mean_, X[public].mean(axis=0))
    assert np.allclose(a.transform(X)[public].mean(axis=0), 0.0)
    with pytest.raises(ValueError, match="public"):
        PublicStandardScaler().fit(X)


def test_pipeline_routes_public(routing):
    X, y, public = _sample()
    pipe = make_pipeline(PublicStandardScaler(), PPMHalfspaceLearner(random_state=0))
    pipe.fit(X, y, public=public)
    scaler, clf = pipe[0], pipe[-1]
    ref = PPMHalfspaceLearner(random_state=0).fit(scaler.transform(X), y, public)
    assert clf.hypothesis_ == ref.hypothesis_ and clf.n_pub_ == int(public.sum())
    assert np.array_equal(scaler.mean_, X[public].mean(axis=0))


def test_cross_val_score_routes_public(routing):
    X, y, public = _sample()
    cv = KFold(3, shuffle=True, random_state=0)
    scores = cross_val_score(PPMHalfspaceLearner(random_state=0), X, y, cv=cv,
                             params={"public": public})
    expected = []
    for tr, te in cv.split(X):
        est = PPMHalfspaceLearner(random_state=0).fit(X[tr], y[tr], public[tr])
        expected.append(est.score(X[te], y[te]))
    assert np.allclose(scores, expected)
    with pytest.raises(ValueError, match="public"):  # no mask: refused, not guessed
        cross_val_score(PPMHalfspaceLearner(random_state=0), X, y, cv=cv,
                        error_score="raise")


def test_grid_search_routes_public(routing):
    X, y, public = _sample()
    pipe = make_pipeline(PublicStandardScaler(), PPMHalfspaceLearner(random_state=0))
    search = GridSearchCV(pipe, {"ppmhalfspacelearner__epsilon": [0.5, 2.0]}, cv=3,
                          error_score="raise")
    search.fit(X, y, public=public)
    assert search.best_estimator_[-1].n_pub_ == int(public.sum())


def test_without_routing_the_step_syntax_still_works():
    X, y, public = _sample()
    pipe = make_pipeline(PublicStandardScaler(), PPMHalfspaceLearner(random_state=0))
    pipe.fit(X, y, publicstandardscaler__public=public, ppmhalfspacelearner__public=public)
    assert pipe[-1].n_pub_ == int(public.sum())
    est = clone(PPMHalfspaceLearner(random_state=0))
    assert len(cross_val_score(est, X, y, cv=3, params={"public": public})) == 3


def test_check_pipeline_warns_for_steps_fitted_on_private_rows():
    pipe = make_pipeline(StandardScaler(), FunctionTransformer(), PPMHalfspaceLearner())
    with pytest.warns(PrivacyWarning, match="standardscaler"):
        assert check_pipeline(pipe) == ["standardscaler"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert check_pipeline(make_pipeline(PublicStandardScaler(), FunctionTransformer(),
                                             PPMHalfspaceLearner())) == []
        assert check_pipeline(GridSearchCV(make_pipeline(PublicStandardScaler(),
                                                         PPMHalfspaceLearner()), {})) == []


def test_dataframe_feature_names():
    pd = pytest.importorskip("pandas")
    X, y, public = _sample()
    df = pd.DataFrame(X, columns=["a", "b"])
    est = PPMHalfspaceLearner(random_state=0).fit(df, y, public)
    assert list(est.feature_names_in_) == ["a", "b"]
    assert np.array_equal(est.predict(df), PPMHalfspaceLearner(random_state=0).fit(
        X, y, public).predict(X))
