"""The claims C1-C17 of the three papers, the privacy audits and the real-data comparison, one
module each (``claims/cN_*.py``; a claim with parts of its own is a package holding its claim
module beside them: ``c2/``, ``c4/``, ``c16/``), and what every claim shares:

- ``registry`` (the claims in the order of the verdict table) and ``base`` (:class:`Claim`,
  :class:`VerdictRow`, :class:`ResultStore`);
- ``rules/``: the verdict rules (outcomes, slope verdicts, rates against their alternative,
  what counts as evidence);
- ``reporting/``: what the rows become (summaries, figures, the verdict table, the terminal
  digest, the generated docs).

A claim module exports one :class:`claims.base.Claim`: the paper's statement, the experiment
configs it reads, ``analyse(results) -> list[VerdictRow]`` and ``plot(results, rows, out_dir)``.
It imports no other claim's module. ``claims.registry.CLAIMS`` lists them in the order of the
verdict table; ``scripts/reproduce.py`` (behind the Makefile), the other scripts and the
notebook read that list.
"""
