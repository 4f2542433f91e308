"""Hand-computed values of every ad hoc measure (docs/conventions.md#adhoc), written as the formulas they come from.

Topic "q" has labels a:3, b:2, c:1, e:1 (R = 4), d:0 and f:-2 (spam: judged, not relevant);
the run ranks d, a, x (unjudged), c, f, b — six documents.
"""

from __future__ import annotations

from math import log2

import numpy as np
import pytest

import cranfield
from conftest import DATA
from cranfield import Batch, Topics, parse_measure

QRELS = {"q": {"a": 3, "b": 2, "c": 1, "d": 0, "e": 1, "f": -2}}
RUN = {"q": {"d": 6, "a": 5, "x": 4, "c": 3, "f": 2, "b": 1}}

ERR_STOP = {0: 0.0, 1: 1 / 8, 2: 3 / 8, 3: 7 / 8}  # (2^g - 1) / 2^3
CG_STAR = [7, 10, 11, 12, 12, 12]  # ideal cumulative exp gains 7, 3, 1, 1
EPS = 1e-5  # trec_eval's INFAP_EPSILON
BR = {2: (1 + 7) / (2 + 10), 4: (2 + 8) / (4 + 12), 6: (3 + 11) / (6 + 12)}

EXPECTED = {
    "P@5": 2 / 5,
    "P@10": 3 / 10,
    "R@5": 2 / 4,
    "R": 3 / 4,
    "AP": (1 / 2 + 2 / 4 + 3 / 6) / 4,
    "AP@4": (1 / 2 + 2 / 4) / 4,
    "RR": 1 / 2,
    "RR@1": 0.0,
    "Rprec": 2 / 4,
    "nDCG": (3 / log2(3) + 1 / log2(5) + 2 / log2(7)) / (3 + 2 / log2(3) + 1 / 2 + 1 / log2(5)),
    "nDCG@2": (3 / log2(3)) / (3 + 2 / log2(3)),
    "nDCG(gains=exp)": (7 / log2(3) + 1 / log2(5) + 3 / log2(7)) / (7 + 3 / log2(3) + 1 / 2 + 1 / log2(5)),
    "nDCG(gains=0:0,1:1,2:5,3:10)@3": (10 / log2(3)) / (10 + 5 / log2(3) + 1 / 2),
    "ERR": ERR_STOP[3] / 2 + ERR_STOP[1] * (1 - ERR_STOP[3]) / 4
    + ERR_STOP[2] * (1 - ERR_STOP[3]) * (1 - ERR_STOP[1]) / 6,
    "ERR@3": ERR_STOP[3] / 2,
    "ERR(max_rel=4)@2": (7 / 16) / 2,
    "RBP": 0.2 * (0.8 * 1 + 0.8**3 * (1 / 3) + 0.8**5 * (2 / 3)),
    "RBP(part=residual)": 0.2 * 0.8**2 + 0.8**6,
    "RBP(p=0.5,part=upper)@3": 0.5 * (0.5 * 1) + (0.5 * 0.5**2 + 0.5**3),
    "Q": (BR[2] + BR[4] + BR[6]) / 4,
    "Q@3": BR[2] / 3,
    "Q(beta=0)": (1 / 2 + 2 / 4 + 3 / 6) / 4,  # β = 0 turns Q into AP
    "P+": BR[2] / 1,
    "P+@1": 0.0,
    "P+@6": BR[2],
    "F": 2 * (3 / 6) * (3 / 4) / (3 / 6 + 3 / 4),
    "F(beta=2)@4": 5 * (2 / 4) * (2 / 4) / (4 * 2 / 4 + 2 / 4),
    "NumRet": 6,
    "NumRet@4": 4,
    "NumRel": 4,
    "NumRelRet": 3,
    "NumRelRet@2": 1,
    "P(rel=2)@2": 1 / 2,
    "Success@1": 0.0,
    "Success@2": 1.0,
    # bpref: the only judged non-relevant document (d; f's -2 does not count) precedes them all
    "Bpref": 0.0,
    # rel=2: R = 2 (a, b), judged non-relevant c, d, e (N = 3): a has d above (1 - 1/2), b has d, c (1 - 2/2)
    "Bpref(rel=2)": (0.5 + 0.0) / 2,
    "SetP": 3 / 6,
    "SetR": 3 / 4,
    "SetAP": (3 / 6) * (3 / 4),
    "IPrec@0.0": 0.5,   # precision 1/2, 2/4, 3/6 at the relevant ranks
    "IPrec@0.5": 0.5,   # ⌊0.5·4 + 0.9⌋ = 2 relevant needed
    "IPrec@1.0": 0.0,   # 4 needed, 3 retrieved
    "11pt": 8 * 0.5 / 11,  # levels 0.0–0.7 need ≤ 3 relevant, 0.8–1.0 need 4
    "NumQ": 1,
    # nERR: stop g/(h+1) with exp gains 7, 3, 1 and h = 7 is ERR's (2^g-1)/2^3; the ideal is a, b, c, e
    "nERR": (ERR_STOP[3] / 2 + ERR_STOP[1] * (1 - ERR_STOP[3]) / 4
             + ERR_STOP[2] * (1 - ERR_STOP[3]) * (1 - ERR_STOP[1]) / 6)
    / (7 / 8 + (1 / 8) * (3 / 8) / 2 + (1 / 8) * (5 / 8) * (1 / 8) / 3 + (1 / 8) * (5 / 8) * (7 / 8) * (1 / 8) / 4),
    # Järvelin & Kekäläinen's discount, base 2: ranks 1 and 2 undiscounted, then 1/log2(r)
    "nDCG(discount=jk)": (3 + 1 / log2(4) + 2 / log2(6)) / (3 + 2 + 1 / log2(3) + 1 / log2(4)),
    "Hit@2": 1.0,
    "AP(rel=2)": (1 / 2 + 2 / 6) / 2,
    # Rprec_mult: precision at ⌊m·R + 0.9⌋ = 2 and 8 documents (the missing ranks non-relevant)
    "Rprec(mult=0.5)": 1 / 2,
    "Rprec(mult=2)": 3 / 8,
    # infAP: d judged non-relevant; x absent (not pooled, skipped); f's -2 pooled but unjudged.
    # a at j=1: r−1=0, n=1, u=0; c at j=3: r−1=1, n=1, u=0; b at j=5: r−1=2, n=1, u=1
    "infAP": (1 / 2 + (1 / 2) * (1 / 1) * (EPS / (1 + 2 * EPS))
              + 1 / 4 + (3 / 4) * (2 / 3) * ((1 + EPS) / (2 + 2 * EPS))
              + 1 / 6 + (5 / 6) * (4 / 5) * ((2 + EPS) / (3 + 2 * EPS))) / 4,
}


