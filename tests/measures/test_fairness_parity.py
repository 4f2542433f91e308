"""Agreement with the reference code on random stochastic runs (tests/data/fairness/README.md).

- EE-L, EE-D, EE-R with diazf/expeval (its functions run as ``expeval.py`` runs them, without
  ``-G``, ``-C``, ``-B``; printed at full precision), to 1e-9, under seven settings of the
  browsing model, patience, utility and normalisation;
- AWRF and nDCG*AWRF with fair-trec/trec2022-fair-public's ``AWRFMetric`` on every (topic,
  sample) ranking, averaged over the samples here, to 1e-6.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from pathlib import Path

import pytest

from cranfield.evaluation.evaluator import Evaluator

DATA = Path(__file__).parent.parent / "data" / "fairness"
CASES = sorted(p.stem for p in DATA.glob("*.qrels"))


def _scores(case: str, measures: list[str], **options: object) -> dict[tuple[str, str], float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(DATA / f"{case}.qrels", measures, stochastic=True, groups=DATA / f"{case}.groups",
                       target=DATA / f"{case}.target", **options)  # type: ignore[arg-type]
        frame = ev.evaluate(DATA / f"{case}.run", order="rank").to_frame()
    return {(r.topic, r.measure): r.value for r in frame.itertuples()}


def _measure(name: str, model: str, gamma: str, u: str, normalize: str) -> str:
    return f"{name}(model={model},gamma={gamma},u={u}" + (",normalize=false" if normalize == "0" else "") + ")"


def test_cases_present() -> None:
    assert len(CASES) >= 13


@pytest.mark.parametrize("case", CASES)
def test_expected_exposure_equals_expeval(case: str) -> None:
    expected = defaultdict(dict)
    for line in (DATA / f"{case}.expeval").read_text().splitlines():
        model, gamma, u, normalize, topic, name, value = line.split()
        expected[_measure(name, model, gamma, u, normalize)][topic] = float(value)
    got = _scores(case, list(expected))
    n = 0
    for measure, values in expected.items():
        for topic, value in values.items():
            assert got[topic, measure] == pytest.approx(value, abs=1e-9, rel=1e-9), (case, measure, topic)
            n += 1
    assert n > 0


@pytest.mark.parametrize("case", CASES)
def test_awrf_equals_trec_fair_2022(case: str) -> None:
    per_sample: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for line in (DATA / f"{case}.awrf").read_text().splitlines():
        topic, _sample, _ndcg, awrf, score = line.split()
        per_sample[topic].append((float(awrf), float(score)))
    got = _scores(case, ["AWRF", "nDCG*AWRF"])
    for topic, values in per_sample.items():
        awrf = [a for a, _ in values if not math.isnan(a)]
        score = [s for _, s in values if not math.isnan(s)]
        if awrf:
            assert got[topic, "AWRF"] == pytest.approx(sum(awrf) / len(awrf), abs=1e-6), (case, topic)
        else:
            assert (topic, "AWRF") not in got
        if score:
            assert got[topic, "nDCG*AWRF"] == pytest.approx(sum(score) / len(score), abs=1e-6), (case, topic)
