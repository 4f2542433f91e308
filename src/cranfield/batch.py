"""The one representation every measure kernel reads.

A :class:`Batch` is a dense label tensor over runs × topics × depth × intents, the true
length of every ranking (so a ranking truncated at 3 documents is not the same as one padded
with non-relevant documents), and the per-topic facts of the judgments (:class:`Topics`). It
comes from files through :meth:`cranfield.evaluation.collection.Collection.batch`, or is built directly
(:meth:`Batch.from_labels`) for synthetic rankings and resampling, without touching files.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from cranfield.errors import check_int, invalid


# --------------------------------------------------------------------------- argument checks
def _array(value: Any, what: str) -> np.ndarray:
    """``value`` as an array; a ragged nesting of lists is refused."""
    try:
        return np.asarray(value)
    except ValueError:
        raise invalid(what, "a rectangular array (equal-length rows)", value) from None


def _integers(value: Any, what: str) -> np.ndarray:
    """``value`` as an array of integers: booleans are 0/1 and whole floats their integer; text,
    objects, fractions, NaN and infinities are refused (TypeError for the wrong type)."""
    a = _array(value, what)
    if a.dtype.kind in "iu":
        return a
    if a.dtype.kind == "b":
        return a.astype(np.int8)
    if a.dtype.kind == "f":
        whole = np.isfinite(a) & (np.floor(a) == a) & (np.abs(a) < 2.0**63)
        if not whole.all():
            raise invalid(what, "integers", a[~whole].flat[0].item())
        return a.astype(np.int64)
    raise TypeError(f"The {what} must be an array of integers. Got an array of {a.dtype} instead.")


def _flags(value: Any, what: str) -> np.ndarray:
    """``value`` as an array of booleans (0 and 1 are accepted)."""
    a = _array(value, what)
    if a.dtype.kind == "b":
        return a
    if a.dtype.kind in "iuf" and np.isin(a, (0, 1)).all():
        return a.astype(bool)
    if a.dtype.kind in "iuf":
        raise invalid(what, "booleans (or 0 and 1)", a[~np.isin(a, (0, 1))].flat[0].item())
    raise TypeError(f"The {what} must be an array of booleans. Got an array of {a.dtype} instead.")


def _weights(value: Any, what: str) -> np.ndarray:
    """``value`` as an array of finite numbers >= 0."""
    a = _array(value, what)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"The {what} must be an array of numbers. Got an array of {a.dtype} instead.")
    a = a.astype(np.float64)
    bad = ~np.isfinite(a) | (a < 0)
    if bad.any():
        raise invalid(what, "finite numbers >= 0", a[bad].flat[0].item())
    return a


def _fits(shape: tuple[int, ...], sizes: tuple[int | None, ...]) -> bool:
    """Whether ``shape`` has ``len(sizes)`` axes of the given sizes (None: any)."""
    return len(shape) == len(sizes) and all(n is None or n == m for n, m in zip(sizes, shape, strict=True))


def _shaped(a: np.ndarray, what: str, sizes: tuple[int | None, ...], layout: str) -> np.ndarray:
    """``a`` if it has ``len(sizes)`` axes of the given sizes (None: any), else an error naming
    the expected ``layout``."""
    if not _fits(a.shape, sizes):
        raise invalid(what, f"an array of shape {layout}", a.shape)
    return a


def _broadcast(a: np.ndarray, what: str, shape: tuple[int, ...], layout: str) -> np.ndarray:
    """``a`` broadcast to ``shape`` (a scalar or a smaller array that broadcasts is accepted)."""
    try:
        return np.broadcast_to(a, shape)
    except ValueError:
        raise invalid(what, f"an array of shape {layout}", a.shape) from None


def _ratings(value: Any, what: str) -> np.ndarray:
    """Judgment labels: integers, or finite numbers (TREC DD's combined passage ratings)."""
    a = _array(value, what)
    if a.dtype.kind != "f":
        return _integers(a, what)
    if not np.isfinite(a).all():
        raise invalid(what, "finite numbers", a[~np.isfinite(a)].flat[0].item())
    return a


def _max_rel(value: Any) -> int:
    """The highest label, a 64-bit integer >= 0."""
    return check_int(value, "max_rel", low=0, high=int(np.iinfo(np.int64).max))


def _per_topic(value: Any, what: str, n: int) -> np.ndarray:
    """A count per topic: integers >= 0, shape (T,)."""
    a = _shaped(_integers(value, what), what, (n,), f"(T,) = ({n},)")
    if (a < 0).any():
        raise invalid(what, "integers >= 0", int(a.min()))
    return a.astype(np.int64)


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

    def __post_init__(self) -> None:
        """The arrays agree on T topics and I intents (a cheap check of shapes, not of values)."""
        shapes = {name: np.shape(getattr(self, name)) for name in
                  ("ideal", "ideal_intent", "num_judged", "weights", "rel_docs", "nav", "judged_nonneg")}
        t, n_int = shapes["weights"] if len(shapes["weights"]) == 2 else (-1, -1)
        expected = {"ideal": (t, None), "ideal_intent": (t, n_int, None), "num_judged": (t,), "weights": (t, n_int),
                    "rel_docs": (t, None, n_int), "nav": (t, n_int),
                    "judged_nonneg": () if self.judged_nonneg is None else (t,)}
        if not all(_fits(shapes[k], sizes) for k, sizes in expected.items()):
            raise invalid("Topics arrays", "ideal (T, K), ideal_intent (T, I, K'), num_judged (T,), weights (T, I), "
                          "rel_docs (T, J, I), nav (T, I) and judged_nonneg (T,) or None", shapes)

    @classmethod
    def from_judgments(
        cls, doc_topic: np.ndarray, grades: np.ndarray, docno: np.ndarray, weights: np.ndarray,
        nav: np.ndarray, max_rel: int,
    ) -> Topics:
        """Build from the judged-document table: topic (an index into the T topics), grades (J, I)
        (integers, or finite numbers for TREC DD's combined passage ratings) and docno of each
        document, intent weights (T, I) and navigational flags (T, I)."""
        weights = _shaped(_weights(weights, "intent weights"), "intent weights", (None, None), "(T, I)")
        n_topics, n_int = weights.shape
        nav = _shaped(_flags(nav, "navigational flags"), "navigational flags", (n_topics, n_int),
                      f"(T, I) = {weights.shape}")
        grades = _shaped(_ratings(grades, "grades"), "grades", (None, n_int), f"(J, I) with I = {n_int}")
        n_docs = grades.shape[0]
        doc_topic = _shaped(_integers(doc_topic, "document topics"), "document topics", (n_docs,),
                            f"(J,) = ({n_docs},)")
        if doc_topic.size and not (0 <= doc_topic.min() and doc_topic.max() < n_topics):
            raise invalid("document topics", f"topic indices in [0, {n_topics})", int(doc_topic.max()))
        docno = _shaped(_array(docno, "docnos"), "docnos", (n_docs,), f"(J,) = ({n_docs},)")
        max_rel = _max_rel(max_rel)
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
    def from_ideal(cls, ideal: np.ndarray, *, num_judged: np.ndarray | None = None,
                   max_rel: int | None = None) -> Topics:
        """Ad hoc topics given their positive grades (T, K), integers; for synthetic experiments.
        ``num_judged`` (T,) defaults to the positive grades, ``max_rel`` to the largest grade."""
        ideal = _shaped(_integers(ideal, "ideal grades"), "ideal grades", (None, None), "(T, K)")
        ideal = -np.sort(-np.maximum(ideal, 0), axis=1)
        n = ideal.shape[0]
        judged = (ideal > 0).sum(axis=1) if num_judged is None else _per_topic(num_judged, "num_judged", n)
        top = int(ideal.max()) if ideal.size else 1
        return cls(ideal, ideal[:, None, :], judged.astype(np.int64), np.ones((n, 1)),
                   top if max_rel is None else _max_rel(max_rel), ideal[:, :, None],
                   np.zeros((n, 1), dtype=bool))

    @classmethod
    def from_intent_labels(
        cls, rel_docs: np.ndarray, *, weights: np.ndarray | None = None, nav: np.ndarray | None = None,
        num_judged: np.ndarray | None = None, max_rel: int | None = None,
    ) -> Topics:
        """Topics given the per-intent labels of their relevant documents, shape (T, J, I)
        (documents in tie-break order: the first of equals wins a greedy ideal); for
        synthetic experiments such as the axiomatic enumeration. ``weights`` (T, I) default to
        uniform, ``nav`` (T, I) to informational intents, ``num_judged`` (T,) to the relevant
        documents and ``max_rel`` to the largest label."""
        rel_docs = _shaped(_integers(rel_docs, "intent labels"), "intent labels", (None, None, None), "(T, J, I)")
        n, _, n_int = rel_docs.shape
        layout = f"(T, I) = ({n}, {n_int})"
        w = np.full((n, n_int), 1.0 / max(n_int, 1)) if weights is None else \
            _shaped(_weights(weights, "intent weights"), "intent weights", (n, n_int), layout)
        adhoc = rel_docs.max(axis=2, initial=0) if n_int else np.zeros(rel_docs.shape[:2], dtype=rel_docs.dtype)
        ideal = -np.sort(-np.maximum(adhoc, 0), axis=1)
        ideal_intent = -np.sort(-np.maximum(rel_docs, 0).transpose(0, 2, 1), axis=2)
        judged = (adhoc > 0).sum(axis=1) if num_judged is None else _per_topic(num_judged, "num_judged", n)
        top = int(rel_docs.max()) if rel_docs.size else 1
        flags = np.zeros((n, n_int), dtype=bool) if nav is None else \
            _shaped(_flags(nav, "navigational flags"), "navigational flags", (n, n_int), layout)
        return cls(ideal, ideal_intent, judged.astype(np.int64), w,
                   top if max_rel is None else _max_rel(max_rel), rel_docs, flags)

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

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A per-topic quantity computed once per set of parameters (greedy ideals, the topics
        of each intent)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def cached_prefix(self, key: tuple, depth: int, compute: Callable[[int], np.ndarray]) -> np.ndarray:
        """The first ``depth`` columns of a per-topic list whose prefixes do not depend on its
        length (a greedy ideal list), shape (T, depth): ``compute(depth)`` runs only when no
        list at least that deep is cached. ``depth`` must not exceed the list's full length."""
        known = self.cache.get(key)
        if known is None or known.shape[1] < depth:
            known = self.cache[key] = compute(depth)
        return known[:, :depth]

    def take(self, topics: slice | np.ndarray) -> Topics:
        """The facts of a subset of the topics."""
        return Topics(
            self.ideal[topics], self.ideal_intent[topics], self.num_judged[topics],
            self.weights[topics], self.max_rel, self.rel_docs[topics], self.nav[topics],
            None if self.judged_nonneg is None else self.judged_nonneg[topics],
        )

    def per_intent(self) -> Topics:
        """Each (topic, intent) as a topic of its own, T·I of them (for intent-aware measures)."""
        n, n_int = self.weights.shape
        ideal = self.ideal_intent.reshape(n * n_int, self.ideal_intent.shape[2])
        docs = self.rel_docs.transpose(0, 2, 1).reshape(n * n_int, self.rel_docs.shape[1], 1)
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
    judged_by : ndarray of int64, shape (S, T, D), or None
        With layered qrels (docs/judges.md#layered), the source of each ranked document's label,
        a code into ``judges`` (-1: unjudged or past the end); None otherwise.
    judges : tuple of str
        The sources of layered qrels.
    """

    labels: np.ndarray
    judged: np.ndarray
    length: np.ndarray
    present: np.ndarray
    topics: Topics
    iteration: np.ndarray | None = None
    judged_by: np.ndarray | None = None
    judges: tuple[str, ...] = ()
    cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)
    """Quantities several measures derive from these rankings (novelty gains, the intents folded
    into topics), computed once per batch (:meth:`cached_prefix`); never copied to another batch."""

    def __post_init__(self) -> None:
        """The arrays agree with each other and with the topics (a cheap check of shapes and
        types, not of values)."""
        if not isinstance(self.topics, Topics):
            raise TypeError(f"The topics of a Batch must be a Topics. Got {type(self.topics).__name__} instead.")
        shape = np.shape(self.labels)
        s, t, d, n_int = shape if len(shape) == 4 else (-1, -1, -1, -1)
        shapes = {"labels": (s, t, d, n_int), "judged": (s, t, d), "length": (s, t), "present": (s, t),
                  "iteration": (s, t, d), "judged_by": (s, t, d)}
        got = {k: np.shape(getattr(self, k)) for k in shapes if getattr(self, k) is not None}
        if s < 0 or t != len(self.topics) or n_int != self.topics.weights.shape[1] or \
                any(got[k] != shapes[k] for k in got) or np.asarray(self.labels).dtype.kind not in "iuf":
            raise invalid("Batch arrays", f"labels (S, T, D, I) of numbers with T = {len(self.topics)} topics and "
                          f"I = {self.topics.weights.shape[1]} intents, judged (S, T, D), length and present (S, T), "
                          "iteration (S, T, D) or None", got)

    @classmethod
    def from_labels(
        cls, labels: np.ndarray, topics: Topics, *, length: np.ndarray | None = None,
        judged: np.ndarray | None = None, iteration: np.ndarray | None = None,
    ) -> Batch:
        """A batch of synthetic rankings given their integer labels, shape (S, T, D) or
        (S, T, D, I), for the T topics of ``topics`` and its I intents (3-D labels: I = 1).

        ``length`` (S, T) defaults to D for every ranking (no truncation) and ``judged``
        (S, T, D) to True within the length; labels past a ranking's length are set to 0.
        ``iteration`` (S, T, D) numbers the search iterations (TREC DD). Shapes, types and
        values are checked: a ValueError (TypeError for a wrong type) says what was expected.
        """
        if not isinstance(topics, Topics):
            raise TypeError(f"The topics must be a Topics (Topics.from_ideal, Topics.from_intent_labels or "
                            f"Collection.topics). Got {type(topics).__name__} instead.")
        labels = _integers(labels, "labels")
        n_topics, n_int = topics.weights.shape
        layout = f"(S, T, D, I) with T = {n_topics} topics and I = {n_int} intents" + \
            (" (or (S, T, D))" if n_int == 1 else "")
        if labels.ndim == 3 and n_int == 1:
            labels = labels[..., None]
        _shaped(labels, "labels", (None, n_topics, None, n_int), layout)
        s, t, d, _ = labels.shape
        if length is None:
            length = np.full((s, t), d, dtype=np.int64)
        else:
            length = _broadcast(_integers(length, "lengths"), "lengths", (s, t), f"(S, T) = ({s}, {t})")
            length = length.astype(np.int64)
            if (length < 0).any():
                raise invalid("lengths", "integers >= 0", int(length.min()))
        inside = np.arange(d) < np.minimum(length, d)[..., None]  # (S, T, D)
        if not inside.all():  # nothing lies past the end of a ranking
            labels = np.where(inside[..., None], labels, 0)
        ranked = f"(S, T, D) = ({s}, {t}, {d})"
        if judged is None:
            judged = inside
        else:
            judged = _broadcast(_flags(judged, "judged flags"), "judged flags", (s, t, d), ranked) & inside
        if iteration is not None:
            iteration = _broadcast(_integers(iteration, "iteration"), "iteration", (s, t, d), ranked)
            iteration = np.where(inside, iteration, -1)
        return cls(labels, judged, length, np.ones((s, t), dtype=bool), topics, iteration)

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A quantity of these rankings computed once per set of parameters, whichever measure
        asks first (the others of the same evaluation reuse it)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def cached_prefix(self, key: tuple, depth: int, compute: Callable[[int], np.ndarray]) -> np.ndarray:
        """The first ``depth`` ranks (the last axis) of a per-rank quantity whose prefixes do not
        depend on how deep it is computed (novelty gains), as a C-contiguous array: the same
        array, bit for bit, as ``compute(depth)``, which runs only when no deeper one is cached."""
        known = self.cache.get(key)
        if known is None or known.shape[-1] < depth:
            known = self.cache[key] = compute(depth)
            known.flags.writeable = False  # shared by the measures: none may change it
        return known if known.shape[-1] == depth else np.ascontiguousarray(known[..., :depth])

    @property
    def shape(self) -> tuple[int, int, int, int]:
        return self.labels.shape

    @property
    def depth(self) -> int:
        return int(self.labels.shape[2])

    @cached_property
    def grades(self) -> np.ndarray:
        """Ad hoc label of each ranked document (the largest over intents), shape (S, T, D)."""
        return self.labels.max(axis=3) if self.labels.shape[3] > 1 else self.labels[..., 0]


@dataclass(frozen=True, eq=False)
class SampledBatch:
    """Stochastic rankings as dense arrays: P ranking policies × N samples of each over T topics
    (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020), with the document identities and
    groups that exposure needs (docs/fairness.md, docs/architecture.md).

    Attributes
    ----------
    batch : Batch
        The samples as a batch of P·N rankings: row ``p·N + n`` is sample ``n`` of policy ``p``;
        ``batch.present`` says whether the policy has that sample for the topic.
    policies : int
        P.
    doc : ndarray of int64, shape (P·N, T, D)
        Each ranked document's code, 0..U−1, and U past the end of a ranking: equal codes are the
        same document of the same policy and topic, in any sample. (U, one past the last code,
        lets a per-code table with one more entry, or a count with one more bin, take every rank
        without a mask.)
    cell : ndarray of int64, shape (U,)
        The (policy, topic) of each code, ``p·T + t``.
    grade : ndarray, shape (U,)
        Each code's grade (its largest label over intents; 0 if unjudged).
    groups : ndarray of float64, shape (U, G)
        Each code's group weights (a zero row: in no group); G = 0 without groups.
    target : ndarray of float64, shape (T, G)
        The target distribution over groups of each topic (NaN where undefined).
    relevant_groups : ndarray of float64, shape (T, K, G)
        The group weights of each topic's relevant documents, in the order of ``topics.ideal``.
    group_ids : tuple of str
    """

    batch: Batch
    policies: int
    doc: np.ndarray
    cell: np.ndarray
    grade: np.ndarray
    groups: np.ndarray
    target: np.ndarray
    relevant_groups: np.ndarray
    group_ids: tuple[str, ...] = ()
    cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def from_batch(cls, batch: Batch) -> SampledBatch:
        """Each ranking of ``batch`` as a policy with one sample (deterministic rankings), without groups."""
        s, t, d = batch.judged.shape
        u = s * t * d
        inside = np.arange(d) < np.minimum(batch.length, d)[..., None]
        doc = np.where(inside, np.arange(u).reshape(s, t, d), u)
        cell = np.repeat(np.arange(s * t), d)
        k = batch.topics.ideal.shape[1]
        return cls(batch, s, doc, cell, np.maximum(batch.grades, 0).reshape(-1), np.zeros((u, 0)), np.zeros((t, 0)),
                   np.zeros((t, k, 0)))

    @property
    def codes(self) -> int:
        """U, the number of document codes (the code of the ranks past the end)."""
        return int(self.cell.size)

    @property
    def samples(self) -> int:
        """N, the sample slots of each policy."""
        return self.batch.labels.shape[0] // max(self.policies, 1)

    def per_policy(self, x: np.ndarray) -> np.ndarray:
        """An array over the P·N samples (first axis) as (P, N, ...)."""
        return x.reshape((self.policies, self.samples) + x.shape[1:])

    @property
    def n_samples(self) -> np.ndarray:
        """The samples of each policy and topic, shape (P, T) (0: the topic is missing)."""
        return self.per_policy(self.batch.present).sum(axis=1)

    def cached(self, key: tuple, compute: Callable[[], Any]) -> Any:
        """A quantity computed once per set of parameters, whichever measure asks first."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]
