"""Collection diversity (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5; docs/conventions.md#collection): ξ, d_max,
d_mean, dd, smr and `cranfield collection`.

Golbus, Aslam & Clarke's Tables 1 and 3 are about TREC 2010 (topics 57, 60, 73, 86) and 2011 (topics 125,
143) Web diversity qrels, which are not bundled with the tests. Each topic is rebuilt here
from its relevant documents grouped by the set of subtopics they are relevant to — counts read
from the NIST qrels (2010 ``10.diversity-qrels.final.txt``, 2011 ``qrels-for-ndeval.txt``) —
which determines R, R_i and the greedy cover ξ. The bundled TREC 2009 qrels serve as real
data for an independent pure-Python oracle.
"""

from __future__ import annotations

import json
import warnings
from collections import defaultdict

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, read_text
from cranfield import CranfieldError, Topics
from cranfield.analysis.diversity import collection_diversity, topic_stats
from cranfield.cli.main import main
from cranfield.measures.topics import (
    d_max,
    d_mean,
    diversity_difficulty,
    greedy_cover,
    relevant_counts,
    resolve_depth,
    subtopic_miss_rate,
)

# topic -> {subtopics a document is relevant to: number of such documents} (TREC 2010/2011
# qrels), listed by the largest docno of each group, descending: the greedy cover's tie order
# (topic 60 has ξ = 3 with the real docnos, 4 with other tie orders)
PATTERNS = {
    "143": {("1",): 4, ("1", "2"): 21},
    "86": {("3",): 19, ("2", "3", "4"): 58, ("2",): 2, ("2", "3"): 1, ("2", "4"): 1, ("4",): 1},
    "125": {("3",): 3, ("2",): 80, ("2", "3"): 2, ("1", "2"): 27, ("1",): 12, ("1", "3"): 7, ("1", "2", "3"): 1},
    "73": {("1", "2", "4"): 1, ("2",): 44, ("3",): 65, ("1",): 24, ("4",): 12, ("2", "4"): 4, ("3", "4"): 2,
           ("1", "2"): 2, ("2", "3"): 1, ("1", "3"): 1},
    "60": {("1",): 251, ("3",): 8, ("2",): 30, ("2", "4"): 16, ("6",): 1, ("3", "6"): 3, ("1", "5"): 3, ("2", "5"): 1},
    "57": {("1",): 243, ("1", "3"): 13, ("1", "2"): 3, ("1", "2", "4"): 1, ("1", "2", "3", "4"): 1},
}

# Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 1: (# rel docs, per-subtopic counts, dd)
TABLE_1 = {
    "143": (25, [25, 21], "0.994"),
    "86": (82, [78, 62, 60], "0.977"),
    "125": (132, [110, 47, 13], "0.735"),
    "73": (156, [69, 52, 28, 19], "0.730"),
    "60": (313, [254, 47, 16, 11, 4, 4], "0.481"),
    "57": (261, [261, 14, 5, 2], "0.449"),
}

# Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 3: topic -> (ξ, {rank: smr of subtopics 1..
# (numbered by decreasing R_i)})
TABLE_3 = {
    "60": (3, {"xi": ["0.002", "0.143", "0.199", "0.209", "0.224", "0.224"],
               5: ["0.000", "0.113", "0.196", "0.213", "0.239", "0.239"],
               10: ["0.000", "0.061", "0.182", "0.215", "0.271", "0.271"],
               20: ["0.000", "0.016", "0.144", "0.202", "0.319", "0.319"]}),
    "73": (2, {"xi": ["0.141", "0.202", "0.306", "0.351"],
               5: ["0.050", "0.122", "0.344", "0.484"],
               10: ["0.007", "0.040", "0.321", "0.632"],
               20: ["0.000", "0.003", "0.204", "0.793"]}),
    "86": (1, {"xi": ["0.087", "0.435", "0.478"],
               5: ["0.00", "0.383", "0.617"],  # printed with two decimals
               10: ["0.000", "0.278", "0.722"],
               20: ["0.000", "0.129", "0.871"]}),
}


