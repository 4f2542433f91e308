"""How alike are the rankings of two runs? Every pair of runs (or each run against a reference),
topic by topic: rank-biased overlap, Kendall's tau union, Jaccard (:mod:`cranfield.measures.similarity`).

Each topic is one step: the rankings of all runs that have it become integer arrays
(:class:`~cranfield.measures.similarity.TopicRankings`), and every measure is computed for all pairs
of runs at once, in blocks of pairs. A topic ranked by only one run of a pair is left out of that
pair's values and mean, with a warning.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield.analysis.options import SIMILARITY_COLUMNS
from cranfield.errors import CranfieldError, EvaluationWarning
from cranfield.evaluation.evaluator import named_runs, run_labels, unique_run_names
from cranfield.io import as_run
from cranfield.io.run import MEAN_TOPIC, Run
from cranfield.measures.registry import Measure
from cranfield.measures.similarity import TopicRankings, parse_similarity, rbo, topic_rankings

CELLS = 1 << 20  # pairs × depth per block


@dataclass(frozen=True, eq=False)
class SimilarityResult:
    """Similarities of P pairs of runs over T topics for M measures.

    Attributes
    ----------
    run_a, run_b : tuple of str
        The names of the two runs of each pair, shape (P,).
    topics : tuple of str
    measures : tuple of str
        The canonical names of the similarities.
    values : ndarray, shape (P, M, T)
        NaN where a topic is not ranked by both runs of the pair (or the value is undefined:
        KTU of fewer than two documents).
    present : ndarray of bool, shape (P, T)
        Whether both runs of the pair rank the topic.
    """

    run_a: tuple[str, ...]
    run_b: tuple[str, ...]
    topics: tuple[str, ...]
    measures: tuple[str, ...]
    values: np.ndarray
    present: np.ndarray

    @property
    def means(self) -> np.ndarray:
        """The mean over the topics both runs rank, shape (P, M) (NaN when one value is NaN)."""
        n = self.present.sum(axis=1)
        total = np.add.reduce(np.where(self.present[:, None, :], self.values, 0.0), axis=2)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(n[:, None] > 0, total / np.maximum(n, 1)[:, None], np.nan)

    def rows(self, per_topic: bool = True) -> Iterator[tuple[str, str, str, str, float]]:
        """``(run_a, run_b, topic, measure, value)``: each pair's topics (with ``per_topic``), then its
        means (topic ``all``)."""
        means = self.means
        for p, (a, b) in enumerate(zip(self.run_a, self.run_b)):
            if per_topic:
                for t in np.flatnonzero(self.present[p]):
                    for m, name in enumerate(self.measures):
                        yield a, b, self.topics[t], name, float(self.values[p, m, t])
            for m, name in enumerate(self.measures):
                yield a, b, MEAN_TOPIC, name, float(means[p, m])

    _repr_html_ = frame_html(per_topic=False)
    __repr__ = frame_repr(per_topic=False)

    def to_frame(self, per_topic: bool = True) -> Any:
        """A DataFrame with the columns ``run_a, run_b, topic, measure, value``."""
        import pandas as pd

        return pd.DataFrame(list(self.rows(per_topic)), columns=list(SIMILARITY_COLUMNS))

    def to_dict(self, per_topic: bool = True) -> dict[str, Any]:
        """``{"measures": [...], "pairs": [[a, b], ...], "rows": [{run_a, run_b, topic, measure, value}]}``
        (NaN as None)."""
        rows = [dict(zip(SIMILARITY_COLUMNS, (*r[:4], None if r[4] != r[4] else r[4]))) for r in self.rows(per_topic)]
        return {"measures": list(self.measures), "pairs": [list(p) for p in zip(self.run_a, self.run_b)],
                "rows": rows}


def run_pairs(n: int, reference: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Every pair (i < j) of n runs, or (reference, j) for every other run j."""
    if reference is not None:
        others = np.array([j for j in range(n) if j != reference], dtype=np.int64)
        return np.full(others.size, reference, dtype=np.int64), others
    ia, ib = np.triu_indices(n, 1)
    return ia.astype(np.int64), ib.astype(np.int64)


