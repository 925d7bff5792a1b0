"""C12 at the theorem's privacy budget: how much data the Set Cover Learner with exact Select
Halfplane needs at (epsilon, delta) = (0.9, 1e-6) and Claim 3.4's per-round budget (no
``epsilon_hat`` knob), on C12's population (prints numbers; the sweep at this budget is
configs/experiment/c12_theorem_budget.yaml, the comparison with PPM runs the documented
per-round budget epsilon_hat = 0.5, see configs/experiment/c12_grid_halfplanes.yaml).

    python -m scripts.c12_theorem_budget [--trials 10]

Per T and n: the fraction of trials with error 0 (every support point right), over the same
samples for every n (seeded by trial).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ppm.set_cover import GridHalfplane, SetCoverLearner


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--T", type=int, nargs="+", default=[64, 2 ** 20])
    parser.add_argument("--n", type=int, nargs="+",
                        default=[14000, 20000, 28000, 40000, 56000, 80000])
    parser.add_argument("--trials", type=int, default=10)
    args = parser.parse_args(argv)
    for T in args.T:
        pop = GridHalfplane(T=T)
        for n in args.n:
            errs, cpu = [], time.process_time()
            for t in range(args.trials):
                X, y, public = pop.sample(n, random_state=t)
                est = SetCoverLearner(k=1, epsilon=0.9, delta=1e-6, hypotheses="halfplanes",
                                      T=T, random_state=10_000 + t).fit(X, y, public)
                errs.append(pop.true_error(est.predict)[0])
            errs = np.array(errs)
            print(f"T=2^{int(np.log2(T))} n={n} eps_hat={est.epsilon_round_:.4f} "
                  f"success(error=0)={np.mean(errs == 0):.2f} error<=0.1: "
                  f"{np.mean(errs <= 0.1):.2f} cpu/fit={(time.process_time() - cpu) / args.trials:.2f}s",
                  flush=True)


if __name__ == "__main__":
    main()
