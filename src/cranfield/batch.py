"""The one representation every measure kernel reads.

A :class:`Batch` is a dense label tensor over runs × topics × depth × intents, the true
length of every ranking (so a ranking truncated at 3 documents is not the same as one padded
with non-relevant documents), and the per-topic facts of the judgments (:class:`Topics`). It
comes from files through :meth:`cranfield.collection.Collection.batch`, or is built directly
(:meth:`Batch.from_labels`) for synthetic rankings and resampling, without touching files.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Callable

import numpy as np


def adhoc_labels(grades: np.ndarray) -> np.ndarray:
    """Each judged document's label over all intents (the largest), shape (J,), from grades (J, I)."""
    return grades.max(axis=1) if grades.shape[1] > 1 else grades[:, 0]


@dataclass(frozen=True, eq=False)
class Topics:
    """Per-topic facts of the judgments, for a block of T topics.

    Attributes
    ----------
    ideal : ndarray of int, shape (T, K)
        Each topic's positive ad hoc labels (a document's largest label over intents), sorted
        descending and padded with 0: the grades of the ideal ranking.
    ideal_intent : ndarray of int, shape (T, I, K_i)
        The same for each intent separately.
    num_judged : ndarray of int64, shape (T,)
        Judged documents of each topic (any label, negative included).
    weights : ndarray of float64, shape (T, I)
        Intent probabilities; a column of ones for ad hoc judgments.
    max_rel : int
        The highest label of the judgments (ERR's and RBP's default normaliser).
    rel_docs : ndarray of int, shape (T, J, I)
        Labels of the documents relevant to at least one intent, ordered by docno
        descending within each topic (zero rows pad): the material of greedy ideal lists,
        whose ties go to the larger docno (ndeval).
    nav : ndarray of bool, shape (T, I)
        Navigational intents (the rest are informational).
    judged_nonneg : ndarray of int64, shape (T,), optional
        Judged documents with a label >= 0 (trec_eval's notion of judged); ``num_judged`` if None.
    """

    ideal: np.ndarray
    ideal_intent: np.ndarray
    num_judged: np.ndarray
    weights: np.ndarray
    max_rel: int
    rel_docs: np.ndarray
    nav: np.ndarray
    judged_nonneg: np.ndarray | None = None
    cache: dict = field(default_factory=dict, repr=False)

    @classmethod
    def from_judgments(
        cls, doc_topic: np.ndarray, grades: np.ndarray, docno: np.ndarray, weights: np.ndarray,
        nav: np.ndarray, max_rel: int,
    ) -> "Topics":
        """Build from the judged-document table: topic, grades (J, I) and docno of each document."""
        n_topics = weights.shape[0]
        adhoc = adhoc_labels(grades)
        ideal = _sorted_positive(doc_topic, adhoc, n_topics)
        per_intent = [_sorted_positive(doc_topic, grades[:, i], n_topics) for i in range(grades.shape[1])]
        width = max((p.shape[1] for p in per_intent), default=0)
        ideal_intent = np.zeros((n_topics, grades.shape[1], width), dtype=grades.dtype)
        for i, p in enumerate(per_intent):
            ideal_intent[:, i, : p.shape[1]] = p
        num_judged = np.bincount(doc_topic, minlength=n_topics).astype(np.int64)
        nonneg = np.bincount(doc_topic[adhoc >= 0], minlength=n_topics).astype(np.int64)
        return cls(ideal, ideal_intent, num_judged, weights, int(max_rel),
                   _relevant_documents(doc_topic, grades, docno, n_topics), nav, nonneg)

    @classmethod
    def from_ideal(cls, ideal: np.ndarray, *, num_judged: np.ndarray | None = None, max_rel: int | None = None) -> "Topics":
        """Ad hoc topics given their positive grades (T, K); for synthetic experiments."""
        ideal = -np.sort(-np.maximum(np.asarray(ideal), 0), axis=1)
        judged = (ideal > 0).sum(axis=1) if num_judged is None else np.asarray(num_judged)
        top = int(ideal.max()) if ideal.size else 1
        n = ideal.shape[0]
        return cls(ideal, ideal[:, None, :], judged.astype(np.int64), np.ones((n, 1)),
                   top if max_rel is None else max_rel, ideal[:, :, None], np.zeros((n, 1), dtype=bool))

    @classmethod
    def from_intent_labels(
        cls, rel_docs: np.ndarray, *, weights: np.ndarray | None = None, nav: np.ndarray | None = None,
        num_judged: np.ndarray | None = None, max_rel: int | None = None,
    ) -> "Topics":
        """Topics given the per-intent labels of their relevant documents, shape (T, J, I)
        (documents in tie-break order: the first of equals wins a greedy ideal); for
        synthetic experiments such as the axiomatic enumeration."""
        rel_docs = np.asarray(rel_docs)
        n, _, n_int = rel_docs.shape
        w = np.full((n, n_int), 1.0 / n_int) if weights is None else np.asarray(weights, dtype=np.float64)
        adhoc = rel_docs.max(axis=2)
        ideal = -np.sort(-np.maximum(adhoc, 0), axis=1)
        ideal_intent = -np.sort(-np.maximum(rel_docs, 0).transpose(0, 2, 1), axis=2)
        judged = (adhoc > 0).sum(axis=1) if num_judged is None else np.asarray(num_judged)
        top = int(rel_docs.max()) if rel_docs.size else 1
        return cls(ideal, ideal_intent, judged.astype(np.int64), w, top if max_rel is None else max_rel,
                   rel_docs, np.zeros((n, n_int), dtype=bool) if nav is None else np.asarray(nav, dtype=bool))

    def __len__(self) -> int:
        return int(self.num_judged.size)

    @property
    def n_intents(self) -> np.ndarray:
        """M': intents with a positive weight, per topic (T,)."""
        return (self.weights > 0).sum(axis=1)

    def num_rel(self, rel: int = 1) -> np.ndarray:
        """Documents with label >= ``rel`` per topic, shape (T,) (trec_eval's num_rel)."""
        return (self.ideal >= rel).sum(axis=1)

    def num_nonrel(self, rel: int = 1) -> np.ndarray:
        """Judged documents with a label in [0, rel) per topic (trec_eval's judged non-relevant;
        negative labels are not counted)."""
        judged = self.num_judged if self.judged_nonneg is None else self.judged_nonneg
        return judged - self.num_rel(rel)

    def cached(self, key: tuple, compute: "Callable[[], np.ndarray]") -> np.ndarray:
        """A per-topic quantity computed once per set of parameters (greedy ideals)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def cached_prefix(self, key: tuple, depth: int, compute: "Callable[[int], np.ndarray]") -> np.ndarray:
        """The first ``depth`` columns of a per-topic list whose prefixes do not depend on its
        length (a greedy ideal list), shape (T, depth): ``compute(depth)`` runs only when no
        list at least that deep is cached. ``depth`` must not exceed the list's full length."""
        known = self.cache.get(key)
        if known is None or known.shape[1] < depth:
            known = self.cache[key] = compute(depth)
        return known[:, :depth]

    def take(self, topics: slice | np.ndarray) -> "Topics":
        """The facts of a subset of the topics."""
        return Topics(
            self.ideal[topics], self.ideal_intent[topics], self.num_judged[topics],
            self.weights[topics], self.max_rel, self.rel_docs[topics], self.nav[topics],
            None if self.judged_nonneg is None else self.judged_nonneg[topics],
        )

    def per_intent(self) -> "Topics":
        """Each (topic, intent) as a topic of its own, T·I of them (for intent-aware measures)."""
        n, n_int = self.weights.shape
        ideal = self.ideal_intent.reshape(n * n_int, -1)
        docs = self.rel_docs.transpose(0, 2, 1).reshape(n * n_int, -1, 1)
        return Topics(ideal, ideal[:, None, :], np.repeat(self.num_judged, n_int),
                      np.ones((n * n_int, 1)), self.max_rel, docs, np.zeros((n * n_int, 1), dtype=bool),
                      None if self.judged_nonneg is None else np.repeat(self.judged_nonneg, n_int))


