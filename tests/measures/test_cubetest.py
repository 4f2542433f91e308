"""The Cube Test family (docs/conventions.md#cube-test; Albahem et al., ADCS 2018, §4.3; TREC DD 2017 scorer)."""

from __future__ import annotations

import json
import math
import random
import statistics
import warnings
import xml.etree.ElementTree as ET
from collections import Counter, defaultdict
from itertools import count

import numpy as np
import pytest

import cranfield
from conftest import DATA, read_text
from cranfield import Batch, CranfieldError, Topics, parse_measure
from cranfield.cli.main import main
from cranfield.io.dd import looks_like_dd_run, read_dd_run, read_dd_subtopics, read_dd_truth

TRUTH = DATA / "trec-dd" / "trecdd2016-qrels.txt.gz"
TRUTH_XML = DATA / "trec-dd" / "trecdd2016-truth.xml.gz"  # 36 of its topics as the 2017 scorer's XML
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
    truth = write("t.txt", "T1\tT1.1\td1\t1\t2\nT1\tT1.1\td2\t2\t1\n")
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
    truth = write("t.txt", "T1\tS1\td1\t1\t3\nT1\tS1\td1\t2\t0\nT1\tS1\td1\t3\t2\nT1\tS2\td2\t4\t1\n")
    total = read_dd_truth(truth)
    dcg = read_dd_truth(truth, combine="dcg")
    by_doc = lambda q: {(q.intent_ids[i], d.decode()): r for i, d, r in zip(q.intent, q.docno, q.rel)}  # noqa: E731
    assert by_doc(total)[("S1", "d1")] == 3 + 1 + 2  # a 0 rating counts as 1 (2017 scorer)
    assert by_doc(dcg)[("S1", "d1")] == pytest.approx(3 + 2 / math.log2(3) + 1 / 2)  # sorted: 3, 2, 1


# --------------------------------------------------------------------------- the 2017 scorer
# An independent transcription of the TREC DD 2017 scorer's rules (trec-dd-jig @ f279c6f:
# scorer/truth.py DDTruth and truth4CT, scorer/reader.py DDReader, scorer/cubetest.py
# cubetest_per_topic and ct_bound_per_topic), in plain Python, to compare --compat dd2017 with.
def jig_truth_xml(text: str) -> dict:
    """{topic: ({docno: {subtopic: rating}}, number of declared subtopics)} from the truth XML:
    domain > topic > subtopic > passage; a 0 rating is read as 1; ratings summed per document."""
    topics: dict = {}
    for domain in ET.fromstring(text):
        for topic in domain:
            subtopics = topics.setdefault(topic.get("id"), {})
            for sub in topic:
                if sub.tag != "subtopic":
                    continue
                passages = subtopics[sub.get("id")] = defaultdict(dict)
                for passage in sub:
                    passages[passage.findtext("docno")][passage.get("id")] = int(passage.findtext("rating")) or 1
    return {t: _per_document(subs) for t, subs in topics.items()}


def jig_truth_text(text: str) -> dict:
    """The same from the text truth, whose subtopics are those with a passage."""
    topics: dict = defaultdict(lambda: defaultdict(lambda: defaultdict(dict)))
    for line in text.splitlines():
        topic, sub, doc, passage, rating = line.split("\t")
        topics[topic][sub][doc][passage] = int(rating) or 1
    return {t: _per_document(subs) for t, subs in topics.items()}


def _per_document(subtopics: dict) -> tuple[dict, int]:
    docs: dict = defaultdict(dict)
    for sub, passages in subtopics.items():
        for doc, ratings in passages.items():
            docs[doc][sub] = sum(ratings.values())
    return docs, len(subtopics)


def jig_run(text: str) -> dict:
    """{topic: {iteration: [docno, ...]}} as DDReader builds it: lines up to the first blank one;
    each iteration sorted by score, descending (stable); a document already seen, walking the
    iterations in the order the file first mentions them, renamed so it matches nothing; every
    iteration number below the topic's last that the run skips filled with one unjudged document."""
    run: dict = {}
    for line in text.splitlines():
        if not line.strip():
            break
        topic, iteration, doc, score = line.strip().split("\t")[:4]
        run.setdefault(topic, {}).setdefault(int(iteration), []).append((doc, float(score)))
    for iterations in run.values():
        seen: set = set()
        for it, docs in iterations.items():
            ranked = []
            for doc, _ in sorted(docs, key=lambda x: x[1], reverse=True):
                ranked.append(doc + "_dup" if doc in seen else doc)
                seen.add(doc)
            iterations[it] = ranked
        for it in range(max(iterations) + 1):
            iterations.setdefault(it, ["fill-non-relevant-doc"])
    return run


