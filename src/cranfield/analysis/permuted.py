"""Discriminative power on artificial runs with perfect combined precision (Golbus, Aslam & Clarke,
Inf. Retr. 2013, §7.1 and Figure 6; docs/studies.md#permuted-runs).

Each artificial run ranks, on every topic, the topic's relevant documents (relevant to some
intent) in a uniformly random order, nothing else: every run retrieves only relevant documents
(combined precision 1 at every rank up to R_t), so whatever separates two runs is novelty and
diversity. Golbus, Aslam & Clarke build 50 such runs over the 100 TREC 2010–2011 topics and find
the discriminative power of the α#-IA measures on them "almost an order of magnitude smaller"
than on the submitted runs (Figure 6): diversity evaluation is mostly driven by ad hoc
performance.

Randomness: ``numpy.random.default_rng(seed)``; topic by topic in the collection's order,
``keys = rng.random((N, R_t))`` and run j's ranking of the topic is ``argsort(keys[j])`` —
the draws of :func:`cranfield.analysis.dss.random_prefixes` (the same as DSS's permutations for
one seed), so a result is reproducible from (qrels, N, seed). The N runs are one
:class:`~cranfield.batch.Batch` scored by each measure's ordinary kernel; the score matrices
(topics × runs) go to :func:`cranfield.meta.power.discriminative_power` (Sakai, SIGIR 2006).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield.analysis.dss import random_prefixes
from cranfield.analysis.options import MAX_RUNS
from cranfield.batch import Batch
from cranfield.errors import CranfieldError, check_int, listing, warn
from cranfield.evaluation.collection import load_collection
from cranfield.measures.registry import Measure, parse_measure
from cranfield.measures.topics import relevant_counts
from cranfield.meta._common import make_rng
from cranfield.meta.power import DiscriminativePower, discriminative_power
from cranfield.meta.scores import ScoreMatrix

__all__ = ["MAX_RUNS", "PermutedPower", "permuted_labels", "permuted_power"]


def permuted_labels(topics: Any, n_runs: int, seed: Any = 0, rel: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The labels of ``n_runs`` artificial runs, each ranking every topic's relevant documents in a
    uniformly random order (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7.1).

    Returns ``(labels, length)``: labels (N, T, D, I) with D = max_t R_t (positions past R_t are 0)
    and the ranking lengths (N, T) = R_t. A document is relevant when some intent of positive
    weight labels it ≥ ``rel``. Draws as in :func:`cranfield.analysis.dss.random_prefixes`, topic by
    topic in order, one ``rng.random((N, R_t))`` each.
    """
    n_runs = check_int(n_runs, "number of artificial runs", low=2, high=MAX_RUNS)
    rng = make_rng(seed)
    relevant = (topics.rel_docs >= rel) & (topics.weights > 0)[:, None, :]  # (T, J, I)
    _, num_rel = relevant_counts(topics, rel)
    depth = int(num_rel.max()) if num_rel.size else 0
    labels = np.zeros((n_runs, len(topics), max(depth, 1), topics.weights.shape[1]), dtype=topics.rel_docs.dtype)
    for t in range(len(topics)):
        docs = topics.rel_docs[t][relevant[t].any(axis=1)]  # (R_t, I)
        if docs.shape[0]:
            idx = random_prefixes(rng, docs.shape[0], n_runs, docs.shape[0])
            labels[:, t, : docs.shape[0]] = docs[idx]
    return labels, np.broadcast_to(num_rel.astype(np.int64), (n_runs, len(topics))).copy()


