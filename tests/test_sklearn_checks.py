"""scikit-learn's own estimator checks on every learner a config can instantiate.

Every learner needs the public mask (``fit(X, y, public)``) and the checks call ``fit(X, y)``;
the checks therefore run on :func:`ppm._sklearn.for_sklearn_checks` copies, which supply a
deterministic mask when none is given: the first 3 rows carrying the sample's first label are
public (BMN20's label-determined model with a few public points, so ``|G|`` stays small). With
labels other than 0/1 the copy also names the first label (sorted) as the learner's role label
(``public_label`` / ``pos_label``) when the parameter is unset, restoring the parameter after
``fit``. The library itself never guesses either: ``fit(X, y)`` without ``public`` raises where
the mask is needed, and so do labels other than 0/1 without the role parameter
(tests/test_sklearn_api.py). Each expected failure below is a limitation of the algorithm or of
its domain, with the reason, declared on the learner's class (``_expected_failed_checks``,
composed from the named sets of ppm.sklearn_checks; ``EXPECTED_FAILED_CHECKS`` is derived from
those declarations); docs/usage.md's table is generated from them (claims.reporting.docs_blocks.learners_table).

The learners come from the registry (ppm.registry): every learner and baseline a config can
instantiate runs the checks on the instance(s) its class declares (``_check_params`` or
``_check_variants``, ``ppm.sklearn_checks.check_instances``); nothing here lists them again.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sklearn.utils.estimator_checks import (check_estimator, estimator_checks_generator,
                                            parametrize_with_checks)

from claims.reporting import docs_blocks
from ppm.registry import registered
from ppm.sklearn_checks import (EXPECTED_FAILED_CHECKS, check_instances, check_key,
                                expected_failed_checks, for_sklearn_checks)

LEARNER_CLASSES = [e.cls for e in registered() if e.group in ("learner", "baseline")]
# (the checks run on for_sklearn_checks copies; ids are the keys of EXPECTED_FAILED_CHECKS)
INSTANCES = {key: for_sklearn_checks(est) for cls in LEARNER_CLASSES
             for key, est in check_instances(cls).items()}
ESTIMATORS = list(INSTANCES.values())


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=check_key)
def test_the_expected_failures_are_exactly_the_failing_checks(estimator):
    """parametrize_with_checks marks the expected failures xfail (not strict): here a check
    that starts to pass, or an expected failure that is not one, fails the test."""
    results = check_estimator(estimator, on_fail=None, on_skip=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed == set(expected_failed_checks(estimator))


def test_every_registered_learner_has_its_instances_and_expected_failures():
    """The registry gives the learners; each has a check instance with its own key, and the
    table of expected failures names exactly those keys (no stale or missing entry)."""
    assert LEARNER_CLASSES and len(INSTANCES) >= len(LEARNER_CLASSES)
    assert {type(est).__mro__[1] for est in ESTIMATORS} == set(LEARNER_CLASSES)
    assert set(EXPECTED_FAILED_CHECKS) == set(INSTANCES)
    assert all(check_key(est) == key for key, est in INSTANCES.items())


def test_the_expected_failures_are_checks_of_the_suite_with_reasons():
    for key, est in INSTANCES.items():
        names = {getattr(check, "func", check).__name__
                 for _, check in estimator_checks_generator(est)}
        expected = EXPECTED_FAILED_CHECKS[key]
        assert set(expected) <= names, (key, set(expected) - names)
        assert all(isinstance(r, str) and r for r in expected.values()), key


def test_usage_table_is_generated_from_the_expected_failures():
    """docs/usage.md's block ``learners`` is what claims.reporting.docs_blocks renders (refresh it with
    ``python -m claims.reporting.docs_blocks``), one row per check instance with its count."""
    text = (Path(__file__).resolve().parent.parent / "docs" / "usage.md").read_text()
    block = docs_blocks.read_block(text, "learners")
    assert block is not None and block == docs_blocks.learners_block().rstrip("\n") + "\n"
    rows = re.findall(r"^\| `([A-Za-z\\|]+)` \| (\d+) of (\d+) \|", block, flags=re.M)
    assert {name.replace("\\", ""): int(k) for name, k, _ in rows} == {
        key: len(failed) for key, failed in EXPECTED_FAILED_CHECKS.items()}
