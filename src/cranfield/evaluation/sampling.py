"""Stochastic runs joined to the judgments: the :class:`~cranfield.batch.SampledBatch` of a block
of topics, with document identities, group weights and target distributions (docs/fairness.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.batch import Batch, SampledBatch
from cranfield.errors import CranfieldError, listing, warn
from cranfield.evaluation.collection import Collection
from cranfield.io import Run
from cranfield.io.run import topic_doc_keys
from cranfield.io.stochastic import Groups, Target, list_rows, read_groups, read_target

TARGETS = ("uniform", "relevant")


@dataclass(frozen=True, eq=False)
class Fairness:
    """What exposure-based fairness needs beyond the qrels: the document groups and the target
    distribution over them (``uniform``, ``relevant`` or a :class:`Target`)."""

    groups: Groups | None
    target: str | Target
    group_ids: tuple[str, ...]

    @classmethod
    def of(cls, groups: Any, target: Any) -> Fairness:
        """From a groups path or :class:`Groups` (or None) and ``"uniform"``, ``"relevant"``, a
        target path or :class:`Target`."""
        if isinstance(groups, (str, Path)):
            groups = read_groups(groups)
        if target is None:
            target = "uniform"
        if isinstance(target, (str, Path)) and str(target) not in TARGETS:
            target = read_target(target)
        if groups is None and isinstance(target, Target):
            raise CranfieldError("a target distribution (--target) needs document groups (--groups)")
        ids = list(groups.group_ids) if groups is not None else []
        if isinstance(target, Target):
            ids += [g for table in target.weights.values() for g in table if g not in ids]
        return cls(groups, target, tuple(dict.fromkeys(ids)))

    def provenance(self) -> dict[str, str]:
        """The groups file and the target, for the results' provenance."""
        target = self.target if isinstance(self.target, str) else self.target.source
        return {"groups": self.groups.source, "target": target} if self.groups is not None else {}

    def targets(self, coll: Collection, relevant: np.ndarray) -> np.ndarray:
        """The target distribution of every topic, (T, G); NaN rows where it is undefined (a
        topic without relevant grouped documents under ``relevant``, a topic the target file
        leaves out), with a warning. ``relevant`` (T, K, G): the relevant documents' groups."""
        g = len(self.group_ids)
        if self.target == "uniform":
            return np.full((coll.n_topics, g), 1.0 / max(g, 1))
        if self.target == "relevant":
            mass = np.add.reduce(relevant, axis=1)
        else:
            assert isinstance(self.target, Target)
            default = self.target.weights.get(None)
            rows = [self.target.weights.get(t, default) for t in coll.topic_ids]
            mass = np.array([[np.nan] * g if r is None else [r.get(name, 0.0) for name in self.group_ids]
                             for r in rows]).reshape(coll.n_topics, g)
        total = mass.sum(axis=1, keepdims=True)
        bad = ~(total[:, 0] > 0)
        if bad.any():
            why = ("no relevant document in a group" if self.target == "relevant"
                   else "no target in " + getattr(self.target, "source", "the target"))
            names = [coll.topic_ids[t] for t in np.flatnonzero(bad)]
            warn(f"{len(names)} topics have no target group distribution ({why}): AWRF and nDCG*AWRF are "
                 f"undefined there and left out of the mean: {listing(names)}")
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(bad[:, None], np.nan, mass / np.where(total > 0, total, 1.0))

    def weights(self, docno: np.ndarray) -> np.ndarray:
        """Group weights of documents, (n, G)."""
        g = len(self.group_ids)
        if self.groups is None:
            return np.zeros((docno.size, g))
        w = self.groups.matrix(docno if docno.dtype.kind == "S" else np.array(docno.tolist(), dtype="S"))
        return np.pad(w, ((0, 0), (0, g - w.shape[1])))


def relevant_groups(coll: Collection, fair: Fairness) -> np.ndarray:
    """The group weights of each topic's relevant documents, (T, K, G), in the order of the
    collection's ideal grades (grade descending)."""
    label = coll.labels
    rel = np.flatnonzero(label > 0)
    order = rel[np.lexsort((-label[rel], coll.doc_topic[rel]))]
    t = coll.doc_topic[order]
    counts = np.bincount(t, minlength=coll.n_topics)
    k = coll.topics.ideal.shape[1]
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    out = np.zeros((coll.n_topics, k, len(fair.group_ids)))
    out[t, np.arange(t.size) - starts[t]] = fair.weights(coll.docno[order])
    return out


