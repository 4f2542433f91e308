"""Truncated-ranking measures (docs/conventions.md#truncated; Amigó, Mizzaro & Spina, SIGIR 2022, §3): hand values,
OIE against a brute-force materialised collection, the β calibration of §3.4, and prefix consistency."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from cranfield import Batch, MeasureError, Topics, parse_measure
from cranfield.analysis.truncation import prefix_measures
from cranfield.measures.registry import lookup

# topic q: a (label 1), b (0), c (2); max_rel 2. The run returns a, x (unjudged), c.
QRELS = {"q": {"a": 1, "b": 0, "c": 2}}
RUN = {"q": {"a": 3, "x": 2, "c": 1}}
SAT = [0.25, 0.0, 0.75 * 0.75]  # Rel' = (2^g - 1)/4 = 0.25, 0, 0.75 through the cascade
EXPECTED = {
    "FlatUtility": (0.5 + 0 + 1) - 3 * 0.05,
    "FlatUtility(e=0)": 1.5,
    "DCGU": 0.45 - 0.05 / math.log2(3) + 0.95 / 2,
    "ERRU": (SAT[0] - 0.05) / 1 + (SAT[1] - 0.05) / 2 + (SAT[2] - 0.05) / 3,
    "RBPU": 0.2 * (0.45 - 0.05 * 0.8 + 0.95 * 0.64),
    "RBPU(p=0.5,e=0.1)": 0.5 * (0.4 - 0.1 * 0.5 + 0.9 * 0.25),
    "RBU": 0.2 * ((SAT[0] - 0.05) + 0.8 * (SAT[1] - 0.05) + 0.64 * (SAT[2] - 0.05)),
    "RBU(max_rel=topic)": 0.2 * ((SAT[0] - 0.05) + 0.8 * (SAT[1] - 0.05) + 0.64 * (SAT[2] - 0.05)),
    "RBU(max_rel=3)": 0.2 * ((1 / 8 - 0.05) + 0.8 * -0.05 + 0.64 * ((3 / 8) * (7 / 8) - 0.05)),
    "RBPT": 0.2 * (0.5 + 0.64 * 1 + 0.512 * 1),            # Rel_T = 1.5 / 1.5
    "RBPT@1": 0.2 * (0.5 + 0.8 * (0.5 / 1.5)),              # truncated at 1: Rel_T = 1/3
    "ERRT": 0.25 + 0.75 * 0.75 / 3 + 0.75 * 0.25 * 1 / 4,
    "NDCGT": (1 + 2 / 2 + 2 / math.log2(5)) / (2 + 1 / math.log2(3) + 2 / 2),
    "RRT": 1.0,
    "iRBU": 0.99 * (1 / 3) + 0.99**3 * (2 / 3) * (2 / 3),   # g/(h+1) with h = 2
    "F": 2 * (2 / 3) * 1 / (2 / 3 + 1),
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_hand_computed(name):
    df = cranfield.evaluate(QRELS, RUN, [name], per_topic=False)
    assert df.value.iloc[0] == pytest.approx(EXPECTED[name], abs=1e-12)


def test_empty_ranking_and_missing_topics():
    """A topic missing from the run *is* the empty ranking for truncation-aware measures."""
    qrels = {"q": {"a": 1}, "r": {"b": 1}, "none": {"z": 0}}
    run = {"q": {"a": 1.0}}
    names = ["FlatUtility", "RBU", "RBPT", "RRT", "NDCGT", "ERRT", "OIE", "AP"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(qrels, run, names)
    r = df[df.topic == "r"].set_index("measure").value
    none = df[df.topic == "none"].set_index("measure").value
    assert r["FlatUtility"] == 0 and r["RBU"] == 0 and r["AP"] == 0
    assert r["RRT"] == 0 and r["RBPT"] == 0  # Rel_T = 0: nothing of 1 relevant found
    assert none["RRT"] == 1.0 and none["RBPT"] == pytest.approx(0.2)  # nothing to find: Rel_T = 1
    assert r["OIE"] == pytest.approx((1 - 1.05) * math.log(20000) / 20000)


def brute_oie(labels_ranked, judged_relevant, size, beta):
    """OIE by materialising the collection (docs/conventions.md#truncated definition, literally)."""
    docs = [(r + 1, max(g, 0)) for r, g in enumerate(labels_ranked)]
    retrieved_rel = sorted(g for g in labels_ranked if g > 0)
    remaining = sorted(judged_relevant)
    for g in retrieved_rel:
        remaining.remove(g)
    docs += [(math.inf, g) for g in remaining]
    docs += [(math.inf, 0)] * (size - len(docs))
    assert len(docs) == size

    def h(pred):
        return -sum(math.log(sum(1 for e in docs if pred(e, d)) / size) for d in docs) / size

    hs = h(lambda e, d: e[0] <= d[0])
    hg = h(lambda e, d: e[1] >= d[1])
    hsg = h(lambda e, d: e[0] <= d[0] and e[1] >= d[1])
    return hs + hg - beta * hsg


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([0, 0, 1, 2]), min_size=0, max_size=6),
       st.lists(st.sampled_from([1, 2]), min_size=0, max_size=4),
       st.sampled_from([1.01, 1.05, 1.5]))  # beta > 1, OIE's declared range