def compare_rankings(runs: Any, measures: Sequence[str | Measure] | str, *, reference: Any = None,
                     pairs: tuple[np.ndarray, np.ndarray] | None = None, names: Sequence[str] | None = None,
                     order: str = "score", on_duplicate: str = "error", score_dtype: str = "float32"
                     ) -> SimilarityResult:
    """The similarities ``measures`` (``"RBO(p=0.9)"``, ``"KTU@10"``, ``"Jaccard@10"``,
    ``"nRBO@10"``; :func:`~cranfield.measures.similarity.parse_similarity`) between every pair of
    ``runs`` (paths, dicts, DataFrames, :class:`~cranfield.io.Run`; a dict ``{name: run}``), per topic.

    ``reference`` (one of the runs, or another one added first) compares each run with it only;
    ``pairs`` (two index arrays) names the pairs directly. The measures keep the names as
    written. Runs are ranked as ``order`` says (trec_eval's rule by default); tied scores are
    compared as ``score_dtype`` (as the order compares them).
    """
    given_measures = [measures] if isinstance(measures, (str, Measure)) else list(measures)
    parsed = [parse_similarity(m) for m in given_measures]
    if not parsed:
        raise CranfieldError("no similarity measure given (-m RBO, -m KTU@10, ...)")
    items, given = named_runs(runs, names)
    if reference is not None:  # the reference first, and not compared with itself
        keep = [k for k, obj in enumerate(items) if not _same_file(obj, reference)]
        items = [reference, *(items[k] for k in keep)]
        given = ["reference", *(given[k] for k in keep)] if given else None
    labels = run_labels(items, given)
    loaded = [as_run(obj, order=order, on_duplicate=on_duplicate, name=label,  # type: ignore[arg-type]
                     score_dtype=score_dtype) for obj, label in zip(items, labels)]
    run_names = given or unique_run_names([r.name for r in loaded], [r.source for r in loaded])
    if len(loaded) < 2:
        raise CranfieldError("similarity needs two runs or more")
    ia, ib = pairs if pairs is not None else run_pairs(len(loaded), 0 if reference is not None else None)
    topics = list(dict.fromkeys(t for r in loaded for t in r.topic_ids))
    values, present = similarity_values(loaded, parsed, topics, ia, ib, score_dtype)
    result = SimilarityResult(tuple(run_names[i] for i in ia), tuple(run_names[j] for j in ib), tuple(topics),
                              tuple(m.strip() if isinstance(m, str) else str(m) for m in given_measures), values,
                              present)
    _warn_one_sided(result, loaded, ia, ib)
    return result


def _same_file(a: Any, b: Any) -> bool:
    """Whether two runs are paths of one file."""
    return isinstance(a, (str, Path)) and isinstance(b, (str, Path)) and Path(a).resolve() == Path(b).resolve()


def _warn_one_sided(result: SimilarityResult, runs: list[Run], ia: np.ndarray, ib: np.ndarray) -> None:
    """One warning per pair of runs whose topic sets differ."""
    for p, (i, j) in enumerate(zip(ia.tolist(), ib.tolist())):
        either = set(runs[i].topic_ids) | set(runs[j].topic_ids)
        missing = sorted(either - {result.topics[t] for t in np.flatnonzero(result.present[p])})
        if missing:
            warnings.warn(f"{len(missing)} topic(s) ranked by only one of {result.run_a[p]} and {result.run_b[p]} "
                          f"are left out of their similarity (first: {missing[0]})", EvaluationWarning, stacklevel=3)


