"""Multi-aspect evaluation studies (Maistro, Chaves Lima, Simonsen & Lioma, CIKM 2021):
TOMA, CAM and MM scores of runs, and the upper bounds of CAM/MM over candidate ideal
rankings (§4.2). The label space and the measures themselves are in
:mod:`cranfield.measures.aspects`."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from cranfield._display import result_html, result_repr
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
                   grades: Mapping[str, Sequence[int]] | None = None, *,
                   class_weights: Sequence[int] | None = None, aspect_weights: Mapping[str, float] | None = None,
                   **options: Any) -> Any:
    """Evaluate ``TOMA(nDCG@10, dist=manhattan, weight=rank)``, ``CAM(AP)`` or ``MM(AP, variant=table)``.

    ``class_weights`` (integers >= 0, one per TOMA class, best first, non-increasing) replace a TOMA
    measure's ``weight=``; ``aspect_weights`` p_a weigh CAM and MM (Maistro et al., CIKM 2021, Eq. 5–6)."""
    m = multi_aspect_measure(name)
    params = m.params
    inner = str(params["measure"])
    if m.name == "TOMA":
        weight = params["weight"] if class_weights is None else list(class_weights)
        return evaluate_aspects(space, judgments, runs, inner, dist=params["dist"], weight=weight,
                                p=params["p"], **options)
    return evaluate_aspects(space, judgments, runs, inner, method=m.name.lower(), grades=grades,
                            aspect_weights=aspect_weights, variant=params.get("variant", "eq6"), **options)


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

    def _repr_html_(self) -> str:
        return result_html(self)

    def __repr__(self) -> str:
        return result_repr(self)

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