def pattern_qrels(topics=PATTERNS) -> dict:
    """Diversity qrels {topic: {intent: {docno: 1}}} with the documents of each pattern, the
    first pattern's docnos the largest."""
    out: dict = {}
    for topic, patterns in topics.items():
        for p, (intents, count) in enumerate(patterns.items()):
            for j in range(count):
                for i in intents:
                    out.setdefault(topic, {}).setdefault(i, {})[f"t{topic}-p{len(patterns) - p:02d}-{j:03d}"] = 1
    return out


def printed(value: float, text: str) -> bool:
    """``value`` shown to the precision of ``text`` is ``text`` (half a unit in the last place)."""
    decimals = len(text.split(".")[1])
    return abs(value - float(text)) <= 0.5 * 10.0**-decimals + 1e-12


def by_topic(result) -> dict:
    return {r["topic"]: r for r in result.records()}


def test_table_1_dd_reproduces_at_depth_xi_plus_1():
    """Table 1: R and the per-subtopic counts as printed; dd to three decimals at depth ξ + 1."""
    plus_one = by_topic(collection_diversity(pattern_qrels(), depth="xi+1"))
    at_xi = by_topic(collection_diversity(pattern_qrels(), depth="xi"))
    for topic, (num_rel, counts, dd) in TABLE_1.items():
        row = plus_one[topic]
        assert row["R"] == num_rel and sorted(row["R_i"].values(), reverse=True) == counts
        assert row["depth"] == row["xi"] + 1
        assert printed(row["dd"], dd), (topic, row["dd"], dd)
    # at depth ξ (Eq. 2 as the text defines it) the printed values are not reached: topic 60
    # has ξ = 3 and dd(3) = 0.442; Table 1's 0.481 is dd(4) (docs/conventions.md#collection)
    assert at_xi["60"]["xi"] == 3 and not printed(at_xi["60"]["dd"], "0.481")
    assert round(at_xi["60"]["dd"], 3) == 0.442
    assert sum(printed(at_xi[t]["dd"], dd) for t, (_, _, dd) in TABLE_1.items()) == 0


def test_table_3_smr_reproduces_at_depth_xi():
    """Table 3: ξ as printed and smr_i at ranks ξ, 5, 10, 20 to the printed precision, the
    subtopics numbered by decreasing R_i as in the table (ties: 60's subtopics 5 and 6)."""
    for topic, (xi, columns) in TABLE_3.items():
        for depth, expected in columns.items():
            row = by_topic(collection_diversity(pattern_qrels({topic: PATTERNS[topic]}), depth=depth))[topic]
            assert row["xi"] == xi
            assert row["depth"] == (xi if depth == "xi" else depth)
            order = sorted(row["R_i"], key=lambda i: -row["R_i"][i])
            got = [row["smr"][i] for i in order]
            assert all(printed(g, e) for g, e in zip(got, expected)), (topic, depth, got, expected)
            assert sum(got) == pytest.approx(1.0, abs=1e-12)


def test_greedy_cover_ties_go_to_the_larger_docno():
    """Intents 1..6; A {1,2,3}, B {3,4,5}, C {4,5,6} tie at the first step. Taking A leaves
    {4,5,6} (C: ξ = 2); taking B leaves {1,2,6} (D {1,2}, then E {6}: ξ = 3). B has the
    largest docno, so ξ = 3; renamed so that A has it, ξ = 2."""
    sets = {"A": "123", "B": "345", "C": "456", "D": "12", "E": "6"}

    def qrels(names):
        out: dict = {"q": {}}
        for doc, intents in sets.items():
            for i in intents:
                out["q"].setdefault(i, {})[names[doc]] = 1
        return out

    b_largest = {"A": "d1", "B": "d9", "C": "d5", "D": "d3", "E": "d2"}
    a_largest = {"A": "d9", "B": "d1", "C": "d5", "D": "d3", "E": "d2"}
    assert collection_diversity(qrels(b_largest), xi="greedy").stats.xi.tolist() == [3]
    assert collection_diversity(qrels(a_largest), xi="greedy").stats.xi.tolist() == [2]
    assert collection_diversity(qrels(b_largest)).stats.xi.tolist() == [2]  # the minimum (default)


