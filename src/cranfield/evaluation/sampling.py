"""Stochastic runs joined to the judgments: the :class:`~cranfield.batch.SampledBatch` of a block
of topics, with document identities, group weights and target distributions (docs/fairness.md)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.batch import Batch, SampledBatch
from cranfield.errors import CranfieldError, listing, warn
from cranfield.evaluation.collection import Collection, find_keys, key_slots, records
from cranfield.evaluation.options import TARGETS
from cranfield.io.run import topic_doc_keys
from cranfield.io.stochastic import Groups, SampledRun, Target, read_groups, read_target


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


def sampled_batch(coll: Collection, sampled: SampledRun, where: np.ndarray, fair: Fairness, relevant: np.ndarray,
                  target: np.ndarray, *, depth: int | None, topics: slice) -> SampledBatch:
    """The :class:`SampledBatch` of one policy over a block of topics, built straight from the
    whole stochastic run (``where``: the collection topic of each of its ranked lists, -1 if
    none): one scatter of every ranked document into the (samples, topics, depth) tensor, a code
    per (topic, document) shared by all samples (64-bit keys, checked against the docno
    strings), and the judgments and groups looked up once per code, not once per sample."""
    t0, t1, _ = topics.indices(coll.n_topics)
    run = sampled.run
    n, t = sampled.n_samples, t1 - t0
    lens = run.lengths
    lists = np.flatnonzero((where >= t0) & (where < t1))
    list_topic, slot = where[lists] - t0, sampled.sample[lists]
    length = np.zeros((n, t), dtype=np.int64)
    present = np.zeros((n, t), dtype=bool)
    length[slot, list_topic] = lens[lists]
    present[slot, list_topic] = True
    longest = int(length.max()) if length.size else 0
    d = longest if depth is None else min(depth, longest)
    count = np.minimum(lens[lists], d)
    rank = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    flat = rank + np.repeat((slot * t + list_topic) * d, count)
    row_topic = np.repeat(list_topic, count)
    if lists.size == lens.size and rank.size == run.docno.size:  # every row, in order: no copies
        key, docno = run.doc_key, run.docno
    else:
        rows = rank + np.repeat(run.offsets[lists], count)
        key, docno = run.doc_key[rows], run.docno[rows]
    if docno.dtype.kind != "S":
        docno = np.array(docno.tolist(), dtype="S") if docno.size else np.zeros(0, dtype="S1")
    key = key.astype(np.uint64, copy=False)
    code, first = _document_codes(topic_doc_keys(row_topic, key), np.repeat(slot == 0, count))
    if not _same_bytes(docno[first][code], docno):  # a 64-bit collision: tell the documents apart by name
        _, first, code = np.unique(np.rec.fromarrays([row_topic, docno]), return_index=True, return_inverse=True)
        code = code.ravel()
    doc = np.full((n, t, d), -1, dtype=np.int64)
    doc.reshape(-1)[flat] = code
    cell, code_docno = row_topic[first].astype(np.int64), docno[first]
    row = coll.lookup(cell + t0, key[first], code_docno)  # the join with the qrels, once per code
    grades = records(np.concatenate((coll.grades, np.zeros((1, coll.grades.shape[1]), dtype=coll.grades.dtype))))
    labels = np.zeros((n, t, d, coll.grades.shape[1]), dtype=coll.grades.dtype)
    records(labels)[flat] = grades.take(row)[code]
    judged = np.zeros((n, t, d), dtype=bool)
    judged.reshape(-1)[flat] = (row >= 0)[code]
    batch = Batch(labels, judged, length, present, coll.topic_block(t0, t1))
    return SampledBatch(batch, 1, doc, cell, fair.weights(code_docno), target[topics], relevant[topics],
                        fair.group_ids)


def _document_codes(keys: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A code per distinct key (0..U−1) for each of ``keys``, and a row holding each code. The
    distinct keys are first sought among the ``seed`` rows (one sample of each topic: a sort of
    T·D keys, then a direct look-up per row, :func:`key_slots`); only when some sample ranks a
    document that the seed rows lack are all the keys sorted."""
    distinct = np.unique(keys[seed])
    found = distinct.size > 0
    if found:
        pos, hit = find_keys(distinct, key_slots(distinct), keys)
        found = bool(hit.all())
    if not found:
        distinct = np.unique(keys)
        pos = np.searchsorted(distinct, keys)
    code = pos.astype(np.int64)
    first = np.empty(distinct.size, dtype=np.int64)
    first[code] = np.arange(code.size)  # a row of each document
    return code, first


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two byte-string arrays of one dtype are equal item by item (compared as raw bytes)."""
    return bool(np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)))
