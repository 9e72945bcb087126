#!/usr/bin/python3
"""Reference p-values of the Mann-Whitney U test for netab's unit and
integration tests, from scipy.stats.mannwhitneyu(a, b, alternative="two-sided")
with its default method "auto" (Debian 12's python3-scipy 1.10). Run once and
commit the output; the tests do not need scipy:

    /usr/bin/python3 make_mwu_reference.py > ../data/mwu_reference.json

200 seeded pairs with 3 to 40 values each: unequal sizes (32 vs 5 among
them), both sides of scipy's rule (exact when either set has at most 8
values and no value occurs twice, else the normal approximation with tie
and continuity correction), values with and without ties, shifted and not.
"""
import json
import sys

import numpy as np
import scipy
from scipy import stats
from scipy.stats._mannwhitneyu import _mwu_choose_method

rng = np.random.default_rng(20261202)

# Sizes that sit on the edges of the rule come first; the rest are random.
FIXED = [(32, 5), (5, 32), (8, 40), (40, 8), (9, 40), (8, 9), (9, 8), (9, 9),
         (8, 8), (3, 3), (3, 40), (40, 40), (7, 33), (36, 6)]


def draw(n, shift, ties):
    """n values around 1000 (+ shift); with ties, rounded to few levels."""
    x = rng.normal(1000 + shift, 10, n)
    if ties:
        return [float(v) for v in np.round(x / 5) * 5]
    # Three decimals: distinct in practice, and every value a short decimal.
    return [float(v) for v in np.round(x, 3)]


def main():
    sizes = list(FIXED)
    while len(sizes) < 200:
        sizes.append((int(rng.integers(3, 41)), int(rng.integers(3, 41))))
    pairs = []
    for k, (na, nb) in enumerate(sizes):
        ties = k % 4 == 3
        shift = float(rng.choice([0.0, 3.0, 8.0, 20.0]))
        a, b = draw(na, 0.0, ties), draw(nb, shift, ties)
        res = stats.mannwhitneyu(a, b, alternative="two-sided")
        method = _mwu_choose_method(na, nb, np.concatenate([a, b]), "auto")
        pairs.append({"a": a, "b": b, "u": float(res.statistic), "p": float(res.pvalue),
                      "exact": method == "exact"})
    doc = {"generator": "make_mwu_reference.py",
           "scipy": scipy.__version__, "numpy": np.__version__,
           "call": "scipy.stats.mannwhitneyu(a, b, alternative='two-sided')",
           "pairs": pairs}
    json.dump(doc, sys.stdout, indent=None, separators=(",", ":"))
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
