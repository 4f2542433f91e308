"""A test collection compiled once: the qrels of every topic as arrays ready for the kernels.

:class:`Collection` holds the judged documents of all topics in one table sorted by a 64-bit
(topic, docno) key, so any number of runs are joined to it with one ``searchsorted`` each,
and the per-topic quantities every measure needs (relevant counts, ideal grade vectors,
intent weights). Runs meet it in :meth:`Collection.batch`, which returns the dense
:class:`~cranfield.batch.Batch` the measure kernels read.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from .batch import Batch, Topics
from .errors import CranfieldError, warn
from .io import Qrels, Run
from .io._tokens import doc_keys

_TOPIC_MIX = np.uint64(0xD6E8FEB86659FD93)


def natural_key(topic: str) -> tuple[int, int, str]:
    """Sort integer-like topic ids numerically, before other ids sorted as text."""
    try:
        return (0, int(topic), topic)
    except ValueError:
        return (1, 0, topic)


def _combine(topic: np.ndarray, key: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return key ^ ((topic.astype(np.uint64) + np.uint64(1)) * _TOPIC_MIX)


@dataclass(frozen=True, eq=False)
class Collection:
    """Compiled judgments of a set of topics.

    Attributes
    ----------
    topic_ids : tuple of str
        The evaluated topics in natural order (integers numerically).
    intent_ids : tuple of tuple of str
        The intents of each topic; ad hoc collections have one intent per topic.
    grades : ndarray of int64, shape (J, I)
        The label of each judged (topic, docno) for each of its topic's intents (0 where the
        document was not judged for that intent).
    doc_topic : ndarray of int64, shape (J,)
    docno : ndarray of bytes, shape (J,)
    key : ndarray of uint64, shape (J,)
        Sorted (topic, docno) keys; ``grades``, ``doc_topic`` and ``docno`` are in this order.
    weights : ndarray of float64, shape (T, I)
        Intent probabilities (0 in the padding of topics with fewer intents).
    max_rel : int
        The highest label in the qrels (the default ``max_rel`` of ERR, RBP, ...).
    diversity : bool
    source : str
    """

    topic_ids: tuple[str, ...]
    intent_ids: tuple[tuple[str, ...], ...]
    grades: np.ndarray
    doc_topic: np.ndarray
    docno: np.ndarray
    key: np.ndarray
    weights: np.ndarray
    max_rel: int
    diversity: bool
    source: str

    @classmethod
    def from_qrels(cls, qrels: Qrels) -> "Collection":
        """Compile :class:`~cranfield.io.Qrels`; every qrels topic becomes an evaluated topic.

        For diversity qrels the intents of a topic are its intent ids in the qrels; intents
        without a relevant document are dropped with a warning and the others weighted
        uniformly (SPEC §2).
        """
        order = sorted(range(len(qrels.topic_ids)), key=lambda t: natural_key(qrels.topic_ids[t]))
        remap = np.empty(len(order), dtype=np.int64)
        remap[order] = np.arange(len(order))
        topic_ids = tuple(qrels.topic_ids[t] for t in order)
        topic = remap[qrels.topic]
        n_topics = len(topic_ids)

        # local intent index of every row: intents of a topic numbered in natural order
        pairs = np.unique(np.stack([topic, qrels.intent], axis=1), axis=0)
        relevant = np.zeros(pairs.shape[0], dtype=bool)
        pair_of_row = np.searchsorted(pairs[:, 0] * (len(qrels.intent_ids) + 1) + pairs[:, 1],
                                      topic * (len(qrels.intent_ids) + 1) + qrels.intent)
        np.logical_or.at(relevant, pair_of_row, qrels.rel > 0)
        intents: list[list[str]] = [[] for _ in range(n_topics)]
        dropped: list[str] = []
        for (t, i), rel in zip(pairs.tolist(), relevant.tolist()):
            name = qrels.intent_ids[i]
            if rel or not qrels.diversity:
                intents[t].append(name)
            else:
                dropped.append(f"{topic_ids[t]}/{name}")
        if dropped:
            warn(f"{qrels.source}: intents without relevant documents are dropped: {', '.join(dropped)}")
        for t in range(n_topics):
            intents[t].sort(key=natural_key)
        n_int = max((len(x) for x in intents), default=1) or 1
        local = {(t, name): k for t in range(n_topics) for k, name in enumerate(intents[t])}
        row_intent = np.array(
            [local.get((t, qrels.intent_ids[i]), -1) for t, i in pairs.tolist()], dtype=np.int64
        )[pair_of_row]
        weights = np.zeros((n_topics, n_int))
        for t, names in enumerate(intents):
            if names:
                weights[t, : len(names)] = 1.0 / len(names)

        keys = _combine(topic, doc_keys(qrels.docno))
        ukey, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if (qrels.docno[first][inverse] != qrels.docno).any() or (topic[first][inverse] != topic).any():
            raise CranfieldError("two judged documents share a 64-bit key; please report this input")
        grades = np.zeros((ukey.size, n_int), dtype=_label_dtype(qrels.rel))
        keep = row_intent >= 0
        grades[inverse[keep], row_intent[keep]] = qrels.rel[keep]
        max_rel = int(qrels.rel.max()) if qrels.rel.size else 0
        return cls(
            topic_ids=topic_ids,
            intent_ids=tuple(tuple(x) for x in intents),
            grades=grades,
            doc_topic=topic[first],
            docno=qrels.docno[first],
            key=ukey,
            weights=weights,
            max_rel=max_rel,
            diversity=qrels.diversity,
            source=qrels.source,
        )

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    @cached_property
    def topics(self) -> Topics:
        """Per-topic arrays for all topics (ideal grade vectors, judged counts, weights)."""
        return Topics.from_judgments(self.doc_topic, self.grades, self.weights, self.max_rel)

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {t: k for k, t in enumerate(self.topic_ids)}

    def lookup(self, topic: np.ndarray, doc_key: np.ndarray, docno: np.ndarray) -> np.ndarray:
        """Row of each (topic index, docno) in the judged table, or -1 when unjudged."""
        if self.key.size == 0:
            return np.full(topic.size, -1, dtype=np.int64)
        k = _combine(topic, doc_key)
        pos = np.minimum(np.searchsorted(self.key, k), self.key.size - 1)
        hit = self.key[pos] == k
        # equal keys of different documents are collisions, not matches
        hit[hit] &= (self.docno[pos[hit]] == docno[hit]) & (self.doc_topic[pos[hit]] == topic[hit])
        return np.where(hit, pos, -1)

    def topic_index(self, run: Run) -> np.ndarray:
        """For each topic of ``run``: its index here (-1 if it is not a qrels topic)."""
        idx = self._topic_index
        return np.array([idx.get(t, -1) for t in run.topic_ids], dtype=np.int64)

    def batch(
        self, runs: Sequence[Run], *, depth: int | None = None, topics: slice | None = None,
    ) -> Batch:
        """The dense label tensor of ``runs`` over this collection's topics.

        Parameters
        ----------
        runs : sequence of Run
        depth : int, optional
            Keep only the first ``depth`` ranks (the measures' deepest cutoff); the true
            ranking lengths are kept regardless. Default: the longest ranking.
        topics : slice, optional
            A contiguous block of this collection's topics (for processing in chunks).
        """
        sel = topics or slice(0, self.n_topics)
        t0, t1, _ = sel.indices(self.n_topics)
        n_t = t1 - t0
        length = np.zeros((len(runs), n_t), dtype=np.int64)
        present = np.zeros((len(runs), n_t), dtype=bool)
        parts = []
        for s, run in enumerate(runs):
            where, lens = self.topic_index(run), run.lengths
            inside = (where >= t0) & (where < t1)
            length[s, where[inside] - t0] = lens[inside]
            present[s, where[inside] - t0] = True
            row_topic = np.repeat(where, lens)
            rank = np.arange(run.docno.size) - np.repeat(run.offsets[:-1], lens)
            parts.append((s, row_topic, rank, run))
        n_deep = int(length.max()) if length.size else 0
        d = n_deep if depth is None else min(depth, n_deep)
        n_int = self.grades.shape[1]
        labels = np.zeros((len(runs), n_t, d, n_int), dtype=self.grades.dtype)
        judged = np.zeros((len(runs), n_t, d), dtype=bool)
        for s, row_topic, rank, run in parts:
            use = (row_topic >= t0) & (row_topic < t1) & (rank < d)
            rows = np.flatnonzero(use)
            j = self.lookup(row_topic[rows], run.doc_key[rows], run.docno[rows])
            found = j >= 0
            t_idx, r_idx = row_topic[rows][found] - t0, rank[rows][found]
            labels[s, t_idx, r_idx] = self.grades[j[found]]
            judged[s, t_idx, r_idx] = True
        return Batch(labels, judged, length, present, self.topics.take(slice(t0, t1)))


def _label_dtype(rel: np.ndarray) -> np.dtype:
    """The narrowest signed integer type holding every label (keeps big batches small)."""
    if rel.size == 0:
        return np.dtype(np.int8)
    low, high = int(min(rel.min(), 0)), int(rel.max())
    return next(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)
                if np.iinfo(t).min <= low and high <= np.iinfo(t).max)
