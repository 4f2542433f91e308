"""The seven properties of Amigó, Mizzaro & Spina, SIGIR 2022, §2, checked on constructed rankings, against
the ✓/✗ cells the paper states in prose (docs/conventions.md#truncation-properties; its Table 1 is scrambled in
the text).

Cells that do not reproduce under the definitions of docs/conventions.md#truncation-properties are asserted as
computed, each with the hand-derivable reason, and listed in docs/truncation.md:
- F, Redundancy: F = 2·relret/(ret + R), so the first relevant document after n non-relevant
  ones and a second one both add exactly 2/(n + 1 + R): equal gains, not "more for the first".
- F and R-precision, Shallowness: with R ≥ 2m, x^m·r^m scores 2m/(2m + R) > 2/(1 + R) (F) and
  m/R > 1/R (R-prec) from m = 2 on.
- OIE, Deepness and Redundancy: the closed form (checked against a brute-force collection in
  tests/measures/test_truncated.py) gives the counterexamples reported by ``check_property``.
"""

from __future__ import annotations

import pytest

from cranfield.analysis.properties import PROPERTIES, check_property

P, T, DEEP, SHALLOW, CONF, REC, RED = PROPERTIES

# (measure, property) -> the paper's stated cell
STATED = {
    ("RR", RED): True,
    ("F", CONF): True, ("F", REC): True, ("F", P): False, ("F", T): False, ("F", DEEP): False,
    ("P@10", DEEP): True, ("P@10", SHALLOW): True, ("P@10", P): False,
    ("R@10", DEEP): True, ("R@10", SHALLOW): True, ("R@10", P): False,
    ("Rprec", DEEP): False,
    ("AP", P): True, ("AP", DEEP): False,
    ("nDCG", DEEP): False, ("Q", DEEP): False,
    ("ERR", DEEP): True, ("ERR", RED): True,
    ("RBP", DEEP): True, ("RBP", SHALLOW): True,
    ("iRBU", P): True, ("iRBU", T): True, ("iRBU", DEEP): True, ("iRBU", SHALLOW): True,
    ("NDCGT", CONF): True, ("ERRT", CONF): True, ("RBPT", CONF): True,
    ("FlatUtility", CONF): True, ("RBU", CONF): True, ("DCGU", CONF): True, ("ERRU", CONF): True,
    ("RBPU", CONF): True,
    ("DCGU", REC): False,
    **{("OIE", prop): True for prop in (P, T, SHALLOW, CONF, REC)},
}

NOT_REPRODUCED = {
    ("F", RED): False, ("F", SHALLOW): True, ("Rprec", SHALLOW): True,
    ("OIE", DEEP): False, ("OIE", RED): False,
}


@pytest.mark.parametrize("measure, prop", list(STATED))
def test_stated_cells(measure, prop):
    result = check_property(measure, prop)
    assert result.holds == STATED[(measure, prop)], result


@pytest.mark.parametrize("measure, prop", list(NOT_REPRODUCED))
def test_documented_deviations(measure, prop):
    result = check_property(measure, prop)
    assert result.holds == NOT_REPRODUCED[(measure, prop)], result
    assert result.example


def test_f_redundancy_gains_are_equal():
    result = check_property("F", RED, collections=(5,))
    gain = f"{2 / (1 + 1 + 5):.6g}"  # 2/(n + 1 + R) with n = 1, R = 5, for both documents
    assert f"first relevant gains {gain}, second gains {gain}" in result.example


def test_measures_without_a_length_never_satisfy_confidence():
    for measure in ("AP", "nDCG", "RBP", "ERR", "P@10"):
        assert not check_property(measure, CONF).holds
