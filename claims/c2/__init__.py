"""C2 (BMN20 Theorem 4.10, agnostic): ``agnostic`` is the claim (its ``CLAIM``), with its
privacy term across epsilon in ``epsilon_term``."""