def similarity_values(runs: list[Run], measures: list[Measure], topics: list[str], ia: np.ndarray,
                      ib: np.ndarray, score_dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    """values (P, M, T) and present (P, T) of :class:`SimilarityResult`, topic by topic."""
    values = np.full((ia.size, len(measures), len(topics)), np.nan)
    present = np.zeros((ia.size, len(topics)), dtype=bool)
    index = [{t: k for k, t in enumerate(r.topic_ids)} for r in runs]
    need_lex = any(m.name == "KTU" for m in measures)
    cutoffs = [m.cutoff for m in measures]
    depth = None if any(k is None for k in cutoffs) else max(k for k in cutoffs if k is not None)
    for t, topic in enumerate(topics):
        having = [r for r in range(len(runs)) if topic in index[r]]
        local = np.full(len(runs), -1, dtype=np.int64)
        local[having] = np.arange(len(having))
        both = np.flatnonzero((local[ia] >= 0) & (local[ib] >= 0))
        if both.size == 0:
            continue
        present[both, t] = True
        rk = _topic(runs, having, [index[r][topic] for r in having], depth, need_lex, score_dtype)
        pa, pb = local[ia[both]], local[ib[both]]
        step = max(1, CELLS // max(rk.docs.shape[1], 1))
        for lo in range(0, both.size, step):
            block = slice(lo, lo + step)
            values[both[block], :, t] = _measure_block(rk, pa[block], pb[block], measures)
    return values, present


def _topic(runs: list[Run], having: list[int], rows: list[int], depth: int | None, lex: bool,
           score_dtype: str) -> TopicRankings:
    """The rankings of one topic by the runs ``having`` it (their group ``rows``), first ``depth`` documents."""
    spans = [(runs[r].offsets[g], runs[r].offsets[g + 1]) for r, g in zip(having, rows)]
    if depth is not None:
        spans = [(a, min(b, a + depth)) for a, b in spans]
    docno = np.concatenate([runs[r].docno[a:b] for r, (a, b) in zip(having, spans)])
    keys = np.concatenate([runs[r].doc_key[a:b] for r, (a, b) in zip(having, spans)])
    _, first, ids = np.unique(keys, return_index=True, return_inverse=True)
    if not bool(np.all(docno[first[ids]] == docno)):  # two docnos with one 64-bit key: use the strings
        _, first, ids = np.unique(docno, return_index=True, return_inverse=True)
    order = None
    if lex:
        order = np.empty(first.size, dtype=np.int64)
        order[np.argsort(docno[first], kind="stable")] = np.arange(first.size)
    bounds = np.cumsum([0] + [b - a for a, b in spans])
    dtype = np.float32 if score_dtype == "float32" else np.float64
    scores = [runs[r].score[a:b].astype(dtype) for r, (a, b) in zip(having, spans)]
    return topic_rankings([ids[bounds[k]:bounds[k + 1]] for k in range(len(having))], scores, lex=order)


def _measure_block(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, measures: list[Measure]) -> np.ndarray:
    """The values (P, M) of ``measures`` for one block of pairs of one topic; RBO's four values
    computed once per cutoff, p and ties."""
    out = np.empty((ia.size, len(measures)))
    bounds: dict[tuple[Any, ...], dict[str, np.ndarray]] = {}
    for m, sim in enumerate(measures):
        params = sim.params
        if sim.name == "RBO":
            key = (params["cutoff"], params["p"], params["ties"])
            if key not in bounds:
                cut = rk.cut(params["cutoff"]) if params["cutoff"] is not None else rk
                bounds[key] = rbo(cut, ia, ib, params["p"], params["ties"])
            out[:, m] = bounds[key][params["variant"]]
        else:
            out[:, m] = sim.spec.kernel(rk, ia, ib, **params)
    return out


def similarity(a: Any, b: Any, measures: Sequence[str | Measure] | str = "RBO", **options: Any) -> Any:
    """The similarities ``measures`` between runs ``a`` and ``b`` (paths, dicts ``{qid: {docno:
    score}}``, DataFrames, :class:`~cranfield.io.Run`) per topic and in the mean (topic ``all``):
    a DataFrame with the columns ``run_a, run_b, topic, measure, value``
    (:func:`compare_rankings` takes more runs and its ``options``)."""
    return compare_rankings([a, b], measures, **options).to_frame()
