"""ξ as a minimum (Golbus, Aslam & Clarke, Inf. Retr. 2013, §5: "the minimum rank at which all subtopics can be
covered"): the exact cover against a brute-force minimum, the greedy cover as an upper bound, TREC 2010 Web
topic 99 (3 documents cover all six subtopics; greedy takes 4) and Table 2's mean dd; the dd average's rule for
topics without relevant documents and ``cranfield eval --dd-depth``."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from cranfield import EvaluationWarning, Topics
from cranfield.analysis.diversity import collection_diversity
from cranfield.cli.main import main
from cranfield.evaluation.averaging import average, dd_weights
from cranfield.evaluation.collection import load_collection
from cranfield.evaluation.evaluator import Evaluator
from cranfield.measures.topics import (
    cover_size,
    d_mean,
    diversity_difficulty,
    exact_cover,
    greedy_cover,
    subtopic_miss_rate,
)

WEB2010 = DATA / "web2010" / "10.diversity-qrels.final.txt.gz"
WEB2011 = DATA / "web2011" / "qrels-for-ndeval.txt.gz"
BUNDLED = {"2009": DATA / "web2009" / "qrels.diversity.gz", "2010": WEB2010, "2011": WEB2011,
           "2012": DATA / "web2012" / "qrels-for-ndeval.txt.gz", "2013": DATA / "web2013" / "qrels.ndeval.gz",
           "2014": DATA / "web2014" / "qrels.ndeval.txt.gz"}


def quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


def coverage_sets(topics: Topics, t: int, rel: int = 1) -> list[frozenset[int]]:
    """The distinct non-empty sets of declared intents the relevant documents of topic t cover."""
    covers = (topics.rel_docs[t] >= rel) & (topics.weights[t] > 0)[None, :]
    return sorted({frozenset(np.flatnonzero(row).tolist()) for row in covers if row.any()}, key=sorted)


def brute_force(sets: list[frozenset[int]], limit: int | None = None) -> int | None:
    """The fewest sets whose union is the union of all (itertools.combinations); None when a size
    below ``limit`` is not enough and ``limit`` is given (the caller knows ``limit`` covers)."""
    goal = frozenset().union(*sets)
    if not goal:
        return 0
    for k in range(1, (limit if limit is not None else len(sets)) + 1):
        if any(frozenset().union(*c) == goal for c in itertools.combinations(sets, k)):
            return k
    return None


def cheap(n_sets: int, below: int, budget: int = 200_000) -> bool:
    return sum(int(np.prod(range(n_sets - k + 1, n_sets + 1)) // np.prod(range(1, k + 1)))
               for k in range(1, below)) <= budget


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 3).flatmap(lambda n_t: st.integers(1, 7).flatmap(lambda n_i: st.lists(
    st.lists(st.lists(st.integers(0, 2), min_size=n_i, max_size=n_i), min_size=1, max_size=9),
    min_size=n_t, max_size=n_t))))
def test_exact_cover_is_the_brute_force_minimum(labels):
    width = max(len(rows) for rows in labels)
    docs = np.zeros((len(labels), width, len(labels[0][0])), dtype=int)
    for t, rows in enumerate(labels):
        docs[t, :len(rows)] = rows
    topics = Topics.from_intent_labels(docs)
    for rel in (1, 2):
        exact, greedy = exact_cover(topics, rel), greedy_cover(topics, rel)
        for t in range(len(labels)):
            assert exact[t] == brute_force(coverage_sets(topics, t, rel))
        assert (exact <= greedy).all()


@pytest.mark.parametrize("year", sorted(BUNDLED))
def test_exact_cover_on_web_track_qrels(year):
    """TREC Web 2009–2014 diversity qrels: exact ξ = the brute-force minimum on every topic where the
    search for a cover smaller than the exact one is cheap (every topic of these files but a few),
    and ≤ greedy everywhere."""
    topics = quiet(load_collection, BUNDLED[year]).topics
    exact, greedy = exact_cover(topics), greedy_cover(topics)
    assert (exact <= greedy).all()
    checked = 0
    for t in range(len(exact)):
        sets = coverage_sets(topics, t)
        if not cheap(len(sets), int(exact[t])):
            continue
        checked += 1
        assert brute_force(sets, int(exact[t])) == exact[t], t  # nothing smaller covers, exact[t] does
    assert checked >= 0.8 * len(exact)


def test_topic_99_of_2010():
    """Three documents cover the six subtopics of TREC 2010 Web topic 99; the greedy cover takes four."""
    result = quiet(collection_diversity, WEB2010, depth="xi+1")
    row = {r["topic"]: r for r in result.records()}["99"]
    assert (row["xi"], row["xi_greedy"], row["depth"], row["intents"]) == (3, 4, 4, 6)
    assert result.greedy_gaps() == [("99", 4, 3)]
    greedy = quiet(collection_diversity, WEB2010, depth="xi+1", xi="greedy")
    assert {r["topic"]: r for r in greedy.records()}["99"]["xi"] == 4
    topics = quiet(load_collection, WEB2010).topics
    sets = coverage_sets(topics, quiet(load_collection, WEB2010).topic_ids.index("99"))
    assert brute_force(sets) == 3


def test_table_2_mean_dd_2010():
    """Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 2, 2010 row (depth ξ + 1): min 0.449, mean 0.727 with ξ the
    minimum; the greedy ξ of topic 99 gives 0.728. The maximum is 0.977 (Table 1's topic 86, a 2010 topic): the
    printed 0.994 is Table 1's topic 143, a 2011 topic — the Max column's two values are swapped in the table."""
    summary = quiet(collection_diversity, WEB2010, depth="xi+1").summary()
    assert summary["topics"] == 48
    assert [round(summary[k], 3) for k in ("min", "max", "mean")] == [0.449, 0.977, 0.727]
    greedy = quiet(collection_diversity, WEB2010, depth="xi+1", xi="greedy").summary()
    assert round(greedy["mean"], 3) == 0.728


def test_table_2_2011():
    summary = quiet(collection_diversity, WEB2011, depth="xi+1").summary()
    assert [round(summary[k], 3) for k in ("min", "max", "mean")] == [0.643, 0.994, 0.809]


def test_everything_that_uses_xi_gets_the_exact_one():
    """d_mean, dd and smr at "xi"/"xi+1", the α#-IA smr weights and dd_weights use the minimum cover."""
    docs = np.array([[[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 0]]])
    topics = Topics.from_intent_labels(docs)
    assert exact_cover(topics).tolist() == [2] and greedy_cover(topics).tolist() == [3]
    for depth, k in (("xi", 2), ("xi+1", 3)):
        assert d_mean(topics, depth) == pytest.approx(d_mean(topics, k), abs=0)
        assert d_mean(topics, depth, xi="greedy") == pytest.approx(d_mean(topics, k + 1), abs=0)
        assert diversity_difficulty(topics, depth) == pytest.approx(diversity_difficulty(topics, k), abs=0)
        assert subtopic_miss_rate(topics, depth) == pytest.approx(subtopic_miss_rate(topics, k), abs=0)
    assert dd_weights(topics) == pytest.approx(1 - diversity_difficulty(topics, 2), abs=0)
    assert cover_size(topics, xi="greedy").tolist() == [3]
    from cranfield.measures.alpha_sharp import _smr_weights  # noqa: PLC2701 — the weights α#-IA(subtopics=smr) uses

    assert _smr_weights(topics, 1) == pytest.approx(subtopic_miss_rate(topics, 2, fallback=topics.weights), abs=0)
    stats = collection_diversity({"1": {str(i): {f"d{j}": int(docs[0, j, i]) for j in range(3)} for i in range(6)}})
    assert stats.stats.xi.tolist() == [2] and stats.stats.xi_greedy.tolist() == [3]


def test_more_intents_than_the_guard_fall_back_to_greedy():
    docs = np.array([[[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 0]]])
    with pytest.warns(EvaluationWarning, match="more than 5 coverable intents: their xi is the greedy"):
        assert exact_cover(Topics.from_intent_labels(docs), max_intents=5).tolist() == [3]


def test_cli_collection_warns_where_greedy_is_larger(capsys):
    assert main(["collection", str(WEB2010), "--depth", "xi+1"]) == 0
    captured = capsys.readouterr()
    assert "mean 0.727" in captured.out
    assert "greedy set cover is larger than the minimum xi for 1 topics (topic: greedy > exact): 99: 4 > 3" \
        in captured.err
    assert main(["collection", str(WEB2010), "--depth", "xi+1", "--xi", "greedy"]) == 0
    captured = capsys.readouterr()
    assert "mean 0.728" in captured.out and "greedy set cover is larger" not in captured.err


# --------------------------------------------------------------------------- the dd average
QRELS = {"1": {"x": {"a": 1, "c": 1}, "y": {"b": 1}, "z": {"c": 1}},
         "2": {"x": {"a": 1, "b": 1}, "y": {"b": 1}},
         "3": {"x": {"a": 0}, "y": {"b": 0}}}  # no relevant document
RUN = {"1": {"a": 3, "b": 2, "c": 1}, "2": {"b": 2, "a": 1}, "3": {"a": 1, "b": 0.5}}


def test_topic_without_relevant_documents_is_left_out_of_the_dd_average():
    """dd is 0/0 without relevant documents: weight NaN, left out of the dd average with a warning naming it
    (weight 1 − 0 = 1, the largest, would count a topic every run scores 0 on)."""
    coll = load_collection(QRELS, empty_intents="keep")
    w = dd_weights(coll.topics)
    assert np.isnan(w[coll.topic_ids.index("3")]) and not np.isnan(np.delete(w, coll.topic_ids.index("3"))).any()
    with pytest.warns(EvaluationWarning, match="1 topics have no relevant document .* dd average: 3"):
        got = average([0.5, 1.0, 0.0], "dd", weights=w, topics=list(coll.topic_ids))
    keep = [coll.topic_ids.index(t) for t in ("1", "2")]
    assert got == pytest.approx((0.5 * w[keep[0]] + 1.0 * w[keep[1]]) / w[keep].sum())


@pytest.mark.parametrize("depth", ["xi", "xi+1", 5])
def test_eval_dd_depth(depth, tmp_path, capsys):
    """``Evaluator(dd_depth=...)`` and ``cranfield eval --average dd --dd-depth``: the all row weighs topic t by
    1 − dd(t) at that depth (Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 10's dd rows: ξ + 1)."""
    qrels = {t: q for t, q in QRELS.items() if t != "3"}
    ev = Evaluator(qrels, ["StRecall@2"], average="dd", dd_depth=depth)
    res = ev.evaluate({t: r for t, r in RUN.items() if t in qrels})
    w = dd_weights(load_collection(qrels).topics, depth)
    assert not np.allclose(w, dd_weights(load_collection(qrels).topics, "xi" if depth != "xi" else 5))
    per_topic = res.values[0, 0]
    expected = float((per_topic * w).sum() / w.sum())
    frame = res.to_frame(False)
    assert float(frame["value"].iloc[0]) == pytest.approx(expected, abs=1e-12)
    qpath, rpath = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qpath.write_text("".join(f"{t} {i} {d} {r}\n" for t, q in qrels.items() for i, docs in q.items()
                             for d, r in docs.items()))
    rpath.write_text("".join(f"{t} Q0 {d} {n} {s} r\n" for t, docs in RUN.items() if t in qrels
                             for n, (d, s) in enumerate(docs.items(), 1)))
    assert main(["eval", str(qpath), str(rpath), "-m", "StRecall@2", "--average", "dd",
                 "--dd-depth", str(depth), "--diversity"]) == 0
    out = capsys.readouterr().out
    assert f"{expected:.4f}" in out