@dataclass(frozen=True, eq=False)
class PermutedPower:
    """Discriminative power of measures over artificial permuted runs (Golbus, Aslam & Clarke,
    Inf. Retr. 2013, Figure 6).

    Attributes
    ----------
    measures : list of str
    n_runs : int
        Artificial runs (the paper: 50).
    seed : int or str
    topics : list of str
        The topics with a relevant document (the others have nothing to permute).
    scores : ndarray, shape (M, N, T)
        Each measure's score of each artificial run on each topic.
    powers : list of DiscriminativePower
        One per measure (test, α, B and the pairwise ASLs inside).
    """

    measures: list[str]
    n_runs: int
    seed: Any
    topics: list[str]
    scores: np.ndarray
    powers: list[DiscriminativePower]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per measure: ``measure``, ``mean`` (score over runs and topics), ``sd_runs`` (SD of
        the runs' mean scores), then the :meth:`DiscriminativePower.to_dict` fields (``test``,
        ``n_resamples``, ``alpha``, ``pairs``, ``significant``, ``power``, ...)."""
        out = []
        for m, dp in enumerate(self.powers):
            run_means = self.scores[m].mean(axis=1)
            out.append({"measure": self.measures[m], "mean": float(self.scores[m].mean()),
                        "sd_runs": float(run_means.std(ddof=1)), **{k: v for k, v in dp.to_dict().items()
                                                                    if k != "measure"}})
        return out

    def to_dict(self) -> dict[str, Any]:
        """``runs`` (N), ``seed``, ``topics`` (the count) and ``rows`` (:meth:`rows`)."""
        return {"runs": self.n_runs, "seed": self.seed, "topics": len(self.topics), "rows": self.rows()}

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self) -> Any:
        """:meth:`rows` as a DataFrame, one row per measure."""
        import pandas as pd

        return pd.DataFrame(self.rows())


def permuted_power(
    qrels: Any, measures: Sequence[str | Measure], *, n_runs: int = 50, seed: Any = 0, test: str = "bootstrap",
    alpha: float = 0.05, n_resamples: int | None = 1000, rel: int = 1, **options: Any,
) -> PermutedPower:
    """Discriminative power of ``measures`` over ``n_runs`` artificial runs, each a uniformly random
    permutation of every topic's relevant documents (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7.1,
    Figure 6).

    Parameters
    ----------
    qrels : path, dict, DataFrame, Qrels or Collection
        Diversity (or ad hoc) qrels.
    measures : sequence of str or Measure
        Measures with their cutoff (``alpha#-IA(subtopics=geom)@20``); a measure without one scores
        the whole permutation.
    n_runs : int
        Artificial runs, 2 to :data:`MAX_RUNS` (the paper: 50).
    seed : int, Generator or None
        Seed of the permutations (default 0). The bootstrap resamples use ``seed`` too (an int seed
        gives every measure the same resamples, as in Sakai's comparisons).
    test, alpha, n_resamples
        As :func:`cranfield.meta.power.discriminative_power`; the paper: paired bootstrap t test,
        B = 1,000 (Sakai, SIGIR 2006), α = 0.05.
    rel : int
        The lowest label counted as relevant when choosing the documents to permute.
    options
        ``diversity``, ``intents``, ``intent_types``, ``empty_intents`` (as for the Evaluator).

    Examples
    --------
    Two topics with intents x, y, each of whose relevant documents covers one intent: S-recall@1
    is 1/2 for every permutation, so no pair of the five runs differs:

    >>> qrels = {"1": {"x": {"a": 1, "c": 1}, "y": {"b": 1}}, "2": {"x": {"d": 1}, "y": {"e": 1}}}
    >>> res = permuted_power(qrels, ["StRecall@1"], n_runs=5, seed=0)
    >>> res.powers[0].n_pairs, res.powers[0].n_significant, float(res.scores[0].mean())
    (10, 0, 0.5)
    """
    rel = check_int(rel, "lowest relevant label rel", low=1)
    if not measures:
        raise CranfieldError("no measures given")
    parsed = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    coll = load_collection(qrels, **options)
    topics = coll.topics
    labels, length = permuted_labels(topics, n_runs, seed, rel)
    keep = np.flatnonzero(length[0] > 0)
    if keep.size < coll.n_topics:
        gone = [coll.topic_ids[t] for t in np.flatnonzero(length[0] == 0)]
        warn(f"{len(gone)} topics without relevant documents have nothing to permute and are left out: "
             f"{listing(gone)}")
    if not keep.size:
        raise CranfieldError("no topic has a relevant document: there is nothing to permute")
    batch = Batch.from_labels(labels, topics, length=length)
    scores = np.stack([np.asarray(m(batch), dtype=np.float64)[:, keep] for m in parsed])  # (M, N, T)
    names_t = [coll.topic_ids[t] for t in keep]
    runs = tuple(f"permuted-{j + 1}" for j in range(scores.shape[1]))
    bootstrap_seed = seed if isinstance(seed, (int, np.integer)) else None
    powers = [discriminative_power(ScoreMatrix(scores[m].T, runs, tuple(names_t), str(parsed[m])), test=test,
                                   alpha=alpha, n_resamples=n_resamples, rng=bootstrap_seed)
              for m in range(len(parsed))]
    names = [m.strip() if isinstance(m, str) else str(m) for m in measures]
    return PermutedPower(names, int(scores.shape[1]), seed if bootstrap_seed is not None else "generator", names_t,
                         scores, powers)
