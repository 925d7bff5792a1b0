"""C4 (BMN20 Lemma 4.6, Theorem 4.9): ``dimension`` is the claim (its ``CLAIM``); its parts are
``price`` (the counted test: the exponential mechanism's exact price against d^2 and d),
``blind`` (d = 4 judged against predictions committed before its rows) and ``mechanism``
(where the d^2 comes from: ``ln|G|``, the privacy cost ``A(d)``)."""
