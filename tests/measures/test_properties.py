"""Property-based tests (hypothesis) of the ad hoc kernels on synthetic batches."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import Batch, Topics, parse_measure

MEASURES = ["P@1", "P@5", "R@5", "AP", "AP@5", "RR", "Rprec", "nDCG", "nDCG@3", "nDCG(gains=exp)@5",
            "ERR", "ERR@3", "RBP", "RBP(p=0.5,part=upper)", "Q", "Q@5", "P+", "P+@3", "F", "F(beta=0.5)@4",
            "NumRet", "NumRel", "NumRelRet", "P(rel=2)@5", "AP(rel=2)", "O-measure", "P-measure", "P-measure@3",
            "NCU", "NCU(stop=u,beta=0)@5", "NCU(stop=gu,beta=0)", "NCU(stop=gu)@4", "NCU(stop=rb)",
            "NCU(stop=rb,gamma=0.5,beta=0)",
            "relative_P@5", "set_relative_P", "num_nonrel_judged_ret", "utility", "binG", "G", "ndcg_rel", "Rndcg"]
PARSED = {name: parse_measure(name) for name in MEASURES}


@st.composite
def topic_and_rankings(draw):
    """Judged labels of one topic and a few rankings of judged (>= 0) and unjudged (-1) documents."""
    labels = draw(st.lists(st.sampled_from([-2, 0, 0, 1, 2, 3]), min_size=1, max_size=12))
    n_rankings = draw(st.integers(1, 4))
    rankings = []
    for _ in range(n_rankings):
        docs = draw(st.permutations(list(range(len(labels))) + [-1, -1, -1]))
        rankings.append(docs[: draw(st.integers(0, len(docs)))])
    return labels, rankings


def make_batch(labels, rankings, unjudged_label=0):
    depth = max((len(r) for r in rankings), default=0)
    lab = np.zeros((len(rankings), 1, depth), dtype=np.int64)
    judged = np.zeros((len(rankings), 1, depth), dtype=bool)
    for s, r in enumerate(rankings):
        for k, d in enumerate(r):
            lab[s, 0, k] = labels[d] if d >= 0 else unjudged_label
            judged[s, 0, k] = d >= 0
    length = np.array([[len(r)] for r in rankings])
    topics = Topics.from_ideal(np.array([sorted((max(x, 0) for x in labels), reverse=True)]),
                               num_judged=np.array([len(labels)]), max_rel=max(3, max(labels)))
    return Batch.from_labels(lab, topics, length=length, judged=judged)


@settings(max_examples=300, deadline=None)
@given(topic_and_rankings())
def test_scores_in_declared_range(case):
    batch = make_batch(*case)
    for name, m in PARSED.items():
        values = m(batch)
        lo, hi = m.spec.value_range
        assert values.shape == (len(case[1]), 1)
        assert np.all(values >= lo - 1e-12) and np.all(values <= hi + 1e-12), name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-2, 0, 1, 2, 3]), min_size=1, max_size=12).filter(lambda ls: max(ls) > 0))
def test_ideal_ranking_scores_one(labels):
    ideal = sorted((d for d in range(len(labels)) if labels[d] > 0), key=lambda d: -labels[d])
    batch = make_batch(labels, [ideal])
    for name, m in PARSED.items():
        # AP@k and F@k keep R in their denominator (trec_eval's map_cut, set_F), and NCU's
        # graded-uniform stop distribution spreads over all R documents: not 1 when R > k
        if m.spec.normalised and "rel=2" not in name and not (m.name in ("AP", "F", "NCU") and m.cutoff
                                                                and "stop=u" not in name):
            assert m(batch)[0, 0] == pytest.approx(1.0, abs=1e-12), name


@settings(max_examples=200, deadline=None)
@given(topic_and_rankings())
def test_unjudged_document_at_the_end_changes_nothing(case):
    labels, rankings = case
    longer = [r + [-1] for r in rankings]
    a, b = make_batch(labels, rankings), make_batch(labels, longer)
    for name, m in PARSED.items():
        if m.name in ("NumRet", "F", "utility", "set_relative_P", "Rndcg") or "upper" in name:
            continue  # they count retrieved documents (Rndcg: an nDCG at the run's end) or unjudged mass
        assert np.allclose(m(a), m(b), atol=1e-12, rtol=0), name


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(topic_and_rankings(), st.data())
def test_moving_a_better_document_up_never_hurts(case, data):
    labels, rankings = case
    r = rankings[0]
    if len(r) < 2:
        return
    i = data.draw(st.integers(0, len(r) - 2))
    grade = [labels[d] if d >= 0 else 0 for d in r]
    if max(grade[i], 0) >= max(grade[i + 1], 0):
        return
    swapped = list(r)
    swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
    before, after = make_batch(labels, [r]), make_batch(labels, [swapped])
    for name in ["P@1", "P@5", "AP", "RR", "nDCG", "nDCG@3", "ERR", "RBP", "R@5", "Rprec", "NumRelRet"]:
        m = PARSED[name]
        assert m(after)[0, 0] >= m(before)[0, 0] - 1e-12, name


@settings(max_examples=100, deadline=None)
@given(topic_and_rankings())
def test_a_batch_scores_each_ranking_as_if_alone(case):
    labels, rankings = case
    together = make_batch(labels, rankings)
    for name, m in PARSED.items():
        alone = np.concatenate([m(make_batch(labels, [r])) for r in rankings])
        assert np.allclose(m(together), alone, atol=1e-12, rtol=0), name


def test_every_measure_on_rankings_without_documents():
    """A block of topics that no run retrieved anything for (depth 0) scores, never crashes."""
    from cranfield.measures.registry import iter_specs

    topics = Topics.from_ideal(np.array([[2, 1, 0]]), num_judged=np.array([4]), max_rel=2)
    batch = Batch.from_labels(np.zeros((2, 1, 0), dtype=np.int64), topics, length=np.zeros((2, 1), dtype=np.int64),
                              judged=np.zeros((2, 1, 0), dtype=bool))
    checked = 0
    for spec in iter_specs():
        if spec.needs_intents or spec.name in ("TOMA", "CAM", "MM"):
            continue  # intent measures: tests/measures/test_diversity*.py; aspect wrappers need aspects
        name = spec.name + ("@0.5" if spec.name == "IPrec" else "@5" if spec.cutoff == "required" else "")
        values = parse_measure(name)(batch)
        # 11pt's level 0 asks for no relevant document: on an empty ranking its precision is 0/0
        # (trec_eval's NaN, docs/conventions.md#judged-only)
        assert values.shape == (2, 1) and np.isnan(values).all() == (spec.name == "11pt"), name
        checked += 1
    assert checked > 40
