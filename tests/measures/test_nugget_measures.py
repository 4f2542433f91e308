"""Nugget measures (V_strict, V, A_strict, A, W, W_strict, NuggetRecall): hand-worked conventions
and agreement with nuggetizer's and pyterrier-nuggetizer's calculate_nugget_scores, whose values
on the bundled and real (TREC 2024 RAG baselines) and random assignments are in tests/data/nuggets."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from cranfield import EvaluationWarning, MeasureError, Results, parse_measure
from cranfield.evaluation.nuggets import evaluate_nuggets
from cranfield.measures.nuggets import NUGGET_MEASURES, nugget_recall, parse_nugget_measure

NUGGETS = DATA / "nuggets"
NAMES = ["V_strict", "V", "A_strict", "A", "W", "W_strict"]


def answers(rows) -> pd.DataFrame:
    """Assignments as a DataFrame: rows of (qid, run, nugget_id, importance, assignment)."""
    return pd.DataFrame(rows, columns=["qid", "run", "nugget_id", "importance", "assignment"])


def scores(rows, measures=NAMES, **options) -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        r = evaluate_nuggets(answers(rows), measures, **options)
    return {m: float(r.values[0, k, 0]) for k, m in enumerate(r.measures)}


# --------------------------------------------------------------------------- hand-worked
def test_hand_worked_answer():
    """2 vital (support, partial), 2 okay (partial, not): V_strict 1/2, V 1.5/2, A_strict 1/4,
    A 2/4, W (1 + 0.5 + 0.5·0.5)/(2 + 0.5·2) = 1.75/3, W_strict 1/3."""
    rows = [("q", "r", "a", "vital", "support"), ("q", "r", "b", "vital", "partial_support"),
            ("q", "r", "c", "okay", "partial_support"), ("q", "r", "d", "okay", "not_support")]
    assert scores(rows) == {"V_strict": 0.5, "V": 0.75, "A_strict": 0.25, "A": 0.5, "W": 1.75 / 3,
                            "W_strict": 1 / 3}


def test_topic_without_vital_nuggets_scores_zero_on_v():
    """nuggetizer: V = 0 when the topic has no vital nugget; A and W count the okay ones."""
    rows = [("q", "r", "a", "okay", "support"), ("q", "r", "b", "okay", "partial_support")]
    assert scores(rows) == {"V_strict": 0.0, "V": 0.0, "A_strict": 0.5, "A": 0.75, "W": 0.75, "W_strict": 0.5}


def test_answer_without_nuggets_scores_zero(write):
    path = write("a.jsonl", json.dumps({"qid": "q", "run_id": "r", "nuggets": []}) + "\n")
    r = evaluate_nuggets(path, NAMES)
    assert r.values.tolist() == [[[0.0]] * 6]


def test_failed_counts_as_not_supported():
    failed = [("q", "r", "a", "vital", "support"), ("q", "r", "b", "vital", "failed")]
    not_support = [("q", "r", "a", "vital", "support"), ("q", "r", "b", "vital", "not_support")]
    assert scores(failed) == scores(not_support) == {m: 0.5 for m in NAMES}


def test_partial_credit_is_a_parameter():
    rows = [("q", "r", "a", "vital", "partial_support"), ("q", "r", "b", "okay", "support")]
    got = scores(rows, ["NuggetRecall(partial=0.25)", "NuggetRecall(importance=vital,partial=1)",
                        "NuggetRecall(importance=2:1,partial=0)", "NuggetRecall"])
    assert got == {"NuggetRecall(partial=0.25)": 1.25 / 2, "NuggetRecall(importance=vital,partial=1)": 1.0,
                   "NuggetRecall(importance=2:1,partial=0)": 1 / 3, "NuggetRecall": 0.75}


def test_missing_answers_score_zero_or_are_skipped():
    rows = [("q1", "r1", "a", "vital", "support"), ("q2", "r1", "a", "vital", "support"),
            ("q1", "r2", "a", "vital", "support")]
    with pytest.warns(EvaluationWarning, match=r"1 \(run, topic\) answer missing, in 1 run \(r2\): scored 0"):
        zero = evaluate_nuggets(answers(rows), "A")
    assert zero.summary().tolist() == [[1.0], [0.5]]
    with pytest.warns(EvaluationWarning, match="left out"):
        skip = evaluate_nuggets(answers(rows), "A", missing="skip")
    assert skip.summary().tolist() == [[1.0], [1.0]] and np.isnan(skip.values[1, 0, 1])


# --------------------------------------------------------------------------- names
def test_named_measures_are_members_of_the_family():
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 4, size=(2, 4, 5, 7))
    counts[0, :, 0, 0] = 0  # no vital nugget
    family = {"V_strict": "importance=vital,partial=0", "V": "importance=vital", "A_strict": "partial=0",
              "A": "partial=0.5", "W": "importance=weighted", "W_strict": "importance=1:0.5,partial=0"}
    for name, params in family.items():
        named, general = parse_nugget_measure(name), parse_nugget_measure(f"NuggetRecall({params})")
        assert np.array_equal(named.spec.kernel(counts), general.spec.kernel(counts, **general.params))


def test_nugget_measure_names_round_trip_and_errors():
    weighted = parse_nugget_measure("NuggetRecall(importance=1:0.5,partial=0.5)")
    assert str(weighted) == "NuggetRecall(importance=weighted)"
    assert str(parse_nugget_measure("NuggetRecall(importance=1:0.25)")) == "NuggetRecall(importance=1:0.25)"
    assert str(parse_nugget_measure("v_strict")) == "V_strict"
    with pytest.raises(MeasureError, match="Unknown nugget measure 'V_strikt'. Did you mean V_strict"):
        parse_nugget_measure("V_strikt")
    with pytest.raises(MeasureError, match="'partial' parameter of NuggetRecall must be a float in the range"):
        parse_nugget_measure("NuggetRecall(partial=2)")
    with pytest.raises(MeasureError, match="'importance' parameter"):
        parse_nugget_measure("NuggetRecall(importance=0:0)")
    with pytest.raises(MeasureError, match="scores rankings"):
        parse_nugget_measure(parse_measure("AP"))
    assert set(NAMES) < set(NUGGET_MEASURES)
    with pytest.raises(MeasureError, match="V_strict scores nugget assignments of generated answers, not rankings"):
        parse_measure("V_strict")


# --------------------------------------------------------------------------- the references
def test_nuggetizers_documented_example(write):
    """nuggetizer's documented assign output (answers mode; 2 vital supported, an okay partially,
    an okay not): its calculate_nugget_scores gives strict_vital 1.0, vital 1.0, strict_all 0.5,
    all 0.625, and pyterrier-nuggetizer's weighted 0.75, strict_weighted 2/3."""
    nuggets = [("Python is a high-level programming language", "vital", "support"),
               ("Python was created by Guido van Rossum", "vital", "support"),
               ("Python is used for data science", "okay", "partial_support"),
               ("Python supports multithreading", "okay", "not_support")]
    record = {"query": "What is Python?", "qid": "q1", "answer_text": "Python is a high-level programming language...",
              "response_length": 42, "run_id": "run-123",
              "nuggets": [{"text": t, "importance": i, "assignment": a} for t, i, a in nuggets]}
    r = evaluate_nuggets(write("assignments.jsonl", json.dumps(record) + "\n"), NAMES)
    assert r.runs == ["run-123"] and r.topics == ["q1"]
    assert r.values[0, :, 0].tolist() == [1.0, 1.0, 0.5, 0.625, 0.75, 0.6666666666666666]