def _oracle(text: str, depth):
    """Pure-Python statistics of diversity qrels text (greedy cover over docnos descending)."""
    rel: dict = defaultdict(lambda: defaultdict(set))
    for line in text.splitlines():
        q, i, d, r = line.split()
        if int(r) > 0:
            rel[q][d].add(int(i))
    out = {}
    for q, docs in rel.items():
        intents = sorted({i for s in docs.values() for i in s})
        big_r = len(docs)
        r_i = {i: sum(i in s for s in docs.values()) for i in intents}
        uncovered, xi = set(intents), 0
        names = sorted(docs, reverse=True)
        while uncovered:
            best = max(names, key=lambda d: len(docs[d] & uncovered))  # first maximum: larger docno
            uncovered -= docs[best]
            xi += 1
        k = {"xi": xi, "xi+1": xi + 1}.get(depth, depth)
        miss = {i: (1 - r_i[i] / big_r) ** k for i in intents}
        mean = 1 - sum(miss.values()) / len(intents)
        total = sum(miss.values())
        smr = {str(i): (miss[i] / total if total else 1 / len(intents)) for i in intents}
        out[q] = {"R": big_r, "xi": xi, "d_mean": mean, "dd": 2 * mean / (1 + mean), "smr": smr,
                  "R_i": {str(i): n for i, n in r_i.items()}}
    return out


@pytest.mark.parametrize("depth", ["xi", "xi+1", 5])
def test_web2009_against_a_pure_python_oracle(depth):
    path = DATA / "web2009" / "qrels.diversity.gz"
    expected = _oracle(read_text(path), depth)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = by_topic(collection_diversity(path, depth=depth, xi="greedy"))  # the oracle's greedy ξ
    assert set(got) == set(expected) and len(got) == 50
    for q, e in expected.items():
        g = got[q]
        assert (g["R"], g["xi"], g["R_i"], g["d_max"]) == (e["R"], e["xi"], e["R_i"], 1.0)
        assert g["d_mean"] == pytest.approx(e["d_mean"], abs=1e-12)
        assert g["dd"] == pytest.approx(e["dd"], abs=1e-12)
        assert g["smr"] == pytest.approx(e["smr"], abs=1e-12)


def test_kept_empty_intents_lower_d_max_and_get_no_miss_rate():
    qrels = {"q": {"a": {"x": 1, "y": 1}, "b": {"y": 1}, "c": {"x": 0}}}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = collection_diversity(qrels, empty_intents="keep")
    s = kept.stats
    assert kept.intent_ids == (("a", "b", "c"),)
    assert s.n_intents.tolist() == [3] and s.d_max.tolist() == [pytest.approx(2 / 3)]
    assert s.smr[0, 2] == 0.0 and s.smr[0].sum() == pytest.approx(1.0)
    # ξ = 1 (y covers a and b); d_mean over the two coverable intents: 1 - (0 + 1/2)/2
    assert s.xi.tolist() == [1] and s.d_mean[0] == pytest.approx(0.75)


def test_degenerate_topics():
    docs = np.array([
        [[1, 1], [1, 1], [0, 0]],  # every document covers every intent: smr is 0/0 -> uniform
        [[0, 0], [0, 0], [0, 0]],  # no relevant document
        [[1, 0], [1, 0], [1, 0]],  # one intent covered, the other declared and empty
    ])
    topics = Topics.from_intent_labels(docs)
    s = topic_stats(topics)
    assert s.xi.tolist() == [1, 0, 1]
    assert s.smr.tolist() == [[0.5, 0.5], [0.0, 0.0], [1.0, 0.0]]
    assert s.dd[1] == 0.0 and s.d_mean[1] == 0.0 and s.d_max[1] == 0.0
    assert s.d_mean[0] == 1.0 and s.dd[0] == 1.0
    assert s.d_max[2] == 0.5
    fallback = np.array([[0.9, 0.1], [0.5, 0.5], [0.5, 0.5]])
    assert subtopic_miss_rate(topics, fallback=fallback)[0].tolist() == [0.9, 0.1]
    # depth 0: nothing drawn, every coverable intent missed: d_mean 0, smr uniform
    assert d_mean(topics, 0).tolist() == [0.0, 0.0, 0.0]
    assert subtopic_miss_rate(topics, 0)[0].tolist() == [0.5, 0.5]