# --------------------------------------------------------------------------- §4.3 analyses
class TopicCorrelation(NamedTuple):
    """Kendall's τ-b between the orderings of the runs by two measures, topic by topic, and its mean over the
    topics (Maistro et al., CIKM 2021, §4.3.1 and Table 4, top). A tuple ``(measures, topics, pairs, values)``."""

    measures: list[str]
    topics: list[str]
    pairs: list[tuple[str, str]]
    values: np.ndarray
    """Shape (pairs, topics): τ on each topic; NaN where one measure ties every run (τ undefined)."""

    def mean(self) -> tuple[np.ndarray, np.ndarray]:
        """Per pair: τ averaged over the topics where it is defined, and the number of those topics."""
        counted = (~np.isnan(self.values)).sum(axis=1)
        sums = np.where(np.isnan(self.values), 0.0, self.values).sum(axis=1)
        return np.where(counted > 0, sums / np.maximum(counted, 1), np.nan), counted

    def to_dict(self) -> dict[str, Any]:
        """``measures``, ``topics`` and ``rows``: one ``{a, b, tau, topics}`` per pair (``tau`` the mean over
        ``topics`` topics; None when no topic defines it) and ``per_topic``: one ``{a, b, topic, tau}`` each."""
        mean, counted = self.mean()
        rows = [{"a": a, "b": b, "tau": _plain(mean[i]), "topics": int(counted[i])}
                for i, (a, b) in enumerate(self.pairs)]
        per = [{"a": a, "b": b, "topic": t, "tau": _plain(self.values[i, j])}
               for i, (a, b) in enumerate(self.pairs) for j, t in enumerate(self.topics)]
        return {"measures": list(self.measures), "topics": list(self.topics), "rows": rows, "per_topic": per}

    def _repr_html_(self) -> str:
        return result_html(self)

    def __repr__(self) -> str:
        return result_repr(self)

    def to_frame(self) -> Any:
        """:meth:`to_dict`'s ``rows`` as a DataFrame: ``a``, ``b``, ``tau``, ``topics``."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["a", "b", "tau", "topics"]).astype({"tau": float})


def topic_correlation(scores: Mapping[str, Any], topics: Sequence[str]) -> TopicCorrelation:
    """Per topic, Kendall's τ-b between the run orderings of each pair of measures (Maistro et al., CIKM 2021,
    §4.3.1): ``scores`` maps each measure to its (runs × topics) scores, in the same run and topic order."""
    from cranfield.meta.agreement import kendall_tau

    names, arrays = _score_arrays(scores, topics)
    pairs = list(itertools.combinations(range(len(names)), 2))
    values = np.array([[kendall_tau(arrays[a][:, t], arrays[b][:, t]) for t in range(len(topics))]
                       for a, b in pairs], dtype=np.float64).reshape(len(pairs), len(topics))
    return TopicCorrelation(names, list(topics), [(names[a], names[b]) for a, b in pairs], values)


def aspect_scores(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], measure: str,
                  grades: Mapping[str, Sequence[int]] | None = None, **options: Any) -> tuple[dict[str, np.ndarray],
                                                                                       list[str]]:
    """Each aspect alone: the runs scored by the single-aspect ``measure`` against that aspect's
    judgments (labels mapped through ``grades``, default the label index, as CAM's per-aspect scores;
    Maistro et al., CIKM 2021, Table 4, middle). Returns ({aspect: (runs × topics)}, topics)."""
    table = check_grades(space, grades)
    out: dict[str, np.ndarray] = {}
    topics: list[str] = []
    for aspect in space.aspects:
        values, res = _scores(aspect_qrels(space, judgments, aspect, table[aspect]), runs, measure, **options)
        out[aspect], topics = values, list(res.topics)
    return out, topics


class AspectCorrelation(NamedTuple):
    """Per-topic Kendall's τ between the run orderings of each pair of aspects, each aspect scored alone by
    one single-aspect measure (Maistro et al., CIKM 2021, §4.3.1, Table 4, middle: e.g. Relevance -
    Credibility). A tuple ``(correlations,)``: one :class:`TopicCorrelation` per single-aspect measure, whose
    ``measures`` are the aspects."""

    correlations: dict[str, TopicCorrelation]

    def to_dict(self) -> dict[str, Any]:
        """``rows``: one ``{measure, a, b, tau, topics}`` per single-aspect measure and pair of aspects
        (``tau`` averaged over ``topics`` topics), and ``per_topic``: each measure's τ per topic."""
        rows, per = [], []
        for name, tc in self.correlations.items():
            d = tc.to_dict()
            rows += [{"measure": name, **r} for r in d["rows"]]
            per += [{"measure": name, **r} for r in d["per_topic"]]
        return {"rows": rows, "per_topic": per}

    def _repr_html_(self) -> str:
        return result_html(self)

    def __repr__(self) -> str:
        return result_repr(self)

    def to_frame(self) -> Any:
        """:meth:`to_dict`'s ``rows`` as a DataFrame: ``measure``, ``a``, ``b``, ``tau``, ``topics``."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["measure", "a", "b", "tau", "topics"]).astype(
            {"tau": float})


def aspect_correlation(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], measures: Sequence[str],
                       grades: Mapping[str, Sequence[int]] | None = None, **options: Any) -> AspectCorrelation:
    """Table 4's middle part (Maistro et al., CIKM 2021, §4.3.1): for each single-aspect measure (e.g.
    ``nDCG``, ``AP``), every aspect's ordering of the runs on each topic (:func:`aspect_scores`) against
    every other aspect's, by Kendall's τ-b averaged over the topics (:func:`topic_correlation`). At least two
    aspects."""
    if len(space.aspects) < 2:
        raise invalid("number of aspects to correlate", "at least 2", len(space.aspects))
    out = {}
    for measure in dict.fromkeys(str(m) for m in measures):
        scores, topics = aspect_scores(space, judgments, runs, measure, grades, **options)
        out[measure] = topic_correlation(scores, topics)
    return AspectCorrelation(out)


def _score_arrays(scores: Mapping[str, Any], topics: Sequence[str]) -> tuple[list[str], list[np.ndarray]]:
    """The measures and their (runs × topics) score arrays, checked: at least one, all of one shape."""
    names = list(scores)
    arrays = [np.asarray(scores[n], dtype=np.float64) for n in names]
    shapes = {a.shape for a in arrays}
    if not names or len(shapes) != 1 or arrays[0].ndim != 2 or arrays[0].shape[1] != len(topics):
        raise invalid("scores of the measures", f"one (runs × topics) array per measure, {len(topics)} topics",
                      sorted(shapes))
    return names, arrays


def _best_runs(array: np.ndarray) -> list[int | None]:
    """Per topic, the run with the highest score (the first such run on ties; None when every score is NaN)."""
    return [None if np.isnan(col).all() else int(np.nanargmax(col)) for col in array.T]


def _label_sums(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], topics: Sequence[str],
                depth: int) -> list[list[list[int]]]:
    """Per run and topic, the sum of the aspect label indices of its first ``depth`` documents (an unjudged
    document: every aspect at its lowest label, 0)."""
    from cranfield.io import as_run

    labels = label_indices(space, judgments)
    out = []
    for r in runs:
        run = as_run(r)
        per = []
        for topic in topics:
            docs = run.ranking(topic)[:depth] if topic in run.topic_ids else []
            judged = labels.get(topic, {})
            per.append([int(sum(judged.get(d, [0]))) for d in docs])
        out.append(per)
    return out


class ZeroAspectDocuments(NamedTuple):
    """How often the document at rank 1..depth of each topic's best run (by each measure) has every aspect at
    its lowest label, i.e. labels summing to 0 (Maistro et al., CIKM 2021, §4.3.3 and Table 5). A tuple
    ``(measures, depth, counts, topics)``."""

    measures: list[str]
    depth: int
    counts: np.ndarray
    """Shape (depth, measures): the number of topics whose best run has a zero-aspect document at that rank."""
    topics: np.ndarray
    """Shape (measures,): the topics with a best run (the denominator of the percentages)."""

    def to_dict(self) -> dict[str, Any]:
        """``measures``, ``depth`` and ``rows``: one ``{rank, measure, count, percent}`` per rank (``"1-depth"``
        for the sum over the ranks) and measure; ``percent`` is 100·count/topics, as in Table 5."""
        totals = self.counts.sum(axis=0)
        rows = []
        for k, rank in enumerate([*map(str, range(1, self.depth + 1)), f"1-{self.depth}"]):
            for m, name in enumerate(self.measures):
                count = int(totals[m] if k == self.depth else self.counts[k, m])
                percent = 100.0 * count / self.topics[m] if self.topics[m] else None
                rows.append({"rank": rank, "measure": name, "count": count, "percent": percent})
        return {"measures": list(self.measures), "depth": self.depth, "topics": self.topics.tolist(), "rows": rows}

    def _repr_html_(self) -> str:
        return result_html(self)

    def __repr__(self) -> str:
        return result_repr(self)

    def to_frame(self) -> Any:
        """:meth:`to_dict`'s ``rows`` as a DataFrame: ``rank``, ``measure``, ``count``, ``percent``."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["rank", "measure", "count", "percent"]).astype(
            {"percent": float})


