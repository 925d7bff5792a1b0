"""Aggregation, figures and benchmarks (run as python -m scripts.<name>)."""
