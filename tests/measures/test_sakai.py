"""Sakai's family on the Figure 1 example of Sakai, WWW 2012, worked by hand (docs/conventions.md#sakai restates the
figure).

Intent i (informational) and j (navigational), w = 1/2 each, l = 5, exp gains (L1 1, L2 3, L3 7):
rank 1 A: L1 for i; rank 2 B: L3 for i, L1 for j; rank 3 C: non-relevant; rank 4 D: L3 for j;
rank 5 E: L2 for i. R_i = 3, R_j = 2.
"""

from __future__ import annotations

from math import log2

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from cranfield import Batch, Topics, parse_measure

QRELS = {"q": {"i": {"A": 1, "B": 3, "E": 2, "C": 0}, "j": {"B": 1, "D": 3}}}
RUN = {"q": {"A": 5, "B": 4, "C": 3, "D": 2, "E": 1}}
TYPES = {("q", "i"): "inf", ("q", "j"): "nav"}


def score(name, types=TYPES, run=RUN):
    df = cranfield.evaluate(QRELS, run, [name], per_topic=False, intent_types=types)
    return df.value.iloc[0]


def d(*xs):
    return sum(x / log2(r + 2) for r, x in enumerate(xs))


IDEAL_DCG = d(4, 3.5, 1.5, 0.5)                                  # GG*: B 4, D 3.5, E 1.5, A 0.5
D_NDCG = d(0.5, 4, 0, 3.5, 1.5) / IDEAL_DCG
DIN_NDCG = d(0.5, 4, 0, 0, 1.5) / IDEAL_DCG                      # D's gain for j is redundant
D_Q = (1.5 / 5 + 6.5 / 9.5 + 11 / 13.5 + 13.5 / 14.5) / 4         # cg* 4, 7.5, 9, 9.5, 9.5
DIN_Q = (1.5 / 5 + 6.5 / 9.5 + 7.5 / 13.5 + 10 / 14.5) / 4
Q_I = (2 / 8 + 10 / 12 + 14 / 16) / 3                             # intent i: ideal 7, 3, 1
Q_J = (2 / 10 + 10 / 12) / 2                                      # intent j: ideal 7, 1
ERR_RUN = 0.1 + 0.9 * 0.8 / 2 + 0.9 * 0.2 * 0.7 / 4 + 0.9 * 0.2 * 0.3 * 0.3 / 5   # stop GG/(4 + 1)
ERR_IDEAL = 0.8 + 0.2 * 0.7 / 2 + 0.2 * 0.3 * 0.3 / 3 + 0.2 * 0.3 * 0.7 * 0.1 / 4

