"""How diverse is each topic of a collection? (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5;
docs/conventions.md#collection)

Per topic, from the judgments alone (no run):

- ξ — "the minimum rank at which all subtopics can be covered" (Golbus, Aslam & Clarke, §5):
  the fewest relevant documents whose subtopics cover every coverable intent, computed exactly
  by a breadth-first search over coverage bitmasks (minimum set cover is NP-hard in general,
  Carterette, ICTIR 2009, but topics have few subtopics; above 20 coverable intents the greedy
  size is used, with a warning). ``xi="greedy"`` gives the greedy set cover instead (each step
  takes the document covering the most still-uncovered intents, ties to the larger docno), an
  upper bound: on TREC 2010 Web topic 99 greedy needs 4 documents where 3 cover all six
  subtopics, which moves Table 2's 2010 mean dd (depth ξ + 1) from 0.727 to 0.728. Both are
  reported (``xi`` and ``xi_greedy``).
- d_max — maximum S-recall: coverable intents / declared intents M (1 when, as by default,
  intents without relevant documents are dropped; Golbus, Aslam & Clarke, Inf. Retr. 2013, §4.2).
- d_mean(k) = 1 − Σ_i (1 − R_i/R)^k / M' (Eq. 1) — expected S-recall of k relevant documents
  drawn with replacement, the sum over the M' coverable intents.
- dd = 2·d_max·d_mean/(d_max + d_mean) (Eq. 2) — diversity difficulty (large = easy to diversify).
- smr_i(k) = (1 − R_i/R)^k / Σ_j (1 − R_j/R)^k (Eq. 3) — subtopic miss rate; smr_i = smr_i(ξ)
  (Eq. 4). When every coverable intent is covered by every relevant document the formula is
  0/0 and smr is uniform over the coverable intents. Intents without relevant documents
  (kept with ``empty_intents="keep"``) get smr 0: no system can cover them, so they carry no
  information for evaluation.

The depth k is explicit (docs/conventions.md#collection): ``"xi"`` (default), ``"xi+1"`` or an
integer. Golbus, Aslam & Clarke's Table 3 (smr) reproduces at k = ξ; its Table 1 (dd) only at
k = ξ + 1 — topic 60 has ξ = 3 and dd(3) = 0.442, dd(4) = 0.481 (printed 0.481). ``docs/collection.md`` has the details.

A topic without relevant documents has ξ = 0 and d_max = d_mean = dd = 0, smr all 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield._numeric import safe_div
from cranfield.batch import Topics
from cranfield.errors import check_choice, check_int
from cranfield.evaluation.collection import load_collection
from cranfield.measures.topics import (
    XI_METHODS,
    Depth,
    check_depth,
    cover_size,
    d_max,
    d_mean_at,
    exact_cover,
    greedy_cover,
    relevant_counts,
    resolve_depth,
    smr_at,
)

__all__ = [
    "Depth", "check_depth", "load_collection", "relevant_counts", "greedy_cover", "exact_cover",
    "resolve_depth", "d_max",
    "TopicStats", "topic_stats", "CollectionDiversity", "collection_diversity"]


@dataclass(frozen=True)
class TopicStats:
    """Collection diversity of T topics (arrays over topics; ``(T, I)`` over intents).

    Attributes
    ----------
    num_rel : ndarray of int, shape (T,)
        R: documents relevant to some intent.
    num_rel_intent : ndarray of int, shape (T, I)
        R_i.
    n_intents : ndarray of int, shape (T,)
        M: declared intents.
    xi : ndarray of int, shape (T,)
        ξ as asked (``xi="exact"``: the minimum cover; ``"greedy"``: the greedy set cover's size).
    xi_greedy : ndarray of int, shape (T,)
        The greedy set cover's size (>= the minimum).
    depth : ndarray of int, shape (T,)
        The depth k of d_mean, dd and smr.
    d_max, d_mean, dd : ndarray of float64, shape (T,)
    smr : ndarray of float64, shape (T, I)
    """

    num_rel: np.ndarray
    num_rel_intent: np.ndarray
    n_intents: np.ndarray
    xi: np.ndarray
    xi_greedy: np.ndarray
    depth: np.ndarray
    d_max: np.ndarray
    d_mean: np.ndarray
    dd: np.ndarray
    smr: np.ndarray


def topic_stats(topics: Topics, depth: Depth = "xi", rel: int = 1, *, xi: str = "exact") -> TopicStats:
    """Every statistic of Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5, for each topic, at depth ``depth``
    (docs/conventions.md#collection), with ξ exact (default) or greedy (``xi="greedy"``)."""
    r_i, r = relevant_counts(topics, rel)
    greedy = cover_size(topics, rel, "greedy")
    xis = cover_size(topics, rel, xi)
    k = resolve_depth(depth, xis)
    hi, mean = d_max(topics, rel), d_mean_at(topics, k, rel)
    return TopicStats(num_rel=r, num_rel_intent=r_i, n_intents=topics.n_intents, xi=xis, xi_greedy=greedy,
                      depth=k, d_max=hi,
                      d_mean=mean, dd=safe_div(2.0 * hi * mean, hi + mean), smr=smr_at(topics, k, rel))


@dataclass(frozen=True)
class CollectionDiversity:
    """Per-topic collection diversity with the topic and intent names (``cranfield collection``).

    Attributes
    ----------
    topic_ids : tuple of str
    intent_ids : tuple of tuple of str
        Each topic's declared intents, in the column order of the (T, I) arrays.
    stats : TopicStats
    depth : int or str
        The depth as asked (``"xi"``, ``"xi+1"`` or an int); ``stats.depth`` has it per topic.
    """

    topic_ids: tuple[str, ...]
    intent_ids: tuple[tuple[str, ...], ...]
    stats: TopicStats
    depth: Depth

    def summary(self) -> dict[str, float]:
        """Min, max and mean of dd over the topics with a relevant document (Golbus, Aslam & Clarke, Inf. Retr. 2013,
        Table 2)."""
        dd = self.stats.dd[self.stats.num_rel > 0]
        if not dd.size:
            return {"topics": 0, "min": float("nan"), "max": float("nan"), "mean": float("nan")}
        return {"topics": int(dd.size), "min": float(dd.min()), "max": float(dd.max()), "mean": float(dd.mean())}

    def greedy_gaps(self) -> list[tuple[str, int, int]]:
        """(topic, greedy ξ, ξ) of the topics where the greedy cover is not minimal (``xi="exact"``)."""
        s = self.stats
        return [(self.topic_ids[t], int(s.xi_greedy[t]), int(s.xi[t])) for t in np.flatnonzero(s.xi_greedy != s.xi)]

    def records(self) -> list[dict[str, Any]]:
        """One JSON-ready object per topic: ``topic``, ``intents``, ``R``, ``R_i``, ``xi``, ``xi_greedy``,
        ``depth``, ``d_max``, ``d_mean``, ``dd`` and ``smr`` (intent → value)."""
        s = self.stats
        out = []
        for t, topic in enumerate(self.topic_ids):
            names = self.intent_ids[t]
            out.append({
                "topic": topic, "intents": len(names), "R": int(s.num_rel[t]),
                "R_i": {i: int(s.num_rel_intent[t, k]) for k, i in enumerate(names)},
                "xi": int(s.xi[t]), "xi_greedy": int(s.xi_greedy[t]), "depth": int(s.depth[t]),
                "d_max": float(s.d_max[t]),
                "d_mean": float(s.d_mean[t]), "dd": float(s.dd[t]),
                "smr": {i: float(s.smr[t, k]) for k, i in enumerate(names)},
            })
        return out

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values: ``depth`` as asked, ``topics`` (:meth:`records`) and ``summary``
        (:meth:`summary`, None for NaN) — Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5 and Table 2."""
        summary = {k: None if isinstance(v, float) and np.isnan(v) else v for k, v in self.summary().items()}
        return {"depth": self.depth, "topics": self.records(), "summary": summary}

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self, per_intent: bool = False) -> Any:
        """A tidy pandas DataFrame of :meth:`to_dict`'s ``topics``: one row per topic (``topic``, ``intents``,
        ``R``, ``xi``, ``xi_greedy``, ``depth``, ``d_max``, ``d_mean``, ``dd``) or, ``per_intent``, one row per topic ×
        declared intent (``topic``, ``intent``, ``R_i``, ``smr``)."""
        import pandas as pd

        records = self.to_dict()["topics"]
        if per_intent:
            rows = [{"topic": r["topic"], "intent": i, "R_i": r["R_i"][i], "smr": r["smr"][i]}
                    for r in records for i in r["R_i"]]
            return pd.DataFrame(rows, columns=["topic", "intent", "R_i", "smr"])
        columns = ["topic", "intents", "R", "xi", "xi_greedy", "depth", "d_max", "d_mean", "dd"]
        return pd.DataFrame([{k: r[k] for k in columns} for r in records], columns=columns)

    def to_json(self) -> str:
        """:meth:`to_dict`'s ``topics`` as indented JSON (``cranfield collection --format json``)."""
        return json.dumps(self.to_dict()["topics"], indent=1) + "\n"



def collection_diversity(qrels: Any, *, depth: Depth = "xi", rel: int = 1, xi: str = "exact",
                         **options: Any) -> CollectionDiversity:
    """ξ, d_max, d_mean, dd and smr of every topic of a collection (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5).

    Parameters
    ----------
    qrels : path, dict, DataFrame, Qrels or Collection
        Diversity qrels (``qid intent docno rel``); ad hoc qrels give one intent per topic.
    depth : {"xi", "xi+1"} or int
        The depth k of d_mean, dd and smr (docs/conventions.md#collection: Table 3 reproduces at ξ,
        Table 1 at ξ + 1).
    rel : int
        The lowest label counted as relevant.
    xi : {"exact", "greedy"}
        ξ (and the depths ``"xi"``, ``"xi+1"``): the minimum cover (default) or the greedy one.
    options
        ``diversity``, ``intents``, ``intent_types``, ``empty_intents`` as for
        :class:`~cranfield.evaluation.evaluator.Evaluator`.
    """
    depth = check_depth(depth)  # before any work
    rel = check_int(rel, "lowest relevant label rel", low=1)
    xi = check_choice(xi, "xi", XI_METHODS)
    coll = load_collection(qrels, **options)
    return CollectionDiversity(coll.topic_ids, coll.intent_ids, topic_stats(coll.topics, depth, rel, xi=xi), depth)
