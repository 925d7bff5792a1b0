"""Entry point: a thin ``@hydra.main`` over :func:`experiments.pipeline.run`.

    python -m experiments.run -m experiment=c1_realizable_d1          # the sweep of a figure
    python -m experiments.run n=200 population.d=2 learner.epsilon=0.5  # one cell

Each job (one cell of the sweep) writes ``trials.csv`` into its Hydra output directory;
``scripts/aggregate.py`` collects them. Finished cells are cached under
``<results_root>/cache`` so an interrupted sweep resumes where it stopped.
"""

from __future__ import annotations

from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig

from experiments.pipeline import run
from experiments.schema import register_configs

CONFIG_DIR = str(Path(__file__).resolve().parent.parent / "configs")

register_configs()


@hydra.main(version_base="1.3", config_path=CONFIG_DIR, config_name="config")
def main(cfg: DictConfig) -> None:
    df = run(cfg)
    out = Path(HydraConfig.get().runtime.output_dir) / "trials.csv"
    df.to_csv(out, index=False)


if __name__ == "__main__":
    main()
