"""Multi-aspect evaluation (Maistro et al., CIKM 2021; docs/conventions.md#aspects): Table 1 orders and every cell of
Table 3."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import CranfieldError
from cranfield.analysis.aspects import evaluate_aspects, evaluate_named
from cranfield.measures.aspects import AspectSpace, class_weights, order

RELEVANCE = ("nr", "mr", "fr", "hr")
CORRECTNESS = ("nc", "pc", "c")
EMBEDDINGS = [(0, 1.5, 3), (0, 1, 2), (0, 2, 6)]
CLASS_COUNTS = {0: (10, 10, 5), 1: (7, 6, 4), 2: (10, 9, 5)}  # docs/conventions.md#aspects: EUCL/MANH/CHEB per row
# Maistro et al., CIKM 2021, Table 1, best -> worst with ties hidden, as (relevance coordinate, correctness coordinate)
PRINTED = {
    (0, "euclidean"): "(3,3) (2,3) (3,1.5) (2,1.5) (1,3) (1,1.5) (3,0) (2,0) (1,0) (0,0)",
    (0, "manhattan"): "(3,3) (2,3) (3,1.5) (1,3) (2,1.5) (3,0) (1,1.5) (2,0) (1,0) (0,0)",
    (0, "chebyshev"): "(3,3) (2,3) (3,1.5) (2,1.5) (1,3) (1,1.5) (3,0) (2,0) (1,0) (0,0)",
    (1, "euclidean"): "(3,2) (3,1) (2,2) (2,1) (3,0) (1,2) (2,0) (1,1) (1,0) (0,0)",
    (1, "manhattan"): "(3,2) (3,1) (2,2) (3,0) (2,1) (1,2) (2,0) (1,1) (1,0) (0,0)",
    (1, "chebyshev"): "(3,2) (3,1) (2,1) (2,2) (3,0) (2,0) (1,0) (1,1) (1,2) (0,0)",
    (2, "euclidean"): "(3,6) (2,6) (1,6) (3,2) (2,2) (1,2) (3,0) (2,0) (1,0) (0,0)",
    (2, "manhattan"): "(3,6) (2,6) (1,6) (3,2) (2,2) (1,2) (3,0) (2,0) (1,0) (0,0)",
    (2, "chebyshev"): "(3,6) (2,6) (1,6) (3,2) (2,2) (1,2) (3,0) (2,0) (1,0) (0,0)",
}


def space(row: int) -> AspectSpace:
    return AspectSpace({"relevance": RELEVANCE, "correctness": CORRECTNESS},
                       {"correctness": EMBEDDINGS[row]}, gate="relevance")


@pytest.mark.parametrize("row, dist", list(PRINTED))
def test_table_1(row, dist):
    sp = space(row)
    tuples, classes = order(sp, dist)
    assert classes.max() + 1 == CLASS_COUNTS[row][("euclidean", "manhattan", "chebyshev").index(dist)]
    coords = {(float(r), float(sp.coordinates("correctness")[c])): k for (r, c), k in zip(tuples.tolist(), classes)}
    printed = [tuple(float(x) for x in t.strip("()").split(",")) for t in PRINTED[(row, dist)].split()]
    assert set(printed) == set(coords)  # the gate removes (nr, pc) and (nr, c)
    ranks = [coords[t] for t in printed]
    assert ranks == sorted(ranks)  # the printed sequence never goes to a better class


# Table 3: d1 = (mr, c), d2 = (hr, pc), d3 = (hr, nc)
JUDGMENTS = {"relevance": {"t": {"d1": "mr", "d2": "hr", "d3": "hr"}},
             "correctness": {"t": {"d1": "c", "d2": "pc", "d3": "nc"}}}
RANKINGS = [r for n in (3, 2, 1) for r in itertools.permutations(["d1", "d2", "d3"], n)]
TABLE_3 = {  # ranking: (CAM, MM, EUCL, MANH, CHEB) for AP, then for NDCG
    ("d1", "d2", "d3"): ((0.7917, 0.3684, 1, 1, 0.5), (0.9073, 0.4489, 0.9367, 0.9711, 0.8597)),
    ("d1", "d3", "d2"): ((0.7917, 0.3684, 0.8333, 0.8333, 0.3333), (0.8824, 0.4386, 0.8917, 0.9404, 0.7602)),
    ("d2", "d1", "d3"): ((0.6667, 0.3125, 1, 1, 1), (0.9056, 0.4516, 1, 1, 1)),
    ("d2", "d3", "d1"): ((0.6667, 0.25, 0.8333, 0.8333, 1), (0.8801, 0.4319, 0.9775, 0.9795, 0.9502)),
    ("d3", "d1", "d2"): ((0.6667, 0.3125, 0.5833, 0.5833, 0.3333), (0.8106, 0.3930, 0.8284, 0.8827, 0.6199)),
    ("d3", "d2", "d1"): ((0.6667, 0.25, 0.5833, 0.5833, 0.5), (0.8100, 0.3827, 0.8509, 0.8929, 0.6697)),
    ("d1", "d2"): ((0.6250, 0.25, 1, 1, 0.5), (0.7682, 0.3491, 0.8080, 0.8147, 0.8597)),
    ("d1", "d3"): ((0.6250, 0.25, 0.5, 0.5, 0), (0.6483, 0.3145, 0.5914, 0.6667, 0.3801)),
    ("d2", "d1"): ((0.5, 0.25, 1, 1, 1), (0.7665, 0.3776, 0.8713, 0.8436, 1)),
    ("d2", "d3"): ((0.5, 0, 0.5, 0.5, 1), (0.6437, 0.2679, 0.7630, 0.7449, 0.7602)),
    ("d3", "d1"): ((0.5, 0.25, 0.25, 0.25, 0), (0.5765, 0.2801, 0.5281, 0.6089, 0.2398)),
    ("d3", "d2"): ((0.5, 0, 0.25, 0.25, 0.5), (0.5735, 0.1897, 0.6364, 0.6583, 0.4796)),
    ("d1",): ((0.5, 0, 0.5, 0.5, 0), (0.4728, 0.1491, 0.4290, 0.4693, 0.3801)),
    ("d2",): ((0.25, 0, 0.5, 0.5, 1), (0.4682, 0.2258, 0.6006, 0.5475, 0.7602)),
    ("d3",): ((0.25, 0, 0, 0, 0), (0.2781, 0, 0.2574, 0.3129, 0)),
}
# the paper prints 0.25 for AP-MM of (d1, d2) and (d1, d3); the formula gives 0.2 (a typo; docs/conventions.md#aspects)
TYPO = {("d1", "d2"): 0.2, ("d1", "d3"): 0.2}
GRADES = {"AP": {"relevance": [0, 0, 1, 1], "correctness": [0, 0, 1]},       # relevance >= fr, correctness = c
          "nDCG": {"relevance": [0, 5, 10, 15], "correctness": [0, 5, 10]}}
NAMES = {"AP": ["CAM(AP)", "MM(AP,variant=table)", "TOMA(AP,dist=euclidean,weight=binary)",
                "TOMA(AP,dist=manhattan,weight=binary)", "TOMA(AP,dist=chebyshev,weight=binary)"],
         "nDCG": ["CAM(nDCG)", "MM(nDCG,variant=table)", "TOMA(nDCG,dist=euclidean,weight=rank)",
                  "TOMA(nDCG,dist=manhattan,weight=rank)", "TOMA(nDCG,dist=chebyshev,weight=rank)"]}


@pytest.mark.parametrize("base", ["AP", "nDCG"])
def test_table_3(base):
    runs = [{"t": {d: float(len(r) - k) for k, d in enumerate(r)}} for r in RANKINGS]
    for column, name in enumerate(NAMES[base]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            scores = evaluate_named(space(0), JUDGMENTS, runs, name, grades=GRADES[base]).values[:, 0, 0]
        for ranking, value in zip(RANKINGS, scores):
            printed = TABLE_3[ranking][0 if base == "AP" else 1][column]
            if base == "AP" and column == 1 and ranking in TYPO:
                printed = TYPO[ranking]
            assert round(value, 4) == pytest.approx(printed, abs=1e-9), (base, name, ranking)


def test_toma_ideal_ranking_scores_one_and_mm_zero_rule():
    runs = [{"t": {"d2": 3.0, "d1": 2.0, "d3": 1.0}}]  # the order TOMA (Euclidean) induces
    res = evaluate_aspects(space(0), JUDGMENTS, runs, "nDCG")
    assert res.values[0, 0, 0] == pytest.approx(1.0)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0, 5, allow_nan=False), min_size=3, max_size=3).map(sorted),
       st.lists(st.floats(0, 5, allow_nan=False), min_size=4, max_size=4).map(sorted),
       st.sampled_from(["euclidean", "manhattan", "chebyshev"]))
def test_distance_order_respects_the_partial_order(emb_c, emb_r, dist):
    """A tuple at least as good on every aspect is never in a worse class (Maistro et al., CIKM 2021, Eq. 1)."""
    sp = AspectSpace({"relevance": RELEVANCE, "correctness": CORRECTNESS},
                     {"relevance": tuple(emb_r), "correctness": tuple(emb_c)})
    tuples, classes = order(sp, dist)
    cls = {tuple(t): c for t, c in zip(tuples.tolist(), classes.tolist())}
    for a, b in itertools.product(cls, repeat=2):
        if all(x >= y for x, y in zip(a, b)):
            assert cls[a] <= cls[b]


def test_weights_and_errors():
    classes = np.array([0, 1, 1, 2, 3])
    assert class_weights(classes, "rank").tolist() == [3, 2, 2, 1, 0]
    assert class_weights(classes, "binary").tolist() == [1, 1, 1, 0, 0]
    with pytest.raises(CranfieldError, match="non-decreasing"):
        AspectSpace({"a": ("x", "y")}, {"a": (1, 0)})
    with pytest.raises(CranfieldError, match="contradicts the gate"):
        evaluate_aspects(space(0), {"relevance": {"t": {"d": "nr"}}, "correctness": {"t": {"d": "c"}}},
                         [{"t": {"d": 1.0}}], "AP")
    with pytest.raises(CranfieldError, match="not one of"):
        evaluate_aspects(space(0), {"relevance": {"t": {"d": "great"}}, "correctness": {"t": {"d": "c"}}},
                         [{"t": {"d": 1.0}}], "AP")
    with pytest.raises(CranfieldError, match="different topics"):
        evaluate_aspects(space(0), {"relevance": {"t": {"d": "hr"}}, "correctness": {"u": {"d": "c"}}},
                         [{"t": {"d": 1.0}}], "AP")


def test_cli(capsys, write):
    import json

    from cranfield.cli.main import main

    rel = write("rel.qrels", "t 0 d1 mr\nt 0 d2 hr\nt 0 d3 hr\n")
    cor = write("cor.qrels", "t 0 d1 c\nt 0 d2 1\nt 0 d3 nc\n")  # labels by name or index
    run = write("run.txt", "t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    code = main(["aspects", "eval", "--aspect", f"relevance={rel}", "--aspect", f"correctness={cor}",
                 "--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c",
                 "--embed", "correctness=0,1.5,3", "--gate", "relevance", str(run),
                 "-m", "TOMA(nDCG,dist=manhattan,weight=rank)", "-m", "CAM(nDCG)", "-m", "MM(nDCG,variant=table)",
                 "--grades", "relevance=0,5,10,15", "--grades", "correctness=0,5,10", "--format", "json"])
    rows = {r["measure"]: r["value"] for r in json.loads(capsys.readouterr().out)}
    assert code == 0
    assert round(rows["TOMA(nDCG,dist=manhattan,weight=rank)"], 4) == 0.9711  # Table 3, (d1, d2, d3)
    assert round(rows["CAM(nDCG)"], 4) == 0.9073 and round(rows["MM(nDCG,variant=table)"], 4) == 0.4489
    assert main(["aspects", "order", "--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c",
                 "--gate", "relevance", "--dist", "chebyshev"]) == 0
    assert "chebyshev (" in capsys.readouterr().out
    plain = write("plain.qrels", "t 0 d1 1\n")
    assert main(["eval", str(plain), str(run), "-m", "TOMA(nDCG)"]) == 2
    assert "several aspects" in capsys.readouterr().err


def test_upper_bounds_below_one():
    """Maistro et al., CIKM 2021, §4.2: with d1 = (mr, c), d2 = (hr, pc), d3 = (hr, nc) no ranking reaches CAM = 1;
    the best candidate ideal ranking attains the best of Table 3's fifteen rankings."""
    from cranfield.analysis.aspects import upper_bounds

    strategies, topics, values = upper_bounds(space(0), JUDGMENTS, "AP", method="cam", grades=GRADES["AP"])
    assert topics == ["t"] and "recursive:correctness>relevance" in strategies and "sum" in strategies
    assert round(values.max(), 4) == max(v[0][0] for v in TABLE_3.values()) == 0.7917
    strategies, _, values = upper_bounds(space(0), JUDGMENTS, "nDCG", method="mm", grades=GRADES["nDCG"],
                                         variant="table")
    assert values.max() < 1 and round(values.max(), 4) <= 0.4516


