"""A test collection compiled once: the qrels of every topic as arrays ready for the kernels.

:class:`Collection` holds the judged documents of all topics in one table sorted by a 64-bit
(topic, docno) key, so any number of runs are joined to it with one ``searchsorted`` each,
and the per-topic quantities every measure needs (relevant counts, ideal grade vectors,
intent weights). Runs meet it in :meth:`Collection.batch`, which returns the dense
:class:`~cranfield.batch.Batch` the measure kernels read.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cranfield.batch import Batch, Topics, adhoc_labels
from cranfield.errors import CranfieldError, InputError, check_choice, listing, warn
from cranfield.io import Intents, Qrels, Run
from cranfield.io._tokens import doc_keys
from cranfield.io.run import topic_doc_keys

INTENT_SCHEMES = ("uniform", "nonuniform")


def is_intent_scheme(value: Any) -> bool:
    """Whether ``value`` names intent probabilities (:data:`INTENT_SCHEMES`) instead of an intent file."""
    return isinstance(value, str) and value in INTENT_SCHEMES


def nonuniform_probabilities(n: int) -> np.ndarray:
    """Sakai's non-uniform intent probabilities (Sakai, WWW 2012, Table 1, after Sakai & Song, 2011):
    the j-th of n intents gets 2^(n−j+1) / Σ_{k=1..n} 2^k, so each intent is twice as likely as the next.

    >>> nonuniform_probabilities(3).tolist() == [8 / 14, 4 / 14, 2 / 14]
    True
    """
    j = np.arange(1, n + 1, dtype=np.float64)
    w = np.exp2(n - j + 1)
    return w / w.sum() if n else w


def natural_key(topic: str) -> tuple[int, int, str]:
    """Sort integer-like topic ids numerically, before other ids sorted as text."""
    try:
        return (0, int(topic), topic)
    except ValueError:
        return (1, 0, topic)


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
    nav : ndarray of bool, shape (T, I)
        Navigational intents (the others are informational).
    typed : bool
        Whether intent types were given at all.
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
    nav: np.ndarray
    typed: bool
    max_rel: int
    diversity: bool
    source: str

    @classmethod
    def from_qrels(
        cls, qrels: Qrels, *, intents: Intents | str | None = None,
        intent_types: Mapping[tuple[str, str], str] | None = None, empty_intents: str = "drop",
    ) -> Collection:
        """Compile :class:`~cranfield.io.Qrels`; every qrels topic becomes an evaluated topic.

        Intents (docs/conventions.md#intents): a topic's declared intents are those of the intent file when one
        is given, otherwise its intent ids in the qrels. Intents without a relevant document
        are dropped with a warning and the remaining probabilities renormalised
        (``empty_intents="keep"`` keeps them); without an intent file the weights are uniform,
        1/M', or with ``intents="nonuniform"`` Sakai's 2^(M'−j+1)/Σ_k 2^k for the j-th intent in
        intent-id order (:func:`nonuniform_probabilities`). Intent types come from the intent file's
        fourth column or ``intent_types``; untyped intents are informational. Topics of the intent
        file that the qrels lack are ignored, with a warning.
        """
        check_choice(empty_intents, "empty_intents option", ("drop", "keep"))
        scheme = "uniform"
        if isinstance(intents, str):
            scheme, intents = check_choice(intents, "intents", INTENT_SCHEMES), None
        order = sorted(range(len(qrels.topic_ids)), key=lambda t: natural_key(qrels.topic_ids[t]))
        remap = np.empty(len(order), dtype=np.int64)
        remap[order] = np.arange(len(order))
        topic_ids = tuple(qrels.topic_ids[t] for t in order)
        topic = remap[qrels.topic]
        if intents is not None:
            _warn_unjudged_topics(intents, topic_ids)

        pairs = _topic_intents(qrels, topic)
        declared = _declared_intents(qrels, topic_ids, pairs, intents, intent_types, empty_intents, scheme)
        names = [d.names for d in declared]
        n_int = max((len(x) for x in names), default=1) or 1
        local = {(t, name): k for t, x in enumerate(names) for k, name in enumerate(x)}
        pair_intent = np.array([local.get((t, qrels.intent_ids[i]), -1) for t, i in zip(pairs.topic, pairs.intent)],
                               dtype=np.int64)
        row_intent = pair_intent[pairs.inverse]
        weights = np.zeros((len(topic_ids), n_int))
        nav = np.zeros((len(topic_ids), n_int), dtype=bool)
        for t, d in enumerate(declared):
            weights[t, : len(d.names)] = d.weights
            nav[t, : len(d.names)] = d.nav

        keys = topic_doc_keys(topic, doc_keys(qrels.docno))
        ukey, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        inverse = inverse.ravel()
        if (qrels.docno[first][inverse] != qrels.docno).any() or (topic[first][inverse] != topic).any():
            raise CranfieldError("two judged documents share a 64-bit key; please report this input")
        grades = np.zeros((ukey.size, n_int), dtype=_label_dtype(qrels.rel))
        keep = row_intent >= 0
        grades[inverse[keep], row_intent[keep]] = qrels.rel[keep]
        max_rel = max(int(np.ceil(qrels.rel.max())), 0) if qrels.rel.size else 0  # all-negative qrels: 0
        typed = bool(intent_types) or (intents is not None and any(k is not None for k in intents.kind))
        return cls(
            topic_ids=topic_ids,
            intent_ids=tuple(tuple(x) for x in names),
            grades=grades,
            doc_topic=topic[first],
            docno=qrels.docno[first],
            key=ukey,
            weights=weights,
            nav=nav,
            typed=typed,
            max_rel=max_rel,
            diversity=qrels.diversity,
            source=qrels.source,
        )

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    @cached_property
    def labels(self) -> np.ndarray:
        """Each judged document's label over all intents (the largest), shape (J,)."""
        return adhoc_labels(self.grades)

    @cached_property
    def topics(self) -> Topics:
        """Per-topic arrays for all topics (ideal grade vectors, judged counts, weights)."""
        return Topics.from_judgments(
            self.doc_topic, self.grades, self.docno, self.weights, self.nav, self.max_rel
        )

    @cached_property
    def _topic_index(self) -> dict[str, int]:
        return {t: k for k, t in enumerate(self.topic_ids)}

    @cached_property
    def _slots(self) -> tuple[np.uint64, np.ndarray, np.ndarray]:
        return key_slots(self.key)

    def lookup(self, topic: np.ndarray, doc_key: np.ndarray, docno: np.ndarray) -> np.ndarray:
        """Row of each (topic index, docno) in the judged table, or -1 when unjudged."""
        out = np.full(topic.size, -1, dtype=np.int64)
        if self.key.size == 0:
            return out
        k = topic_doc_keys(topic, doc_key)
        pos, hit = find_keys(self.key, self._slots, k)
        found = np.flatnonzero(hit)
        row = pos[found].astype(np.int64)
        # equal keys of different documents are collisions, not matches
        same = (self.docno[row] == docno[found]) & (self.doc_topic[row] == topic[found])
        if same.all():
            out[found] = row
        else:
            out[found[same]] = row[same]
        return out

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
        iteration = np.full((len(runs), n_t, d), -1) if any(r.iteration is not None for r in runs) else None
        for s, row_topic, rank, run in parts:
            use = (row_topic >= t0) & (row_topic < t1) & (rank < d)
            rows: slice | np.ndarray = slice(None)
            if use.all():  # the whole run (no copies of its columns)
                j = self.lookup(row_topic, run.doc_key, run.docno)
            else:
                rows = np.flatnonzero(use)
                j = self.lookup(row_topic[rows], run.doc_key[rows], run.docno[rows])
            # every row is written: an unjudged document (j = -1) takes the zero row after the grades
            cell = (row_topic[rows] - t0) * d + rank[rows]
            records(labels[s])[cell] = self._grade_records.take(j)
            judged[s].reshape(-1)[cell] = j >= 0
            if iteration is not None:
                iteration[s, row_topic[rows] - t0, rank[rows]] = (
                    run.iteration[rows] if run.iteration is not None else rank[rows] * 0
                )
        return Batch(labels, judged, length, present, self.topic_block(t0, t1), iteration)

    @cached_property
    def _grade_records(self) -> np.ndarray:
        """The grade rows as :func:`records`, with a row of zeros appended: row -1 is an unjudged
        document's."""
        return records(np.concatenate((self.grades, np.zeros((1, self.grades.shape[1]), dtype=self.grades.dtype))))

    def topic_block(self, start: int, stop: int) -> Topics:
        """The facts of topics ``start:stop``, kept so that what a measure caches on them
        (greedy ideal lists) is computed once for all runs."""
        key = (start, stop)
        if key not in self._blocks:
            self._blocks[key] = self.topics if key == (0, self.n_topics) else self.topics.take(slice(start, stop))
        return self._blocks[key]

    @cached_property
    def _blocks(self) -> dict[tuple[int, int], Topics]:
        return {}


def key_slots(key: np.ndarray) -> tuple[np.uint64, np.ndarray, np.ndarray]:
    """A direct-address index over sorted 64-bit keys: the keys whose top ``bits`` bits are s
    are ``key[bounds[s]:bounds[s + 1]]`` (about one key per eight slots); ``crowded[s]``:
    slot s holds more than one key. ``bounds`` is clipped to the last key, so that
    ``key[bounds[s]]`` is always a key (the first of slot s when it has any)."""
    bits = int(min(max(np.ceil(np.log2(max(key.size, 1))) + 3, 1), 24))
    shift = np.uint64(64 - bits)
    bounds = np.searchsorted(key >> shift, np.arange(2**bits + 1, dtype=np.uint64))
    crowded = np.diff(bounds) > 1
    return shift, np.minimum(bounds[:-1], max(key.size - 1, 0)).astype(np.int32), crowded


def find_keys(key: np.ndarray, slots: tuple[np.uint64, np.ndarray, np.ndarray], k: np.ndarray
              ) -> tuple[np.ndarray, np.ndarray]:
    """The position of each of ``k`` in the sorted non-empty ``key`` (indexed by :func:`key_slots`), and
    whether it is there: one direct look-up per key, a binary search only in crowded slots."""
    shift, first, crowded = slots
    slot = k >> shift
    pos = first[slot]
    hit = key[pos] == k
    again = np.flatnonzero(crowded[slot] & ~hit)  # one pass over the keys, not a gather of the misses
    if again.size:  # slots holding several keys: binary search among them
        pos[again] = np.minimum(np.searchsorted(key, k[again]), key.size - 1)
        hit[again] = key[pos[again]] == k[again]
    return pos, hit


def records(rows: np.ndarray) -> np.ndarray:
    """A C-contiguous array's last axis as one opaque item each, in a 1-D view: numpy gathers and
    scatters such items (one intent vector of a document) several times faster than rows of a
    2-D array."""
    if not rows.flags.c_contiguous:  # a copy would take the writes
        raise ValueError("records() needs a C-contiguous array")
    return rows.view(np.dtype((np.void, rows.shape[-1] * rows.itemsize))).reshape(-1)


def _label_dtype(rel: np.ndarray) -> np.dtype:
    """The narrowest signed integer type holding every label (keeps big batches small)."""
    if rel.size == 0:
        return np.dtype(np.int8)
    if rel.dtype.kind == "f":  # combined passage ratings (TREC DD)
        return np.dtype(np.float64)
    low, high = int(min(rel.min(), 0)), int(rel.max())
    return next(np.dtype(t) for t in (np.int8, np.int16, np.int32, np.int64)
                if np.iinfo(t).min <= low and high <= np.iinfo(t).max)


def _warn_unjudged_topics(intents: Intents, topic_ids: tuple[str, ...]) -> None:
    """Warn that the intent file's topics absent from the qrels are ignored (how many, and some)."""
    known = set(topic_ids)
    absent = sorted({t for t in intents.topic if t not in known}, key=natural_key)
    if absent:
        warn(f"{intents.source}: {len(absent)} topics of the intent file are not in the qrels and are "
             f"ignored: {listing(absent, 5)}")


class _Pairs(NamedTuple):
    """The distinct (topic, intent) pairs of the qrels rows, in order of first appearance."""

    topic: list[int]
    intent: list[int]
    relevant: list[bool]
    """Whether the pair has a document with a label > 0."""
    inverse: np.ndarray
    """The pair of each qrels row, shape (n,)."""


def _topic_intents(qrels: Qrels, topic: np.ndarray) -> _Pairs:
    """The (topic index, intent code) pairs of the rows, in order of first appearance, whether
    each has a relevant document, and each row's pair (one pass over the rows in numpy)."""
    n_codes = max(len(qrels.intent_ids), 1)
    code = topic.astype(np.int64) * n_codes + qrels.intent
    unique, first, inverse = np.unique(code, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(order.size, dtype=np.int64)
    rank[order] = np.arange(order.size)
    relevant = np.bincount(inverse.ravel(), weights=qrels.rel > 0, minlength=unique.size) > 0
    unique = unique[order]
    return _Pairs((unique // n_codes).tolist(), (unique % n_codes).tolist(), relevant[order].tolist(),
                  rank[inverse.ravel()])


@dataclass(frozen=True)
class _Declared:
    names: list[str]
    weights: np.ndarray
    nav: np.ndarray


def _declared_intents(
    qrels: Qrels, topic_ids: tuple[str, ...], pairs: _Pairs, intents: Intents | None,
    intent_types: Mapping[tuple[str, str], str] | None, empty_intents: str, scheme: str = "uniform",
) -> list[_Declared]:
    """Each topic's intents, probabilities and types after the rules of docs/conventions.md#intents."""
    n_topics = len(topic_ids)
    in_qrels: list[dict[str, bool]] = [{} for _ in range(n_topics)]  # intent -> has a relevant doc
    for t, code, rel in zip(pairs.topic, pairs.intent, pairs.relevant):
        in_qrels[t][qrels.intent_ids[code]] = rel
    if not qrels.diversity:
        return [_Declared(list(x), np.ones(len(x)), np.zeros(len(x), dtype=bool)) for x in in_qrels]

    from_file: dict[str, dict[str, tuple[float, str | None]]] = {}
    if intents is not None:
        for q, i, p, k in zip(intents.topic, intents.intent, intents.probability.tolist(), intents.kind):
            from_file.setdefault(q, {})[i] = (p, k)
    types = dict(intent_types or {})
    out, unlisted = [], []
    dropped: list[str] = []
    untyped: list[str] = []
    renormalised: list[str] = []
    for t, qid in enumerate(topic_ids):
        listed = from_file.get(qid)
        if listed is not None:
            total = sum(p for p, _ in listed.values())
            if abs(total - 1) > 1e-3:
                raise InputError(intents.source, None,  # type: ignore[union-attr]
                                 f"the intent probabilities of topic {qid!r} sum to {total:.6g}, not 1")
            if abs(total - 1) > 1e-6:
                renormalised.append(f"{qid} ({total:.6g})")
            missing = [i for i, rel in in_qrels[t].items() if rel and i not in listed]
            if missing:
                raise InputError(intents.source, None,  # type: ignore[union-attr]
                                 f"topic {qid!r}: intents {', '.join(sorted(missing, key=natural_key))} have "
                                 "relevant documents but are not in the intent file")
            candidates = {i: p for i, (p, _) in listed.items() if p > 0}  # probability 0: not an intent
            for i, (_, k) in listed.items():
                if k is not None:
                    types.setdefault((qid, i), k)
        else:
            if intents is not None:
                unlisted.append(qid)
            candidates = {i: 1.0 for i in in_qrels[t]}
        names = sorted(candidates, key=natural_key)
        if empty_intents == "drop":
            gone = [i for i in names if not in_qrels[t].get(i, False)]
            dropped.extend(f"{qid}/{i}" for i in gone)
            names = [i for i in names if in_qrels[t].get(i, False)]
        w = np.array([candidates[i] for i in names], dtype=np.float64)
        if scheme == "nonuniform":
            w = nonuniform_probabilities(len(names))
        w = w / w.sum() if w.sum() > 0 else w
        if types or intents is not None:
            untyped.extend(f"{qid}/{i}" for i in names if (qid, i) not in types)
        nav = np.array([types.get((qid, i)) == "nav" for i in names], dtype=bool)
        out.append(_Declared(names, w, nav))
    if renormalised:  # one warning for the file (rounded probabilities are common), not one per topic
        warn(f"{intents.source}: the intent probabilities of {len(renormalised)} topic"  # type: ignore[union-attr]
             f"{'s' * (len(renormalised) != 1)} do not sum to 1 and are renormalised: {listing(renormalised)}")
    if dropped:
        warn(f"{qrels.source}: intents without relevant documents are dropped: {listing(dropped)}")
    if unlisted:
        warn(f"topics not in the intent file use their qrels intents with uniform weights: {listing(unlisted)}")
    if untyped and (types or any(k for k in (intents.kind if intents else ()))):
        warn(f"intents without a type are taken as informational: {listing(untyped)}")
    return out


def load_collection(
    qrels: Any, *, diversity: bool | None = None, intents: Any = None, intent_types: Any = None,
    empty_intents: str = "drop",
) -> Collection:
    """A :class:`~cranfield.evaluation.collection.Collection` from a path, dict, DataFrame, Qrels or Collection.

    The options are those of :class:`~cranfield.evaluation.evaluator.Evaluator` (an intent file implies
    diversity qrels).
    """
    if isinstance(qrels, Collection):
        return qrels
    from cranfield.io import as_intent_types, as_qrels, read_intents

    if intents is not None and diversity is None and not is_intent_scheme(intents):
        diversity = True
    if isinstance(intents, (str, Path)) and not is_intent_scheme(intents):
        intents = read_intents(intents)
    loaded = as_qrels(qrels, diversity=diversity)
    return Collection.from_qrels(loaded, intents=intents, intent_types=as_intent_types(intent_types, loaded),
                                 empty_intents=empty_intents)
