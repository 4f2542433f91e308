"""Golbus, Aslam & Clarke, Inf. Retr. 2013, Tables 6-7: Kendall's tau between the run orderings of
one measure under different topic averagings (cranfield.analysis.topic_averaging,
``cranfield collection QRELS RUN... -m M --averages ...``). Hand-computed case:

topic 1: intents x {d1}, y {d2}: R = 2, xi = 2, d_mean(k) = 1 - 0.5^k;
  dd(2) = 2*0.75/1.75 = 6/7, dd(3) = 2*0.875/1.875 = 14/15: weights 1/7 (xi), 1/15 (xi+1).
topic 2: intents x {d3, d4, d5}, y {d6}: R = 4, xi = 2, d_mean(k) = 1 - (0.25^k + 0.75^k)/2;
  d_mean(2) = 22/32, dd(2) = 22/27; d_mean(3) = 100/128, dd(3) = 50/57: weights 5/27, 7/57.
S-recall@2 of the runs (topic 1, topic 2): A (1, 1/2), B (1/2, 1), C (1, 0), D (1/2, 1/2).
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from cranfield.analysis.topic_averaging import AveragingCorrelation, averaging_correlation, parse_averagings
from cranfield.cli.main import main
from cranfield.errors import CranfieldError

QRELS = {"1": {"x": {"d1": 1}, "y": {"d2": 1}}, "2": {"x": {"d3": 1, "d4": 1, "d5": 1}, "y": {"d6": 1}}}
RUNS = {"A": {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 2.0, "d4": 1.0}},
        "B": {"1": {"d1": 2.0, "d9": 1.0}, "2": {"d3": 2.0, "d6": 1.0}},
        "C": {"1": {"d2": 2.0, "d1": 1.0}, "2": {"d9": 1.0}},
        "D": {"1": {"d2": 1.0}, "2": {"d6": 1.0}}}
SCORES = {"A": (1, 0.5), "B": (0.5, 1), "C": (1, 0), "D": (0.5, 0.5)}


def weighted(w1: float, w2: float, run: str) -> float:
    a, b = SCORES[run]
    return (w1 * a + w2 * b) / (w1 + w2)


def expected_means() -> dict[str, list[float]]:
    runs = list(RUNS)
    return {"avg": [sum(SCORES[r]) / 2 for r in runs],
            "geom": [math.sqrt(max(SCORES[r][0], 1e-5) * max(SCORES[r][1], 1e-5)) for r in runs],
            "dd@xi": [weighted(1 / 7, 5 / 27, r) for r in runs],
            "dd@xi+1": [weighted(1 / 15, 7 / 57, r) for r in runs]}


def test_means_and_tau_by_hand():
    res = averaging_correlation(QRELS, RUNS, ["StRecall@2"])
    assert res.runs == list(RUNS) and res.averagings == ["avg", "geom", "dd@xi", "dd@xi+1"]
    for k, how in enumerate(res.averagings):
        assert res.means[k, :, 0] == pytest.approx(expected_means()[how], abs=1e-12)
    # avg: A = B > C = D; geom: A = B > D > C; dd (both depths): B > A > D > C.  Six pairs of runs:
    # avg/geom: 4 concordant, ties (A,B),(C,D) in avg and (A,B) in geom: 4/sqrt(4*5)
    # avg/dd: 4/sqrt(4*6); geom/dd: 5/sqrt(5*6); dd@xi/dd@xi+1: 1
    tau = dict(zip(res.pairs, res.tau[0]))
    assert tau[("avg", "geom")] == pytest.approx(4 / math.sqrt(20))
    assert tau[("avg", "dd@xi")] == pytest.approx(4 / math.sqrt(24)) == tau[("avg", "dd@xi+1")]
    assert tau[("geom", "dd@xi")] == pytest.approx(5 / math.sqrt(30)) == tau[("geom", "dd@xi+1")]
    assert tau[("dd@xi", "dd@xi+1")] == pytest.approx(1.0)
    assert res.matrix("StRecall@2")[0][1] == pytest.approx(4 / math.sqrt(20)) and res.matrix("StRecall@2")[1][0] is None
    d = res.to_dict()
    assert len(d["rows"]) == 6 and d["topics"] == 2 and d["means"][2]["run"] == "C"
    assert d["means"][2]["geom"] == pytest.approx(math.sqrt(1e-5))
    assert list(res.to_frame().columns) == ["measure", "a", "b", "tau"]


def test_parse_averagings():
    assert parse_averagings("avg, geom,dd") == ["avg", "geom", "dd@xi"]
    assert parse_averagings(["dd@xi+1", "dd@3"]) == ["dd@xi+1", "dd@3"]
    for bad, message in [("avg", "at least two"), ("avg,avg", "each averaging once"), ("avg,mean", "avg, geom, dd"),
                         ("avg,geom@2", "avg, geom, dd"), ("avg,dd@", "avg, geom, dd"), ("avg,dd@deep", "depth")]:
        with pytest.raises(CranfieldError, match=message):
            parse_averagings(bad)


def test_refuses_counts_and_single_runs():
    with pytest.raises(CranfieldError, match="averaged by their mean"):
        averaging_correlation(QRELS, RUNS, ["NumRel"], averagings="avg,geom")
    with pytest.raises(CranfieldError, match="at least two runs"):
        averaging_correlation(QRELS, {"A": RUNS["A"]}, ["StRecall@2"], averagings="avg,geom")


def test_cli(tmp_path, capsys):
    qrels = tmp_path / "q.txt"
    qrels.write_text("".join(f"{t} {i} {d} {r}\n" for t, intents in QRELS.items() for i, docs in intents.items()
                             for d, r in docs.items()))
    paths = []
    for name, run in RUNS.items():
        p = tmp_path / name
        p.write_text("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, docs in run.items() for d, s in docs.items()))
        paths.append(str(p))
    assert main(["collection", str(qrels), *paths, "-m", "StRecall@2", "--averages", "avg,dd@xi+1",
                 "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["averagings"] == ["avg", "dd@xi+1"] and doc["rows"][0]["tau"] == pytest.approx(4 / math.sqrt(24))
    assert [m["dd@xi+1"] for m in doc["means"]] == pytest.approx(expected_means()["dd@xi+1"])
    assert main(["collection", str(qrels), *paths, "-m", "StRecall@2"]) == 0
    out = capsys.readouterr().out
    assert "Tables 6-7" in out and len([line for line in out.splitlines() if line.startswith("StRecall@2")]) == 6
    assert main(["collection", str(qrels), *paths, "-m", "StRecall@2,StRecall@1", "--averages", "avg,geom",
                 "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert "compare,under,a,b,tau" in out and "measures,geom,StRecall@2,StRecall@1," in out
    assert main(["collection", str(qrels), *paths, "-m", "StRecall@2,StRecall@1", "--averages", "avg,geom"]) == 0
    assert "(Table 8)" in capsys.readouterr().out
    for argv, message in [([*paths], "give the measures with -m"),
                          ([*paths, "-m", "P@2", "--averages", "avg"], "at least two"),
                          ([*paths, "-m", "P@2", "--B", "100"], "--B goes with --permuted"),
                          (["--averages", "avg,geom"], "--averages goes with runs"),
                          (["--format", "csv"], "--format csv goes with runs")]:
        assert main(["collection", str(qrels), *argv]) == 2
        assert message in capsys.readouterr().err


def test_between_measures_table_8():
    """StRecall@1 of the runs (the first document): A (1/2, 1/2), B (1/2, 1/2), C (1/2, 0), D (1/2, 1/2).
    avg: A = B = D (0.5) > C (0.25); StRecall@2's avg: A = B (0.75) > C = D (0.5). Six pairs: (A,C), (B,C)
    concordant; ties in StRecall@2: (A,B), (C,D); in StRecall@1: (A,B), (A,D), (B,D):
    tau-b = 2/sqrt((6-2)(6-3)) = 2/sqrt(12)."""
    res = averaging_correlation(QRELS, RUNS, ["StRecall@2", "StRecall@1"], averagings="avg,geom")
    assert res.means[0, :, 1] == pytest.approx([0.5, 0.5, 0.25, 0.5])
    assert res.measure_pairs == [("StRecall@2", "StRecall@1")]
    row = res.between_measures()[0]
    assert (row["average"], row["a"], row["b"]) == ("avg", "StRecall@2", "StRecall@1")
    assert row["tau"] == pytest.approx(2 / math.sqrt(12))


def test_result_is_a_dataclass_with_plain_outputs():
    res = averaging_correlation(QRELS, RUNS, ["StRecall@2", "StRecall@1"], averagings="avg,geom")
    assert isinstance(res, AveragingCorrelation) and res.tau.shape == (2, 1) and res.measure_tau.shape == (2, 1)
    json.dumps(res.to_dict())
    assert np.isfinite(res.means).all()
