"""The registry of configurable classes (ppm/registry.py): a new population is its class,
registered where it is defined, plus one yaml file; everything else is derived from it."""

from __future__ import annotations

from numbers import Integral

import pytest
from hydra import compose, initialize_config_dir
from hydra.core.config_store import ConfigStore
from hydra.errors import ConfigCompositionException
from hydra.utils import instantiate
from omegaconf.errors import ConfigKeyError
from sklearn.base import _fit_context
from sklearn.utils._param_validation import InvalidParameterError

from experiments import schema, seeding
from ppm import registry
from ppm.populations.base import PopulationBase
from ppm.validation import CLOSED_UNIT, Number

_CONFIGS = __import__("pathlib").Path(__file__).resolve().parent.parent / "configs"


class ToyPopulation(PopulationBase):
    """A trivial population: only its parameters matter here (checked, kept and shown by
    PopulationBase: ``m``, ``w_pub``, ``params()``, ``repr``)."""

    _parameter_constraints = {"m": [Number(Integral, 1, None, closed="left")],
                              "w_pub": CLOSED_UNIT}

    def __init__(self, *, m=3, w_pub=0.5):
        pass


@pytest.fixture
def toy(tmp_path):
    """ToyPopulation registered, its schema node stored and its yaml in a config dir that
    extends the project's; all undone afterwards."""
    registry.configurable("population", "toy", stable_name="tests.ToyPopulation")(ToyPopulation)
    schema.register_configs()
    (tmp_path / "population").mkdir()
    (tmp_path / "population" / "toy.yaml").write_text(
        "defaults:\n  - toy_schema\n  - _self_\n\nm: 5\n")
    (tmp_path / "config.yaml").write_text(
        f"defaults:\n  - _self_\nhydra:\n  searchpath:\n    - file://{_CONFIGS}\n")
    yield tmp_path
    registry.unregister(ToyPopulation)
    ConfigStore.instance().repo["population"].pop("toy_schema.yaml", None)
    seeding.stable_name.cache_clear()


def _compose(config_dir, overrides):
    with initialize_config_dir(config_dir=str(config_dir), version_base="1.3"):
        return compose(config_name="config", overrides=list(overrides))


def test_the_package_classes_are_registered_once_with_their_stable_names():
    entries = registry.registered()
    assert len({e.stable_name for e in entries}) == len(entries)
    assert dict(seeding.STABLE_NAMES) == registry.stable_names()
    # every population and learner yaml names the schema node of a registered class
    nodes = {(e.group, e.name) for e in entries if e.name}
    files = {(p.parent.name, p.stem) for g in ("population", "learner")
             for p in (_CONFIGS / g).glob("*.yaml") if f"{p.stem}_schema" in p.read_text()}
    assert files == nodes


def test_a_registered_class_gets_a_stable_name_a_schema_and_composes(toy):
    target = f"{ToyPopulation.__module__}.ToyPopulation"
    assert seeding.STABLE_NAMES[target] == "tests.ToyPopulation"
    assert seeding.stable_name(target) == "tests.ToyPopulation"
    assert "toy_schema.yaml" in ConfigStore.instance().list("population")

    cfg = _compose(toy, ["+population=toy", "population.w_pub=0.25"])
    assert cfg.population == {"_target_": target, "m": 5, "w_pub": 0.25}
    pop = instantiate(cfg.population)
    assert isinstance(pop, ToyPopulation) and (pop.m, pop.w_pub) == (5, 0.25)
    # the stable name, not the import path, enters the hashes
    assert seeding.canonical(dict(cfg.population))["_target_"] == "tests.ToyPopulation"


def test_a_typo_or_a_wrong_type_fails_at_compose(toy):
    with pytest.raises((ConfigCompositionException, ConfigKeyError)):
        _compose(toy, ["+population=toy", "population.mm=4"])
    with pytest.raises(ConfigCompositionException):
        _compose(toy, ["+population=toy", "population.m=many"])


def test_a_bad_value_is_refused_by_the_constraints(toy):
    cfg = _compose(toy, ["+population=toy", "population.m=0"])
    with pytest.raises(InvalidParameterError, match="'m' parameter of ToyPopulation"):
        ToyPopulation(**{k: v for k, v in cfg.population.items() if k != "_target_"})


def test_names_and_groups_are_checked():
    with pytest.raises(ValueError, match="group"):
        registry.configurable("nope", "x")
    with pytest.raises(ValueError, match="schema name"):
        registry.configurable("learner")
    with pytest.raises(ValueError, match="already taken"):
        registry.configurable("population", "grid_thresholds")(type("Other", (), {}))


def test_schema_types_come_from_the_constraints():
    assert schema.conf_type([Number(Integral, 1, None, closed="left")], 3) is int
    assert schema.conf_type(CLOSED_UNIT, 0.5) is float
    assert str(schema.conf_type([None, *CLOSED_UNIT], None)) == "typing.Optional[float]"
    assert schema.conf_type(["boolean"], False) is bool