@pytest.mark.parametrize("name", ["rag24_baselines.jsonl.gz", "random.jsonl", "rag.nuggets.jsonl"])
def test_per_topic_values_equal_the_references(name):
    """Every (run, topic) value equals calculate_nugget_scores' (nuggetizer for V and A,
    pyterrier-nuggetizer for W) bit for bit."""
    stem = name.split(".jsonl")[0]
    want = pd.read_csv(NUGGETS / f"{stem}.expected.csv", dtype={"run": str, "qid": str})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        r = evaluate_nuggets(NUGGETS / name, NAMES)
    got = r.to_frame().pivot_table(index=["run", "topic"], columns="measure", values="value")
    got = got.loc[list(zip(want.run, want.qid)), NAMES]
    assert len(want) >= 18
    assert np.array_equal(got.to_numpy(), want[NAMES].to_numpy())


def test_run_means_equal_nuggetizers_global_metrics():
    """nuggetizer's calculate_global_metrics averages over the records a file holds: missing='skip'."""
    want = pd.read_csv(NUGGETS / "rag24_baselines.means.csv").set_index("run")
    with pytest.warns(EvaluationWarning, match="left out"):
        r = evaluate_nuggets(NUGGETS / "rag24_baselines.jsonl.gz", NAMES, missing="skip")
    got = pd.DataFrame(r.summary(), index=r.runs, columns=r.measures).loc[want.index, NAMES]
    np.testing.assert_allclose(got.to_numpy(), want[NAMES].to_numpy(), rtol=1e-14)


# --------------------------------------------------------------------------- properties
@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=8, max_size=8), min_size=1, max_size=6),
       st.floats(0, 1), st.floats(0, 4), st.floats(0, 4))
def test_recall_is_in_unit_interval_and_monotone(cells, partial, wv, wo):
    counts = np.moveaxis(np.array(cells).reshape(1, -1, 2, 4), (2, 3), (0, 1))
    importance = (wv, wo) if wv or wo else (1.0, 1.0)
    value = nugget_recall(counts, importance=importance, partial=partial)
    assert ((0 <= value) & (value <= 1 + 1e-12)).all()
    better = counts.copy()
    better[:, 0] += better[:, 2]  # every not_support becomes a support
    better[:, 2] = 0
    assert (nugget_recall(better, importance=importance, partial=partial) >= value - 1e-12).all()
    strict = nugget_recall(counts, importance=importance, partial=0.0)
    assert (strict <= value + 1e-12).all()


def test_results_work_downstream():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        r = evaluate_nuggets(NUGGETS / "rag.nuggets.jsonl", ["V_strict", "A"])
    assert isinstance(r, Results) and r.runs == ["bm25_llama", "hybrid_gpt4o", "dense_mistral"]
    assert r.to_dict()["rows"][0] == {"run": "bm25_llama", "topic": "t1", "measure": "V_strict", "value": 0.5}
    from cranfield import Report

    report = Report.from_results(r, test="t", correction="holm")
    assert report.measures == ["V_strict", "A"] and "<html" in report.to_html()[:200].lower()