def test_report_cli(capsys, write, tmp_path):
    from cranfield.cli.main import main

    rel = write("rel.qrels", "t 0 d1 mr\nt 0 d2 hr\nt 0 d3 hr\n")
    cor = write("cor.qrels", "t 0 d1 c\nt 0 d2 pc\nt 0 d3 nc\n")
    run = write("run.txt", "t Q0 d1 1 3 r\n")
    assert main(["aspects", "eval", "--aspect", f"relevance={rel}", "--aspect", f"correctness={cor}",
                 "--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c", str(run),
                 "-m", "CAM(AP)", "--grades", "relevance=0,0,1,1", "--grades", "correctness=0,0,1",
                 "--report", "--plot", str(tmp_path / "b.png")]) == 0
    out = capsys.readouterr().out
    assert "upper bound of CAM(AP)" in out and "0.7917" in out and "< 1" in out
    assert (tmp_path / "b.png").stat().st_size > 1000


def test_missing_aspect_rules():
    judgments = {"relevance": {"t": {"a": "nr", "b": "hr"}}, "correctness": {"t": {}}}
    gated = AspectSpace({"relevance": RELEVANCE, "correctness": CORRECTNESS}, gate="relevance", missing="gate")
    with pytest.raises(CranfieldError, match="'b' is not judged on correctness"):
        evaluate_aspects(gated, judgments, [{"t": {"a": 1.0}}], "AP")
    ok = {"relevance": {"t": {"a": "nr", "b": "hr"}}, "correctness": {"t": {"b": "c"}}}
    with pytest.warns(Warning, match="missing and take the aspect's lowest label"):
        evaluate_aspects(gated, ok, [{"t": {"a": 1.0}}], "AP")  # a is not relevant: lowest label
    strict = AspectSpace({"relevance": RELEVANCE, "correctness": CORRECTNESS}, missing="error")
    with pytest.raises(CranfieldError, match="missing='error'"):
        evaluate_aspects(strict, ok, [{"t": {"a": 1.0}}], "AP")