EXPECTED = {
    "I-rec@5": 1.0,
    "D-nDCG@5": D_NDCG,
    "D#-nDCG@5": 0.5 * 1 + 0.5 * D_NDCG,
    "D#-nDCG(gamma=0.2)@5": 0.2 * 1 + 0.8 * D_NDCG,
    "DIN-nDCG@5": DIN_NDCG,
    "DIN#-nDCG@5": 0.5 + 0.5 * DIN_NDCG,
    "D-Q@5": D_Q,
    "D#-Q@5": 0.5 + 0.5 * D_Q,
    "DIN-Q@5": DIN_Q,
    "DIN#-Q@5": 0.5 + 0.5 * DIN_Q,
    "Q_IA@5": (Q_I + Q_J) / 2,
    "P+Q@5": (Q_I + Q_J) / 2,          # P+_j = Q_j@5 here (rp_j = 4), so P+Q = Q-IA
    "P+Q#@5": 0.5 + 0.5 * (Q_I + Q_J) / 2,
    "Ef-P@5": 3 / 5,                   # the paper's "3/5 = 0.8" is a typo (docs/conventions.md#sakai)
    "D-ERR@5": ERR_RUN / ERR_IDEAL,
    "D-RBP@5": 0.2 * (0.5 + 0.8 * 4 + 0.8**3 * 3.5 + 0.8**4 * 1.5) / 4,
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_figure_1(name):
    assert score(name) == pytest.approx(EXPECTED[name], abs=1e-12)


def test_din_is_below_d():
    assert score("DIN-nDCG@5") < score("D-nDCG@5")


def test_p_plus_for_j_is_its_q():
    from cranfield.measures.adhoc import p_plus, q_measure
    from cranfield.measures.diversity import per_intent_scores

    coll = cranfield.Collection.from_qrels(cranfield.io.qrels_from_dict(QRELS), intent_types=TYPES)
    batch = coll.batch([cranfield.io.run_from_dict(RUN)])
    pp = per_intent_scores(batch, p_plus, cutoff=5, beta=1.0, gains="exp")[0, 0]
    q = per_intent_scores(batch, q_measure, cutoff=5, beta=1.0, gains="exp")[0, 0]
    assert pp[1] == pytest.approx(q[1]) == pytest.approx(Q_J)


def test_a_better_first_document_for_j_makes_p_plus_q_less_than_q_ia():
    """Sakai, WWW 2012, §3.2: if rank 2 were L3-relevant for j, rank 4 is ignored by P+ and P+Q < Q-IA."""
    qrels = {"q": {"i": {"A": 1, "B": 3, "E": 2}, "j": {"B": 3, "D": 3}}}
    df = cranfield.evaluate(qrels, RUN, ["P+Q@5", "Q_IA@5"], per_topic=False, intent_types=TYPES)
    assert df.value.iloc[0] < df.value.iloc[1]


def test_redundancy_is_ignored_only_for_navigational_intents():
    informational = {("q", "i"): "inf", ("q", "j"): "inf"}
    assert score("DIN-nDCG@5", informational) == pytest.approx(score("D-nDCG@5", informational))
    assert score("DIN-Q@5", informational) == pytest.approx(score("D-Q@5", informational))
    assert score("Ef-P@5", informational) == pytest.approx(4 / 5)
    assert score("P+Q@5", informational) == pytest.approx(score("Q_IA@5", informational))
    # i navigational instead: rank 5 (i again) is redundant, rank 4 (j again) counts
    swapped = {("q", "i"): "nav", ("q", "j"): "inf"}
    assert score("Ef-P@5", swapped) == pytest.approx(3 / 5)
    assert score("DIN-nDCG@5", swapped) == pytest.approx(d(0.5, 0.5, 0, 3.5, 0) / IDEAL_DCG)


def test_untyped_intents_warn():
    with pytest.warns(cranfield.EvaluationWarning, match="no intent types were given"):
        cranfield.evaluate(QRELS, RUN, ["DIN-nDCG@5"], per_topic=False)


@st.composite
def diverse_case(draw):
    n_docs, n_int = draw(st.integers(1, 8)), draw(st.integers(1, 4))
    labels = np.array(draw(st.lists(st.lists(st.sampled_from([0, 0, 1, 2, 3]), min_size=n_int, max_size=n_int),
                                    min_size=n_docs, max_size=n_docs)))
    order = draw(st.permutations(list(range(n_docs))))
    nav = np.array(draw(st.lists(st.booleans(), min_size=n_int, max_size=n_int)))
    return labels, order, nav


@settings(max_examples=150, deadline=None)
@given(diverse_case())
def test_properties(case):
    labels, order, nav = case
    relevant = labels[(labels > 0).any(axis=1)]
    if relevant.size == 0:
        return
    w = np.where((relevant > 0).any(axis=0), 1.0, 0.0)
    w = w / w.sum()
    ranking = labels[order][None, None]  # (1, 1, D, I)
    topics_nav = Topics.from_intent_labels(relevant[None], weights=w[None], nav=nav[None])
    topics_inf = Topics.from_intent_labels(relevant[None], weights=w[None])
    for name in ["D-nDCG", "D-Q", "DIN-nDCG", "DIN-Q", "P+Q", "D#-nDCG", "Ef-P@3", "D-ERR", "D-RBP"]:
        m = parse_measure(name)
        for topics in (topics_nav, topics_inf):
            v = m(Batch.from_labels(ranking, topics))[0, 0]
            assert -1e-12 <= v <= 1 + 1e-12, name
    # without navigational intents DIN is D, P+Q is Q-IA
    inf = Batch.from_labels(ranking, topics_inf)
    for a, b in [("DIN-nDCG", "D-nDCG"), ("DIN-Q", "D-Q"), ("P+Q", "Q_IA")]:
        assert parse_measure(a)(inf) == pytest.approx(parse_measure(b)(inf), abs=1e-12)
    # DIN never exceeds D; the ideal list scores 1 on D-nDCG
    nb = Batch.from_labels(ranking, topics_nav)
    assert parse_measure("DIN-nDCG")(nb)[0, 0] <= parse_measure("D-nDCG")(nb)[0, 0] + 1e-12
    gg = (np.exp2(relevant) - 1) @ w
    ideal = relevant[np.argsort(-gg, kind="stable")][None, None]
    assert parse_measure("D-nDCG")(Batch.from_labels(ideal, topics_inf))[0, 0] == pytest.approx(1.0)