def zero_aspect_documents(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], scores: Mapping[str, Any],
                          topics: Sequence[str], depth: int = 5) -> ZeroAspectDocuments:
    """Table 5 of Maistro et al., CIKM 2021: per measure (``scores``: its (runs × topics) scores, e.g. of
    ``CAM(nDCG@5)``), each topic's best run (the first on ties), and at each rank 1..``depth`` the number of
    topics where that run retrieved a document whose aspect labels sum to 0 (unjudged documents count)."""
    depth = check_int(depth, "depth of the zero-aspect count", low=1)
    names, arrays = _score_arrays(scores, topics)
    sums = _label_sums(space, judgments, runs, topics, depth)
    counts = np.zeros((depth, len(names)), dtype=np.int64)
    seen = np.zeros(len(names), dtype=np.int64)
    for m, array in enumerate(arrays):
        for t, best in enumerate(_best_runs(array)):
            if best is None:
                continue
            seen[m] += 1
            for k, total in enumerate(sums[best][t]):
                counts[k, m] += total == 0
    return ZeroAspectDocuments(names, depth, counts, seen)


class BandQuality(NamedTuple):
    """Mean sum of aspect labels of the documents at each band of ranks of each topic's best run (by each
    measure; Maistro et al., CIKM 2021, §4.3.4 and Table 6). A tuple ``(measures, bands, means, documents)``."""

    measures: list[str]
    bands: list[tuple[int, int]]
    means: np.ndarray
    """Shape (bands, measures); NaN for a band no best run reaches."""
    documents: np.ndarray
    """Shape (bands, measures): the documents averaged."""

    def to_dict(self) -> dict[str, Any]:
        """``measures``, ``bands`` (``"1-25"``, ...) and ``rows``: one ``{ranks, measure, mean, documents}`` each."""
        labels = [f"{lo}-{hi}" for lo, hi in self.bands]
        rows = [{"ranks": b, "measure": m, "mean": _plain(self.means[i, j]), "documents": int(self.documents[i, j])}
                for i, b in enumerate(labels) for j, m in enumerate(self.measures)]
        return {"measures": list(self.measures), "bands": labels, "rows": rows}

    def _repr_html_(self) -> str:
        return result_html(self)

    def __repr__(self) -> str:
        return result_repr(self)

    def to_frame(self) -> Any:
        """:meth:`to_dict`'s ``rows`` as a DataFrame: ``ranks``, ``measure``, ``mean``, ``documents``."""
        import pandas as pd

        return pd.DataFrame(self.to_dict()["rows"], columns=["ranks", "measure", "mean", "documents"]).astype(
            {"mean": float})


def band_quality(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], scores: Mapping[str, Any],
                 topics: Sequence[str], bands: Sequence[int] = (25, 50, 75, 100)) -> BandQuality:
    """Table 6 of Maistro et al., CIKM 2021: per measure, each topic's best run (the first on ties), and for
    each band of ranks (``bands``: increasing last ranks; default 1-25, 26-50, 51-75, 76-100) the mean over
    all topics' documents in the band of the sum of their aspect label indices (unjudged: 0)."""
    ends = [check_int(b, "last rank of a band", low=1) for b in bands]
    if not ends or any(b <= a for a, b in zip(ends, ends[1:])):
        raise invalid("rank bands", "increasing last ranks, e.g. 25,50,75,100", list(bands))
    names, arrays = _score_arrays(scores, topics)
    sums = _label_sums(space, judgments, runs, topics, ends[-1])
    spans = list(zip([1, *(e + 1 for e in ends[:-1])], ends))
    total = np.zeros((len(spans), len(names)))
    docs = np.zeros((len(spans), len(names)), dtype=np.int64)
    for m, array in enumerate(arrays):
        for t, best in enumerate(_best_runs(array)):
            if best is None:
                continue
            for i, (lo, hi) in enumerate(spans):
                part = sums[best][t][lo - 1:hi]
                total[i, m] += sum(part)
                docs[i, m] += len(part)
    means = np.where(docs > 0, total / np.maximum(docs, 1), np.nan)
    return BandQuality(names, spans, means, docs)
