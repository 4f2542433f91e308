"""The Cube Test family (docs/conventions.md#cube-test; Albahem et al., ADCS 2018, §4.3; TREC DD 2017 scorer)."""

from __future__ import annotations

import math
import warnings
from collections import Counter, defaultdict

import numpy as np
import pytest

import cranfield
from cranfield import Batch, CranfieldError, Topics, parse_measure
from cranfield.io.dd import looks_like_dd_run, read_dd_run, read_dd_truth
from conftest import DATA, read_text

TRUTH = DATA / "trec-dd" / "trecdd2016-qrels.txt.gz"
RUN = DATA / "trec-dd" / "trecdd2016-sample-run.txt"


def evaluate(qrels, run, names, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cranfield.evaluate(qrels, run, names, **kw)


def test_paper_000_worked_example():
    """Two aspects, binary rating 1, one iteration: CT(a) = 0.05, CT(a·b) = 0.10,
    ACT(a·b) = 0.0750, ACT(a·b·x) = 0.0833 (Albahem et al., ADCS 2018, §4.3)."""
    qrels = {"t": {"1": {"a": 1}, "2": {"b": 1}}}
    one = evaluate(qrels, {"t": {"a": 1.0}}, ["CT", "ACT"], per_topic=False).value.tolist()
    two = evaluate(qrels, {"t": {"a": 2.0, "b": 1.0}}, ["CT", "ACT"], per_topic=False).value.tolist()
    three = evaluate(qrels, {"t": {"a": 3.0, "b": 2.0, "x": 1.0}}, ["ACT"], per_topic=False).value.tolist()
    assert one[0] == pytest.approx(0.05) and two[0] == pytest.approx(0.10)
    assert round(two[1], 4) == 0.0750 and round(three[0], 4) == 0.0833


def ranking_batch(ratings, iterations=None, weights=None, ideal=None):
    """One topic; ``ratings`` (D, I) per ranked document; optional iteration of each."""
    labels = np.array(ratings, dtype=float)[None, None]
    n_int = labels.shape[-1]
    rel_docs = np.array(ideal if ideal is not None else ratings, dtype=float)[None]
    topics = Topics.from_intent_labels(rel_docs, weights=None if weights is None else np.array([weights]))
    it = None if iterations is None else np.array([[iterations]])
    return Batch.from_labels(labels, topics, iteration=it) if n_int else None


def test_cap_at_the_cube_height():
    # one intent, ratings 4 each: raises 4·0.5 = 2, 4·0.25 = 1, then 0.5, 0.25, capped at MH = 3
    b = ranking_batch([[4], [4], [4], [4]])
    ct = parse_measure("CT(height=3)")(b)[0, 0]
    assert ct == pytest.approx(min(3, 2 + 1 + 0.5 + 0.25) / 3)
    assert parse_measure("CT")(b)[0, 0] == pytest.approx((2 + 1 + 0.5 + 0.25) / 5)


def test_iterations_early_stopping_and_empty_iterations():
    # intent weights 1/2; iteration 0: a (rel 1 to intent 1); iteration 2: b (rel 1 to intent 2);
    # iteration 1 is empty: it still counts as time (docs/conventions.md#cube-test: missing iterations are empty)
    b = ranking_batch([[1, 0], [0, 1]], iterations=[0, 2])
    g1, g2 = 0.5 * 0.5, 0.5 * 0.5 + 0.5 * 0.5
    assert parse_measure("CT@1")(b)[0, 0] == pytest.approx(g1 / 5 / 1)
    assert parse_measure("CT@2")(b)[0, 0] == pytest.approx(g1 / 5 / 1)  # iteration 1 empty, 2 not reached
    assert parse_measure("CT@3")(b)[0, 0] == pytest.approx(g2 / 5 / 3)
    assert parse_measure("CT@10")(b)[0, 0] == pytest.approx(g2 / 5 / 3)  # the run stopped: its own iterations
    assert parse_measure("ACT@3")(b)[0, 0] == pytest.approx((g1 / 5 / 1 + g2 / 5 / 3) / 2)
    # a plain ranking split into iterations of one document
    plain = ranking_batch([[1, 0], [0, 1]])
    assert parse_measure("CT(docs_per_iteration=1)")(plain)[0, 0] == pytest.approx(g2 / 5 / 2)
    assert parse_measure("CT")(plain)[0, 0] == pytest.approx(g2 / 5 / 1)


def test_ncT_never_exceeds_one_and_the_jig_bound_can():
    rng = np.random.default_rng(3)
    for _ in range(50):
        d, n_int = int(rng.integers(1, 12)), int(rng.integers(1, 4))
        ratings = rng.integers(0, 5, size=(d, n_int)) * (rng.random((d, n_int)) < 0.5)
        iters = np.sort(rng.integers(0, max(1, d // 2), size=d))
        per = np.bincount(iters)
        if per.max() > 5:
            continue
        b = rankings = ranking_batch(ratings, iterations=iters.tolist(),
                                     ideal=np.vstack([ratings, rng.integers(0, 5, size=(5, n_int))]))
        del rankings
        for c in (1, 2, 5, None):
            at = f"@{c}" if c else ""
            assert parse_measure(f"nCT{at}")(b)[0, 0] <= 1 + 1e-12
    b = ranking_batch([[1], [1], [1]], iterations=[0, 1, 2], ideal=[[1]] * 3)
    assert parse_measure("nCT(bound=jig2017)@10")(b)[0, 0] > 1  # divides by 10 iterations always


def test_repeated_documents_earn_nothing(write):
    truth = write("t.txt", "T1\tT1.1\td1\tp1\t2\nT1\tT1.1\td2\tp2\t1\n")
    run = write("r.txt", "T1\t0\td1\t1.0\t1\t\nT1\t1\td1\t0.9\t1\t\nT1\t1\td2\t0.8\t1\t\n")
    assert looks_like_dd_run(run)
    q = read_dd_truth(truth)
    r = read_dd_run(run)
    g = [2 * 0.5, 2 * 0.5 + 1 * 0.25]  # d1 (rating 2, k = 1), then d2 (rating 1, k = 2); d1 again: nothing
    got = evaluate(q, r, ["CT@2", "ACT@2"], per_topic=False).value.tolist()
    assert got[0] == pytest.approx(g[1] / 5 / 2)
    assert got[1] == pytest.approx((g[0] / 5 / 1 + g[0] / 5 / 2 + g[1] / 5 / 2) / 3)
    with pytest.raises(CranfieldError, match="returned again"):
        read_dd_run(run, dup="error")


def test_passage_ratings_combine(write):
    truth = write("t.txt", "T1\tS1\td1\tp1\t3\nT1\tS1\td1\tp2\t0\nT1\tS1\td1\tp3\t2\nT1\tS2\td2\tp4\t1\n")
    total = read_dd_truth(truth)
    dcg = read_dd_truth(truth, combine="dcg")
    by_doc = lambda q: {(q.intent_ids[i], d.decode()): r for i, d, r in zip(q.intent, q.docno, q.rel)}  # noqa: E731
    assert by_doc(total)[("S1", "d1")] == 3 + 1 + 2  # a 0 rating counts as 1 (2017 scorer)
    assert by_doc(dcg)[("S1", "d1")] == pytest.approx(3 + 2 / math.log2(3) + 1 / 2)  # sorted: 3, 2, 1


# --------------------------------------------------------------------------- the 2017 scorer
def jig_2017(truth_text: str, run_text: str, cutoff: int, gamma=0.5, max_height=5):
    """An independent transcription of the TREC DD 2017 scorer's CT, ACT and bound, per topic."""
    truth: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    for line in truth_text.splitlines():
        topic, sub, doc, _, rating = line.split("\t")
        truth[topic][sub][doc].append(int(rating) or 1)
    run: dict = defaultdict(lambda: defaultdict(list))
    for line in run_text.splitlines():
        parts = line.split("\t")
        run[parts[0]][int(parts[1])].append(parts[2])
    out = {}
    for topic, iterations in run.items():
        docs = defaultdict(dict)
        for sub, d in truth[topic].items():
            for doc, ratings in d.items():
                docs[doc][sub] = sum(ratings)
        n_sub = len(truth[topic])
        height, count = Counter(), Counter()
        time = total = accu = n_docs = 0
        for it in sorted(iterations):
            if it >= cutoff:
                break
            time += 1
            for doc in iterations[it]:
                for sub, rating in docs.get(doc, {}).items():
                    if height[sub] < max_height:
                        h = min(gamma ** (count[sub] + 1) * rating, max_height - height[sub])
                        total += h / n_sub
                        height[sub] += h
                        count[sub] += 1
                accu += total / max_height / time
                n_docs += 1
        bound = 0.0
        for sub in truth[topic]:
            rels = sorted((docs[d].get(sub, 0) for d in docs), reverse=True)
            gain = 0.0
            for i, rel in enumerate(rels):
                gain += min(rel * gamma**i, max_height - gain)
                if i >= cutoff * 5:
                    break
            bound += gain / n_sub
        ct = total / max_height / time if time else 0.0
        out[topic] = (ct, accu / n_docs if n_docs else 0.0, ct / (bound / max_height / cutoff))
    return out


@pytest.mark.parametrize("cutoff", [1, 2, 3, 5, 10])
def test_sample_run_matches_the_2017_scorer(cutoff):
    ref = jig_2017(read_text(TRUTH), read_text(RUN), cutoff)
    df = evaluate(read_dd_truth(TRUTH), read_dd_run(RUN),
                  [f"CT@{cutoff}", f"ACT@{cutoff}", f"nCT(bound=jig2017)@{cutoff}"], missing="skip")
    got = {(r.topic, r.measure.split("@")[0]): r.value for r in df.itertuples() if r.topic != "all"}
    assert {t for t, _ in got} == set(ref) and len(ref) == 51
    for topic, (ct, act, nct) in ref.items():
        assert got[(topic, "CT")] == pytest.approx(ct, abs=1e-9)
        assert got[(topic, "ACT")] == pytest.approx(act, abs=1e-9)
        assert got[(topic, "nCT(bound=jig2017)")] == pytest.approx(nct, abs=1e-9)


def test_cli_dd_files(capsys):
    from cranfield.cli import main

    code = main(["eval", "--dd-truth", str(TRUTH), str(RUN), "-m", "CT@5,nCT@5", "--per-iteration",
                 "--format", "json", "--missing", "skip"])
    import json

    rows = json.loads(capsys.readouterr().out)
    assert code == 0
    measures = {r["measure"] for r in rows}
    assert {"CT@5", "nCT@5", "CT@5[iteration=1]", "CT@5[iteration=5]"} <= measures
    assert all(r["value"] <= 1 + 1e-12 for r in rows if r["measure"].startswith("nCT"))


def test_dd_run_detection(write):
    assert looks_like_dd_run(RUN)
    assert not looks_like_dd_run(write("trec.txt", "1 Q0 d 1 1.0 tag\n"))
    assert not looks_like_dd_run(write("trec0.txt", "1\t0\td\t1\t0\ttag\n"))  # TREC with a 0 second column
    assert looks_like_dd_run(write("dd.txt", "T1\t0\td1\t1.5\t1\tT1.1:3|T1.2:2\n"))
