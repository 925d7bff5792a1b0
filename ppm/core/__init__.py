"""BMN20's PPM learner and its exact scorers (docs/model.md §§2-3).

- :mod:`~ppm.core.halfspaces`: Algorithm 1, ``ConstrHalf`` (public points only);
- :mod:`~ppm.core.hypothesis_class`: the class ``G`` in its canonical order, streamed in chunks,
  and the bitset scorer (numba kernels in ``_bitset_kernels``);
- :mod:`~ppm.core.sweep_scorer`: the angular-sweep scorer (kernels in ``_sweep_kernels``);
- :mod:`~ppm.core.histogram_memo`: a memo of score histograms shared across epsilons;
- :mod:`~ppm.core.learner`: Algorithm 2, ``LearnHalf`` (:class:`PPMHalfspaceLearner`).
"""
