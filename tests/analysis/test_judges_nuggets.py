"""Issues #25 and #27: nugget assignments are judgments too. Two assignment sets of the same
answers' nuggets (the bundled manual one, ``src/cranfield/data/rag.nuggets.jsonl``, and
``tests/data/nuggets/rag.auto.jsonl``, the same file with a quarter of the assignments moved one
grade, chosen by CRC-32 of qid + run + nugget text) are compared as two judges' labels, and the
leaderboards and significant differences of the runs under each, by nugget measures."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

from conftest import DATA, run_main
from cranfield import evaluate_nuggets, read_nuggets
from cranfield.analysis.judges import compare_nugget_judges

MANUAL = str(DATA.parent.parent / "src" / "cranfield" / "data" / "rag.nuggets.jsonl")
AUTO = str(DATA / "nuggets" / "rag.auto.jsonl")
GRADE = {"support": 2, "partial_support": 1, "not_support": 0, "failed": 0}


@pytest.fixture(scope="module")
def comparison():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return compare_nugget_judges(MANUAL, {"auto": AUTO}, ["V_strict", "A"], bootstrap_resamples=50)


def joined() -> pd.DataFrame:
    """The two sets' assignments joined on (qid, run, nugget_id), by pandas alone."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a, b = (read_nuggets(p).to_frame().astype(str) for p in (MANUAL, AUTO))
    return a.merge(b, on=["qid", "run", "nugget_id"], suffixes=("_ref", "_judge"))


def test_labels_are_the_assignments_grades(comparison):
    frame = comparison.to_frame()
    labels = frame[(frame.part == "labels") & (frame.topic == "all")].set_index("statistic")["value"]
    both = joined()
    ref, judge = both["label_ref"].map(GRADE), both["label_judge"].map(GRADE)
    assert labels["n_both"] == len(both)
    assert labels["agreement"] == pytest.approx(float(np.mean(ref == judge)))
    assert labels["weighted_kappa(quadratic)"] == pytest.approx(cohen_kappa_score(ref, judge, weights="quadratic"))
    assert labels["kappa(rel=2)"] == pytest.approx(cohen_kappa_score(ref >= 2, judge >= 2))
    assert labels["kappa(rel=1)"] == pytest.approx(cohen_kappa_score(ref >= 1, judge >= 1))


def test_leaderboards_are_the_nugget_scores(comparison):
    frame = comparison.to_frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        means = [evaluate_nuggets(p, ["V_strict", "A"]).to_frame() for p in (MANUAL, AUTO)]
    for measure in ("V_strict", "A"):
        ref, judge = (m[(m.topic == "all") & (m.measure == measure)].set_index("run")["value"] for m in means)
        judge = judge[ref.index]
        rows = frame[(frame.part == "leaderboard") & (frame.measure == measure)].set_index("statistic")["value"]
        assert rows["tau_b"] == pytest.approx(kendalltau(ref, judge).statistic)
        assert rows["bias"] == pytest.approx(float(np.mean(judge - ref)))


def test_identical_sets_agree_fully():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        frame = compare_nugget_judges(MANUAL, {"same": MANUAL}, "V_strict", bootstrap_resamples=0).to_frame()
    rows = frame[frame.topic == "all"].set_index("statistic")["value"]
    assert rows["agreement"] == 1.0 and rows["tau_b"] == 1.0 and rows["swaps"] == 0 and rows["rmse"] == 0.0


def test_cli_json_rows(capsys):
    code, out, err = run_main(capsys, ["judges", "--nuggets", MANUAL, f"auto={AUTO}", "-m", "V_strict",
                                       "--ci-B", "20", "--format", "json"])
    assert code == 0, err
    rows = json.loads(out)
    assert {r["judge"] for r in rows} == {"auto"}
    assert {r["part"] for r in rows} == {"labels", "leaderboard", "significance"}
    assert {r["measure"] for r in rows if r["part"] != "labels"} == {"V_strict"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--nuggets", MANUAL], "at least one judge"),
    (["--nuggets", MANUAL, AUTO, "--runs", MANUAL], "--runs cannot go with it"),
    (["ref.qrels", "--nuggets", MANUAL, AUTO], "REFERENCE cannot go with it"),
])
def test_cli_errors(capsys, argv, message):
    code, _, err = run_main(capsys, ["judges", *argv])
    assert code == 2 and message in err and err.count("\n") == 1
