"""Tests of ppm.populations.datasets (docs/model.md §8: the breast-cancer data in the PPM model)."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer

from ppm.populations.datasets import DEFAULT_FEATURES, BreastCancer, load_breast_cancer_ppm


def test_whole_data_label_determined_counts():
    X, y, public = load_breast_cancer_ppm()
    assert X.shape == (569, 2) and X.dtype == np.float64
    assert y.dtype == np.int64 and public.dtype == np.bool_
    assert int(y.sum()) == 212 and int((y == 0).sum()) == 357  # malignant / benign
    np.testing.assert_array_equal(public, y == 0)  # benign = public = label 0
    # Raw features (no scaling), in the requested order; y = 1 - sklearn's target.
    raw = load_breast_cancer()
    names = list(raw.feature_names)
    cols = [names.index(f) for f in DEFAULT_FEATURES]
    np.testing.assert_array_equal(X, raw.data[:, cols])
    np.testing.assert_array_equal(y, 1 - raw.target)
    assert DEFAULT_FEATURES == ("mean texture", "worst area")
    # Malignant tumours have the larger worst area on average.
    assert X[y == 1, 1].mean() > X[y == 0, 1].mean()


def test_whole_data_is_a_copy():
    X, y, _ = load_breast_cancer_ppm(["mean radius"])
    X[:] = 0
    y[:] = 0
    X2, y2, _ = load_breast_cancer_ppm(["mean radius"])
    assert X2.shape == (569, 1) and X2.max() > 0 and y2.sum() == 212


@pytest.mark.parametrize("n", [1, 50, 300, 568])
def test_sample_disjoint_from_heldout(n):
    pop = BreastCancer(features=("mean texture", "worst area", "worst smoothness"))
    X, y, public = pop.sample(n, random_state=n)
    assert X.shape == (n, 3) and y.shape == (n,) and public.shape == (n,)
    assert pop.d == 3
    np.testing.assert_array_equal(public, y == 0)
    held = pop.heldout_indices
    assert held.size == 569 - n
    # Recover the training row indices from the full data: disjoint from held-out, union = all.
    X_all, y_all, _ = load_breast_cancer_ppm(pop.features)
    train = np.array([np.flatnonzero((X_all == row).all(axis=1))[0] for row in X])
    np.testing.assert_array_equal(y, y_all[train])
    assert np.intersect1d(train, held).size == 0
    assert np.union1d(train, held).size == 569


def test_sample_reproducible_and_uniform():
    pop = BreastCancer()
    a = pop.sample(100, random_state=3)
    held_a = pop.heldout_indices
    b = pop.sample(100, random_state=3)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(held_a, pop.heldout_indices)
    c = pop.sample(100, random_state=4)
    assert not np.array_equal(a[0], c[0])
    # Malignant fraction of the draws is about 212/569 (hypergeometric, 40 draws of 100).
    fracs = [pop.sample(100, random_state=s)[1].mean() for s in range(40)]
    assert abs(np.mean(fracs) - 212 / 569) < 0.03


@pytest.mark.parametrize("label", [0, 1])
def test_true_error_constant_predictor_on_heldout(label):
    pop = BreastCancer()
    _, y_train, _ = pop.sample(200, random_state=1)
    err, se = pop.true_error(lambda X: np.full(X.shape[0], label), n_test=10, random_state=9)
    # Held-out labels = all labels minus the training labels.
    n_held = 369
    n_malignant_held = 212 - int(y_train.sum())
    expected = (n_held - n_malignant_held) / n_held if label == 1 else n_malignant_held / n_held
    assert err == pytest.approx(expected)
    assert se == pytest.approx(math.sqrt(expected * (1 - expected) / n_held))


def test_true_error_uses_most_recent_sample():
    pop = BreastCancer()
    pop.sample(500, random_state=0)
    first = pop.heldout_indices
    seen = []
    pop.true_error(lambda X: seen.append(X.shape[0]) or np.zeros(X.shape[0], int))
    assert seen == [69]
    pop.sample(100, random_state=0)
    assert not np.array_equal(first, pop.heldout_indices)
    pop.true_error(lambda X: seen.append(X.shape[0]) or np.zeros(X.shape[0], int))
    assert seen == [69, 469]


def test_api_params_opt():
    pop = BreastCancer(features=["worst area"])
    assert pop.features == ("worst area",) and pop.d == 1
    assert pop.params() == {"features": ("worst area",)}
    assert BreastCancer(**pop.params()).params() == pop.params()
    assert math.isnan(pop.opt())
    assert "BreastCancer(" in repr(pop) and pop.heldout_indices is None


@pytest.mark.parametrize("features,match", [
    (("mean texture", "worst aera"), "worst aera"),
    (["not a feature"], "valid names"),
    ((), "non-empty"),
    ("mean texture", "sequence"),
    (3, "sequence"),
    (("mean texture", "mean texture"), "distinct"),
    ((1, 2), r"feature names.*\(1, 2\)|unknown.*\[1, 2\]"),
])
def test_bad_features(features, match):
    with pytest.raises(ValueError, match=match):
        BreastCancer(features=features)
    with pytest.raises(ValueError, match=match):
        load_breast_cancer_ppm(features)


def test_bad_n_and_usage_errors():
    pop = BreastCancer()
    with pytest.raises(RuntimeError, match="sample"):
        pop.true_error(lambda X: np.zeros(X.shape[0], int))
    for bad in (0, -1, 569, 1000, 2.5, None, True):
        with pytest.raises(ValueError, match="n must"):
            pop.sample(bad)
    with pytest.raises(ValueError, match="random_state"):
        pop.sample(10, random_state="x")
    pop.sample(10, random_state=0)
    with pytest.raises(ValueError, match="predict"):
        pop.true_error("not callable")
    with pytest.raises(ValueError, match="predict returned shape"):
        pop.true_error(lambda X: np.zeros(3))
    with pytest.raises(ValueError, match="labels"):
        pop.true_error(lambda X: np.full(X.shape[0], 2))