def test_oie_closed_form_equals_brute_force(ranked, extra, beta):
    judged = [g for g in ranked if g > 0] + extra  # the retrieved relevant ones are judged too
    size = len(ranked) + len(extra) + 5
    ideal = np.array([sorted(judged, reverse=True) or [0]])
    topics = Topics.from_ideal(ideal, max_rel=2)
    batch = Batch.from_labels(np.array([[ranked or [0]]]), topics, length=np.array([[len(ranked)]]))
    got = parse_measure(f"OIE(beta={beta},collection={size})")(batch)[0, 0]
    assert got == pytest.approx(brute_oie(ranked, judged, size, beta), abs=1e-12)


def test_beta_calibration():
    """Amigó, Mizzaro & Spina, SIGIR 2022, §3.4: with one relevant document and |D| = 20,000, "relevant at rank 20 after
    19 non-relevant" ties with the empty ranking at β = (20 ln D − ln 20!)/(19 ln D − ln 19!)
    ≈ 1.0464 (the paper rounds to 1.05)."""
    size = 20000
    beta = (20 * math.log(size) - math.lgamma(21)) / (19 * math.log(size) - math.lgamma(20))
    assert beta == pytest.approx(1.0464, abs=5e-5)
    topics = Topics.from_ideal(np.array([[1]]))
    labels = np.zeros((2, 1, 20), dtype=int)
    labels[0, 0, 19] = 1
    batch = Batch.from_labels(labels, topics, length=np.array([[20], [0]]))
    for b, sign in [(beta, 0), (beta - 0.01, 1), (beta + 0.01, -1)]:
        later, empty = parse_measure(f"OIE(beta={b})")(batch)[:, 0]
        assert np.sign(round((later - empty) * 1e9)) == sign


def test_oie_collection_too_small():
    with pytest.raises(MeasureError, match="collection"):
        cranfield.evaluate({"q": {"a": 1}}, {"q": {f"d{k}": 1.0 / (k + 1) for k in range(30)}}, ["OIE(collection=20)"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 1, 2, 3]), min_size=1, max_size=8), st.data())
def test_prefix_values_equal_the_measure_on_truncated_rankings(labels, data):
    """The prefix function at n' equals the measure evaluated on the ranking cut at n'."""
    n = len(labels)
    judged = np.array([[3, 2, 1, 1, 0, 0]])
    topics = Topics.from_ideal(judged, num_judged=np.array([8]), max_rel=3)
    lab = np.array([[labels]])
    judged_mask = lab >= 0
    full = Batch.from_labels(np.maximum(lab, 0), topics, judged=judged_mask)
    name = data.draw(st.sampled_from(prefix_measures()))
    m = parse_measure(name)
    prefix = lookup(m.name).prefix(full, **m.params)[0, 0]
    for k in range(n + 1):
        cut = Batch.from_labels(np.maximum(lab, 0), topics, length=np.array([[k]]), judged=judged_mask)
        assert prefix[k] == pytest.approx(m(cut)[0, 0], abs=1e-12), (name, k)


def test_utility_measures_sum_to_n():
    """With e = 0 and every document fully relevant, the utilities reduce to their discounts."""
    topics = Topics.from_ideal(np.array([[1, 1, 1]]))
    batch = Batch.from_labels(np.array([[[1, 1, 1]]]), topics)
    assert parse_measure("FlatUtility(e=0)")(batch)[0, 0] == 3
    assert parse_measure("DCGU(e=0)")(batch)[0, 0] == pytest.approx(1 + 1 / math.log2(3) + 0.5)
    assert parse_measure("RBPU(e=0)")(batch)[0, 0] == pytest.approx(1 - 0.8**3)


def test_rbu_with_intents_is_never_nan():
    qrels = {"q": {"i": {"a": 1}, "j": {"b": 2}, "k": {"c": 0}}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(qrels, run, ["RBU(max_rel=topic)", "RBU"], per_topic=False, empty_intents="keep")
    assert np.isfinite(df.value).all()
    # intents i, j, k weighted 1/3; REL_i(a) = (2^1-1)/2^1 = 0.5, REL_j(b) = (2^2-1)/2^2 = 0.75
    expected = 0.2 * ((0.5 / 3 - 0.05) + 0.8 * (0.75 / 3 - 0.05))
    assert df.value.iloc[0] == pytest.approx(expected)
