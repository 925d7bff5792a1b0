"""Hydra experiment pipeline: ``python -m experiments.run -m experiment=<name>``."""