def jig_cube_test(topic_truth: tuple[dict, int], ranking: dict, cutoff: int, gamma=0.5, max_height=5):
    """(CT, ACT, nCT) of one topic at ``cutoff`` iterations."""
    docs, n_sub = topic_truth
    height, found = Counter(), Counter()
    time = total = accumulated = n_docs = 0
    for it in sorted(ranking):
        if it >= cutoff:
            break
        time += 1
        for doc in ranking[it]:
            for sub, rating in docs.get(doc, {}).items():
                if height[sub] < max_height:
                    raise_by = min(gamma ** (found[sub] + 1) * rating, max_height - height[sub])
                    total += raise_by / n_sub
                    height[sub] += raise_by
                    found[sub] += 1
            accumulated += total / max_height / time
            n_docs += 1
    ct = total / max_height / time if time else 0.0
    bound = 0.0
    for sub in {s for d in docs.values() for s in d}:
        gain = 0.0
        for i, rating in enumerate(sorted((d.get(sub, 0) for d in docs.values()), reverse=True)):
            gain += min(rating * gamma**i, max_height - gain)
            if i >= 5 * cutoff:
                break
        bound += gain / n_sub
    return ct, accumulated / n_docs if n_docs else 0.0, ct / (bound / max_height / cutoff)


def cli_json(capsys, *argv) -> dict:
    """``cranfield eval -q ... --format json`` as {(topic, measure): value}."""
    assert main(["eval", "-q", *map(str, argv), "--format", "json"]) == 0
    return {(r["topic"], r["measure"]): r["value"] for r in json.loads(capsys.readouterr().out)}


def assert_matches_jig(rows: dict, truth: dict, run: dict, cutoff: int) -> int:
    """Every topic's CT, ACT and nCT at ``cutoff`` and after each iteration up to it, and their
    means, against the transcription; returns the number of values compared."""
    compared, means = 0, defaultdict(list)
    assert {t for t, _ in rows} - {"all"} == set(run)
    for topic, ranking in run.items():
        last = max(ranking) + 1
        for k in range(1, cutoff + 1):
            for name, want in zip(("CT", "ACT", "nCT"), jig_cube_test(truth[topic], ranking, k)):
                step = f"{name}@{cutoff}[iteration={k}]"
                assert (rows.get((topic, step)) is not None) == (k <= last), (topic, step)  # NaN past the run
                got = [rows[(topic, step)]] if k <= last else []
                if k == cutoff:
                    got.append(rows[(topic, f"{name}@{cutoff}")])
                    means[name].append(want)
                for value in got:
                    assert value == pytest.approx(want, rel=1e-12, abs=1e-12), (topic, step)
                compared += len(got)
    for name, values in means.items():
        assert rows[("all", f"{name}@{cutoff}")] == pytest.approx(statistics.mean(values), rel=1e-12, abs=1e-12)
    return compared


@pytest.mark.parametrize("cutoff", [1, 2, 3, 5, 10])
def test_sample_run_matches_the_2017_scorer(capsys, cutoff):
    """--compat dd2017 on the 2016 sample run (51 topics) with the text truth."""
    rows = cli_json(capsys, "--compat", "dd2017", "--dd-truth", TRUTH, RUN, "-m",
                    f"CT@{cutoff},ACT@{cutoff},nCT@{cutoff}", "--per-iteration")
    run = jig_run(read_text(RUN))
    assert len(run) == 51
    assert assert_matches_jig(rows, jig_truth_text(read_text(TRUTH)), run, cutoff) >= 3 * 51


@pytest.mark.parametrize("cutoff", [1, 3, 10])
def test_sample_run_with_the_truth_xml_matches_the_2017_scorer(capsys, cutoff):
    """The same with the truth XML (36 topics; the run's other topics are not judged there)."""
    truth = jig_truth_xml(read_text(TRUTH_XML))
    run = {t: r for t, r in jig_run(read_text(RUN)).items() if t in truth}
    assert len(run) == 35
    rows = cli_json(capsys, "--compat", "dd2017", "--dd-truth", TRUTH_XML, RUN, "-m",
                    f"CT@{cutoff},ACT@{cutoff},nCT@{cutoff}", "--per-iteration")
    assert assert_matches_jig(rows, truth, run, cutoff) >= 3 * 35


def test_truth_xml_reads_as_the_text_truth(write):
    """The XML made from the 2016 text truth gives the same combined ratings and subtopics."""
    xml = read_dd_truth(TRUTH_XML)
    topics = set(xml.topic_ids)
    text = read_dd_truth(write("t.txt", "".join(line + "\n" for line in read_text(TRUTH).splitlines()
                                                if line.split("\t")[0] in topics)))

    def ratings(q):
        return {(q.topic_ids[t], q.intent_ids[i], d): r for t, i, d, r in zip(q.topic, q.intent, q.docno, q.rel)}

    assert len(topics) == 36 and len(xml) == 1893 and ratings(xml) == ratings(text)
    subtopics = read_dd_subtopics(TRUTH_XML)
    assert set(zip(subtopics.topic, subtopics.intent)) == {(t, i) for t, i, _ in ratings(text)}


