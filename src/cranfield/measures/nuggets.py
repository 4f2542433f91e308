"""Nugget recall of generated answers: V_strict, V, A_strict, A, W, W_strict and NuggetRecall.

Every measure of the family is one weighted recall of an answer's nuggets (docs/nuggets.md):

    NuggetRecall = Σ_n w(importance_n) · c(assignment_n) / Σ_n w(importance_n)

with c = 1 for ``support``, ``partial`` for ``partial_support`` and 0 for ``not_support`` and
``failed``; a topic whose weights sum to 0 (no vital nugget for V, no nugget at all for A and W)
scores 0, as nuggetizer's ``calculate_nugget_scores`` scores it. The TREC 2024 RAG track's
measures (Pradeep, Thakur, Upadhyay, Campos, Craswell and Lin, "Initial nugget evaluation
results for the TREC 2024 RAG track with the AutoNuggetizer framework", arXiv:2411.09607, 2024,
§3): V and A weigh vital nuggets only / all nuggets alike, "strict" gives partial support no
credit, otherwise 0.5. W weighs okay nuggets 0.5 (pyterrier-nuggetizer's weighted score).

These measures read nugget assignments, not rankings, so they live in their own catalogue
(:data:`NUGGET_MEASURES`), parsed with the registry's grammar
(:func:`parse_nugget_measure`); their kernels take the (2, 4, S, T) count tensor of
:meth:`cranfield.io.nuggets.NuggetAssignments.counts` and return (S, T).
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from typing import Any

import numpy as np

from cranfield._choices import ASSIGNMENTS, IMPORTANCE
from cranfield.errors import MeasureError
from cranfield.measures.registry import ELSEWHERE, REGISTRY, Measure, MeasureSpec, Param, parse_measure

SUPPORT, PARTIAL = ASSIGNMENTS.index("support"), ASSIGNMENTS.index("partial_support")
VITAL, OKAY = IMPORTANCE.index("vital"), IMPORTANCE.index("okay")
# the importance weights by name: (vital, okay)
SCHEMES = {"vital": (1.0, 0.0), "all": (1.0, 1.0), "weighted": (1.0, 0.5)}
PYTERRIER = "pyterrier-nuggetizer calculate_nugget_scores"
NUGGETIZER = "nuggetizer calculate_nugget_scores"
CITE = ("Pradeep, Thakur, Upadhyay, Campos, Craswell & Lin, Initial nugget evaluation results for the TREC 2024 "
        "RAG track with the AutoNuggetizer framework, arXiv:2411.09607 (2024), §3")


class ImportanceWeights(Param):
    """The weight of a vital and of an okay nugget: ``vital`` (1, 0), ``all`` (1, 1), ``weighted``
    (1, 0.5), or two numbers ``w_vital:w_okay`` (each >= 0, not both 0). A value is kept as the
    scheme's name when it is one (so names print canonically), else as the pair of weights."""

    def describe(self) -> str:
        return "'vital', 'all', 'weighted' or weights w_vital:w_okay, numbers >= 0 not both 0 (e.g. 1:0.25)"

    def convert(self, text: Any, measure: str) -> str | tuple[float, float]:
        bad = MeasureError(f"The {self.name!r} parameter of {measure} must be {self.describe()}. "
                           f"Got {text!r} instead.")
        if isinstance(text, str) and text.strip() in SCHEMES:
            return text.strip()
        try:
            items = text.split(":") if isinstance(text, str) else list(text)
            weights = tuple(float(w) for w in items)
        except (TypeError, ValueError):
            raise bad from None
        if len(weights) != 2 or not all(0 <= w < np.inf for w in weights) or not any(weights):
            raise bad
        named = {v: k for k, v in SCHEMES.items()}
        return named.get(weights, (weights[0], weights[1]))

    def format(self, value: Any) -> str:
        return value if isinstance(value, str) else ":".join(f"{w:g}" for w in value)


IMPORTANCE_PARAM = ImportanceWeights("importance", "importance", "all", "weights of a vital and an okay nugget")
PARTIAL_PARAM = Param("partial", "float", 0.5, "credit of a partial_support (support gets 1)", low=0, high=1)


