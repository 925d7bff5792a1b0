"""Analysis: from trial tables to empirical sample complexities and slopes (docs/model.md §5).

- :mod:`~analysis.aggregate`: a sweep's jobs into ``trials.csv`` and ``n_hat.csv``;
- :mod:`~analysis.sample_complexity`: ``n_hat(alpha, beta)``, its interval, log-log slopes;
- :mod:`~analysis.slopes`: the bootstrap intervals of those slopes (the verdict numbers);
- :mod:`~analysis.pooled_slope`: one slope pooled over several settings;
- :mod:`~analysis.private_cost`: C4's increments ratio of the private cost;
- :mod:`~analysis.class_size`, :mod:`~analysis.mechanism_price`: C4's exact ``ln|G|`` table and
  the exponential mechanism's exact price (the inputs of :mod:`claims.c4.mechanism`).
"""
