"""evaluation/evaluator.py was split by concern (inputs, results, scheduling, risk, options): every
name is still importable from cranfield.evaluation.evaluator, as the same object, and results and
evaluators still pickle (Dask sends them; users keep them)."""

from __future__ import annotations

import importlib
import pickle

import numpy as np
import pytest

import cranfield.evaluation.evaluator as evaluator_module
from conftest import DATA

HOMES = {
    "cranfield.evaluation.inputs": ["measure_list", "run_list", "is_run_dict", "named_runs", "run_labels",
                                    "unique_names", "unique_run_names"],
    "cranfield.evaluation.results": ["Results", "RunScores"],
    "cranfield.evaluation.risk": ["risk_adjusted", "trisk"],
    "cranfield.evaluation.options": ["MISSING", "NOREL", "EMPTY_INTENTS", "ON_DUPLICATE", "SCORE_DTYPES"],
}


@pytest.mark.parametrize("module, names", HOMES.items())
def test_moved_names_are_the_same_objects_from_evaluator(module, names) -> None:
    home = importlib.import_module(module)
    for name in names:
        assert getattr(evaluator_module, name) is getattr(home, name), name
        assert name in evaluator_module.__all__


def test_every_exported_name_exists() -> None:
    missing = [name for name in evaluator_module.__all__ if not hasattr(evaluator_module, name)]
    assert not missing


def test_evaluator_and_results_pickle() -> None:
    robust = DATA / "robust03"
    runs = [robust / "input.NLPR03vb10.gz", robust / "input.humR03dc.gz"]
    ev = evaluator_module.Evaluator(robust / "qrels.txt.gz", ["AP", "RBP(p=0.8)", "nDCG@10"], missing="skip")
    results = ev.evaluate(runs)
    again = pickle.loads(pickle.dumps(ev))
    assert again.options == ev.options
    for got in (again.evaluate(runs), pickle.loads(pickle.dumps(results))):
        assert type(got) is evaluator_module.Results
        assert np.array_equal(got.values, results.values, equal_nan=True)
        assert got.runs == results.runs and got.provenance == results.provenance
