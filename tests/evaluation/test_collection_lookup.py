"""Collection.lookup: the judged row of each (topic, docno), found through the 64-bit key index,
checked against a plain dictionary of the judgments (an independent oracle), including crowded
index slots, unjudged documents, other topics' documents and forged key collisions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.evaluation.collection import Collection
from cranfield.io import qrels_from_dict
from cranfield.io._tokens import doc_keys


def _collection(n_topics: int, n_docs: int, seed: int) -> tuple[Collection, dict[tuple[int, bytes], int]]:
    rng = np.random.default_rng(seed)
    judged = [rng.choice(n_docs, size=int(rng.integers(1, n_docs)), replace=False) for _ in range(n_topics)]
    qrels = {str(t + 1): {f"d{d}": int(rng.integers(0, 3)) for d in docs} for t, docs in enumerate(judged)}
    coll = Collection.from_qrels(qrels_from_dict(qrels))
    oracle = {(int(t), bytes(d)): row for row, (t, d) in enumerate(zip(coll.doc_topic, coll.docno))}
    return coll, oracle


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(2, 300), st.integers(0, 2**32 - 1))
def test_lookup_matches_a_dictionary(n_topics, n_docs, seed):
    coll, oracle = _collection(n_topics, n_docs, seed)
    rng = np.random.default_rng(seed + 1)
    n = 500
    topic = rng.integers(0, n_topics, size=n)
    docno = np.array([f"d{d}".encode() for d in rng.integers(0, 2 * n_docs, size=n)])  # half never judged
    got = coll.lookup(topic, doc_keys(docno), docno)
    expected = [oracle.get((int(t), bytes(d)), -1) for t, d in zip(topic, docno)]
    assert got.tolist() == expected


def test_equal_keys_of_other_documents_are_not_matches():
    coll, oracle = _collection(3, 50, 7)
    topic, docno = coll.doc_topic.copy(), coll.docno.copy()
    keys = doc_keys(docno)
    forged = np.array([b"not-judged-%d" % k for k in range(docno.size)])
    # the judged documents' own keys, given with other docnos: collisions, hence unjudged
    assert (coll.lookup(topic, keys, forged) == -1).all()
    # and given for another topic (equal docno, other topic): unjudged unless judged there too
    other = (topic + 1) % 3
    got = coll.lookup(other, doc_keys(docno), docno)
    assert got.tolist() == [oracle.get((int(t), bytes(d)), -1) for t, d in zip(other, docno)]
    assert (coll.lookup(topic, keys, docno) == np.arange(docno.size)).all()


def test_crowded_slots_are_searched():
    coll, oracle = _collection(4, 4000, 3)
    assert coll._slots[2].any()  # some index slots hold several keys
    topic, docno = coll.doc_topic[::-1].copy(), coll.docno[::-1].copy()
    got = coll.lookup(topic, doc_keys(docno), docno)
    assert got.tolist() == [oracle[(int(t), bytes(d))] for t, d in zip(topic, docno)]