def test_multi_column_qrels_and_config(capsys, write):
    import json

    from cranfield.cli.main import main

    qrels = write("multi.qrels", "t 0 d1 mr c\nt 0 d2 hr pc\nt 0 d3 hr nc\n")
    config = write("aspects.json", json.dumps({
        "labels": {"relevance": list(RELEVANCE), "correctness": list(CORRECTNESS)},
        "embed": {"correctness": [0, 1.5, 3]}, "gate": "relevance",
        "grades": {"relevance": [0, 5, 10, 15], "correctness": [0, 5, 10]}}))
    run = write("run.txt", "t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    assert main(["aspects", "eval", "--aspect-qrels", str(qrels), "--aspect-names", "relevance,correctness",
                 "--config", str(config), str(run), "-m", "CAM(nDCG),TOMA(nDCG,dist=chebyshev)",
                 "--format", "json"]) == 0
    rows = {r["measure"]: r["value"] for r in json.loads(capsys.readouterr().out)}
    assert round(rows["CAM(nDCG)"], 4) == 0.9073 and round(rows["TOMA(nDCG,dist=chebyshev)"], 4) == 0.8597


def test_table_4_middle_aspect_tau_by_hand(tmp_path, capsys):
    """Maistro et al., CIKM 2021, Table 4 (middle): each aspect alone orders the runs; per-topic Kendall's
    tau-b between two aspects' orderings, averaged over topics. P@1 per aspect (label index >= 1):
    t1: R1 a (r, nc), R2 b (nr, c), R3 c (r, c): relevance (1, 0, 1), correctness (0, 1, 1):
        one discordant pair, one tie in each ordering: tau-b = -1/sqrt(2*2) = -1/2;
    t2: R1 d (r, c), R2 e (r, c), R3 f (nr, nc): (1, 1, 0) both: tau-b = 2/sqrt(2*2) = 1;  mean 1/4."""
    import json

    from cranfield.analysis.aspects import aspect_correlation, aspect_scores
    from cranfield.cli.main import main

    judgments = {"t1": {"a": ("r", "nc"), "b": ("nr", "c"), "c": ("r", "c")},
                 "t2": {"d": ("r", "c"), "e": ("r", "c"), "f": ("nr", "nc")}}
    picks = {"R1": ("a", "d"), "R2": ("b", "e"), "R3": ("c", "f")}
    qrels = tmp_path / "multi.qrels"
    qrels.write_text("".join(f"{t} 0 {d} {x} {y}\n" for t, docs in judgments.items() for d, (x, y) in docs.items()))
    paths = []
    for name, (d1, d2) in picks.items():
        path = tmp_path / name
        path.write_text(f"t1 Q0 {d1} 1 1 {name}\nt2 Q0 {d2} 1 1 {name}\n")
        paths.append(str(path))
    space = AspectSpace({"relevance": ("nr", "r"), "correctness": ("nc", "c")})
    multi = {a: {t: {d: labels[k] for d, labels in docs.items()} for t, docs in judgments.items()}
             for k, a in enumerate(space.aspects)}  # {aspect: {topic: {docno: label}}}
    scores, topics = aspect_scores(space, multi, paths, "P@1")
    assert topics == ["t1", "t2"]
    assert scores["relevance"].tolist() == [[1, 1], [0, 1], [1, 0]]
    assert scores["correctness"].tolist() == [[0, 1], [1, 1], [1, 0]]
    res = aspect_correlation(space, multi, paths, ["P@1"])
    tc = res.correlations["P@1"]
    assert tc.values.tolist() == [[pytest.approx(-0.5), pytest.approx(1.0)]]
    row = res.to_dict()["rows"][0]
    assert (row["measure"], row["a"], row["b"], row["topics"]) == ("P@1", "relevance", "correctness", 2)
    assert row["tau"] == pytest.approx(0.25) and res.to_frame().loc[0, "tau"] == pytest.approx(0.25)
    argv = ["aspects", "eval", "--aspect-qrels", str(qrels), "--aspect-names", "relevance,correctness",
            "--labels", "relevance=nr,r", "--labels", "correctness=nc,c", *paths,
            "-m", "CAM(P@1),TOMA(P@1,dist=manhattan)", "--study", "aspect-tau"]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["tau"] for r in doc["aspect-tau"]["rows"]] == [pytest.approx(0.25)]  # one base measure, P@1
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Table 4, middle" in out and "relevance  correctness  0.2500       2" in out
    with pytest.raises(CranfieldError, match="at least 2"):
        aspect_correlation(AspectSpace({"relevance": ("nr", "r")}), {"relevance": {"t1": {"a": "r"}}}, paths,
                           ["P@1"])
