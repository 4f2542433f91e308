"""Every study returns a result object with ``to_dict()`` (plain, JSON-able values) and ``to_frame()``
(a tidy pandas DataFrame whose columns are named as in ``to_dict``), and the two agree with each other
and with the object's arrays (issue #15)."""

from __future__ import annotations

import json
import warnings
from typing import Any

import numpy as np
import pytest

from conftest import DATA
from cranfield.analysis.aspects import UpperBounds, evaluate_aspects, upper_bounds
from cranfield.analysis.axioms import Check, check_space
from cranfield.analysis.diversity import CollectionDiversity, collection_diversity
from cranfield.analysis.dss import DSSResult, dss
from cranfield.analysis.properties import PropertyCheck, check_property
from cranfield.analysis.truncation import TruncationResult, optimal_truncation
from cranfield.measures.aspects import AspectSpace

pd = pytest.importorskip("pandas")

ROBUST = DATA / "robust03"
RUNS = [ROBUST / "input.NLPR03vb10.gz", ROBUST / "input.humR03dc.gz"]
WEB2012 = DATA / "web2012" / "qrels-for-ndeval.txt.gz"
# Maistro et al., CIKM 2021, Table 3: d1 = (mr, c), d2 = (hr, pc), d3 = (hr, nc)
SPACE = AspectSpace({"relevance": ("nr", "mr", "fr", "hr"), "correctness": ("nc", "pc", "c")},
                    {"correctness": (0, 1.5, 3)}, gate="relevance")
JUDGMENTS = {"relevance": {"t": {"d1": "mr", "d2": "hr", "d3": "hr"}},
             "correctness": {"t": {"d1": "c", "d2": "pc", "d3": "nc"}}}
GRADES = {"relevance": [0, 0, 1, 1], "correctness": [0, 0, 1]}