@pytest.mark.parametrize("name", list(EXPECTED))
def test_hand_computed(name):
    df = cranfield.evaluate(QRELS, RUN, [name], per_topic=False)
    assert df.value.iloc[0] == pytest.approx(EXPECTED[name], abs=1e-12)


def test_every_ad_hoc_measure_has_a_hand_value():
    from cranfield.measures.registry import iter_specs

    tested = {parse_measure(n).name for n in EXPECTED}
    adhoc = {s.name for s in iter_specs() if s.kernel.__module__.endswith("adhoc")}
    assert adhoc <= tested, adhoc - tested


def test_ntcireval_sample():
    """NTCIREVAL's sample (gains 1:2:3) prints Q = 0.0967, P+ = 0.5000, AP = 0.1000, RR = 0.5000,
    MSnDCG@1000 = 0.2760, ERR = 0.4062, RBP = 0.0761, P@1000 = 0.0020 (res_test_compute.txt)."""
    rel = (DATA / "ntcireval" / "sample.rel").read_text().split()
    qrels = {"t": {rel[k]: int(rel[k + 1][1:]) for k in range(0, len(rel), 2)}}
    ranked = (DATA / "ntcireval" / "sample.res").read_text().split()
    run = {"t": {d: float(len(ranked) - k) for k, d in enumerate(ranked)}}
    printed = {
        "Q(gains=1:2:3)": 0.0967, "Q(gains=1:2:3)@1000": 0.0967, "P+(gains=1:2:3)": 0.5000,
        "AP": 0.1000, "AP@1000": 0.1000, "RR": 0.5000, "nDCG(gains=1:2:3)@1000": 0.2760,
        "ERR(sat=ntcir,gains=1:2:3)": 0.4062, "RBP(p=0.95)": 0.0761, "P@1000": 0.0020,
    }
    df = cranfield.evaluate(qrels, run, list(printed), per_topic=False)
    for name, value in zip(df.measure, df.value):
        assert round(value, 4) == pytest.approx(printed[name], abs=1e-12), name


def test_kernels_score_synthetic_batches_directly():
    """The kernels need no files: a (runs, topics, depth) label tensor is enough."""
    topics = Topics.from_ideal(np.array([[2, 1, 1, 0]]))
    labels = np.array([[[1, 0, 2, 1]], [[2, 1, 1, 0]], [[0, 0, 0, 0]]])  # 3 rankings of topic 0
    batch = Batch.from_labels(labels, topics)
    ap = parse_measure("AP")(batch)[:, 0]
    assert ap == pytest.approx([(1 + 2 / 3 + 3 / 4) / 3, 1.0, 0.0])
    assert parse_measure("nDCG")(batch)[1, 0] == pytest.approx(1.0)


def test_truncated_ranking_differs_from_padded_one_only_where_it_should():
    topics = Topics.from_ideal(np.array([[1]]))
    labels = np.array([[[1, 0, 0]], [[1, 0, 0]]])
    batch = Batch.from_labels(labels, topics, length=np.array([[1], [3]]))
    assert parse_measure("NumRet")(batch)[:, 0].tolist() == [1, 3]
    assert parse_measure("F")(batch)[:, 0] == pytest.approx([1.0, 0.5])
    assert parse_measure("P@3")(batch)[:, 0] == pytest.approx([1 / 3, 1 / 3])  # P counts missing ranks
