"""The verdict rules every claim applies, apart from any one claim.

``outcomes`` (the outcome words and what turns an interval away before any rule weighs it),
``verdicts`` (an interval against one theory band, the interval statistics, the verdict table's
combined verdict), ``predictions`` (a rate against its prediction and the alternative it argues
against: the rule of every counted slope row) and ``accounting`` (what a row is and whether it is
counted as evidence: audits, checks, one trial set per counted row). docs/results.md explains
them for a reader of the verdict table.
"""
