"""Novelty gains NG(r) = Σ_i J_i(r)·(1 − α)^{C_i(r−1)} (Clarke et al., SIGIR 2008, Eq. 4): the
sparse kernel equals the formula evaluated densely, cell by cell, bit for bit (the diversity
measures' values must not move by one ulp), and the per-batch cache gives every measure the
same numbers as computing them on its own."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.batch import Batch, Topics
from cranfield.measures.diversity import batch_novelty_gain, intent_hits, novelty_gain
from cranfield.measures.registry import parse_measure


def dense(hits: np.ndarray, alpha: float) -> np.ndarray:
    """Eq. 4 over every (rank, intent) cell, intents summed with numpy's own reduction."""
    before = np.cumsum(hits, axis=2) - hits
    return (hits * (1.0 - alpha) ** before).sum(axis=3)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), st.integers(0, 60), st.integers(0, 11),
       st.sampled_from([0.0, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0]), st.floats(0.0, 1.0), st.integers(0, 2**32 - 1))
def test_sparse_novelty_gain_is_the_dense_formula_bit_for_bit(s, t, d, n_int, alpha, density, seed):
    hits = np.random.default_rng(seed).random((s, t, d, n_int)) < density
    got, expected = novelty_gain(hits, alpha), dense(hits, alpha)
    assert got.shape == expected.shape == (s, t, d)
    assert np.array_equal(got, expected)


def test_a_hand_computed_example():
    # intent 0 relevant at ranks 1, 2, 4; intent 1 at ranks 2, 3; alpha = 0.5
    hits = np.zeros((1, 1, 4, 2), dtype=bool)
    hits[0, 0, [0, 1, 3], 0] = True
    hits[0, 0, [1, 2], 1] = True
    assert novelty_gain(hits, 0.5)[0, 0].tolist() == [1.0, 0.5 + 1.0, 0.5, 0.25]


def _batch(seed: int) -> Batch:
    rng = np.random.default_rng(seed)
    rel_docs = rng.integers(0, 3, size=(4, 30, 5))
    topics = Topics.from_intent_labels(rel_docs)
    labels = rng.integers(0, 3, size=(2, 4, 40, 5)) * (rng.random((2, 4, 40, 5)) < 0.3)
    return Batch.from_labels(labels, topics)


def test_the_cache_gives_the_numbers_of_a_fresh_batch():
    names = ["alpha_nDCG@5", "alpha_nDCG@20", "nERR_IA@10", "ERR_IA@20", "alpha_DCG@5", "NRBP", "nNRBP",
             "alpha_nDCG(alpha=0.3)@10", "nNRBP(rel=2)", "AP_IA", "P_IA@5", "nDCG_IA@10"]
    shared = _batch(1)
    for name in names:  # one batch for all, as an evaluation scores them
        measure = parse_measure(name)
        assert np.array_equal(measure(shared), measure(_batch(1))), name
    for alpha, rel in [(0.5, 1), (0.3, 1), (0.5, 2)]:
        for cutoff in (3, 40, None, 7):
            ng = batch_novelty_gain(shared, cutoff, alpha, rel)
            assert ng.flags.c_contiguous
            assert np.array_equal(ng, dense(intent_hits(shared, cutoff, rel), alpha))


def test_cached_values_cannot_be_changed_by_a_measure():
    batch = _batch(2)
    ng = batch_novelty_gain(batch, None, 0.5, 1)
    with pytest.raises(ValueError):
        ng[0, 0, 0] = 42.0
    assert np.array_equal(batch_novelty_gain(batch, None, 0.5, 1), dense(intent_hits(batch, None, 1), 0.5))