def random_case(rng: random.Random) -> tuple[str, str]:
    """A truth XML (1–3 topics of 1–4 subtopics, some declared without passages; documents with
    several passages, 0 ratings) and a run that skips iterations, repeats documents within and
    across iterations, ties scores and lists its lines in any order."""
    passage_ids = count(1)
    xml = ['<?xml version="1.0"?>', "<trecdd>", '<domain id="1" name="random">']
    topics = [f"T{t}" for t in range(1, rng.randint(1, 3) + 1)]
    for topic in topics:
        xml.append(f'<topic id="{topic}" name="{topic}">')
        n_sub = rng.randint(1, 4)
        judged = set(rng.sample(range(n_sub), rng.randint(1, n_sub)))
        for s in range(n_sub):
            xml.append(f'<subtopic id="{topic}.{s + 1}" name="s">')
            for doc in rng.sample(range(8), rng.randint(1, 4)) if s in judged else []:
                xml.extend(f'<passage id="{next(passage_ids)}"><docno>d{doc}</docno><rating>{rng.randint(0, 4)}'
                           "</rating><type>MANUAL</type></passage>" for _ in range(rng.randint(1, 3)))
            xml.append("</subtopic>")
        xml.append("</topic>")
    xml += ["</domain>", "</trecdd>", ""]
    lines = [f"{topic}\t{it}\td{rng.randrange(10)}\t{rng.choice((1.0, 2.0, 2.5, 3.0))}\t1\t"
             for topic in rng.sample(topics, rng.randint(1, len(topics)))
             for it in rng.sample(range(7), rng.randint(1, 4)) for _ in range(rng.randint(1, 5))]
    rng.shuffle(lines)
    return "\n".join(xml), "\n".join(lines) + "\n"


def test_random_cases_match_the_2017_scorer(capsys, write):
    rng = random.Random(2017)
    compared = 0
    for case in range(40):
        truth_text, run_text = random_case(rng)
        cutoff = rng.randint(1, 8)
        rows = cli_json(capsys, "--compat", "dd2017", "--dd-truth", write(f"truth{case}.xml", truth_text),
                        write(f"run{case}.txt", run_text), "-m", f"CT@{cutoff},ACT@{cutoff},nCT@{cutoff}",
                        "--per-iteration")
        compared += assert_matches_jig(rows, jig_truth_xml(truth_text), jig_run(run_text), cutoff)
    assert compared > 500


# --------------------------------------------------------------------------- where dd2017 differs
def test_a_declared_subtopic_without_passages_counts(write, capsys):
    """Three declared subtopics, one never judged: each weighs 1/3 (the 2017 scorer's
    1/len(subtopics)), in the default mode, with --compat dd2017 and through the Python API."""
    truth = write("truth.xml", """<trecdd><domain id="1" name="d"><topic id="T" name="t">
<subtopic id="T.1" name="a"><passage id="1"><docno>d1</docno><rating>2</rating></passage></subtopic>
<subtopic id="T.2" name="b"><passage id="2"><docno>d2</docno><rating>1</rating></passage></subtopic>
<subtopic id="T.3" name="never judged"/>
</topic></domain></trecdd>""")
    run = write("run.txt", "T\t0\td1\t2.0\t1\t\nT\t0\td2\t1.0\t1\t\n")
    want = (2 * 0.5 / 3 + 1 * 0.5 / 3) / 5  # CT@1: one iteration
    assert cli_json(capsys, "--dd-truth", truth, run, "-m", "CT@1")[("T", "CT@1")] == pytest.approx(want)
    assert cli_json(capsys, "--compat", "dd2017", "--dd-truth", truth, run)[("T", "CT@10")] == pytest.approx(want)
    got = evaluate(read_dd_truth(truth), read_dd_run(run), ["CT@1"], intents=read_dd_subtopics(truth),
                   empty_intents="keep", per_topic=False)
    assert got.value.tolist() == [pytest.approx(want)]
    assert read_dd_subtopics(truth).probability.tolist() == [pytest.approx(1 / 3)] * 3


