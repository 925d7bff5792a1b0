"""Benchmark: wall time of one exact Select Halfplane call (KMMS19 section 4, docs/model.md §9.2).

Prints wall and CPU seconds per call of ``HalfplaneSelector.select`` for n in {100, 1000, 3000} random
points of {0..T}^2 (distinct-ish points for T = 2^20; heavy duplication for T = 16).
Usage: python scripts/bench_select_halfplane.py
"""
import time

import numpy as np

from ppm.set_cover.halfplanes import HalfplaneSelector


def main():
    rng = np.random.default_rng(0)
    for T in (16, 2**10, 2**20):
        sel = HalfplaneSelector(T)
        sel.select(np.array([[0, 0], [1, 2], [2, 1]]), np.array([0, 1, 0]), 0.5, 1.0, rng)
        for n in (100, 1000, 3000):
            X = rng.integers(0, T + 1, size=(n, 2))
            y = (X[:, 1] > X[:, 0]).astype(int)
            times, cpu = [], []
            for _ in range(3):
                t0, c0 = time.perf_counter(), time.process_time()
                sel.select(X, y, threshold=0.4 * (y == 0).sum(), epsilon=0.5, rng=rng)
                times.append(time.perf_counter() - t0)
                cpu.append(time.process_time() - c0)
            print(f"T={T:>8d} n={n:5d} distinct={len(np.unique(X, axis=0)):5d} "
                  f"select: wall median {np.median(times):.3f}s (min {min(times):.3f}s), "
                  f"cpu median {np.median(cpu):.3f}s")


if __name__ == "__main__":
    main()
