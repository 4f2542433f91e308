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
from cranfield.io.stochastic import Groups, SampledRun, Target, read_groups, read_target

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


# ranked documents per block of topics: small enough that a block's arrays stay in the CPU's
# cache (every step of the exposure kernels is a pass over them), large enough that the
# per-block overhead stays small (docs/fairness.md#design-and-speed)
SAMPLED_CELL_BUDGET = 1 << 20


def block_topics(depth: int, samples: int, intents: int) -> int:
    """How many topics one :class:`SampledBatch` holds: :data:`SAMPLED_CELL_BUDGET` labels of
    ``samples`` rankings of ``depth`` documents with ``intents`` labels each (at least one topic)."""
    return max(1, SAMPLED_CELL_BUDGET // (max(depth, 1) * max(samples, 1) * max(intents, 1)))


def sampled_batch(coll: Collection, sampled: SampledRun, where: np.ndarray, fair: Fairness, relevant: np.ndarray,
                  target: np.ndarray, *, depth: int | None, topics: slice) -> SampledBatch:
    """The :class:`SampledBatch` of one policy over a block of topics, built straight from the
    whole stochastic run (``where``: the collection topic of each of its ranked lists, -1 if
    none): a code per (topic, document) shared by all samples (64-bit keys, checked against the
    docno strings), one scatter of the codes into the (samples, topics, depth) tensor, and the
    judgments and groups looked up once per code, not once per sample; the labels of every rank
    are then one gather from the codes' labels."""
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
    starts = np.cumsum(count) - count  # each list's first row in the block
    total = int(count.sum())
    rows = np.arange(total) + np.repeat(run.offsets[lists] - starts, count)
    key = np.take(run.doc_key, rows).astype(np.uint64, copy=False)
    docno = _strings(run.docno, rows)
    code, first = _document_codes(topic_local_keys(list_topic, count, key, t), _ranges(starts, count, slot == 0))
    if not _same_bytes(np.take(np.take(docno, first), code), docno):  # a 64-bit collision: tell the documents apart
        _, first, code = np.unique(np.rec.fromarrays([np.repeat(list_topic, count), docno]), return_index=True,
                                   return_inverse=True)
        code = code.ravel()
    u = first.size
    position = (slot * t + list_topic) * d
    if total == n * t * d and bool((position[1:] > position[:-1]).all()):  # every rank, in order
        doc = code.reshape(n, t, d)
    else:
        doc = np.full((n, t, d), u, dtype=np.int64)
        doc.reshape(-1)[np.arange(total) + np.repeat(position - starts, count)] = code
    cell = list_topic[np.searchsorted(starts + count, first, side="right")].astype(np.int64)
    code_docno = np.take(docno, first).view(f"S{docno.dtype.itemsize}")
    row = coll.lookup(cell + t0, np.take(key, first), code_docno)  # the join with the qrels, once per code
    judged = np.append(row >= 0, False)
    code_labels = np.zeros((u + 1, coll.grades.shape[1]), dtype=coll.grades.dtype)  # the last: past the end
    code_labels[np.flatnonzero(judged)] = coll.grades[row[judged[:u]]]
    labels = np.take(records(code_labels), doc).view(code_labels.dtype).reshape(doc.shape + code_labels.shape[1:])
    batch = Batch(labels, np.take(judged, doc), length, present, coll.topic_block(t0, t1))
    return SampledBatch(batch, 1, doc, cell, np.maximum(code_labels[:u].max(axis=1, initial=0), 0),
                        fair.weights(code_docno), target[topics], relevant[topics], fair.group_ids)


def _ranges(starts: np.ndarray, count: np.ndarray, which: np.ndarray) -> np.ndarray:
    """The rows ``starts[k]:starts[k] + count[k]`` of the lists ``which`` selects (a mask), in order."""
    starts, count = starts[which], count[which]
    return np.arange(int(count.sum())) + np.repeat(starts - (np.cumsum(count) - count), count)


def _strings(docno: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The docnos of ``rows`` as opaque items of the strings' width (numpy gathers and compares
    them faster than byte strings)."""
    if docno.dtype.kind != "S":
        docno = np.array(docno[rows].tolist(), dtype="S") if rows.size else np.zeros(0, dtype="S1")
        rows = np.arange(rows.size)
    return np.take(docno.view(np.dtype((np.void, docno.dtype.itemsize))), rows)


def topic_local_keys(topic: np.ndarray, count: np.ndarray, key: np.ndarray, topics: int) -> np.ndarray:
    """64-bit keys of (topic, docno key) pairs, for ranked lists of topics ``topic`` (0..``topics``−1)
    holding ``count`` of the rows each: the topic in the top bits and the docno key's top bits
    below it, so that, sorted, a topic's keys are together."""
    bits = np.uint64(max(int(topics - 1).bit_length(), 1))
    local = key >> bits
    local |= np.repeat(topic.astype(np.uint64) << (np.uint64(64) - bits), count)
    return local


def _document_codes(local: np.ndarray, seed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A code per distinct key of ``local`` (:func:`topic_local_keys`; 0..U−1) for each row, and
    a row holding each code. The codes are the distinct keys of the ``seed`` rows (one sample of
    each topic), then those of the other rows that the seed rows lack, each sorted by (topic,
    key): so a topic's codes, and every sum over them, are in an order independent of the block
    of topics it is in. The look-up is :func:`key_slots`/:func:`find_keys`; with the topic in
    the keys' top bits, the look-ups of one ranked list stay within its topic's part of the
    table (in the CPU's cache). A topic's keys lose their lowest bits to the topic: two
    documents whose keys then agree are told apart by the caller's check of the docno strings."""
    distinct, first = np.unique(local[seed], return_index=True)
    first = seed[first]
    if distinct.size:
        pos, hit = find_keys(distinct, key_slots(distinct), local)
    else:
        pos, hit = np.zeros(local.size, dtype=np.int64), np.zeros(local.size, dtype=bool)
    code = pos
    if not hit.all():  # documents the seed rows lack
        miss = np.flatnonzero(~hit)
        extra, at = np.unique(local[miss], return_index=True)
        code[miss] = distinct.size + np.searchsorted(extra, local[miss])
        first = np.concatenate((first, miss[at]))
    return code, first


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two byte-string arrays of one dtype are equal item by item (compared as raw bytes)."""
    return bool(np.array_equal(np.ascontiguousarray(a).view(np.uint8), np.ascontiguousarray(b).view(np.uint8)))
