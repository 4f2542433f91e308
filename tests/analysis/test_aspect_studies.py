"""Maistro, Chaves Lima, Simonsen & Lioma, CIKM 2021, §4.3 analyses on a tiny two-aspect collection, computed by
hand: per-topic Kendall's τ between run orderings (Table 4, top), zero-aspect documents at the top ranks of each
topic's best run (Table 5), mean sum of aspect labels per band of ranks (Table 6); and the ``aspects eval``
options for TOMA's class weights and CAM/MM's aspect weights."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cranfield import CranfieldError
from cranfield.analysis.aspects import band_quality, topic_correlation, zero_aspect_documents
from cranfield.measures.aspects import AspectSpace

SPACE = AspectSpace({"relevance": ("nr", "r", "hr"), "credibility": ("nc", "c")})
# label sums: t1: a = (hr, c) 3, b = (r, nc) 1, c = (nr, nc) 0; t2: x = (r, c) 2, y = (nr, nc) 0, z = (hr, nc) 2
JUDGMENTS = {"relevance": {"t1": {"a": "hr", "b": "r", "c": "nr"}, "t2": {"x": "r", "y": "nr", "z": "hr"}},
             "credibility": {"t1": {"a": "c", "b": "nc", "c": "nc"}, "t2": {"x": "c", "y": "nc", "z": "nc"}}}
RANKINGS = [{"t1": ["a", "b", "c", "w"], "t2": ["y", "x", "z"]},  # w: not judged (labels sum to 0)
            {"t1": ["c", "a", "b"], "t2": ["x", "z", "y"]},
            {"t1": ["b", "c", "a"], "t2": ["z", "y", "x"]}]
RUNS = [{t: {d: float(10 - k) for k, d in enumerate(docs)} for t, docs in r.items()} for r in RANKINGS]
TOPICS = ["t1", "t2"]
# best run per topic: A: t1 run 0, t2 run 1; B: t1 run 1, t2 run 2 (the first run on ties)
SCORES = {"A": np.array([[0.9, 0.1], [0.5, 0.7], [0.1, 0.7]]), "B": np.array([[0.2, 0.0], [0.8, 0.3], [0.4, 0.9]])}


def test_topic_correlation_by_hand():
    scores = {"A": np.array([[0.9, 1, 1], [0.5, 2, 2], [0.1, 3, 3]]),
              "B": np.array([[0.8, 1, 5], [0.1, 2, 5], [0.5, 3, 5]])}
    tc = topic_correlation(scores, ["t1", "t2", "t3"])
    # t1: (r1, r2) and (r1, r3) concordant, (r2, r3) discordant: τ = (2 - 1)/3; t2: τ = 1; t3: B ties every run
    assert tc.values[0, 0] == pytest.approx(1 / 3) and tc.values[0, 1] == pytest.approx(1.0)
    assert math.isnan(tc.values[0, 2])
    mean, counted = tc.mean()
    assert mean[0] == pytest.approx(2 / 3) and counted[0] == 2
    assert tc.to_dict()["rows"] == [{"a": "A", "b": "B", "tau": pytest.approx(2 / 3), "topics": 2}]
    assert list(tc.to_frame().columns) == ["a", "b", "tau", "topics"]
    with pytest.raises(CranfieldError, match="scores of the measures"):
        topic_correlation({"A": np.zeros((3, 2)), "B": np.zeros((2, 2))}, TOPICS)


def test_zero_aspect_documents_by_hand():
    z = zero_aspect_documents(SPACE, JUDGMENTS, RUNS, SCORES, TOPICS, depth=4)
    # A: t1 run 0 sums (3, 1, 0, 0 for the unjudged w), t2 run 1 (2, 2, 0); B: t1 run 1 (0, 3, 1), t2 run 2 (2, 0, 2)
    assert z.counts.tolist() == [[0, 1], [0, 1], [2, 0], [1, 0]]
    assert z.topics.tolist() == [2, 2]
    rows = {(r["rank"], r["measure"]): (r["count"], r["percent"]) for r in z.to_dict()["rows"]}
    assert rows[("3", "A")] == (2, 100.0) and rows[("1", "B")] == (1, 50.0) and rows[("1-4", "A")] == (3, 150.0)
    assert len(z.to_frame()) == 5 * 2


def test_band_quality_by_hand():
    b = band_quality(SPACE, JUDGMENTS, RUNS, SCORES, TOPICS, bands=(2, 3))
    # A: ranks 1-2: 3, 1, 2, 2 -> 2; rank 3: 0, 0 -> 0.  B: ranks 1-2: 0, 3, 2, 0 -> 1.25; rank 3: 1, 2 -> 1.5
    assert b.bands == [(1, 2), (3, 3)]
    assert b.means.tolist() == [[2.0, 1.25], [0.0, 1.5]] and b.documents.tolist() == [[4, 4], [2, 2]]
    assert b.to_dict()["bands"] == ["1-2", "3-3"]
    with pytest.raises(CranfieldError, match="rank bands"):
        band_quality(SPACE, JUDGMENTS, RUNS, SCORES, TOPICS, bands=(3, 2))


@pytest.fixture
def collection(write):
    rel = write("rel.qrels", "".join(f"{t} 0 {d} {label}\n" for t, docs in JUDGMENTS["relevance"].items()
                                     for d, label in docs.items()))
    cred = write("cred.qrels", "".join(f"{t} 0 {d} {label}\n" for t, docs in JUDGMENTS["credibility"].items()
                                       for d, label in docs.items()))
    runs = [str(write(f"run{k}.txt", "".join(f"{t} Q0 {d} {i + 1} {10 - i} run{k}\n" for t, docs in r.items()
                                               for i, d in enumerate(docs))))
            for k, r in enumerate(RANKINGS)]
    return ["--aspect", f"relevance={rel}", "--aspect", f"credibility={cred}", "--labels", "relevance=nr,r,hr",
            "--labels", "credibility=nc,c", *runs]


def _json(capsys, main, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_cli_studies_json(capsys, collection):
    """CAM(P@1) per run: t1 (1, 0, .5), t2 (0, 1, .5); TOMA(P@1, manhattan): every tuple but (nr, nc) weighs > 0:
    t1 (1, 0, 1), t2 (0, 1, 1). τ-b on each topic: 2 concordant pairs, one tied in TOMA: 2/√6."""
    from cranfield.cli.main import main

    doc = _json(capsys, main, ["aspects", "eval", *collection, "-m", "CAM(P@1),TOMA(P@1,dist=manhattan)",
                               "--study", "tau", "--study", "zero", "--study", "bands", "--bands", "2,3",
                               "--zero-depth", "3", "--report", "--format", "json"])
    assert set(doc) == {"results", "runs", "upper_bounds", "tau", "zero", "bands"}
    assert {(r["run"], r["measure"]): r["value"] for r in doc["results"]}[("run0", "CAM(P@1)")] == 0.5
    assert doc["tau"]["rows"][0]["tau"] == pytest.approx(2 / math.sqrt(6))
    assert doc["tau"]["per_topic"][1]["tau"] == pytest.approx(2 / math.sqrt(6))
    # both measures pick run0 on t1 and run1 on t2: zero-aspect documents only at rank 3 (c and y)
    zero = {(r["rank"], r["measure"]): r["count"] for r in doc["zero"]["rows"]}
    assert zero[("3", "CAM(P@1)")] == zero[("3", "TOMA(P@1,dist=manhattan)")] == 2 and zero[("1", "CAM(P@1)")] == 0
    assert [r["mean"] for r in doc["bands"]["rows"]] == [2.0, 2.0, 0.0, 0.0]
    assert "CAM(P@1)" in doc["upper_bounds"] and doc["upper_bounds"]["CAM(P@1)"]["best"][0]["value"] == 1.0
    # the plain array stays the output without --report/--study
    assert isinstance(_json(capsys, main, ["aspects", "eval", *collection, "-m", "CAM(P@1)", "--format", "json"]),
                      list)


def test_cli_studies_table(capsys, collection):
    from cranfield.cli.main import main

    assert main(["aspects", "eval", *collection, "-m", "CAM(P@1),TOMA(P@1,dist=manhattan)", "--study", "tau",
                 "--study", "zero", "--study", "bands"]) == 0
    out = capsys.readouterr().out
    assert "Table 4" in out and "0.8165" in out and "Table 5" in out and "2 (100.00%)" in out and "Table 6" in out
    assert main(["aspects", "eval", *collection, "-m", "CAM(P@1)", "--study", "tau", "--format", "csv"]) == 2
    assert "--format table or json" in capsys.readouterr().err


def _values(doc):
    return {(r["run"], r["measure"]): r["value"] for r in doc}


def test_cli_weights_options_and_config(capsys, collection, write):
    """--class-weights 1,1,0,0: (r, nc) and (nr, c) weigh 0, so TOMA(P@1) on t1 is (1, 0, 0);
    --aspect-weights relevance=1,credibility=0: CAM(P@1) is relevance's P@1, t1 (1, 0, 1)."""
    from cranfield.cli.main import main

    measures = ["-m", "TOMA(P@1,dist=manhattan),CAM(P@1)", "--format", "json", "-q"]
    by_options = _json(capsys, main, ["aspects", "eval", *collection, *measures, "--class-weights", "1,1,0,0",
                                      "--aspect-weights", "relevance=1,credibility=0"])
    v = {(r["run"], r["measure"], r["topic"]): r["value"] for r in by_options}
    assert [v[(f"run{k}", "TOMA(P@1,dist=manhattan)", "t1")] for k in range(3)] == [1, 0, 0]
    assert [v[(f"run{k}", "CAM(P@1)", "t1")] for k in range(3)] == [1, 0, 1]
    config = write("aspects.json", json.dumps({"class_weights": [1, 1, 0, 0],
                                               "aspect_weights": {"relevance": 1, "credibility": 0}}))
    assert _json(capsys, main, ["aspects", "eval", *collection, *measures, "--config", str(config)]) == by_options
    for bad, message in ((["--class-weights", "1,x"], "class weight (--class-weights)"),
                         (["--class-weights", "1,2,0,0"], "non-increasing"),
                         (["--class-weights", "1,0"], "one per class"),
                         (["--aspect-weights", "relevance=-1"], "weight of aspect 'relevance'"),
                         (["--aspect-weights", "novelty=1"], "aspect of the aspect weights"),
                         (["--aspect-weights", "relevance"], "ASPECT=P"),
                         (["--aspect-weights", "relevance=0,credibility=0"], "not all 0")):
        assert main(["aspects", "eval", *collection, *measures, *bad]) == 2, bad
        assert message in capsys.readouterr().err, bad
    wrong = write("wrong.json", json.dumps({"class_weights": "1,1,0,0"}))
    assert main(["aspects", "eval", *collection, *measures, "--config", str(wrong)]) == 2
    assert "'class_weights' must be a list of integers" in capsys.readouterr().err


