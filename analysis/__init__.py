"""Analysis: from trial tables to empirical sample complexities and slopes (docs/model.md §5).

- :mod:`~analysis.aggregate`: a sweep's jobs into ``trials.csv`` and ``n_hat.csv``;
- :mod:`~analysis.sample_complexity`: ``n_hat(alpha, beta)``, its interval, log-log slopes;
- :mod:`~analysis.slopes`: the bootstrap intervals of those slopes (the verdict numbers);
- :mod:`~analysis.pooled_slope`: one slope pooled over several settings.
"""
