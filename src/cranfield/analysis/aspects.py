"""Multi-aspect evaluation studies (Maistro, Chaves Lima, Simonsen & Lioma, CIKM 2021):
TOMA, CAM and MM scores of runs, and the upper bounds of CAM/MM over candidate ideal
rankings (§4.2). The label space and the measures themselves are in
:mod:`cranfield.measures.aspects`."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from cranfield.errors import check_choice, check_float, check_int, invalid
from cranfield.evaluation.evaluator import Evaluator, Results
from cranfield.measures.aspects import (
    METHODS,
    VARIANTS,
    AspectSpace,
    aspect_qrels,
    check_grades,
    label_indices,
    multi_aspect_measure,
    toma_qrels,
)

MAX_REPORT_ASPECTS = 6  # the upper bounds try every order of the aspects: 720 candidate rankings


def _scores(qrels: Mapping, runs: Sequence[Any], measure: Any, **options: Any) -> tuple[np.ndarray, Results]:
    res = Evaluator(qrels, [measure], **options).evaluate(runs)
    return res.values[:, 0, :], res


def evaluate_aspects(
    space: AspectSpace, judgments: Mapping, runs: Sequence[Any], measure: str, *, method: str = "toma",
    dist: str = "euclidean", weight: Any = "rank", p: float = 2.0, grades: Mapping[str, Sequence[int]] | None = None,
    aspect_weights: Mapping[str, float] | None = None, variant: str = "eq6", **options: Any,
) -> Any:
    """Scores (runs × topics) of ``measure`` under TOMA, CAM or MM, as an evaluate Results.

    ``aspect_weights`` p_a (finite, >= 0, not all 0; default 1/A each) weigh CAM and MM;
    ``grades`` are checked by :func:`check_grades`; ``variant`` is MM's ``eq6`` or ``table``.
    """
    check_choice(method, "method", METHODS)
    check_choice(variant, "MM variant", VARIANTS)
    if method == "toma":
        return _scores(toma_qrels(space, judgments, dist, weight, p), runs, measure, **options)[1]
    table = check_grades(space, grades)
    w = _aspect_weights(space, aspect_weights)[:, None, None]
    per, last = [], None
    for aspect in space.aspects:
        values, last = _scores(aspect_qrels(space, judgments, aspect, table[aspect]), runs, measure, **options)
        per.append(values)
    mu = np.stack(per)  # (A, S, T)
    if method == "cam":
        combined = (w * mu).sum(axis=0)
    else:
        zero = (mu <= 0).any(axis=0)
        pw = np.ones_like(w) if variant == "table" else w
        numerator = 1.0 if variant == "table" else w.sum()
        combined = np.where(zero, 0.0, numerator / (pw / np.where(mu > 0, mu, 1.0)).sum(axis=0))
    assert last is not None
    return type(last)(**{**last.__dict__, "values": combined[:, None, :]})


def _aspect_weights(space: AspectSpace, weights: Mapping[str, Any] | None) -> np.ndarray:
    """p_a of each aspect (default 1/A), checked: known aspects, finite, >= 0, not all 0."""
    given = dict(weights or {})
    for aspect in given:
        check_choice(aspect, "aspect of the aspect weights", space.aspects)
    w = np.array([check_float(given.get(a, 1.0 / len(space.aspects)), f"weight of aspect {a!r}", low=0)
                  for a in space.aspects])
    if not w.sum() > 0:
        raise invalid("aspect weights", "numbers >= 0, not all 0", given)
    return w


def evaluate_named(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], name: str,
                   grades: Mapping[str, Sequence[int]] | None = None, **options: Any) -> Any:
    """Evaluate ``TOMA(nDCG@10, dist=manhattan, weight=rank)``, ``CAM(AP)`` or ``MM(AP, variant=table)``."""
    m = multi_aspect_measure(name)
    params = m.params
    inner = str(params["measure"])
    if m.name == "TOMA":
        return evaluate_aspects(space, judgments, runs, inner, dist=params["dist"], weight=params["weight"],
                                p=params["p"], **options)
    return evaluate_aspects(space, judgments, runs, inner, method=m.name.lower(), grades=grades,
                            variant=params.get("variant", "eq6"), **options)


STRATEGIES = ("recursive", "sum", "squared", "max")


def ideal_rankings(space: AspectSpace, judgments: Mapping, grades: Mapping[str, Sequence[int]] | None = None
                   ) -> dict[str, dict[str, dict[str, float]]]:
    """Candidate ideal rankings of each topic's judged documents (Maistro et al., CIKM 2021, §4.2), as runs:
    ``recursive:a>b`` sorts by one aspect's grade, ties by the next (every preference order of
    the aspects, at most :data:`MAX_REPORT_ASPECTS`); ``sum``, ``squared`` and ``max`` sort by
    Σ grade, Σ grade² and max grade (``grades`` as for :func:`check_grades`)."""
    check_int(len(space.aspects), "number of aspects of the candidate ideal rankings (one per order of the aspects)",
              low=1, high=MAX_REPORT_ASPECTS)
    table = {a: np.asarray(g, dtype=np.float64) for a, g in check_grades(space, grades).items()}
    labels = label_indices(space, judgments)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for topic, docs in labels.items():
        names = sorted(docs)
        g = np.array([[table[a][docs[d][k]] for k, a in enumerate(space.aspects)] for d in names])  # (J, A)
        keys: dict[str, np.ndarray] = {}
        for perm in itertools.permutations(range(len(space.aspects))):
            label = "recursive:" + ">".join(space.aspects[k] for k in perm)
            keys[label] = np.lexsort(tuple(-g[:, k] for k in reversed(perm)))
        keys["sum"] = np.argsort(-g.sum(axis=1), kind="stable")
        keys["squared"] = np.argsort(-(g**2).sum(axis=1), kind="stable")
        keys["max"] = np.argsort(-g.max(axis=1), kind="stable")
        for label, order_ in keys.items():
            runs.setdefault(label, {})[topic] = {names[j]: float(len(names) - r) for r, j in enumerate(order_)}
    return runs


class UpperBounds(NamedTuple):
    """The upper bounds of a CAM or MM measure (Maistro et al., CIKM 2021, §4.2): the measure on each candidate
    ideal ranking (:func:`ideal_rankings`) per topic. A tuple ``(strategies, topics, values)``."""

    strategies: list[str]
    topics: list[str]
    values: np.ndarray
    """Shape (strategies, topics)."""

    def best(self) -> tuple[np.ndarray, list[str]]:
        """Per topic, the largest value over the strategies and the first strategy reaching it."""
        return self.values.max(axis=0), [self.strategies[int(k)] for k in self.values.argmax(axis=0)]

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values: ``strategies``, ``topics``, ``rows`` (one ``{strategy, topic, value}`` per
        candidate ranking and topic) and ``best`` (one ``{topic, strategy, value}`` per topic); None for NaN."""
        top, arg = self.best()
        rows = [{"strategy": s, "topic": t, "value": _plain(self.values[i, j])}
                for i, s in enumerate(self.strategies) for j, t in enumerate(self.topics)]
        best = [{"topic": t, "strategy": arg[j], "value": _plain(top[j])} for j, t in enumerate(self.topics)]
        return {"strategies": list(self.strategies), "topics": list(self.topics), "rows": rows, "best": best}

    def to_frame(self) -> Any:
        """:meth:`to_dict`'s ``rows`` as a tidy pandas DataFrame: ``strategy``, ``topic``, ``value``."""
        import pandas as pd

        frame = pd.DataFrame(self.to_dict()["rows"], columns=["strategy", "topic", "value"])
        return frame.astype({"value": float})


def _plain(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def upper_bounds(space: AspectSpace, judgments: Mapping, measure: str, *, method: str = "cam",
                 grades: Mapping[str, Sequence[int]] | None = None,
                 **options: Any) -> UpperBounds:
    """CAM or MM of every candidate ideal ranking (Maistro et al., CIKM 2021, §4.2): (strategies, topics, values
    of shape (strategies, topics)), an :class:`UpperBounds` tuple. The best strategy per topic estimates the
    measure's maximum; below 1 means no ranking of those documents can score 1. ``method`` is ``cam`` or ``mm``."""
    check_choice(method, "method of the upper bounds", METHODS[1:])
    runs = ideal_rankings(space, judgments, grades)
    strategies = list(runs)
    res = evaluate_aspects(space, judgments, [runs[s] for s in strategies], measure, method=method,
                           grades=grades, **options)
    return UpperBounds(strategies, list(res.topics), res.values[:, 0, :])