def test_dd2017_ranks_an_iteration_by_score(write, capsys):
    """Iteration 0 lists d2 (score 1) before d1 (score 5), both for subtopic S: by file order d2
    (rating 4) is the first found, by the 2017 reader's score order d1 (rating 2) is."""
    truth = write("t.txt", "T\tS\td1\t1\t2\nT\tS\td2\t2\t4\n")
    run = write("r.txt", "T\t0\td2\t1.0\t1\t\nT\t0\td1\t5.0\t1\t\n")
    default = cli_json(capsys, "--dd-truth", truth, run, "-m", "CT@1")[("T", "CT@1")]
    jig = cli_json(capsys, "--compat", "dd2017", "--dd-truth", truth, run, "-m", "CT@1")[("T", "CT@1")]
    assert default == pytest.approx((4 * 0.5 + 2 * 0.25) / 5) and jig == pytest.approx((2 * 0.5 + 4 * 0.25) / 5)


def test_dd2017_fills_skipped_iterations(write, capsys):
    """Iterations 0 and 2: the 2017 reader fills iteration 1 with an unjudged document, which
    takes time in CT@2 and counts in ACT; by default iteration 1 is empty and CT@2 divides by the
    one iteration reached within 2."""
    truth = write("t.txt", "T\tS\td1\t1\t2\nT\tS\td2\t2\t2\n")
    run = write("r.txt", "T\t0\td1\t1.0\t1\t\nT\t2\td2\t1.0\t1\t\n")
    g1, g2 = 2 * 0.5 / 5, (2 * 0.5 + 2 * 0.25) / 5
    default = cli_json(capsys, "--dd-truth", truth, run, "-m", "CT@2,ACT@3")
    jig = cli_json(capsys, "--compat", "dd2017", "--dd-truth", truth, run, "-m", "CT@2,ACT@3")
    assert default[("T", "CT@2")] == pytest.approx(g1 / 1) and jig[("T", "CT@2")] == pytest.approx(g1 / 2)
    assert default[("T", "ACT@3")] == pytest.approx((g1 / 1 + g2 / 3) / 2)
    assert jig[("T", "ACT@3")] == pytest.approx((g1 / 1 + g1 / 2 + g2 / 3) / 3)


def test_dd2017_finds_repeats_in_the_order_the_file_mentions_iterations(write, capsys):
    """The file lists iteration 1 (d1) before iteration 0 (d2, d1): the 2017 reader meets
    iteration 1 first, so iteration 0's d1 is the repeat; by default iteration 0's d1 earns."""
    truth = write("t.txt", "T\tS\td1\t1\t4\nT\tS\td2\t2\t2\n")
    run = write("r.txt", "T\t1\td1\t1.0\t1\t\nT\t0\td2\t2.0\t1\t\nT\t0\td1\t1.0\t1\t\n")
    default = cli_json(capsys, "--dd-truth", truth, run, "-m", "CT@1")[("T", "CT@1")]
    jig = cli_json(capsys, "--compat", "dd2017", "--dd-truth", truth, run, "-m", "CT@1,CT@2")
    assert default == pytest.approx((2 * 0.5 + 4 * 0.25) / 5)
    assert jig[("T", "CT@1")] == pytest.approx(2 * 0.5 / 5)
    assert jig[("T", "CT@2")] == pytest.approx((2 * 0.5 + 4 * 0.25) / 5 / 2)


def test_dd2017_takes_the_2017_bound_and_skips_missing_topics(write, capsys):
    """nCT under --compat dd2017 is nCT(bound=jig2017): at c = 1 its bound discounts from γ^0, so
    it is half the exact one; a truth topic the run lacks is not in the mean."""
    truth = write("t.txt", "T\tS\td1\t1\t2\nU\tS\td1\t2\t2\n")
    run = write("r.txt", "T\t0\td1\t1.0\t1\t\n")
    jig = cli_json(capsys, "--compat", "dd2017", "--dd-truth", truth, run, "-m", "nCT@1")
    exact = cli_json(capsys, "--dd-truth", truth, run, "-m", "nCT@1,nCT(bound=jig2017)@1")
    assert jig[("T", "nCT@1")] == pytest.approx(exact[("T", "nCT(bound=jig2017)@1")]) == pytest.approx(0.5)
    assert exact[("T", "nCT@1")] == pytest.approx(1.0)
    assert ("U", "nCT@1") not in jig and jig[("all", "nCT@1")] == pytest.approx(0.5)


@pytest.mark.parametrize("argv, message", [
    (["--compat", "dd2017", TRUTH, RUN], "--compat dd2017 needs the DD ground truth"),
    (["--compat", "dd2017", "--dd-combine", "dcg", "--dd-truth", TRUTH, RUN], "--dd-combine dcg"),
])
def test_dd2017_option_errors(capsys, argv, message):
    assert main(["eval", *map(str, argv)]) == 2
    assert message in capsys.readouterr().err


def test_cli_dd_files(capsys):
    from cranfield.cli.main import main

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