_FIT_CONTEXT = _fit_context(prefer_skip_nested_validation=True)(lambda self: None).__code__
_BY_HAND: set[str] = set()  # learners that still validate by hand in fit (none)


def _fit_contexted(fit) -> bool:
    """Whether scikit-learn's ``_fit_context`` wraps ``fit`` (under any other wrapper, such as
    the budget accountant's): every such wrapper shares one code object."""
    while fit is not None:
        if getattr(fit, "__code__", None) is _FIT_CONTEXT:
            return True
        fit = getattr(fit, "__wrapped__", None)
    return False


@pytest.mark.parametrize("cls", [
    pytest.param(e.cls, marks=[pytest.mark.xfail(strict=True, reason="fit validates by hand")]
                 if e.cls.__name__ in _BY_HAND else [])
    for e in registry.registered() if e.group in ("learner", "baseline")],
    ids=lambda c: c.__name__)
def test_every_learner_validates_its_parameters_through_fit_context(cls):
    """scikit-learn's ``_fit_context`` validates before ``fit``'s body (none calls
    ``_validate_params`` by hand), and it does: a bad parameter stops ``fit`` before the data."""
    assert _fit_contexted(cls.__dict__.get("fit", cls.fit))
    bad = next((p for p, c in cls._parameter_constraints.items()
                if p != "random_state" and c != "no_validation"), None)
    if bad is None:
        return
    est = cls(**{bad: object()})
    with pytest.raises(InvalidParameterError, match=f"'{bad}' parameter of {cls.__name__}"):
        est.fit(None, None)  # the data would fail later, and differently


def test_the_fit_context_check_can_fail():
    def fit(self, X, y):
        return self

    assert not _fit_contexted(fit) and _fit_contexted(_fit_context(
        prefer_skip_nested_validation=False)(fit))


def test_a_warning_of_fit_points_at_the_users_line_through_the_wrappers():
    """Under _fit_context (and the budget accountant's wrapper) a fit's warning still names
    the caller's file, not scikit-learn's or this package's."""
    import numpy as np

    from ppm import PPMHalfspaceLearner
    from ppm.baselines import PublicOnly
    from ppm.validation import NoPublicExamplesWarning

    X, y, none_public = np.zeros((3, 1)), np.array([0, 1, 0]), np.zeros(3, dtype=bool)
    for est in (PublicOnly(), PPMHalfspaceLearner(epsilon=1.0, random_state=0)):
        with pytest.warns(NoPublicExamplesWarning) as record:
            est.fit(X, y, none_public)
        assert {w.filename for w in record} == {__file__}, type(est).__name__


def test_every_private_learner_declares_its_audit_release_and_checks():
    """What lists the private learners (the audit runner and its script, the audit claim, the
    private-state, audit, temperature and check tests, docs/usage.md's table) is derived from
    what each one declares beside its class (ppm.audit_spec): every one has a declaration,
    numbered once."""
    from ppm.audit_spec import declared, missing_declarations, private_learners
    assert not missing_declarations(), "\n".join(missing_declarations())
    assert {cls for _, cls, _ in declared()} == set(private_learners())
    assert len(private_learners()) >= 13


def test_a_new_private_learner_without_declarations_is_told_what_to_add():
    from sklearn.base import BaseEstimator

    from ppm.audit_spec import PrivacyAudit, missing_declarations
    from ppm.validation import EPSILON

    class ToyPrivate(BaseEstimator):
        _parameter_constraints = {"epsilon": EPSILON}

        def __init__(self, *, epsilon=1.0):
            self.epsilon = epsilon

    registry.configurable("baseline", stable_name="tests.ToyPrivate")(ToyPrivate)
    try:
        lines = [m for m in missing_declarations() if "ToyPrivate" in m]
        assert len(lines) == 4 and "_privacy_audits" in lines[0]
        assert "_released" in lines[1] and "_expected_failed_checks" in lines[2]
        assert "_temperature_cases" in lines[3]
        ToyPrivate._released = ("rule_",)
        ToyPrivate._expected_failed_checks = {}
        ToyPrivate._temperature_cases = classmethod(lambda cls: {"ppm": lambda eps, seed=0: 0})
        ToyPrivate._privacy_audits = classmethod(lambda cls: (PrivacyAudit(
            kind="none", index=0, row=0, paper="p", neighbours="n"),))
        # declared, but numbered like an existing audit: the clash is named
        assert [m for m in missing_declarations() if "ToyPrivate" in m] == []
        assert any(m.startswith("PrivacyAudit.index") for m in missing_declarations())
        # and a case named like an existing one (PPMHalfspaceLearner's "ppm")
        assert any("'ppm' is declared twice" in m for m in missing_declarations())
    finally:
        registry.unregister(ToyPrivate)
    with pytest.raises(ValueError, match="kind"):
        PrivacyAudit(kind="maybe", index=0, row=0, paper="p", neighbours="n")
