"""sDCG, nsDCG and EU agree with the TREC DD jig's 2017 scorer (trec-dd-jig @ f279c6f, ``scorer/sDCG.py``
and ``scorer/expected_utility.py``, run here with Python 3 on its own reader and truth classes).

``tests/data/trec-dd/jig2017-sdcg-eu.json.gz`` holds the scorer's per-topic values
(``sDCG_per_topic``, ``sDCG / sDCG_bound_per_topic``, ``eu_per_topic``) at c = 1, 3, 5, 10 for the
jig's 2016 sample run on the 36 topics of ``trecdd2016-truth.xml.gz`` (35 in the run), with a
document-length file giving every document of the run length 1 (cranfield's EU costs one unit
per document) and the scorer's cache of stopping probabilities cleared between the two EU
settings (it is keyed by rank and list length, not by p).
"""

from __future__ import annotations

import gzip
import json
import math
import warnings

import numpy as np
import pytest

from conftest import DATA, read_text, run_main
from cranfield import Batch, Topics, parse_measure

TRUTH = DATA / "trec-dd" / "trecdd2016-truth.xml.gz"
EXPECTED = json.loads(gzip.decompress((DATA / "trec-dd" / "jig2017-sdcg-eu.json.gz").read_bytes()))
MEASURES = ["sDCG", "nsDCG", "EU", "EU(a=0.01,gamma=0.7,p=0.3)", "sDCG(bq=2,b=3)"]


@pytest.mark.parametrize("compat", [["--compat", "dd2017"], []], ids=["dd2017", "default"])
@pytest.mark.parametrize("cutoff", [1, 3, 5, 10])
def test_sample_run_matches_the_2017_scorer(capsys, write, cutoff, compat):
    """The sample run repeats no document and skips no iteration, so the default reading equals
    the scorer's too."""
    topics = {line.split('"')[1] for line in read_text(TRUTH).splitlines() if line.startswith("<topic ")}
    run = "".join(line for line in read_text(DATA / "trec-dd" / "trecdd2016-sample-run.txt").splitlines(True)
                  if line.split("\t")[0] in topics)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = run_main(capsys, ["eval", *compat, "--dd-truth", TRUTH, write("run.txt", run), "-q",
                                           "--missing", "skip", "--format", "json",
                                           *[a for m in MEASURES for a in ("-m", f"{m}@{cutoff}")]])
    assert code == 0, err
    rows = [r for r in json.loads(out) if r["topic"] != "all"]
    assert len(rows) == 35 * len(MEASURES)
    for r in rows:
        expected = EXPECTED[f"{r['topic']} {cutoff}"][r["measure"].rsplit("@", 1)[0]]
        assert r["value"] == pytest.approx(expected, rel=1e-12, abs=1e-12), r


def dd_batch(labels: list[list[int]], iteration: list[int], ideal: list[list[int]]) -> Batch:
    """One ranking: labels per subtopic of each document, its iterations, the topic's judged documents."""
    lab = np.array([[labels]])  # (1, 1, D, I)
    topics = Topics.from_intent_labels(np.array([ideal]))
    return Batch.from_labels(lab, topics, iteration=np.array([[iteration]]))


def test_by_hand():
    """Two iterations: [a (ratings 2 and 1), b (0)] then [c (3)]; judged a, c. sDCG@2 =
    3/1/1 + 3/(1 + log_4 2) = 3 + 2 = 5; the bound puts the two gains of 3 on the two best of the
    positions of two iterations (discounts 1, then 2/3 for the first document of iteration 2 before
    1/2 for the second of iteration 1): 5, so nsDCG@2 = 1; with c = 1 the bound is 3 + 3/2 and
    nsDCG@1 = 3/4.5. EU with p = 1/2,
    γ = 1/2, a = 0.001: a at j = 0 is read surely, (1 − 1/2)/(1/2)·3 = 3; b at j = 1 costs 1/2;
    c at j = 0 gains 3: EU = 6 − 0.001·(1 + 1/2 + 1)."""
    batch = dd_batch([[2, 1], [0, 0], [0, 3]], [0, 0, 1], [[2, 1], [0, 3]])
    assert parse_measure("sDCG@2")(batch)[0, 0] == pytest.approx(5.0)
    assert parse_measure("sDCG@1")(batch)[0, 0] == pytest.approx(3.0)
    assert parse_measure("nsDCG@2")(batch)[0, 0] == pytest.approx(1.0)
    assert parse_measure("nsDCG@1")(batch)[0, 0] == pytest.approx(3.0 / 4.5)
    assert parse_measure("EU@2")(batch)[0, 0] == pytest.approx(6.0 - 0.001 * 2.5)
    worth = 3 * (1 - 0.5 ** 0.5) / 0.5  # a document at j = 1 is read with probability 1/2
    swapped = dd_batch([[0, 0], [2, 1], [0, 3]], [0, 0, 1], [[2, 1], [0, 3]])
    assert parse_measure("EU@2")(swapped)[0, 0] == pytest.approx(worth + 3 - 0.001 * 2.5)
    assert not math.isnan(parse_measure("nsDCG@3")(batch)[0, 0])
