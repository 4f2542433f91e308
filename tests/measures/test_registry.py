"""Measure names: grammar, canonical form, validation and the registry's declarations."""

from __future__ import annotations

import math

import pytest

from cranfield import MeasureError, parse_measure
from cranfield.measures.registry import iter_specs, lookup


@pytest.mark.parametrize("text, canonical", [
    ("P@10", "P@10"),
    ("nDCG(gains=exp)@20", "nDCG(gains=exp)@20"),
    ("RBP(p=0.8)", "RBP"),                       # defaults are omitted
    ("RBP(p=0.9)", "RBP(p=0.9)"),
    ("ndcg@10", "nDCG@10"),                      # case-insensitive when unambiguous
    ("MAP", "AP"),                               # alias
    ("AP@100", "AP@100"),
    (" nDCG ( gains = exp ) @ 5 ", "nDCG(gains=exp)@5"),
    ("nDCG(gains=0:0,1:1,2:3)@5", "nDCG(gains=0:0,1:1,2:3)@5"),   # commas inside a value
    ("Q(gains=1:3:7)@10", "Q(gains=1:1,2:3,3:7)@10"),              # NTCIREVAL per-level list
    ("P(rel=2)@10", "P(rel=2)@10"),
    ("ERR(max_rel=4)@20", "ERR(max_rel=4)@20"),
])
def test_parse_and_canonical_round_trip(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(str(m)) == m
    assert hash(parse_measure(str(m))) == hash(m)


def test_parameters_and_cutoff():
    m = parse_measure("RBP(p=0.9)@20")
    assert m.params["p"] == 0.9 and m.cutoff == 20 and m.depth == 20
    assert parse_measure("AP").depth is None
    assert str(m.with_params(p=0.5)) == "RBP(p=0.5)@20"


@pytest.mark.parametrize("text, message", [
    ("nDGC@10", r"Unknown measure 'nDGC'\. Did you mean nDCG"),
    ("Precison@5", r"Did you mean P"),
    ("RBP(p=1.5)", r"The 'p' parameter of RBP must be a float in the range \[0, 1\)\. Got '1\.5' instead\."),
    ("P@0", r"The 'cutoff' parameter of P must be an int in the range \[1, 9223372036854775807\]\. Got '0' instead\."),
    ("P@2.5", r"must be an int"),
    ("P", r"P needs a cutoff: write P@10"),
    ("Rprec@5", r"Rprec takes no cutoff"),
    ("nDCG(gain=exp)", r"nDCG has no parameter 'gain'\. Did you mean 'gains'\?"),
    ("nDCG(gains=cubic)", r"The 'gains' parameter of nDCG must be 'linear', 'exp' or a map"),
    ("ERR(sat=chapel)", r"Did you mean 'chapelle'\?"),
    ("P(rel=1,rel=2)@5", r"'rel' is given twice"),
    ("P(cutoff=5)", r"Write the cutoff of P as @k"),
    ("nDCG(@10", r"unbalanced parentheses"),
    ("nDCG@10x@3", r"must be an int"),
    ("AP(nDCG@10)", r"AP takes key=value parameters \(rel=...\), not 'nDCG@10'"),
    ("nDCG(exp)", r"nDCG takes key=value parameters \(gains=..., discount=..., b=...\), not 'exp'"),
    ("nDCG(gains=exp, 3)", r"'gains' parameter of nDCG must be"),
    ("@10", r"must start with a name"),
    ("P@", r"unexpected '@'"),
])
def test_errors_say_what_would_work(text, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(text)


def test_every_spec_is_declared_completely():
    specs = list(iter_specs())
    assert len(specs) >= 14
    for s in specs:
        assert s.doc and s.cite, s.name
        assert s.cutoff in ("optional", "required", "none")
        assert s.aggregate in ("mean", "sum")
        lo, hi = s.value_range
        assert lo <= hi
        for p in s.params:
            assert p.doc, (s.name, p.name)
            if p.default is not None:  # defaults are valid values of their own parameter
                assert p.convert(p.format(p.default), s.name) == p.default
        if s.kernel.__doc__ is None:
            pytest.fail(f"{s.name}'s kernel has no docstring")
        assert lookup(s.name) is s


def test_alpha_symbol_is_accepted():
    with pytest.raises(MeasureError, match="Unknown measure 'alpha_x'"):
        parse_measure("α_x")


def test_describe_ranges():
    p = lookup("RBP").param("p")
    assert p.describe() == "a float in the range [0, 1)"
    assert math.isinf(lookup("NumRet").value_range[1])
