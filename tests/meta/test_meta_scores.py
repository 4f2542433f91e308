"""Score matrices from numpy, tidy and wide DataFrames, Results and mappings."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import cranfield
from conftest import DATA
from cranfield import CranfieldError
from cranfield.meta import ScoreMatrix, as_score_matrices, as_score_matrix


def test_numpy_default_names_and_means():
    m = as_score_matrix([[0.1, 0.3], [0.2, 0.2], [0.0, 0.4]], measure="AP")
    assert m.systems == ("0", "1") and m.topics == ("0", "1", "2") and m.measure == "AP"
    assert m.means().tolist() == pytest.approx([0.1, 0.3])
    assert not m.values.flags.writeable
    assert m.system_index("1") == 1 and m.system_index(0) == 0


def test_tidy_frame_keeps_run_and_topic_order_and_ignores_all_rows():
    frame = pd.DataFrame({
        "run": ["r2", "r2", "r1", "r1", "r2", "r1"], "topic": ["t9", "t1", "t9", "t1", "all", "all"],
        "measure": ["AP"] * 6, "value": [0.5, 0.25, 0.75, 0.0, 0.375, 0.375],
    })
    m = as_score_matrix(frame)
    assert m.systems == ("r2", "r1") and m.topics == ("t9", "t1")
    assert m.values.tolist() == [[0.5, 0.75], [0.25, 0.0]]


def test_wide_frame_results_and_mapping():
    wide = pd.DataFrame({"bm25": [0.1, 0.2], "dense": [0.3, 0.4]}, index=["q1", "q2"])
    m = as_score_matrix(wide)
    assert m.systems == ("bm25", "dense") and m.topics == ("q1", "q2")
    runs = sorted(str(p) for p in (DATA / "robust03").glob("input.*"))
    results = cranfield.Evaluator(str(DATA / "robust03" / "qrels.txt.gz"), ["AP", "P@10"]).evaluate(runs)
    ap, p10 = as_score_matrices(results, ["AP", "P@10"])
    assert ap.systems == tuple(results.runs) and p10.values.shape == (100, 4)
    assert np.array_equal(p10.values, results.values[:, 1, :].T)
    assert as_score_matrix({"AP": wide}, measure="AP").measure == "AP"


@pytest.mark.parametrize("make, message", [
    (lambda: ScoreMatrix(np.ones((2, 2)), systems=("a",)), "1 systems names for 2 systems"),
    (lambda: ScoreMatrix(np.ones((2, 2)), systems=("a", "a")), "repeat"),
    (lambda: ScoreMatrix(np.array([[1.0, np.inf]])), "NaN or infinite"),
    (lambda: ScoreMatrix(np.ones((0, 2))), "at least 1 topic"),
    (lambda: ScoreMatrix([["x", "y"]]), "must be numbers"),
    (lambda: as_score_matrix({"AP": np.eye(2), "P@10": np.eye(2)}), "several measures"),
    (lambda: as_score_matrix({"AP": np.eye(2)}, measure="RR"), "no scores for measure 'RR'"),
    (lambda: as_score_matrices({"A": np.eye(2), "B": np.eye(3)}, ["A", "B"]), "same systems and topics"),
    (lambda: as_score_matrix(pd.DataFrame({"run": ["a", "a"], "topic": ["1", "1"], "measure": ["AP", "AP"],
                                           "value": [0.1, 0.2]})), "several values for topic '1'"),
    (lambda: as_score_matrix(pd.DataFrame({"run": ["a", "b"], "topic": ["1", "2"], "measure": ["AP", "AP"],
                                           "value": [0.1, 0.2]})), "NaN"),
])
def test_invalid_matrices(make, message):
    with pytest.raises(CranfieldError, match=message):
        make()
