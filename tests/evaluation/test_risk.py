"""TRisk is part of the risk-adjusted Results (computed once, by risk_adjusted), and every
format reads it from there (Dinçer, Macdonald & Ounis, SIGIR 2014)."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from cranfield.compat.formats import FORMATTERS, render
from cranfield.errors import EvaluationWarning
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.risk import risk_adjusted, trisk

QRELS = {"1": {"a": 1}, "2": {"b": 1}, "3": {"c": 1}}
RUN = {"1": {"a": 1.0}, "2": {"x": 1.0}, "3": {"c": 1.0}}
BASE = {"1": {"x": 1.0}, "2": {"b": 1.0}, "3": {"c": 1.0}}


def _adjusted(alpha: float = 2.0):
    ev = Evaluator(QRELS, ["P@1"])
    return risk_adjusted(ev.evaluate([RUN]), ev.evaluate([BASE]), alpha), ev.evaluate([RUN])


def test_risk_adjusted_results_hold_trisk_by_hand() -> None:
    adjusted, plain = _adjusted()
    assert plain.trisk is None
    # deltas +1, -1, 0; the loss weighs 1 + alpha = 3: URisk = -2/3, TRisk = URisk / (sd / sqrt(3))
    urisk = (1 - 3 + 0) / 3
    sd = np.std([1.0, -3.0, 0.0], ddof=1)
    assert adjusted.trisk is not None and adjusted.trisk.shape == (1, 1)
    assert adjusted.trisk[0, 0] == pytest.approx(urisk / (sd / np.sqrt(3)))
    assert trisk(adjusted) is adjusted.trisk


def test_trisk_is_computed_once_whatever_is_rendered() -> None:
    """An undefined TRisk (one topic) is announced when the results are made, not per format."""
    ev = Evaluator({"1": {"a": 1}}, ["P@1"])
    run = ev.evaluate([{"1": {"a": 1.0}}])
    with pytest.warns(EvaluationWarning) as made:
        adjusted = risk_adjusted(run, run)
    assert [str(w.message) for w in made] == ["run: TRisk of P@1 is undefined (NaN): fewer than 2 topics are scored"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for fmt in FORMATTERS:
            assert "P@1[TRisk]" in render(adjusted, fmt, per_topic=True), fmt
    assert np.isnan(adjusted.trisk).all()


def test_every_format_writes_trisk_rows_only_for_risk_adjusted_results() -> None:
    adjusted, plain = _adjusted()
    value = float(adjusted.trisk[0, 0])
    for fmt in FORMATTERS:
        assert "[TRisk]" in render(adjusted, fmt) and "[TRisk]" not in render(plain, fmt), fmt
    assert f"{value:.4f}" in render(adjusted, "table")
    assert f"{'P@1[TRisk]':<22}\tall\t{value:6.4f}" in render(adjusted, "trec")


def test_trisk_survives_pickling() -> None:
    adjusted, _ = _adjusted()
    back = pickle.loads(pickle.dumps(adjusted))
    assert np.array_equal(back.trisk, adjusted.trisk) and back.provenance["risk_alpha"] == 2.0
