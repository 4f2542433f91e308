"""Document selection sensitivity: how much a measure varies over rankings that are all perfect
at ad hoc retrieval (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7; docs/conventions.md#dss).

For each topic, N random permutations of its relevant documents (relevant to some intent),
cut at k, are scored; every ranking retrieves only relevant documents, so whatever separates
their scores is novelty and diversity. DSS(topic) = s / x̄, the coefficient of variation of
those N scores (Eq. 11; sample SD with ddof = 1), averaged over topics with ``avg``, ``geom``
or ``dd`` (:mod:`cranfield.evaluation.averaging`). ``geom`` floors each topic's DSS at ``eps``
(default 1e-5, trec_eval's gm_map): a topic whose DSS is 0 (every permutation scores the same)
counts as ``eps``, so the floor decides the geometric rows of Table 10.

Randomness: ``numpy.random.default_rng(seed)``; topic by topic, in the collection's topic
order, ``keys = rng.random((N, R_t))`` and permutation j is ``argsort(keys[j])`` (stable),
the same permutations serving every k. The draws do not depend on the block size, so a
result is reproducible from (qrels, N, seed). The N rankings of a block of topics are one
:class:`~cranfield.batch.Batch` scored once per measure by its ordinary kernel — no loop over
permutations.

A measure whose range allows negative values is refused (the coefficient of variation is
meaningless there, §7.1). A topic where every permutation scores 0 has no DSS (0/0): it is
left out of the average with a warning, as are topics without relevant documents.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield._numeric import DSS_CELL_BUDGET, GEOM_EPSILON
from cranfield._progress import progress
from cranfield.batch import Batch
from cranfield.errors import CranfieldError, check_choice, check_float, check_int, invalid, listing, warn
from cranfield.evaluation import averaging
from cranfield.evaluation.averaging import AVERAGES, dd_weights
from cranfield.evaluation.collection import load_collection
from cranfield.measures.registry import NAME_PATTERN, Measure, lookup, parse_measure
from cranfield.measures.topics import Depth, check_depth, relevant_counts
from cranfield.meta._common import make_rng

SWEEP_GRID = tuple(round(0.1 * i, 1) for i in range(11))
MAX_PERMUTATIONS = 100_000  # n: each topic draws n × R_t random keys at once
MAX_CUTOFF = 10_000  # k
MAX_PERMUTED = 1 << 22  # n × max(k): the labels of one topic's permutations are scored as one batch

__all__ = ["coefficient_of_variation", "random_prefixes", "DSSResult", "dss", "check_sizes", "sweep_measures",
           "at_cutoff"]


def coefficient_of_variation(scores: np.ndarray, axis: int = 0) -> np.ndarray:
    """s / x̄ along ``axis`` (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 11): sample SD
    (ddof = 1) over the mean; NaN where the mean is 0 (every score 0)."""
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim == 0 or x.shape[axis] < 2:
        raise invalid("number of scores along the axis", "at least 2 (a sample standard deviation)",
                      x.shape[axis] if x.ndim else 1)
    mean = x.mean(axis=axis)
    sd = x.std(axis=axis, ddof=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(mean != 0, sd / np.where(mean != 0, mean, 1.0), np.nan)


def random_prefixes(rng: np.random.Generator, n_docs: int, n: int, depth: int) -> np.ndarray:
    """The first min(depth, n_docs) positions of n random permutations of range(n_docs), (n, d).

    Permutation j is ``argsort(rng.random((n, n_docs))[j])``; only its prefix is materialised
    (``argpartition``, then the prefix sorted by key), O(n · n_docs).
    """
    n_docs = check_int(n_docs, "number of documents", low=0)
    n = check_int(n, "number of permutations", low=0)
    d = min(check_int(depth, "depth", low=0), n_docs)
    keys = rng.random((n, n_docs))
    if d == n_docs:
        return np.argsort(keys, axis=1, kind="stable")
    part = np.argpartition(keys, d - 1, axis=1)[:, :d]
    order = np.argsort(np.take_along_axis(keys, part, axis=1), axis=1, kind="stable")
    return np.take_along_axis(part, order, axis=1)


def at_cutoff(measure: str | Measure, k: int) -> Measure:
    """The measure with cutoff k: ``nDCG`` → ``nDCG@k``, ``IA(nDCG)`` → ``IA(nDCG@k)``;
    measures without a cutoff are unchanged. A measure that already has one is an error."""
    k = check_int(k, "cutoff k", low=1, high=MAX_CUTOFF)
    if isinstance(measure, Measure):
        text = str(measure)
        if measure.depth is not None or "@" in text:
            raise CranfieldError(f"give {text} without @k: DSS sets the cutoff to each k (--k)")
    else:
        text = str(measure).strip()
        if "@" in text:
            raise CranfieldError(f"give {text} without @k: DSS sets the cutoff to each k (--k)")
    head = NAME_PATTERN.match(text.replace("α", "alpha"))
    if head is not None and lookup(head.group()).cutoff == "none":
        return parse_measure(text)
    return parse_measure(f"{text}@{k}")


def check_sizes(k: Any, n: Any) -> tuple[list[int], int]:
    """The cutoffs k (an int or a sequence; 1..:data:`MAX_CUTOFF`, repeats dropped) and the
    number n of permutations (2..:data:`MAX_PERMUTATIONS`) of :func:`dss`, checked; n × max(k)
    is at most :data:`MAX_PERMUTED`."""
    if isinstance(k, (str, bytes)) or np.ndim(k) > 1 or (np.ndim(k) == 1 and not len(k)):
        raise invalid("cutoffs k", "an integer or a sequence of integers >= 1", k)
    ks = list(dict.fromkeys(check_int(x, "cutoff k", low=1, high=MAX_CUTOFF) for x in np.atleast_1d(k).tolist()))
    n = check_int(n, "number of permutations n", low=2, high=MAX_PERMUTATIONS)
    if n * max(ks) > MAX_PERMUTED:
        raise invalid("number of permuted documents per topic (n × max(k))", f"at most {MAX_PERMUTED}", n * max(ks))
    return ks, n


def _check(measure: Measure) -> Measure:
    low = measure.spec.value_range[0]
    if low < 0:
        raise CranfieldError(f"DSS is a coefficient of variation and needs a non-negative measure; {measure} "
                             f"ranges from {low:g} (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7.1)")
    return measure


@dataclass(frozen=True)
class DSSResult:
    """Document selection sensitivity of measures × cutoffs × topics.

    Attributes
    ----------
    measures : list of str
        The measures without cutoff (canonical names).
    ks : list of int
    names : list of list of str
        ``names[m][j]``: measure m at cutoff ``ks[j]``.
    topics : list of str
        Topics with a relevant document (the others have no permutation).
    values : ndarray of float64, shape (M, K, T)
        DSS per topic (NaN where every permutation scores 0).
    means : ndarray of float64, shape (M, K, T)
        The mean score x̄ of the N permutations.
    average : {"avg", "geom", "dd"}
    averaged : ndarray of float64, shape (M, K)
        DSS averaged over topics.
    n : int
        Permutations per topic.
    seed : int or None
    weights : ndarray of float64, shape (T,), optional
        The topic weights 1 − dd(t) of the ``dd`` average.
    eps : float
        The floor of the ``geom`` average (each topic's DSS counts as at least ``eps``).
    """

    measures: list[str]
    ks: list[int]
    names: list[list[str]]
    topics: list[str]
    values: np.ndarray
    means: np.ndarray
    average: str
    averaged: np.ndarray
    n: int
    seed: Any
    weights: np.ndarray | None = field(default=None, repr=False)
    eps: float = GEOM_EPSILON

    def provenance(self) -> str:
        floor = f" geom_floor={self.eps:g}" if self.average == "geom" else ""
        return f"# DSS n={self.n} seed={self.seed} average={self.average}{floor} k={','.join(map(str, self.ks))}"

    def rows(self, per_topic: bool = False) -> list[dict[str, Any]]:
        """JSON-ready rows ``{measure, k, topic, value}``: per topic when asked, then ``all``
        (the average over topics); ``value`` is None where undefined."""
        out = []
        for m in range(len(self.measures)):
            for j, k in enumerate(self.ks):
                name = self.names[m][j]
                if per_topic:
                    out += [{"measure": name, "k": k, "topic": t, "value": _num(self.values[m, j, i])}
                            for i, t in enumerate(self.topics)]
                out.append({"measure": name, "k": k, "topic": "all", "value": _num(self.averaged[m, j])})
        return out

    def to_dict(self, per_topic: bool = True) -> dict[str, Any]:
        """Plain Python values: the settings (``n``, ``seed``, ``average``, ``geom_floor``, ``ks``, ``measures``) and
        ``rows``, :meth:`rows` (per topic by default, then each measure's average over topics ``all``;
        Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 11)."""
        seed = int(self.seed) if isinstance(self.seed, (int, np.integer)) else self.seed
        return {"n": self.n, "seed": seed, "average": self.average, "geom_floor": self.eps, "ks": list(self.ks),
                "measures": list(self.measures), "rows": self.rows(per_topic)}

    _repr_html_ = frame_html(per_topic=False)
    __repr__ = frame_repr(per_topic=False)

    def to_frame(self, per_topic: bool = True) -> Any:
        """:meth:`to_dict`'s ``rows`` as a tidy pandas DataFrame with columns ``measure``, ``k``, ``topic``
        (``all`` for the average) and ``value`` (NaN where undefined)."""
        import pandas as pd

        frame = pd.DataFrame(self.to_dict(per_topic)["rows"], columns=["measure", "k", "topic", "value"])
        return frame.astype({"value": float})

    def to_json(self, per_topic: bool = False) -> str:
        """:meth:`to_dict`'s ``rows`` as indented JSON (``cranfield dss --format json``)."""
        return json.dumps(self.to_dict(per_topic)["rows"], indent=1) + "\n"

    def sweep(self) -> dict[tuple[str, str, int], dict[str, list[tuple[float, float]]]]:
        """The α#-IA points for Figures 8–9: for each (discount, subtopics, k), the (λ, DSS)
        points at α = 0.3 and the (α, DSS) points at λ = 0.5, each sorted."""
        out: dict[tuple[str, str, int], dict[str, list[tuple[float, float]]]] = {}
        for m, row in enumerate(self.names):
            measure = parse_measure(row[0])
            if measure.name != "alpha#-IA":
                continue
            p = measure.params
            for j, k in enumerate(self.ks):
                entry = out.setdefault((p["discount"], p["subtopics"], k), {"lambda": [], "alpha": []})
                if p["alpha"] == 0.3:
                    entry["lambda"].append((p["lambda"], float(self.averaged[m, j])))
                if p["lambda"] == 0.5:
                    entry["alpha"].append((p["alpha"], float(self.averaged[m, j])))
        for entry in out.values():
            for key in entry:
                entry[key] = sorted(set(entry[key]))
        return out



def _num(x: float) -> float | None:
    return None if np.isnan(x) else float(x)


def sweep_measures(subtopics: Sequence[str] = ("cascade", "micro", "geom", "smr"), discount: str = "dcg",
                   grid: Sequence[float] = SWEEP_GRID) -> list[str]:
    """α#-IA names for Figures 8–9: λ over ``grid`` at α = 0.3 and α over ``grid`` at λ = 0.5."""
    names: list[str] = []
    for s in subtopics:
        pairs = [(0.3, lam) for lam in grid] + [(a, 0.5) for a in grid]
        for a, lam in dict.fromkeys(pairs):
            name = str(parse_measure(f"alpha#-IA(discount={discount},subtopics={s},alpha={a},lambda={lam})@1"))
            names.append(name.removesuffix("@1"))
    return list(dict.fromkeys(names))


def dss(
    qrels: Any, measures: Sequence[str | Measure], *, k: Sequence[int] | int = (5, 10, 20), n: int = 1000,
    seed: int | np.random.Generator | None = 0, average: str = "avg", depth: Depth = "xi", rel: int = 1,
    progress_bar: bool | None = None, eps: float = GEOM_EPSILON, **options: Any,
) -> DSSResult:
    """Document selection sensitivity of measures at cutoffs k (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7).

    Parameters
    ----------
    qrels : path, dict, DataFrame, Qrels or Collection
        Diversity (or ad hoc) qrels.
    measures : sequence of str or Measure
        Names without ``@k`` (``alpha_nDCG``, ``ERR-IA``, ``alpha#-IA(subtopics=geom)``, ...);
        each is evaluated at every k. Measures whose range allows negative values are refused.
    k : int or sequence of int
        Cutoffs: each permutation is cut at k and the measure's cutoff set to k.
    n : int
        Permutations per topic (Golbus, Aslam & Clarke use 1,000); at least 2.
    seed : int, Generator or None
        Seed of ``numpy.random.default_rng`` (default 0: reproducible).
    average : {"avg", "geom", "dd"}
        Topic averaging (:func:`cranfield.evaluation.averaging.average`; ``dd`` weighs topic t by 1 − dd(t)
        at ``depth``).
    depth : {"xi", "xi+1"} or int
        Depth of dd for the ``dd`` average (default ξ; docs/conventions.md#averaging).
    rel : int
        The lowest label counted as relevant when choosing the documents to permute.
    eps : float
        The floor of the ``geom`` average, > 0 (default 1e-5, trec_eval's gm_map): each topic's
        DSS counts as max(DSS, eps), so topics with DSS 0 pull the geometric mean towards eps.
    options
        ``diversity``, ``intents``, ``intent_types``, ``empty_intents``
        (see :class:`~cranfield.evaluation.evaluator.Evaluator`).

    Returns
    -------
    DSSResult
        Per-topic DSS and mean scores (M, K, T) over the topics with a relevant document, and
        their topic average (M, K).

    References
    ----------
    Golbus, Aslam, Clarke, "Increasing evaluation sensitivity to diversity", Inf. Retrieval 16
    (2013), §7.1, Eq. 11 (docs/references.md#golbus2013).

    Examples
    --------
    One topic, intents x, y, z; documents a {x}, b {y}, c {x, z}. Two of them cover two
    intents, except {b, c} (all three): S-recall@2 is 2/3, 2/3 or 1 with probability 1/3
    each, a coefficient of variation of √2/7 = 0.202 (population SD).

    >>> qrels = {"1": {"a": {"x": 1}, "b": {"y": 1}, "c": {"x": 1, "z": 1}}}
    >>> res = dss(qrels, ["StRecall", "alpha_nDCG"], k=[2], n=2000, seed=1)
    >>> res.names, res.averaged.round(3).tolist()
    ([['StRecall@2'], ['alpha_nDCG@2']], [[0.201], [0.178]])
    """
    average = check_choice(average, "topic average", AVERAGES)
    eps = check_float(eps, "geometric mean floor eps", low=0, open_low=True)
    ks, n = check_sizes(k, n)
    depth = check_depth(depth)
    rel = check_int(rel, "lowest relevant label rel", low=1)
    rng = make_rng(seed)
    if not measures:
        raise CranfieldError("no measures given")
    named = [[_check(at_cutoff(m, kk)) for kk in ks] for m in measures]
    coll = load_collection(qrels, **options)
    topics = coll.topics
    _, num_rel = relevant_counts(topics, rel)
    relevant = (topics.rel_docs >= rel) & (topics.weights > 0)[:, None, :]  # (T, J, I)
    kmax, n_int = max(ks), topics.weights.shape[1]
    values = np.full((len(named), len(ks), coll.n_topics), np.nan)
    means = np.full(values.shape, np.nan)
    size = max(1, DSS_CELL_BUDGET // (n * kmax * max(n_int, 1)))
    blocks = [slice(a, min(a + size, coll.n_topics)) for a in range(0, coll.n_topics, size)]
    for block in progress(blocks, len(blocks), "DSS", progress_bar):
        t0, t1 = block.start, block.stop
        labels = np.zeros((n, t1 - t0, kmax, n_int), dtype=topics.rel_docs.dtype)
        for t in range(t0, t1):  # draws in topic order (docs/conventions.md#dss), whatever the block size
            docs = topics.rel_docs[t][relevant[t].any(axis=1)]  # (R_t, I), docno descending
            if docs.shape[0]:
                idx = random_prefixes(rng, docs.shape[0], n, kmax)
                labels[:, t - t0, : idx.shape[1]] = docs[idx]
        block_topics = coll.topic_block(t0, t1)
        for j, kk in enumerate(ks):
            length = np.broadcast_to(np.minimum(num_rel[block], kk), (n, t1 - t0))
            batch = Batch.from_labels(labels[:, :, :kk], block_topics, length=length)
            for m in range(len(named)):
                # (T_block, N), contiguous: each topic's sums do not depend on the block size
                scores = np.ascontiguousarray(named[m][j](batch).T)
                means[m, j, block] = scores.mean(axis=1)
                values[m, j, block] = coefficient_of_variation(scores, axis=1)
    keep = np.flatnonzero(num_rel > 0)
    if keep.size < coll.n_topics:
        gone = [coll.topic_ids[t] for t in np.flatnonzero(num_rel == 0)]
        warn(f"{len(gone)} topics without relevant documents have no permutations and no DSS: {listing(gone)}")
    if not keep.size:
        raise CranfieldError("no topic has a relevant document: DSS is undefined")
    values, means = values[:, :, keep], means[:, :, keep]
    undefined = np.isnan(values).any(axis=(0, 1))
    if undefined.any():
        warn(f"{int(undefined.sum())} topics score 0 on every permutation for some measure (DSS = 0/0) and are left "
             f"out of its average: {listing([coll.topic_ids[t] for t in keep[undefined]])}")
    names_t = [coll.topic_ids[t] for t in keep]
    weights = dd_weights(topics, depth, rel)[keep] if average == "dd" else None
    averaged = averaging.average(values, average, weights=weights, topics=names_t, announced=np.isnan(values),
                                 eps=eps)
    return DSSResult(
        measures=[str(m).strip() for m in measures], ks=ks, names=[[str(x) for x in row] for row in named],
        topics=names_t,
        values=values, means=means, average=average, averaged=averaged, n=int(n),
        seed=seed if not isinstance(seed, np.random.Generator) else "generator", weights=weights, eps=eps,
    )

