"""Stochastic runs joined to the judgments: the :class:`~cranfield.batch.SampledBatch` of a block
of topics, with document identities, group weights and target distributions (docs/fairness.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from cranfield.batch import Batch, SampledBatch
from cranfield.errors import CranfieldError, listing, warn
from cranfield.evaluation.collection import Collection, find_keys, key_slots, records
from cranfield.evaluation.options import TARGETS
from cranfield.io._tokens import doc_keys
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

    def weights(self, docno: np.ndarray, key: np.ndarray | None = None) -> np.ndarray:
        """Group weights of documents, (n, G); with their 64-bit ``key`` (:func:`~cranfield.io._tokens.doc_keys`),
        found by key among the groups' documents (the strings compared), not by string."""
        g = len(self.group_ids)
        if self.groups is None:
            return np.zeros((docno.size, g))
        docno = docno if docno.dtype.kind == "S" else np.array(docno.tolist(), dtype="S")
        w = self._by_key(docno, key) if key is not None and self.groups.docno.size else None
        if w is None:
            w = self.groups.matrix(docno)
        return w if w.shape[1] == g else np.pad(w, ((0, 0), (0, g - w.shape[1])))

    def _by_key(self, docno: np.ndarray, key: np.ndarray) -> np.ndarray | None:
        """:meth:`weights` by key; None if two documents share a key (then by string)."""
        assert self.groups is not None
        sorted_keys, slots, order = self._group_keys
        pos, same_key = find_keys(sorted_keys, slots, key)
        at = order[pos]
        same = same_key & (self.groups.docno[at] == docno)
        if not np.array_equal(same, same_key):
            return None
        return self.groups.rows(np.where(same, at, -1))

    @cached_property
    def _group_keys(self) -> tuple[np.ndarray, tuple[np.uint64, np.ndarray, np.ndarray], np.ndarray]:
        """The groups' documents' keys, sorted and indexed (:func:`key_slots`), and where each is
        in :attr:`Groups.docno`."""
        assert self.groups is not None
        keys = doc_keys(self.groups.docno)
        order = np.argsort(keys, kind="stable")
        return keys[order], key_slots(keys[order]), order


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
    none): a code per (topic, document) shared by all samples (:func:`_document_codes`, checked
    against the docno strings), one scatter of the codes into the (samples, topics, depth)
    tensor, and the judgments and groups looked up once per code, not once per sample; the
    labels of every rank are then one gather from the codes' labels."""
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
    rows = ListRows(run.offsets[lists], count)
    seed = slot == 0
    seed_rows = list_ranges(starts[seed], count[seed])
    exact = _exact_keys(run.docno, rows)
    if exact is not None:  # the docnos themselves, as integers: no check
        code, first = _document_codes(list_topic, count, exact, seed_rows, lambda at: np.take(run.doc_key, rows.at(at)))
        code_docno = _strings(run.docno, rows.at(first))
    else:
        key = rows.of(run.doc_key).astype(np.uint64, copy=False)
        docno = _strings(run.docno, rows)
        code, first = _document_codes(list_topic, count, key, seed_rows, key.__getitem__)
        if not _same_bytes(np.take(np.take(docno, first), code), docno):  # a 64-bit collision: tell them apart
            _, first, code = np.unique(np.rec.fromarrays([np.repeat(list_topic, count), docno]), return_index=True,
                                       return_inverse=True)
            code = code.ravel()
        code_docno = np.take(docno, first)
    u = first.size
    position = (slot * t + list_topic) * d
    if total == n * t * d and bool((position[1:] > position[:-1]).all()):  # every rank, in order
        doc = code.reshape(n, t, d)
    else:
        doc = np.full((n, t, d), u, dtype=np.int64)
        doc.reshape(-1)[np.arange(total) + np.repeat(position - starts, count)] = code
    cell = list_topic[np.searchsorted(starts + count, first, side="right")].astype(np.int64)
    code_docno = code_docno.view(f"S{code_docno.dtype.itemsize}")
    code_key = np.take(run.doc_key, rows.at(first)).astype(np.uint64, copy=False)
    row = coll.lookup(cell + t0, code_key, code_docno)  # the join with the qrels, once per code
    judged = np.append(row >= 0, False)
    code_labels = np.zeros((u + 1, coll.grades.shape[1]), dtype=coll.grades.dtype)  # the last: past the end
    code_labels[np.flatnonzero(judged)] = coll.grades[row[judged[:u]]]
    labels = np.take(records(code_labels), doc, mode="clip").view(code_labels.dtype).reshape(
        doc.shape + code_labels.shape[1:])
    batch = Batch(labels, np.take(judged, doc, mode="clip"), length, present, coll.topic_block(t0, t1))
    return SampledBatch(batch, 1, doc, cell, np.maximum(code_labels[:u].max(axis=1, initial=0), 0),
                        fair.weights(code_docno, code_key), target[topics], relevant[topics], fair.group_ids)


