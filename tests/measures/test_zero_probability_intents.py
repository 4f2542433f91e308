"""An intent of probability 0 is not an intent of its topic (docs/conventions.md#intents): it adds
nothing to any numerator or denominator of the diversity family, so adding one never changes a
value, and every value stays within its measure's documented range."""

from __future__ import annotations

import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield.measures  # noqa: F401  (registers the family)
from cranfield import Evaluator
from cranfield.measures.registry import iter_specs, parse_measure

DOCS = [f"d{k}" for k in range(6)]
SPECIAL = {"IA": "IA(P@5)"}


def _family() -> list[str]:
    """Every measure of the diversity family, at cutoff 5."""
    return [SPECIAL.get(s.name, f"{s.name}@5") for s in iter_specs() if s.needs_intents]


MEASURES = _family()


def _scores(write, qrels: dict, probabilities: dict, run: dict) -> np.ndarray:
    text = "".join(f"{q} {i} {p!r}\n" for q, ps in probabilities.items() for i, p in ps.items())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Evaluator(qrels, MEASURES, intents=write("i.txt", text)).evaluate(run).values[0]


@st.composite
def cases(draw):
    """Diversity qrels of two topics over intents 1..3 (each with a relevant document), positive
    probabilities, a ranking per topic, and the judgments of an extra intent 9 on judged documents."""
    qrels, probabilities, run, extra = {}, {}, {}, {}
    for q in ("1", "2"):
        n = draw(st.integers(1, 3))
        intents = {}
        for i in map(str, range(1, n + 1)):
            labels = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 2), min_size=1, max_size=4))
            labels[draw(st.sampled_from(DOCS))] = draw(st.integers(1, 2))
            intents[i] = labels
        qrels[q] = intents
        raw = draw(st.lists(st.integers(1, 8), min_size=n, max_size=n))
        probabilities[q] = {str(k + 1): w / sum(raw) for k, w in enumerate(raw)}
        judged = sorted({d for labels in intents.values() for d in labels})
        extra[q] = draw(st.dictionaries(st.sampled_from(judged), st.integers(0, 2), min_size=1))
        ranking = draw(st.lists(st.sampled_from(DOCS), unique=True, min_size=1, max_size=6))
        run[q] = {d: float(len(ranking) - r) for r, d in enumerate(ranking)}
    return qrels, probabilities, run, extra


@settings(max_examples=40, deadline=None)
@given(cases())
def test_a_zero_probability_intent_changes_nothing(tmp_path_factory, case):
    qrels, probabilities, run, extra = case
    folder = tmp_path_factory.mktemp("zero")

    def write(name: str, text: str):
        path = folder / name
        path.write_text(text)
        return path

    before = _scores(write, qrels, probabilities, run)
    with_zero = {q: {**intents, "9": extra[q]} for q, intents in qrels.items()}
    after = _scores(write, with_zero, {q: {**ps, "9": 0.0} for q, ps in probabilities.items()}, run)
    assert np.array_equal(before, after, equal_nan=True), [m for m, b, a in zip(MEASURES, before, after)
                                                          if not np.array_equal(b, a, equal_nan=True)]
    for name, values in zip(MEASURES, after):
        low, high = parse_measure(name).spec.value_range
        assert ((values >= low) & (values <= high)).all(), (name, values)


def test_the_example_of_the_issue(write):
    """Intent 1 of probability 0 and intent 2 of probability 1: the values of intent 2 alone
    (I-rec@10 was 2.0, NRBP 1.125, ERR-IA@10 1.08 when the numerators counted intent 1)."""
    qrels = {"1": {"1": {"a": 1}, "2": {"b": 1, "c": 1}}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    zero = _scores(write, qrels, {"1": {"1": 0.0, "2": 1.0}}, run)
    alone = _scores(write, {"1": {"2": {"a": 0, "b": 1, "c": 1}}}, {"1": {"2": 1.0}}, run)
    assert np.array_equal(zero, alone, equal_nan=True)
    assert zero[MEASURES.index("StRecall@5"), 0] == 1.0
