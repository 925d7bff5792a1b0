"""The claims C1-C17 of the three papers, the privacy audits and the real-data comparison, one
module each (see ``registry``).

A claim module exports one :class:`claims.base.Claim`: the paper's statement, the experiment
configs it reads, ``analyse(results) -> list[VerdictRow]`` and ``plot(results, rows, out_dir)``.
``claims.registry.CLAIMS`` lists them in the order of the verdict table; ``scripts/reproduce.py``
(behind the Makefile), the other scripts and the notebook read that list.
"""