def test_discpower_and_correlate_with_aspects(capsys, write):
    """discpower and correlate score TOMA/CAM/MM measures from one multi-aspect qrels file and a configuration;
    CAM(P@1) and TOMA(P@1, manhattan) per run, means over t1 and t2: (.5, .5, .5) and (.5, .5, 1)."""
    from cranfield.cli.main import main

    rel, cred = JUDGMENTS["relevance"], JUDGMENTS["credibility"]
    qrels = write("multi.qrels", "".join(f"{t} 0 {d} {rel[t][d]} {cred[t][d]}\n" for t in TOPICS for d in rel[t]))
    config = write("aspects.json", json.dumps({"labels": {"relevance": ["nr", "r", "hr"],
                                                          "credibility": ["nc", "c"]}}))
    runs = [str(write(f"run{k}.txt", "".join(f"{t} Q0 {d} {i + 1} {10 - i} run{k}\n" for t, docs in r.items()
                                               for i, d in enumerate(docs))))
            for k, r in enumerate(RANKINGS)]
    measures = ["-m", "CAM(P@1)", "-m", "TOMA(P@1,dist=manhattan)", "--aspects", str(config), "--format", "json"]
    rows = _json(capsys, main, ["correlate", str(qrels), *runs, *measures, "-m", "TOMA(P@1,dist=chebyshev)"])
    tau = {(r["measure_1"], r["measure_2"]): r["kendall_tau"] for r in rows}
    # CAM ties every run: τ-b undefined; both TOMA measures weigh 0 only (nr, nc) and (nr, c) here: τ-b = 1
    assert tau[("CAM(P@1)", "TOMA(P@1,dist=manhattan)")] is None
    assert tau[("TOMA(P@1,dist=manhattan)", "TOMA(P@1,dist=chebyshev)")] == 1.0
    power = _json(capsys, main, ["discpower", str(qrels), *runs, *measures, "--test", "t", "--alpha", "0.5"])
    assert [r["measure"] for r in power] == ["CAM(P@1)", "TOMA(P@1,dist=manhattan)"]
    assert main(["correlate", str(qrels), *runs, "-m", "AP", "--aspects", str(config)]) == 2
    assert "multi-aspect measure" in capsys.readouterr().err
