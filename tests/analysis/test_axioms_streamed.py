"""Issue #18: the streamed relations (blocks of prefixes) count exactly what the whole space
scored at once counts, for every measure, property and block size."""

from __future__ import annotations

import pytest

from cranfield.analysis import axioms
from cranfield.analysis.axioms import Check, Space, check_space, relation_pairs, score_space, synthetic_topics
from cranfield.measures.registry import parse_measure

MEASURES = ["AP", "RR", "P@5", "nDCG@5", "ERR_IA@5", "alpha_nDCG@5", "nERR_IA@5", "NRBP", "nNRBP", "AP_IA",
            "P_IA@5", "StRecall@5", "D#-nDCG@5", "ACT", "CT", "nCT", "NumRelRet"]
RELATIONS = ("relevance", "irrelevance", "redundancy")


def whole_space(measure: str, depth: int, aspects: int, include_empty: bool, keep: int) -> list[Check]:
    """The unstreamed way: every score at once, each relation's pairs level by level."""
    space = Space(depth, aspects)
    scores = score_space(parse_measure(measure), space, synthetic_topics(aspects, depth), progress_bar=False)
    out = []
    for prop in RELATIONS:
        check = Check(measure, prop)
        for low, high in relation_pairs(space, prop, include_empty):
            check.add(space, scores, low, high, keep)
        out.append(check)
    return out


@pytest.mark.parametrize("depth,aspects", [(4, 2), (3, 3)])
@pytest.mark.parametrize("block", [5, 64, 1 << 18])
def test_streamed_equals_whole_space(monkeypatch, depth, aspects, block):
    monkeypatch.setattr(axioms, "BLOCK", block)
    for include_empty in (False, True):
        got = check_space(MEASURES, depth=depth, aspects=aspects, properties=RELATIONS,
                          include_empty=include_empty, examples=4, progress_bar=False)
        want = [c for m in MEASURES for c in whole_space(m, depth, aspects, include_empty, 4)]
        assert [c.to_dict() for c in got] == [c.to_dict() for c in want]


def test_blocks_cover_each_pair_once():
    space = Space(5, 2)
    for include_empty in (False, True):
        parents = sorted((b.length, code) for b in axioms.blocks(space, include_empty, size=10)
                         for code in range(b.start, b.stop))
        levels = range(0 if include_empty else 1, space.depth)
        assert parents == [(length, code) for length in levels for code in range(space.base**length)]


def test_some_violations_are_found():
    """The comparison above must see violations to compare examples (ACT, AP-IA: Albahem et al.)."""
    checks = {(c.measure, c.property): c for c in check_space(["ACT", "AP_IA"], depth=4, properties=RELATIONS,
                                                              progress_bar=False)}
    assert checks["ACT", "irrelevance"].violations > 0 and checks["AP_IA", "redundancy"].violations > 0
    assert checks["ACT", "irrelevance"].examples


@pytest.mark.parametrize("block", [5, 1 << 18])
def test_relations_beside_induction_take_the_whole_space_scores(monkeypatch, block):
    """With Induction every ranking is scored once (score_space) and the blocks reuse those scores
    instead of scoring themselves again: the same counts and examples as the streamed blocks."""
    monkeypatch.setattr(axioms, "BLOCK", block)
    measures = ["ACT", "AP_IA", "alpha_nDCG@5", "nCT", "NumRelRet"]  # ACT and AP-IA violate relations
    for include_empty in (False, True):
        streamed = check_space(measures, depth=4, aspects=2, properties=RELATIONS, include_empty=include_empty,
                               examples=4, progress_bar=False)
        with monkeypatch.context() as m:
            m.setattr(axioms, "score_range", None)  # a block scoring itself would fail
            both = check_space(measures, depth=4, aspects=2, properties=(*RELATIONS, "induction"),
                               include_empty=include_empty, examples=4, progress_bar=False)
        assert [c.to_dict() for c in both if c.property != "induction"] == [c.to_dict() for c in streamed]
        assert [c.property for c in both].count("induction") == len(measures)