def _relevant_documents(doc_topic: np.ndarray, grades: np.ndarray, docno: np.ndarray, n_topics: int) -> np.ndarray:
    """(T, J, I) labels of each topic's documents relevant to some intent, docno descending."""
    rel = np.flatnonzero((grades > 0).any(axis=1))
    # ascending by (-topic, docno), reversed: topic ascending, docno descending
    order = rel[np.lexsort((docno[rel], -doc_topic[rel]))[::-1]]
    t = doc_topic[order]
    counts = np.bincount(t, minlength=n_topics)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out = np.zeros((n_topics, int(counts.max()) if counts.size else 0, grades.shape[1]), dtype=grades.dtype)
    out[t, np.arange(t.size) - starts[t]] = grades[order]
    return out


def _sorted_positive(doc_topic: np.ndarray, grade: np.ndarray, n_topics: int) -> np.ndarray:
    """Positive grades of each topic, sorted descending, as a (T, K) zero-padded matrix."""
    pos = grade > 0
    t, g = doc_topic[pos], grade[pos]
    order = np.lexsort((-g, t))
    t, g = t[order], g[order]
    counts = np.bincount(t, minlength=n_topics)
    out = np.zeros((n_topics, int(counts.max()) if counts.size else 0), dtype=grade.dtype)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out[t, np.arange(t.size) - starts[t]] = g
    return out


