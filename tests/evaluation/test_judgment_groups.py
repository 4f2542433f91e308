"""Scores averaged over judgment groups (trec_eval's -R qrels_jg), worked by hand."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.judgment_groups import JudgmentGroupEvaluator, evaluate_judgment_groups
from cranfield.io import qrels_from_dict

GROUPS = {"b": qrels_from_dict({"1": {"d2": 1}, "2": {"d1": 1}}), "a": qrels_from_dict({"1": {"d1": 1}})}
RUN = {"1": {"d1": 3.0, "d2": 2.0}, "2": {"d3": 3.0, "d1": 2.0}}


def test_each_topic_averages_the_groups_that_judge_it():
    """Topic 1: AP 1 under a (d1 first), 1/2 under b (d2 second): 3/4. Topic 2, judged by b
    only: 1/2. The mean over topics: 5/8. P@1: (1 + 0)/2 and 0."""
    r = evaluate_judgment_groups(GROUPS, RUN, ["AP", "P@1"])
    assert r.topics == ["1", "2"]
    assert r.values[0].tolist() == [[0.75, 0.5], [0.5, 0.0]]
    assert r.summary()[0].tolist() == [0.625, 0.25]
    assert r.provenance["judgment_groups"] == ["b", "a"] and r.to_frame()["topic"].tolist()[-1] == "all"


def test_a_run_without_any_topic_of_a_group():
    """Group a judges topic 1 only; a run without topic 1 is scored under b alone (topic 2),
    topic 1 counting 0 (missing zero) or left out (missing skip), with a warning."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        zero = evaluate_judgment_groups(GROUPS, {"2": RUN["2"]}, ["AP"], missing="zero")
        skip = evaluate_judgment_groups(GROUPS, {"2": RUN["2"]}, ["AP"], missing="skip")
    assert zero.values[0, 0].tolist() == [0.0, 0.5]
    assert np.isnan(skip.values[0, 0, 0]) and skip.summary()[0, 0] == 0.5


def test_groups_added_in_byte_order():
    """trec_eval adds a topic's groups in strcmp order of their names, then divides: with three
    groups the order shows in the last bit; the result is that of the byte-order sum."""
    values = {"c": 0.4, "A": 0.1, "b": 0.1}  # P@10 under each group: 4, 1 and 1 relevant in the top 10
    docs = [f"d{k}" for k in range(10)]
    groups = {g: qrels_from_dict({"1": {d: 1 for d in docs[:round(v * 10)]} | {"x": 0}}) for g, v in values.items()}
    r = JudgmentGroupEvaluator(groups, ["P@10"]).evaluate({"1": {d: 10.0 - k for k, d in enumerate(docs)}})
    assert r.values[0, 0, 0] == (0.1 + 0.1 + 0.4) / 3 != (0.4 + 0.1 + 0.1) / 3


def test_per_intent_rows_refused():
    from cranfield.errors import CranfieldError

    with pytest.raises(CranfieldError, match="no per-intent"):
        JudgmentGroupEvaluator(GROUPS, ["AP"]).evaluate(RUN, per_intent=True)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_each_topic_is_the_byte_order_mean_of_its_groups(seed, n_groups):
    """Property: a topic's value is the sum, in the byte order of the group names, of the plain
    Evaluator's values under each group that judges the topic, over their number; one group alone
    is the plain evaluation, bit for bit."""
    rng = np.random.default_rng(seed)
    names = ["b", "A", "10", "9"][:n_groups]
    docs = [f"d{k}" for k in range(12)]
    groups = {}
    for g in names:
        topics = [t for t in ("1", "2", "3") if rng.random() < 0.7] or ["1"]
        groups[g] = qrels_from_dict({t: {d: int(rng.integers(-1, 4)) for d in rng.choice(docs, 6, replace=False)}
                                     for t in topics})
    run = {t: {d: float(rng.integers(0, 4)) for d in rng.choice(docs, 8, replace=False)} for t in ("1", "2", "3")}
    measures = ["AP", "P@5", "nDCG@10", "Rprec(mult=0.6)"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = JudgmentGroupEvaluator(groups, measures).evaluate(run)
        alone = {g: Evaluator(q, measures).evaluate(run) for g, q in groups.items()}
    for k, topic in enumerate(got.topics):
        judging = [g for g in sorted(groups, key=str.encode) if topic in alone[g].topics]
        total = np.zeros(len(measures))
        for g in judging:
            total += alone[g].values[0, :, alone[g].topics.index(topic)]
        assert got.values[0, :, k].tolist() == (total / len(judging)).tolist()
