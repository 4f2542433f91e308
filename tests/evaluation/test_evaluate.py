"""The evaluation driver: topic-set rules, run names, aggregation, chunking, the DataFrame API."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import cranfield
from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning, Evaluator

QRELS = {"1": {"a": 1, "b": 0}, "2": {"c": 2}, "3": {"d": 0}}
RUN = {"1": {"a": 1.0, "b": 0.5}, "2": {"x": 1.0, "c": 0.5}, "9": {"z": 1.0}}


def scores(df, topic="all"):
    return df[df.topic == topic].set_index("measure").value.to_dict()


def test_missing_topic_rules():
    # topic 3 is missing from the run; topic 9 is only in the run
    with pytest.warns(EvaluationWarning) as record:
        zero = cranfield.evaluate(QRELS, RUN, ["P@1", "NumRel"], missing="zero")
    text = " ".join(str(w.message) for w in record)
    assert "not in the qrels and are ignored: 9" in text
    assert "missing from the run" in text and ": 3" in text
    assert "no relevant documents" in text  # topic 3 has none
    assert set(zero.topic) == {"1", "2", "3", "all"}
    assert scores(zero)["P@1"] == pytest.approx((1 + 0 + 0) / 3)
    with pytest.warns(EvaluationWarning):
        skip = cranfield.evaluate(QRELS, RUN, ["P@1"], missing="skip")
    assert set(skip.topic) == {"1", "2", "all"}
    assert scores(skip)["P@1"] == pytest.approx(1 / 2)
    with pytest.warns(EvaluationWarning):
        empty = cranfield.evaluate(QRELS, RUN, ["NumRel"], missing="empty")
    assert scores(empty, "3")["NumRel"] == 0 and scores(empty)["NumRel"] == 2  # counts are summed


def test_norel_exclude_drops_topics():
    with pytest.warns(EvaluationWarning, match="excluded: 3"):
        df = cranfield.evaluate(QRELS, RUN, ["P@1"], norel="exclude")
    assert set(df.topic) == {"1", "2", "all"}


def test_bad_settings_are_errors():
    with pytest.raises(CranfieldError, match="The missing option must be one of"):
        Evaluator(QRELS, ["P@1"], missing="never")
    with pytest.raises(CranfieldError, match="no measures"):
        Evaluator(QRELS, [])


def test_run_names_are_unique(write):
    a = write("a.txt", "1 Q0 a 1 1 same\n")
    b = write("b.txt", "1 Q0 b 1 1 same\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(QRELS, [a, b], ["P@1"])
    assert set(df.run) == {"same#a.txt", "same#b.txt"}


def test_frame_contract():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(QRELS, RUN, ["P@1", "AP"], per_topic=False)
    assert list(df.columns) == ["run", "topic", "measure", "value"]
    assert df.topic.tolist() == ["all", "all"] and df.measure.tolist() == ["P@1", "AP"]


def test_evaluator_reused_for_many_runs_and_frames():
    ev = Evaluator(DATA / "robust03" / "qrels.txt.gz", ["AP", "P@10"])
    runs = sorted((DATA / "robust03").glob("input.*.gz"))[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = ev.evaluate(runs)
        one = ev.evaluate(runs[:1])
    assert res.values.shape == (2, 2, 100)
    assert np.array_equal(res.values[0], one.values[0])
    frame = pd.DataFrame({"qid": ["303"], "docno": ["x"], "score": [1.0]})
    with pytest.warns(EvaluationWarning):
        assert ev.evaluate([frame]).values.shape == (1, 2, 100)


def test_topic_chunks_give_identical_results(monkeypatch):
    import importlib

    module = importlib.import_module("cranfield.evaluation.evaluator")

    runs = [DATA / "robust03" / "input.pircRBa1.gz", DATA / "robust03" / "input.NLPR03vb10.gz"]
    measures = ["AP", "nDCG@10", "P@5", "RR", "Rprec", "RBP(part=upper)", "Q@10"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        whole = Evaluator(DATA / "robust03" / "qrels.txt.gz", measures).evaluate(runs).values
        monkeypatch.setattr(module, "EVAL_CELL_BUDGET", 5000)  # about five topics per block
        ev = Evaluator(DATA / "robust03" / "qrels.txt.gz", measures)
        assert len(ev.topic_blocks(cranfield.read_run(runs[0]))) == 20
        chunked = ev.evaluate(runs).values
    assert np.array_equal(whole, chunked)


def test_depth_is_limited_to_what_the_measures_read():
    ev = Evaluator(QRELS, ["P@1", "nDCG@3"])
    assert ev.depth == 3
    assert Evaluator(QRELS, ["P@1", "AP"]).depth is None


def test_progress_bar_draws_on_stderr_only_when_asked(capsys):
    from cranfield._progress import progress

    assert list(progress(range(3), 3, "evaluating", enabled=False)) == [0, 1, 2]
    assert capsys.readouterr().err == ""
    import time

    for _ in progress(range(3), 3, "evaluating", enabled=True):
        time.sleep(0.12)
    err = capsys.readouterr().err
    assert "evaluating [" in err and "/3" in err


def test_urisk_and_trisk_by_hand():
    from cranfield.evaluation.evaluator import risk_adjusted, trisk

    qrels = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}}
    ev = Evaluator(qrels, ["P@1"])
    run = ev.evaluate([{"1": {"a": 1.0}, "2": {"x": 1.0}, "3": {"c": 1.0}}])
    base = ev.evaluate([{"1": {"x": 1.0}, "2": {"b": 1.0}, "3": {"c": 1.0}}])
    # per-topic deltas: +1, -1, 0; with alpha = 2 the loss weighs 3
    adjusted = risk_adjusted(run, base, alpha=2.0)
    assert adjusted.values[0, 0].tolist() == [1.0, -3.0, 0.0]
    urisk = (1 - 3 + 0) / 3
    sd = np.std([1.0, -3.0, 0.0], ddof=1)
    assert trisk(adjusted)[0, 0] == pytest.approx(urisk / (sd / np.sqrt(3)))
    assert scores(adjusted.to_frame())["P@1"] == pytest.approx(urisk)
    assert risk_adjusted(run, base).values[0, 0].tolist() == [1.0, -1.0, 0.0]  # alpha 0: plain differences
    with pytest.raises(CranfieldError, match="The risk alpha must be a finite number >= 0"):
        risk_adjusted(run, base, alpha=-1)