def list_ranges(offsets: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The rows ``offsets[k]:offsets[k] + count[k]`` of every list k, in order, without a Python
    loop (one broadcast sum when the lists are equally long)."""
    if count.size and bool((count == count[0]).all()):
        return (offsets[:, None] + np.arange(int(count[0]), dtype=np.int64)).reshape(-1)
    return np.arange(int(count.sum())) + np.repeat(offsets - (np.cumsum(count) - count), count)


class ListRows:
    """The rows ``offsets[k]:offsets[k] + count[k]`` of a run's ranked lists k, in order: what
    the lists hold of a per-row array is gathered list by list when the lists are equally long
    (each list one row of a sliding window over the array: no index of every row is built nor
    read), else by :func:`list_ranges`."""

    def __init__(self, offsets: np.ndarray, count: np.ndarray) -> None:
        self.offsets, self.size = offsets, int(count.sum())
        self.width = int(count[0]) if count.size and count[0] > 0 and bool((count == count[0]).all()) else 0
        self.rows = None if self.width else list_ranges(offsets, count)

    def of(self, values: np.ndarray) -> np.ndarray:
        """``values`` (1-D, one item per row of the run) at every row of the lists, in order."""
        if self.rows is None:
            return sliding_window_view(values, self.width)[self.offsets].reshape(-1)
        return np.take(values, self.rows)

    def at(self, i: np.ndarray) -> np.ndarray:
        """The rows of the run at positions ``i`` of the lists' rows."""
        if self.rows is None:
            return self.offsets[i // self.width] + i % self.width
        return self.rows[i]


def _strings(docno: np.ndarray, rows: ListRows | np.ndarray) -> np.ndarray:
    """The docnos of ``rows`` (the lists' rows, or these rows of the run) as opaque items of the
    strings' width (numpy gathers and compares them faster than byte strings)."""
    if docno.dtype.kind != "S":
        docno = np.array(_gather(docno, rows).tolist(), dtype="S") if rows.size else np.zeros(0, dtype="S1")
        rows = np.arange(rows.size)
    return _gather(docno.view(np.dtype((np.void, docno.dtype.itemsize))), rows)


def _gather(values: np.ndarray, rows: ListRows | np.ndarray) -> np.ndarray:
    """``values`` at the lists' ``rows``, or at these rows of the run."""
    return rows.of(values) if isinstance(rows, ListRows) else np.take(values, rows)


def _document_codes(list_topic: np.ndarray, count: np.ndarray, key: np.ndarray, seed: np.ndarray,
                    doc_key: Callable[[np.ndarray], np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """A code per distinct (topic, document) pair (0..U−1) for each row of ranked lists of
    topics ``list_topic`` holding ``count`` rows each, and a row holding each code; ``key``: a
    64-bit key of each row's docno, ``doc_key``: the docno keys of rows (the order of the codes).
    The codes are the distinct pairs of the ``seed`` rows (one sample of each topic), then those
    of the other rows that the seed rows lack, each sorted by (topic, docno key): so a topic's
    codes, and every sum over them, are in an order independent of the block of topics it is in.

    Every row is looked up in a direct-address table of the seed's pairs (their keys mixed with
    the topic, :func:`~cranfield.io.run.topic_doc_keys`; about sixteen slots per pair, the slots
    of one pair only), chunk of rows by chunk (:data:`ROW_CHUNK`): one gather and one comparison
    of full 64-bit keys per row; the rows of the pairs sharing a slot are looked up again in a
    second table (the top bits of the mixed key times another odd constant), then by binary
    search among the pairs sharing a slot in both. The rows left (a document the seed
    lacks) are sorted with the seed's pairs. Equal keys of two documents are told apart by the
    caller (unless the keys are the docnos themselves, :func:`_exact_keys`)."""
    ends = np.cumsum(count)
    topic_key = topic_doc_keys(list_topic, np.zeros(list_topic.size, np.uint64))

    def mixed(i: np.ndarray) -> np.ndarray:  # the keys of rows i mixed with their topic
        return key[i] ^ topic_key[np.searchsorted(ends, i, side="right")]

    seed_topic = list_topic[np.searchsorted(ends, seed, side="right")]
    at = _pair_codes(seed_topic, doc_key(seed), key[seed])[1]
    first, first_topic = seed[at], seed_topic[at]
    distinct = mixed(first)
    bits = max(int(distinct.size).bit_length() + 4, 6)  # about sixteen slots per pair
    shift = np.uint64(64 - bits)
    find, alone = _look_up(distinct, lambda k: (k >> shift).view(np.int64), 1 << bits)
    code = np.empty(key.size, dtype=np.int64)
    misses, left = [np.zeros(0, dtype=np.int64)], [np.zeros(0, dtype=np.uint64)]
    for l0, l1 in _list_chunks(ends, ROW_CHUNK):  # a chunk's temporaries stay in the CPU's cache
        a, b = int(ends[l0] - count[l0]), int(ends[l1 - 1])
        if bool((count[l0:l1] == count[l0]).all()):  # one broadcast, no repeated keys
            chunk = (key[a:b].reshape(l1 - l0, -1) ^ topic_key[l0:l1, None]).reshape(-1)
        else:
            chunk = np.repeat(topic_key[l0:l1], count[l0:l1])
            chunk ^= key[a:b]
        at = np.flatnonzero(find(chunk, code[a:b]))
        misses.append(at + a)
        left.append(chunk[at])
    miss, mixed_miss = np.concatenate(misses), np.concatenate(left)
    if miss.size and not alone.all():  # the pairs sharing a slot: by other bits, among themselves
        shared = np.flatnonzero(~alone)
        bits = max(int(shared.size).bit_length() + 4, 6)
        second = np.uint64(64 - bits)
        find, alone = _look_up(distinct[shared], lambda k: ((k * _SECOND) >> second).view(np.int64), 1 << bits)
        again = np.empty(miss.size, dtype=np.int64)
        hit = ~find(mixed_miss, again)
        code[miss[hit]] = shared[again[hit]]
        miss, mixed_miss, shared = miss[~hit], mixed_miss[~hit], shared[~alone]
        if miss.size and shared.size:  # the few pairs sharing a slot in both tables: by binary search
            by = shared[np.argsort(distinct[shared])]
            at = by[np.minimum(np.searchsorted(distinct[by], mixed_miss), by.size - 1)]
            hit = (distinct[at] == mixed_miss) & \
                (first_topic[at] == list_topic[np.searchsorted(ends, miss, side="right")])
            code[miss[hit]] = at[hit]
            miss = miss[~hit]
    if not miss.size:
        return code, first
    pair, at = _pair_codes(np.concatenate((first_topic, list_topic[np.searchsorted(ends, miss, side="right")])),
                           np.concatenate((doc_key(first), doc_key(miss))), np.concatenate((key[first], key[miss])))
    known = np.full(at.size, -1, dtype=np.int64)
    known[pair[:distinct.size]] = np.arange(distinct.size)
    new = np.flatnonzero(known < 0)  # pairs the seed lacks, sorted
    known[new] = distinct.size + np.arange(new.size)
    code[miss] = known[pair[distinct.size:]]
    return code, np.concatenate((first, miss[at[new] - distinct.size]))


# rows per pass of the look-up: a chunk's temporaries (mixed keys, slots, codes) and the table
# stay in the CPU's L2 cache
ROW_CHUNK = 1 << 16


def _list_chunks(ends: np.ndarray, rows: int) -> list[tuple[int, int]]:
    """Consecutive ranges of lists (their rows ending at ``ends``) of about ``rows`` rows each."""
    if not ends.size:
        return []
    cuts = np.searchsorted(ends, np.arange(rows, int(ends[-1]), rows)) + 1
    bounds = np.unique(np.concatenate(([0], cuts, [ends.size]))).tolist()
    return list(zip(bounds[:-1], bounds[1:]))


def _look_up(distinct: np.ndarray, slot_of: Any, size: int
             ) -> tuple[Callable[[np.ndarray, np.ndarray], np.ndarray], np.ndarray]:
    """A direct-address table (``size`` slots, ``slot_of`` a key's) of the keys ``distinct``
    alone in their slot, as a function writing the index of each of some keys among
    ``distinct`` to ``out`` and telling which are not found there (their index is
    meaningless); and which keys of ``distinct`` are alone."""
    slots = slot_of(distinct)
    alone = np.bincount(slots, minlength=size)[slots] == 1
    if not alone.any():
        return lambda keys, out: np.ones(keys.size, dtype=bool), alone
    # empty and shared slots: the miss; the narrowest integers (a smaller table stays in the cache)
    table = np.full(size, distinct.size, dtype=np.min_scalar_type(-distinct.size - 1))
    table[slots[alone]] = np.flatnonzero(alone)
    j = int(np.argmax(alone))
    flipped = distinct[j] ^ np.array([1, 1 << 63], dtype=np.uint64)
    wrong = flipped[slot_of(flipped) == slots[j]]
    # the miss's key: one that no key reaching the miss has (its slot holds another key), else a check of the code
    known = np.append(distinct, wrong[:1] if wrong.size else distinct[:1])

    def find(keys: np.ndarray, out: np.ndarray) -> np.ndarray:
        np.copyto(out, np.take(table, slot_of(keys), mode="clip"))  # slots are in the table
        differ = np.take(known, out, mode="clip") != keys
        if not wrong.size:
            differ |= out == distinct.size
        return differ

    return find, alone


def _pair_codes(topic: np.ndarray, order: np.ndarray, key: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The code of each (topic, key) pair, its rank among the distinct pairs sorted by (topic,
    ``order``, key) (``order``: a function of the key), and the first element of each distinct
    pair, in that order."""
    by = np.lexsort((key, order, topic))
    t, k = topic[by], key[by]
    new = np.ones(by.size, dtype=bool)
    new[1:] = (t[1:] != t[:-1]) | (k[1:] != k[:-1])
    code = np.empty(by.size, dtype=np.int64)
    code[by] = np.cumsum(new) - 1
    return code, by[new]


def _exact_keys(docno: np.ndarray, rows: ListRows) -> np.ndarray | None:
    """The docnos of the lists' ``rows`` as 64-bit keys that are the docnos themselves, when
    docnos have at most 8 bytes (the reader's byte strings are as wide as the longest docno): the
    bytes, zero-padded, as an integer, times an odd constant (a bijection whose top bits mix all
    the bytes, for :func:`_document_codes`' tables). None for longer docnos."""
    width = docno.dtype.itemsize
    if docno.dtype.kind != "S" or width > 8 or not docno.flags.c_contiguous:
        return None
    if width == 8:
        words = rows.of(docno.view(np.uint64))
    else:
        padded = np.zeros((rows.size, 8), dtype=np.uint8)
        padded[:, :width] = _strings(docno, rows).view(np.uint8).reshape(rows.size, width)
        words = padded.view(np.uint64).reshape(-1)
    words *= _WORD_MIX
    return words


_WORD_MIX = np.uint64(0x9E3779B97F4A7C15)  # odd: multiplying by it is a bijection of 64-bit integers
_SECOND = np.uint64(0xBF58476D1CE4E5B9)  # odd: the second table's slots


def _same_bytes(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two byte-string arrays of one dtype are equal item by item (their raw bytes
    compared eight at a time)."""
    x, y = np.ascontiguousarray(a).reshape(-1).view(np.uint8), np.ascontiguousarray(b).reshape(-1).view(np.uint8)
    whole = x.size - x.size % 8
    return x.size == y.size and bool(np.array_equal(x[:whole].view(np.uint64), y[:whole].view(np.uint64))
                                     and np.array_equal(x[whole:], y[whole:]))
