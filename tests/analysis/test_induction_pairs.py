"""Induction of Albahem et al., ADCS 2018, §3.2, counted per induced pair (S, T): T reachable from S through
the three relations and (S, T) not itself a direct pair; checked on a space enumerated by hand and against a
brute-force search on small random cases."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.analysis import axioms
from cranfield.analysis.axioms import Space, induced_pairs, induction, relation_pairs

# Depth 2, aspects a and b, ∅ left out. Direct relations (smaller → larger):
#   relevance    x→x.a x→x.b a→a.a a→a.b b→b.a b→b.b
#   irrelevance  x.x→x a.x→a b.x→b
#   redundancy   a.a→a.b b.b→b.a
# Induced pairs: (x.x, x.a) (x.x, x.b) via x; (a.x, a.a) (a.x, a.b) via a; (b.x, b.b) (b.x, b.a) via b.
# a reaches a.b also through a.a, but a→a.b is direct: not induced (the old per-source count took a and b too).
INDUCED = {("x.x", "x.a"), ("x.x", "x.b"), ("a.x", "a.a"), ("a.x", "a.b"), ("b.x", "b.b"), ("b.x", "b.a")}


def _index(space: Space) -> dict[str, int]:
    return {space.word(i): i for i in range(space.size)}


def test_hand_enumerated_space():
    space = Space(2, 2)
    index = _index(space)
    direct = {(space.word(int(s)), space.word(int(t))) for prop in ("relevance", "irrelevance", "redundancy")
              for low, high in relation_pairs(space, prop) for s, t in zip(low, high)}
    assert len(direct) == 11 and not direct & INDUCED
    flat = induction(space, np.ones(space.size), "flat")
    assert (flat.applicable, flat.violations) == (6, 0)
    scores = np.ones(space.size)
    scores[index["a.b"]] = 0.0  # breaks a→a.b and a.a→a.b directly, and the induced (a.x, a.b)
    scores[index["x.x"]] = 2.0  # breaks x.x→x directly, and the induced (x.x, x.a) and (x.x, x.b)
    check = induction(space, scores, "m", keep=10)
    assert (check.applicable, check.violations) == (6, 3)
    assert set(check.examples) == {"m(a.x)=1 > m(a.b)=0, an induced pair", "m(x.x)=2 > m(x.a)=1, an induced pair",
                                   "m(x.x)=2 > m(x.b)=1, an induced pair"}


def _brute(space: Space, scores: np.ndarray, include_empty: bool) -> tuple[int, int]:
    succ: dict[int, set[int]] = {}
    for prop in ("relevance", "irrelevance", "redundancy"):
        for low, high in relation_pairs(space, prop, include_empty):
            for s, t in zip(low.tolist(), high.tolist()):
                succ.setdefault(s, set()).add(t)
    pairs = violations = 0
    for s in range(space.size):
        seen: set[int] = set()
        stack = list(succ.get(s, ()))
        while stack:
            t = stack.pop()
            if t not in seen:
                seen.add(t)
                stack.extend(succ.get(t, ()))
        for t in seen - succ.get(s, set()):
            pairs += 1
            violations += scores[s] > scores[t]
    return pairs, violations


@pytest.mark.parametrize("depth, aspects", [(3, 2), (4, 2), (3, 3), (5, 1)])
@pytest.mark.parametrize("include_empty", [False, True])
def test_against_brute_force(depth, aspects, include_empty, monkeypatch):
    monkeypatch.setattr(axioms, "INDUCTION_BLOCK", 16)  # several bitset passes
    space = Space(depth, aspects)
    scores = np.random.default_rng(depth * 10 + aspects).integers(0, 4, space.size).astype(float)
    check = induction(space, scores, "m", include_empty=include_empty)
    assert (check.applicable, check.violations) == _brute(space, scores, include_empty)


def test_passes_bounded_by_memory_count_the_same(monkeypatch):
    """The bitsets of one pass hold at most INDUCTION_MEMORY bytes; narrower passes (more of them)
    give the same counts (the examples kept are the first found, so they may be others)."""
    space = Space(6, 2)
    scores = np.random.default_rng(5).random(space.size)
    whole = induction(space, scores, "m", keep=5)
    assert axioms.induction_block(space.size) == axioms.INDUCTION_BLOCK  # one pass here
    monkeypatch.setattr(axioms, "INDUCTION_MEMORY", 2 * space.size * 64 // 8)  # 64 targets per pass
    assert axioms.induction_block(space.size) == 64
    narrow = induction(space, scores, "m", keep=5)
    assert (narrow.applicable, narrow.violations, len(narrow.examples)) == (whole.applicable, whole.violations,
                                                                           len(whole.examples))
    assert whole.violations > 0


@pytest.mark.parametrize("size", [1, 1_000, 88_573, 797_161, 7_174_453])
def test_a_pass_fits_the_memory_budget(size):
    block = axioms.induction_block(size)
    assert block % 64 == 0 and 64 <= block <= axioms.INDUCTION_BLOCK
    assert 2 * size * block // 8 <= axioms.INDUCTION_MEMORY or block == 64


def test_induction_beyond_its_bound_is_one_clear_error():
    from cranfield.errors import CranfieldError

    assert axioms.max_induction_depth(2) == 10 and axioms.max_induction_depth(3) == 8
    with pytest.raises(CranfieldError, match=r"counted up to depth 10 over 2 aspects .*\(--properties "
                                             r"relevance,irrelevance,redundancy"):
        axioms.check_space(["RR"], depth=11, aspects=2)
    assert [c.property for c in axioms.check_space(["RR"], depth=11, aspects=2, properties=["redundancy"])] == [
        "redundancy"]


def test_induced_pairs_are_listed_once_for_every_measure(monkeypatch):
    """The induced pairs do not depend on the measure: check_space lists them once and every measure's
    Induction count is the one computed from them alone."""
    calls = []

    def counted(space, include_empty=False):
        calls.append((space, include_empty))
        return induced_pairs(space, include_empty)

    monkeypatch.setattr(axioms, "induced_pairs", counted)
    checks = axioms.check_space(["NumRet", "RR", "AP"], depth=4, aspects=2, properties=["induction"])
    assert calls == [(Space(4, 2), False)]
    low, high = induced_pairs(Space(4, 2))
    assert [c.applicable for c in checks] == [low.size] * 3 and checks[0].violations > 0


def test_induced_pairs_sorted_and_not_direct():
    space = Space(5, 2)
    low, high = induced_pairs(space, include_empty=True)
    code = low * space.size + high
    assert np.all(np.diff(code) > 0)  # sorted by S then T, each pair once
    direct = {(int(s), int(t)) for prop in ("relevance", "irrelevance", "redundancy")
              for a, b in relation_pairs(space, prop, True) for s, t in zip(a, b)}
    assert not direct & set(zip(low.tolist(), high.tolist()))


def test_depth_1_has_no_induced_pair():
    """Without ∅ a space of depth 1 has no relation at all (every pair's smaller side would be ∅)."""
    (check,) = axioms.check_space(["AP"], depth=1, aspects=2, properties=["induction"])
    assert (check.applicable, check.violations, check.examples) == (0, 0, [])
    space = Space(1, 2)
    low, high = induced_pairs(space, include_empty=True)  # x → ∅ → a and x → ∅ → b
    assert sorted(zip(map(space.word, low), map(space.word, high))) == [("x", "a"), ("x", "b")]