def quiet(fn: Any, *args: Any, **kwargs: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def round_trip(d: Any) -> Any:
    """``d`` through strict JSON (no NaN) and back: it must come back equal."""
    back = json.loads(json.dumps(d, allow_nan=False))
    assert back == d
    return back


def same(frame_value: Any, dict_value: Any) -> bool:
    if dict_value is None:
        return bool(pd.isna(frame_value))
    if isinstance(dict_value, float):
        return float(frame_value) == dict_value
    if isinstance(dict_value, list):
        return list(frame_value) == dict_value
    return frame_value == dict_value


def agree(frame: Any, rows: list[dict[str, Any]], columns: list[str]) -> None:
    """The frame has exactly ``columns`` and one row per dict row, with the same values."""
    assert list(frame.columns) == columns
    assert len(frame) == len(rows)
    for (_, row), d in zip(frame.iterrows(), rows):
        for c in columns:
            assert same(row[c], d[c]), (c, row[c], d[c])


# --------------------------------------------------------------------------- truncation
@pytest.fixture(scope="module")
def truncation() -> TruncationResult:
    return quiet(optimal_truncation, ROBUST / "qrels.txt.gz", RUNS, ["RBU", "OIE"], full_measures=["AP", "P@10"])


def test_truncation(truncation: TruncationResult) -> None:
    d = round_trip(truncation.to_dict())
    assert set(d) == {"optimal", "distribution", "kendall"}
    s, m, t = truncation.length.shape
    frame = truncation.to_frame()
    agree(frame, d["optimal"], ["run", "topic", "measure", "length", "returned", "value"])
    assert len(frame) == s * m * t == len(truncation.runs) * len(truncation.measures) * len(truncation.topics)
    by = frame.set_index(["run", "topic", "measure"])
    run, topic = truncation.runs[1], truncation.topics[3]
    assert by.loc[(run, topic, "OIE"), "length"] == truncation.length[1, 1, 3]
    assert by.loc[(run, topic, "OIE"), "value"] == truncation.value[1, 1, 3]
    assert by.loc[(run, topic, "RBU"), "returned"] == truncation.full_length[1, 3]
    labels, counts = truncation.distribution()
    dist = truncation.to_frame("distribution")
    agree(dist, d["distribution"], ["measure", "bin", "count", "fraction"])
    assert len(dist) == m * len(labels) and dist["count"].tolist() == counts.ravel().tolist()
    assert dist.groupby("measure")["count"].sum().tolist() == [s * t] * m
    tau = truncation.to_frame("kendall")
    agree(tau, d["kendall"], ["full", "truncated", "tau"])
    assert tau["tau"].dtype == float and np.allclose(tau["tau"], truncation.kendall().ravel(), equal_nan=True)
    assert truncation.to_json() == json.dumps(truncation.to_dict(), indent=1) + "\n"
    with pytest.raises(ValueError, match="part"):
        truncation.to_frame("bogus")


# --------------------------------------------------------------------------- collection diversity
@pytest.fixture(scope="module")
def collection() -> CollectionDiversity:
    return quiet(collection_diversity, WEB2012, depth="xi+1")


def test_collection_diversity(collection: CollectionDiversity) -> None:
    d = round_trip(collection.to_dict())
    assert set(d) == {"depth", "topics", "summary"} and d["depth"] == "xi+1"
    assert d["summary"]["topics"] == collection.summary()["topics"] > 0
    assert d["summary"]["mean"] == collection.summary()["mean"]
    s = collection.stats
    frame = collection.to_frame()
    columns = ["topic", "intents", "R", "xi", "xi_greedy", "depth", "d_max", "d_mean", "dd"]
    agree(frame, d["topics"], columns)
    assert frame["topic"].tolist() == list(collection.topic_ids)
    assert frame["dd"].tolist() == s.dd.tolist() and frame["R"].tolist() == s.num_rel.tolist()
    assert frame["depth"].tolist() == s.depth.tolist() and frame["xi"].tolist() == s.xi.tolist()
    intents = collection.to_frame(per_intent=True)
    assert list(intents.columns) == ["topic", "intent", "R_i", "smr"]
    assert len(intents) == sum(len(names) for names in collection.intent_ids)
    flat = [(t, i, r["R_i"][i], r["smr"][i]) for t, r in zip(collection.topic_ids, d["topics"]) for i in r["R_i"]]
    assert list(intents.itertuples(index=False, name=None)) == flat
    k = len(collection.intent_ids[0])
    assert intents["smr"].tolist()[:k] == s.smr[0, :k].tolist()
    assert intents["R_i"].tolist()[:k] == s.num_rel_intent[0, :k].tolist()
    assert json.loads(collection.to_json()) == d["topics"]


def test_collection_summary_without_relevant_documents() -> None:
    empty = quiet(collection_diversity, {"1": {"d": {"x": 0}}})
    d = round_trip(empty.to_dict())
    assert d["summary"] == {"topics": 0, "min": None, "max": None, "mean": None}


# --------------------------------------------------------------------------- DSS
@pytest.fixture(scope="module")
def dss_result() -> DSSResult:
    return quiet(dss, WEB2012, ["alpha_nDCG", "StRecall"], k=[5, 10], n=20, seed=3)


def test_dss(dss_result: DSSResult) -> None:
    d = round_trip(dss_result.to_dict())
    assert {k: d[k] for k in ("n", "seed", "average", "ks", "measures")} == {
        "n": 20, "seed": 3, "average": "avg", "ks": [5, 10], "measures": ["alpha_nDCG", "StRecall"]}
    m, k, t = dss_result.values.shape
    frame = dss_result.to_frame()
    agree(frame, d["rows"], ["measure", "k", "topic", "value"])
    assert len(frame) == m * k * (t + 1) and frame["value"].dtype == float
    per_topic = frame[frame["topic"] != "all"]
    assert np.allclose(per_topic["value"], dss_result.values.ravel(), equal_nan=True, rtol=0, atol=0)
    averaged = frame[frame["topic"] == "all"]
    assert np.allclose(averaged["value"], dss_result.averaged.ravel(), equal_nan=True, rtol=0, atol=0)
    summary = dss_result.to_frame(per_topic=False)
    assert len(summary) == m * k and summary["topic"].eq("all").all()
    assert json.loads(dss_result.to_json()) == dss_result.to_dict(per_topic=False)["rows"]
    assert json.loads(dss_result.to_json(True)) == d["rows"]


# --------------------------------------------------------------------------- axioms
def test_axiom_checks() -> None:
    checks = quiet(check_space, ["AP_IA", "RR"], depth=4, aspects=2)
    assert len(checks) == 8 and all(isinstance(c, Check) for c in checks)
    for c in checks:
        d = round_trip(c.to_dict())
        assert d == {"measure": c.measure, "property": c.property, "applicable": c.applicable,
                     "violations": c.violations, "rate": c.rate, "examples": c.examples}
        frame = c.to_frame()
        agree(frame, [d], ["measure", "property", "applicable", "violations", "rate", "examples"])
    assert any(c.violations and c.examples for c in checks)  # RR breaks Redundancy
    table = pd.concat([c.to_frame() for c in checks], ignore_index=True)
    assert len(table) == len(checks) and table["violations"].tolist() == [c.violations for c in checks]


@pytest.mark.parametrize("prop", ["confidence", "deepness", "redundancy"])
def test_property_checks(prop: str) -> None:
    c = check_property("RBU", prop, depth=4)
    assert isinstance(c, PropertyCheck)
    d = round_trip(c.to_dict())
    assert d == {"measure": c.measure, "property": prop, "holds": c.holds, "cases": c.cases,
                 "violations": c.violations, "example": c.example}
    agree(c.to_frame(), [d], ["measure", "property", "holds", "cases", "violations", "example"])


# --------------------------------------------------------------------------- aspects
def test_aspect_scores() -> None:
    runs = [{"t": {"d1": 3.0, "d2": 2.0, "d3": 1.0}}, {"t": {"d3": 3.0, "d2": 2.0}}]
    res = evaluate_aspects(SPACE, JUDGMENTS, runs, "AP", method="cam", grades=GRADES)
    d = round_trip(res.to_dict())
    assert d["runs"] == res.runs and d["topics"] == ["t"] and d["measures"] == ["AP"]
    frame = res.to_frame()
    agree(frame, d["rows"], ["run", "topic", "measure", "value"])
    assert len(frame) == 2 * 2  # one topic and the all row per run
    assert frame.loc[frame["topic"] == "t", "value"].tolist() == res.values[:, 0, 0].tolist()
    assert round(float(res.values[0, 0, 0]), 4) == 0.7917  # Table 3, (d1, d2, d3)


def test_upper_bounds() -> None:
    bounds = upper_bounds(SPACE, JUDGMENTS, "AP", method="cam", grades=GRADES)
    strategies, topics, values = bounds  # still the tuple the function always returned
    assert isinstance(bounds, UpperBounds) and topics == ["t"] and values.shape == (len(strategies), 1)
    d = round_trip(bounds.to_dict())
    frame = bounds.to_frame()
    agree(frame, d["rows"], ["strategy", "topic", "value"])
    assert len(frame) == len(strategies) * len(topics) and frame["value"].tolist() == values[:, 0].tolist()
    best, arg = bounds.best()
    assert d["best"] == [{"topic": "t", "strategy": arg[0], "value": float(best[0])}]
    assert round(d["best"][0]["value"], 4) == 0.7917 and values[strategies.index(arg[0]), 0] == best[0]
