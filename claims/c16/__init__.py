"""C16 (KMMS19 Theorem 5.1, unions of polygons): ``union_polygons`` is the claim (its
``CLAIM``); ``ln_t`` holds its ``d n_hat / d ln T`` reading and the mechanism's ``ln T``
coefficient it is weighed against."""