def sampled_batch(coll: Collection, samples: list[Run], fair: Fairness, relevant: np.ndarray, target: np.ndarray,
                  *, depth: int | None, topics: slice) -> SampledBatch:
    """The :class:`SampledBatch` of one policy's samples (one :class:`Run` per sample slot) over a
    block of topics: a code per (topic, document) shared by all samples (64-bit keys, checked
    against the docno strings), and the labels of each code looked up in the judgments once
    (not once per sample), as :meth:`Collection.batch` looks them up."""
    t0, t1, _ = topics.indices(coll.n_topics)
    n, t = len(samples), t1 - t0
    length = np.zeros((n, t), dtype=np.int64)
    present = np.zeros((n, t), dtype=bool)
    parts = []
    for s, run in enumerate(samples):
        where = coll.topic_index(run)
        lists = np.flatnonzero((where >= t0) & (where < t1))
        lens = run.lengths[lists]
        length[s, where[lists] - t0] = lens
        present[s, where[lists] - t0] = True
        rows = list_rows(run.offsets, lists)
        starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
        parts.append((s, np.repeat(where[lists] - t0, lens), np.arange(rows.size) - np.repeat(starts, lens), rows,
                      run))
    longest = int(length.max()) if length.size else 0
    d = longest if depth is None else min(depth, longest)
    pieces = []
    for s, row_topic, rank, rows, run in parts:
        use = rank < d
        pieces.append((np.full(int(use.sum()), s), row_topic[use], rank[use], run.docno[rows[use]],
                       run.doc_key[rows[use]]))
    sample, topic, rank, docno, key = (np.concatenate([p[j] for p in pieces]) if pieces else np.zeros(0, np.int64)
                                       for j in range(5))
    if docno.dtype.kind != "S":
        docno = np.array(docno.tolist(), dtype="S") if docno.size else np.zeros(0, dtype="S1")
    key = key.astype(np.uint64)
    flat = (sample * t + topic) * d + rank
    permuted = _permutation_codes(flat, key, docno, (n, t, d))
    if permuted is not None:  # every sample ranks the same documents (the usual stochastic policy)
        doc, code_key, code_docno = permuted
        cell = np.repeat(np.arange(t, dtype=np.int64), d)
    else:
        keys = topic_doc_keys(topic.astype(np.int64), key)
        distinct = np.unique(keys)  # a sort of the keys alone; each row then finds its code by binary search
        code = np.searchsorted(distinct, keys)
        first = np.empty(distinct.size, dtype=np.int64)
        first[code] = np.arange(code.size)  # a row of each document
        if not bool((docno[first[code]] == docno).all()):  # a 64-bit collision: tell the documents apart by name
            _, first, code = np.unique(np.rec.fromarrays([topic, docno]), return_index=True, return_inverse=True)
            code = code.ravel()
        doc = np.full((n, t, d), -1, dtype=np.int64)
        doc.reshape(-1)[flat] = code
        cell, code_key, code_docno = topic[first].astype(np.int64), key[first], docno[first]
    used = np.zeros(cell.size, dtype=bool)
    used[doc[doc >= 0]] = True
    row = np.full(cell.size, -1, dtype=np.int64)
    row[used] = coll.lookup(cell[used] + t0, code_key[used], code_docno[used])
    grades = np.concatenate((coll.grades, np.zeros((1, coll.grades.shape[1]), dtype=coll.grades.dtype)))
    inside = doc >= 0
    code_at = np.where(inside, doc, cell.size)  # past the end: the zero row
    labels = grades[np.append(row, -1)[code_at]]
    judged = np.append(row >= 0, False)[code_at]
    batch = Batch(labels, judged, length, present, coll.topic_block(t0, t1))
    return SampledBatch(batch, 1, doc, cell, fair.weights(code_docno), target[topics], relevant[topics],
                        fair.group_ids)


def _permutation_codes(flat: np.ndarray, key: np.ndarray, docno: np.ndarray, shape: tuple[int, int, int]
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Document codes when every sample of a topic ranks the same documents: each ranking's keys
    sorted on their own (a sort of D keys per ranking, not of all rows), the j-th smallest key of
    topic t being code t·D + j; the key and docno of each code, shape (T·D,) each. None when
    some sample of a topic ranks other documents, or equal keys hide different docnos."""
    n, t, d = shape
    pad = np.iinfo(np.uint64).max
    filled = np.full(n * t * d, pad, dtype=np.uint64)
    filled[flat] = key
    dense = filled.reshape(n, t, d)
    order = np.argsort(dense, axis=2, kind="stable")
    ranked = np.take_along_axis(dense, order, axis=2)
    absent = (ranked == pad).all(axis=2)
    if not bool(((ranked == ranked[:1]) | absent[..., None]).all()):  # slot 0 has every topic that any slot has
        return None
    inside = ranked != pad
    doc = np.full((n, t, d), -1, dtype=np.int64)
    codes = np.broadcast_to(np.arange(t * d, dtype=np.int64).reshape(1, t, d), doc.shape)
    np.put_along_axis(doc, order, np.where(inside, codes, -1), axis=2)
    code = doc.reshape(-1)[flat]
    names = np.zeros(t * d, dtype=docno.dtype)
    names[code] = docno  # the docno of each code (any of its rows)
    if not bool((names[code] == docno).all()):  # equal keys of different documents: a 64-bit collision
        return None
    return doc, ranked[0].reshape(-1), names
