"""The case analysis of Albahem et al., ADCS 2018 (docs/conventions.md#enumeration): enumeration, pair counts and the
Table 1 reproduction."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from cranfield import CranfieldError
from cranfield.analysis.axioms import Space, check_space, relation_pairs, score_space, synthetic_topics
from cranfield.cli.main import main
from cranfield.measures.registry import parse_measure

TABLE_1_CLEAN = ["RR", "P@5", "P@10", "nDCG@5", "nDCG@10", "AP", "StRecall@10", "P_IA@10", "ERR_IA@10",
                 "alpha_nDCG@10", "NRBP", "CT", "nCT"]


def test_space_size_and_words():
    space = Space(10, 2)
    assert space.size == (3**11 - 1) // 2 == 88573
    assert space.word(0) == "∅" and space.word(1) == "x" and space.word(2) == "a" and space.word(4) == "x.x"
    assert space.word(space.size - 1) == ".".join(["b"] * 10)


@pytest.mark.parametrize("prop, count", [("relevance", 59046), ("irrelevance", 29523), ("redundancy", 2026)])
def test_pair_counts(prop, count):
    space = Space(10, 2)
    assert sum(low.size for low, _ in relation_pairs(space, prop)) == count


def test_redundancy_pairs_for_three_aspects():
    """For m > 2 each S contributes |covered(S)|·|uncovered(S)| pairs (docs/conventions.md#enumeration)."""
    space = Space(4, 3)
    expected = 0
    for length in range(1, 4):
        for word in itertools.product(range(4), repeat=length):
            covered = len({d for d in word if d})
            expected += covered * (3 - covered)
    assert sum(low.size for low, _ in relation_pairs(space, "redundancy")) == expected


def test_labels_are_the_words():
    """Scoring through the kernels sees exactly the enumerated rankings."""
    space = Space(3, 2)
    scores = score_space(parse_measure("NumRelRet"), space, synthetic_topics(2, 3))
    for i in range(space.size):
        word = space.word(i)
        assert scores[i] == (0 if word == "∅" else sum(ch != "x" for ch in word.split("."))), word


@pytest.mark.slow
def test_paper_000_table_1():
    """h = 10, m = 2, ten relevant documents per aspect: ACT violates Irrelevance Monotonicity in
    29,496 of 29,523 cases, AP-IA Redundancy in all 2,026, both violate induced relations; none of
    the other measures of §4.1 violates anything."""
    checks = {(c.measure, c.property): c for c in check_space(["ACT", "AP_IA", *TABLE_1_CLEAN], depth=10,
                                                                aspects=2, relevant_per_aspect=10)}
    act, ap_ia = checks[("ACT", "irrelevance")], checks[("AP_IA", "redundancy")]
    assert (act.violations, act.applicable) == (29496, 29523)
    assert (ap_ia.violations, ap_ia.applicable) == (2026, 2026)
    assert checks[("ACT", "induction")].violations > 0 and checks[("AP_IA", "induction")].violations > 0
    for prop in ("relevance", "redundancy"):
        assert checks[("ACT", prop)].violations == 0
    for prop in ("relevance", "irrelevance"):
        assert checks[("AP_IA", prop)].violations == 0
    for measure in TABLE_1_CLEAN:
        for prop in ("relevance", "irrelevance", "redundancy", "induction"):
            assert checks[(measure, prop)].violations == 0, (measure, prop, checks[(measure, prop)].examples)
    # only x^n and r·x^(n-1) escape ACT's Irrelevance Monotonicity
    assert act.examples and all("x" in e for e in act.examples)


def test_induction_finds_chains():
    """A measure that only rewards length violates no direct relation of two-step chains it breaks."""
    checks = check_space(["NumRet"], depth=3, aspects=2, relevant_per_aspect=3)
    by = {c.property: c for c in checks}
    assert by["irrelevance"].violations == by["irrelevance"].applicable  # S.x scores above S
    assert by["induction"].violations > 0


def test_bad_settings():
    with pytest.raises(CranfieldError, match=r"a ranking of depth 6 needs 6 distinct documents\) must be an integer "
                                             r"in the range \[6, 10000\]"):
        check_space(["AP"], depth=6, relevant_per_aspect=5)
    with pytest.raises(CranfieldError, match="The property must be one of 'relevance'"):
        check_space(["AP"], depth=3, properties=["nonsense"])


def test_cli(capsys, tmp_path):
    code = main(["axioms", "-m", "ACT,RR", "--depth", "6", "--format", "json", "--plot", str(tmp_path / "h.png")])
    rows = json.loads(capsys.readouterr().out)
    assert code == 0
    assert {"measure", "property", "applicable", "violations", "examples"} <= set(rows[0])
    act = {r["property"]: r for r in rows if r["measure"] == "ACT"}
    assert act["irrelevance"]["violations"] > 0 and act["irrelevance"]["examples"]
    assert (tmp_path / "h.png").stat().st_size > 1000
    assert main(["axioms", "-m", "RBU", "--properties", "confidence,redundancy-002", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["property"] for r in rows] == ["confidence", "redundancy-002"]
    assert main(["axioms", "-m", "AP", "--properties", "bogus"]) == 2


def test_streams_in_chunks(monkeypatch):
    from cranfield.analysis import axioms as enumeration

    whole = score_space(parse_measure("alpha_nDCG@5"), Space(6, 2), synthetic_topics(2, 6))
    monkeypatch.setattr(enumeration, "CHUNK", 97)
    chunked = score_space(parse_measure("alpha_nDCG@5"), Space(6, 2), synthetic_topics(2, 6))
    assert np.array_equal(whole, chunked)
