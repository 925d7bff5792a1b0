"""The sweep's job configs built from an earlier job (hydra_plugins/ppm_sweeper/reusing_loader.py)
equal Hydra's full composition of the same jobs, ``hydra`` node included, on one committed
experiment of every shape of sweep (its swept keys)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hydra import initialize_config_dir
from hydra.core.global_hydra import GlobalHydra
from hydra.types import RunMode
from omegaconf import OmegaConf

from experiments.callbacks import sweep_job_overrides
from experiments.schema import register_configs
from hydra_plugins.ppm_sweeper import reusing_loader
from hydra_plugins.ppm_sweeper.reusing_loader import ReusingConfigLoader

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = ROOT / "configs"


def _shapes() -> list[str]:
    """One experiment per set of swept keys (the first by name)."""
    seen, out = set(), []
    for path in sorted((CONFIGS / "experiment").glob("*.yaml")):
        params = (yaml.safe_load(path.read_text()).get("hydra", {}).get("sweeper", {})
                  .get("params") or {})
        shape = tuple(sorted(params))
        if params and shape not in seen:
            seen.add(shape)
            out.append(path.stem)
    return out


@pytest.fixture(scope="module")
def loader():
    register_configs()
    GlobalHydra.instance().clear()
    with initialize_config_dir(config_dir=str(CONFIGS), version_base="1.3"):
        yield GlobalHydra.instance().config_loader()
    GlobalHydra.instance().clear()


def _plain(cfg):
    return OmegaConf.to_container(cfg, resolve=False)


class _Counting:
    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    def load_sweep_config(self, master, overrides):
        self.calls += 1
        return self.inner.load_sweep_config(master, overrides)


@pytest.mark.parametrize("experiment", _shapes())
def test_a_job_built_from_an_earlier_one_is_the_composed_job(loader, experiment, monkeypatch):
    monkeypatch.setattr(reusing_loader, "_FIRST", {})
    master = loader.load_configuration("config", [f"experiment={experiment}"], RunMode.MULTIRUN)
    jobs = sweep_job_overrides(master)
    picked = jobs[:2] + jobs[-1:] if len(jobs) > 3 else jobs
    counting = _Counting(loader)
    reusing = ReusingConfigLoader(counting)
    for job in picked:
        assert _plain(reusing.load_sweep_config(master, job)) == \
            _plain(loader.load_sweep_config(master, job)), job
    if all("=" in o and not o.startswith(("+", "~")) for job in picked for o in job) \
            and not any(k.split(".")[0] in ("learner", "population", "baseline")
                        and "." not in k for k in master.hydra.sweeper.params):
        assert counting.calls < len(picked) or len(picked) == 1  # some job was reused


def test_a_group_choice_or_a_new_shape_is_composed(loader, monkeypatch):
    monkeypatch.setattr(reusing_loader, "_FIRST", {})
    counting = _Counting(loader)
    reusing = ReusingConfigLoader(counting)
    master = loader.load_configuration("config", ["experiment=c8_eta_quick"], RunMode.MULTIRUN)
    jobs = [["experiment=c8_eta_quick", "n=64", "population.eta=0.2"],
            ["experiment=c8_eta_quick", "n=128", "population.eta=0.4"],  # reused
            ["experiment=c1_realizable_d1_quick", "n=64", "population.eta=0.2"],  # other group
            ["experiment=c8_eta_quick", "population.eta=0.4", "n=64"],  # other key order
            ["experiment=c8_eta_quick", "n=64", "+population.extra=1"]]  # an addition
    calls = []
    for job in jobs:
        try:
            built = _plain(reusing.load_sweep_config(master, job))
        except Exception as exc:  # the addition fails in both paths
            with pytest.raises(type(exc)):
                loader.load_sweep_config(master, job)
        else:
            assert built == _plain(loader.load_sweep_config(master, job)), job
        calls.append(counting.calls)
    assert calls[:4] == [1, 1, 2, 3] and calls[4] in (3, 4)