@dataclass(frozen=True, eq=False)
class Batch:
    """Rankings as dense arrays (docs/architecture.md; docs/conventions.md#order).

    Attributes
    ----------
    labels : ndarray of int, shape (S, T, D, I)
        ``labels[s, t, r, i]`` is the label for intent ``i`` of the document at rank ``r + 1``
        of run ``s`` on topic ``t``; 0 for unjudged documents and for ranks past the end.
    judged : ndarray of bool, shape (S, T, D)
        Whether that document is in the judgments (False past the end).
    length : ndarray of int64, shape (S, T)
        The true number of documents of each ranking; it may exceed D when the batch keeps
        only the ranks the measures need.
    present : ndarray of bool, shape (S, T)
        Whether the run has the topic at all (docs/conventions.md#missing).
    topics : Topics
        The facts of the T topics.
    iteration : ndarray of int, shape (S, T, D), or None
        The search iteration of each ranked document (TREC Dynamic Domain runs; -1 past the
        end); None for plain rankings.
    """

    labels: np.ndarray
    judged: np.ndarray
    length: np.ndarray
    present: np.ndarray
    topics: Topics
    iteration: np.ndarray | None = None

    @classmethod
    def from_labels(
        cls, labels: np.ndarray, topics: Topics, *, length: np.ndarray | None = None,
        judged: np.ndarray | None = None, iteration: np.ndarray | None = None,
    ) -> "Batch":
        """A batch of synthetic rankings given their labels, shape (S, T, D) or (S, T, D, I).

        ``length`` defaults to D for every ranking (no truncation) and ``judged`` to True
        within the length; labels past a ranking's length are set to 0.
        """
        labels = np.asarray(labels)
        if labels.ndim == 3:
            labels = labels[..., None]
        s, t, d, _ = labels.shape
        length = np.full((s, t), d, dtype=np.int64) if length is None else np.asarray(length, dtype=np.int64)
        inside = np.arange(d) < np.minimum(length, d)[..., None]  # (S, T, D)
        if not inside.all():  # nothing lies past the end of a ranking
            labels = np.where(inside[..., None], labels, 0)
        judged = inside if judged is None else np.asarray(judged, dtype=bool) & inside
        return cls(labels, judged, length, np.ones((s, t), dtype=bool), topics,
                   None if iteration is None else np.where(inside, iteration, -1))

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return self.labels.shape  # type: ignore[return-value]

    @property
    def depth(self) -> int:
        return int(self.labels.shape[2])

    @cached_property
    def grades(self) -> np.ndarray:
        """Ad hoc label of each ranked document (the largest over intents), shape (S, T, D)."""
        return self.labels.max(axis=3) if self.labels.shape[3] > 1 else self.labels[..., 0]