def nugget_recall(counts: np.ndarray, *, importance: str | tuple[float, float] = "all",
                  partial: float = 0.5) -> np.ndarray:
    """Weighted nugget recall of each answer, shape (S, T), from ``counts[i, a, s, t]`` (the
    nuggets of importance i assigned a in run s's answer to topic t): Σ_i w_i (#support + partial
    · #partial) / Σ_i w_i #nuggets, 0 where the denominator is 0 (Pradeep et al.,
    arXiv:2411.09607, 2024, §3; nuggetizer's convention for a topic without vital nuggets).
    ``importance`` names a scheme of :data:`SCHEMES` or gives (w_vital, w_okay). Terms are added
    in a fixed order, so the value is the same double as nuggetizer's for weights and credits that
    are multiples of a power of two."""
    weights = SCHEMES[importance] if isinstance(importance, str) else importance
    counts = np.asarray(counts, dtype=np.float64)
    num = np.zeros(counts.shape[2:])
    den = np.zeros(counts.shape[2:])
    for level, weight in ((VITAL, weights[0]), (OKAY, weights[1])):
        if weight:
            by = counts[level]
            num += weight * (by[SUPPORT] + partial * by[PARTIAL])
            den += weight * by.sum(axis=0)
    out = np.zeros_like(num)
    np.divide(num, den, out=out, where=den > 0)
    return out


def _spec(name: str, importance: str, credit: float, doc: str, reference: str) -> MeasureSpec:
    return MeasureSpec(name, partial(nugget_recall, importance=importance, partial=credit), (), CITE, doc,
                       cutoff="none", reference=reference)


NUGGET_MEASURES: dict[str, MeasureSpec] = {spec.name: spec for spec in (
    _spec("V_strict", "vital", 0.0, "fraction of the vital nuggets fully supported by the answer",
          f"{NUGGETIZER} strict_vital_score"),
    _spec("V", "vital", 0.5, "vital nugget recall, partial support counting 0.5", f"{NUGGETIZER} vital_score"),
    _spec("A_strict", "all", 0.0, "fraction of all nuggets fully supported by the answer",
          f"{NUGGETIZER} strict_all_score"),
    _spec("A", "all", 0.5, "nugget recall, partial support counting 0.5", f"{NUGGETIZER} all_score"),
    _spec("W", "weighted", 0.5, "weighted recall: okay nuggets weigh 0.5, partial support counts 0.5",
          f"{PYTERRIER} weighted_score"),
    _spec("W_strict", "weighted", 0.0, "weighted recall (okay nuggets weigh 0.5) of fully supported nuggets",
          f"{PYTERRIER} strict_weighted_score"),
    MeasureSpec("NuggetRecall", nugget_recall, (IMPORTANCE_PARAM, PARTIAL_PARAM), CITE,
                "weighted nugget recall: per-importance weights, a credit for partial support", cutoff="none"),
)}


ELSEWHERE.update(dict.fromkeys(NUGGET_MEASURES, "scores nugget assignments of generated answers, not rankings: use "
                               "`cranfield nuggets FILE...`, --nuggets FILE... or cranfield.evaluate_nuggets"))


def lookup_nugget(name: str) -> MeasureSpec:
    """The nugget measure called ``name`` (case-insensitive when unambiguous)."""
    if name in NUGGET_MEASURES:
        return NUGGET_MEASURES[name]
    folded = [k for k in NUGGET_MEASURES if k.lower() == name.lower()]
    if len(folded) == 1:
        return NUGGET_MEASURES[folded[0]]
    if name in REGISTRY:
        raise MeasureError(f"{name} scores rankings against qrels, not nugget assignments (the nugget measures: "
                           f"{', '.join(NUGGET_MEASURES)})")
    import difflib  # only for an unknown name (start-up: docs/architecture.md#start-up)

    close = difflib.get_close_matches(name, list(NUGGET_MEASURES), n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise MeasureError(f"Unknown nugget measure {name!r}.{hint} (the nugget measures: "
                       f"{', '.join(NUGGET_MEASURES)})")


def parse_nugget_measure(text: str | Measure) -> Measure:
    """A nugget measure from its name: ``V_strict``, ``A``, ``NuggetRecall(importance=1:0.25,partial=0)``."""
    if isinstance(text, Measure):
        if not is_nugget_measure(text.spec):
            raise MeasureError(f"{text} scores rankings, not nugget assignments (the nugget measures: "
                               f"{', '.join(NUGGET_MEASURES)})")
        return text
    return parse_measure(text, catalogue=lookup_nugget)


def iter_nugget_specs() -> Iterator[MeasureSpec]:
    """Every nugget measure, in the order of :data:`NUGGET_MEASURES`."""
    return iter(NUGGET_MEASURES.values())


def is_nugget_measure(spec: MeasureSpec) -> bool:
    """Whether ``spec`` is one of the nugget measures (they score assignments, not rankings)."""
    return NUGGET_MEASURES.get(spec.name) is spec


def score(measure: Measure, counts: np.ndarray) -> np.ndarray:
    """The (S, T) values of a parsed nugget measure on the count tensor."""
    return measure.spec.kernel(counts, **measure.params)