def test_large_depths_do_not_underflow():
    docs = np.zeros((1, 100, 3), dtype=int)
    docs[0, :90, 0] = 1
    docs[0, 90:99, 1] = 1
    docs[0, 99, 2] = 1
    smr = subtopic_miss_rate(Topics.from_intent_labels(docs), 100_000)
    # (0.1)^k and (0.91)^k underflow, their ratio to (0.99)^k does not matter: all mass on intent 3
    assert np.isfinite(smr).all() and smr[0].tolist() == [0.0, 0.0, 1.0]
    smr = subtopic_miss_rate(Topics.from_intent_labels(docs), 5000)
    assert smr[0, 1] > 0 and smr.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("bad", ["xi+2", "deep", -1, 2.5, True])
def test_bad_depth(bad):
    with pytest.raises(CranfieldError, match="The depth must be 'xi', 'xi\\+1' or an integer"):
        resolve_depth(bad, np.array([1]))


@st.composite
def topic_tensors(draw):
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n_t, n_d, n_i = draw(st.integers(1, 4)), draw(st.integers(0, 12)), draw(st.integers(1, 5))
    docs = (rng.random((n_t, n_d, n_i)) < draw(st.floats(0.05, 0.9))).astype(int)
    return Topics.from_intent_labels(docs), draw(st.integers(0, 30))


@settings(max_examples=150, deadline=None)
@given(topic_tensors())
def test_properties(case):
    topics, k = case
    r_i, r = relevant_counts(topics)
    xi = greedy_cover(topics)
    coverable = (r_i > 0).sum(axis=1)
    assert ((xi <= coverable) & (xi <= r) & ((xi > 0) == (r > 0))).all()
    for depth in ("xi", "xi+1", k):
        mean, dd, smr = d_mean(topics, depth), diversity_difficulty(topics, depth), subtopic_miss_rate(topics, depth)
        assert ((mean >= -1e-15) & (mean <= 1 + 1e-15)).all() and ((dd >= -1e-15) & (dd <= 1 + 1e-15)).all()
        assert (smr >= 0).all() and (smr[r_i == 0] == 0).all()
        assert np.allclose(smr.sum(axis=1), (r > 0).astype(float), atol=1e-12)
    # more documents drawn, more intents expected to be covered
    assert (d_mean(topics, k + 1) >= d_mean(topics, k) - 1e-12).all()
    assert np.allclose(d_max(topics), coverable / topics.weights.shape[1])
    direct = np.where(coverable > 0, 1 - ((1 - r_i / np.maximum(r, 1)[:, None]) ** k * (r_i > 0)).sum(axis=1)
                      / np.maximum(coverable, 1), 0.0)
    assert np.allclose(d_mean(topics, k), direct, atol=1e-12)


def test_cli_table_json_and_plot(capsys, tmp_path):
    path = DATA / "web2009" / "qrels.diversity.gz"
    assert main(["collection", str(path), "--format", "json", "--depth", "xi+1",
                 "--plot", str(tmp_path / "dd.png")]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 50 and {"topic", "xi", "d_max", "d_mean", "dd", "smr"} <= set(rows[0])
    assert rows[0]["depth"] == rows[0]["xi"] + 1 and isinstance(rows[0]["smr"], dict)
    assert (tmp_path / "dd.png").stat().st_size > 1000
    assert main(["collection", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["topic", "M", "R", "R_i", "xi"] and len(out) == 52
    assert out[-1].startswith("dd over 50 topics with relevant documents (depth xi): min 0.430")
    assert main(["collection", str(path), "--depth", "xi+2"]) == 2
    assert "depth must be" in capsys.readouterr().err
