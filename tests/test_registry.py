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
from sklearn.utils._param_validation import InvalidParameterError

from experiments import schema, seeding
from ppm import registry
from ppm.validation import CLOSED_UNIT, Number, check_params

_CONFIGS = __import__("pathlib").Path(__file__).resolve().parent.parent / "configs"


class ToyPopulation:
    """A trivial population: only its parameters matter here."""

    _parameter_constraints = {"m": [Number(Integral, 1, None, closed="left")],
                              "w_pub": CLOSED_UNIT}

    def __init__(self, *, m=3, w_pub=0.5):
        check_params(self, m=m, w_pub=w_pub)
        self.m, self.w_pub = m, w_pub


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
