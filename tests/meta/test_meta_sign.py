"""The sign test (cranfield.meta.sign_test): Hull's worked case by hand, exact p-values against
the enumeration of every sign pattern and against exact rational arithmetic, agreement with
scipy.stats.binomtest on random cases, ties dropped by the equality rule, and invariants
(hypothesis)."""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import combinations, product

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import cranfield.meta._common as common
from cranfield.meta import adjust_pvalues, pairwise_test, sign_test


def exact(n: int, k: int) -> float:
    """min(1, 2·P(X <= min(k, n − k))), X ~ Binomial(n, 1/2), as the float nearest the rational."""
    m = min(k, n - k)
    return float(min(Fraction(1), Fraction(sum(math.comb(n, i) for i in range(m + 1)), 2 ** (n - 1))))


def wins_losses(a, b):
    """A two-system matrix whose topics are ``a`` wins, ``b`` losses of system 0 and one tie."""
    col0 = np.r_[np.full(a, 0.75), np.full(b, 0.25), 0.5]
    return np.stack([col0, np.full(a + b + 1, 0.5)], axis=1)


def test_by_hand():
    """8 wins, 2 losses, one tie dropped: p = 2·(C(10,0) + C(10,1) + C(10,2)) / 2^10 = 112/1024."""
    r = sign_test(wins_losses(8, 2))
    assert r.statistic.tolist() == [8.0] and r.pvalue.tolist() == [0.109375]
    assert r.test == "sign" and r.effect[0] == pytest.approx(1.5 / 11)
    assert sign_test(wins_losses(5, 5)).pvalue.tolist() == [1.0]  # k = n/2
    assert sign_test(wins_losses(0, 1)).pvalue.tolist() == [1.0]  # one decided topic: 2 · 1/2
    assert sign_test(wins_losses(20, 0)).pvalue.tolist() == [2.0 ** -19]


@pytest.mark.parametrize("n", range(1, 15))
def test_equals_the_enumeration_of_every_sign_pattern(n):
    """Under H0 every one of the 2^n sign patterns of the decided topics is equally likely: p is the
    share of patterns at least as far from n/2 wins as the observed one — a dyadic number, exact."""
    patterns = np.array(list(product((0, 1), repeat=n))).sum(axis=1)
    for k in range(n + 1):
        share = np.count_nonzero(np.abs(2 * patterns - n) >= abs(2 * k - n)) / 2 ** n
        assert sign_test(wins_losses(k, n - k)).pvalue[0] == share


def test_agrees_with_scipy_binomtest_on_random_cases():
    """Random matrices with ties (P@10-like scores) and without, up to 500 topics: the wins and losses
    of every pair counted here, p = scipy's binomtest(k, n) within 1e-11 and the exact rational."""
    rng = np.random.default_rng(11)
    checked = 0
    for case in range(40):
        n, s = int(rng.integers(1, 500)), int(rng.integers(2, 7))
        x = rng.random((n, s))
        if case % 2:
            x = np.round(x * 10) / 10
        r = sign_test(x)
        for p, (i, j) in enumerate(combinations(range(s), 2)):
            wins, losses = int((x[:, i] > x[:, j]).sum()), int((x[:, i] < x[:, j]).sum())
            assert r.statistic[p] == wins
            if wins + losses == 0:
                assert np.isnan(r.pvalue[p])
                continue
            assert r.pvalue[p] == exact(wins + losses, wins)
            np.testing.assert_allclose(r.pvalue[p], stats.binomtest(wins, wins + losses).pvalue, rtol=1e-11)
            checked += 1
    assert checked > 250


def test_exact_far_in_the_tail():
    """1,200 decided topics, 40 wins: p ~ 1e-286 is still the float nearest the rational."""
    r = sign_test(wins_losses(40, 1160))
    assert r.pvalue[0] == exact(1200, 40) and 1e-287 < r.pvalue[0] < 1e-285
    np.testing.assert_allclose(r.pvalue[0], stats.binomtest(40, 1200).pvalue, rtol=1e-11)


def test_ties_are_dropped_by_the_equality_rule():
    """Scores equal within 1e-12 (0.1 + 0.2 against 0.3) are a tie, as compare's wins/ties/losses."""
    x = wins_losses(8, 2)
    tied = np.vstack([x, [[0.1 + 0.2, 0.3]] * 5])
    assert sign_test(tied).pvalue.tolist() == sign_test(x).pvalue.tolist() == [0.109375]
    same = np.array([[0.1 + 0.2, 0.3], [0.5, 0.5]])
    r = sign_test(same)
    assert np.isnan(r.pvalue[0]) and r.statistic[0] == 0.0  # no decided topic: undefined


def test_undefined_pairs_stay_out_of_the_correction():
    x = np.array([[0.5, 0.5, 0.9], [0.4, 0.4, 0.8], [0.3, 0.3, 0.1], [0.2, 0.2, 0.6], [0.6, 0.6, 0.7]])
    r = sign_test(x, correction="holm")
    assert np.isnan(r.pvalue[0])
    np.testing.assert_array_equal(r.pvalue_adjusted, adjust_pvalues(r.pvalue, "holm"))
    assert r.pvalue_adjusted[1:].tolist() == [min(1.0, 2 * p) for p in r.pvalue[1:]]


def test_baseline_pairs_and_chunks_change_nothing(monkeypatch):
    x = np.round(np.random.default_rng(5).random((30, 6)) * 8) / 8
    full = sign_test(x)
    against = sign_test(x, baseline=4)
    assert against.pairs.tolist() == [[0, 4], [1, 4], [2, 4], [3, 4], [5, 4]]
    at = {tuple(p): k for k, p in enumerate(full.pairs.tolist())}
    for k, (i, j) in enumerate(against.pairs.tolist()):
        if (i, j) in at:
            assert against.pvalue[k] == full.pvalue[at[i, j]]
        else:
            assert against.pvalue[k] == full.pvalue[at[j, i]]
            assert against.statistic[k] == 30 - full.statistic[at[j, i]] - np.count_nonzero(x[:, i] == x[:, j])
    monkeypatch.setattr(common.chunks, "__defaults__", (7,))
    assert np.array_equal(sign_test(x).pvalue, full.pvalue, equal_nan=True)
    assert np.array_equal(pairwise_test(x, test="sign").pvalue, full.pvalue, equal_nan=True)


grid = st.lists(st.lists(st.integers(0, 10), min_size=3, max_size=3), min_size=1, max_size=60).map(
    lambda rows: np.array(rows, dtype=np.float64) / 10)


@settings(max_examples=100, deadline=None)
@given(grid, st.randoms(use_true_random=False))
def test_invariants(x, random):
    """Swapping the systems of a pair keeps p (k becomes n − k); permuting topics, a strictly
    increasing map of every score and adding tied topics keep it; 2^(1 − n) <= p <= 1."""
    r = sign_test(x)
    swapped = sign_test(x[:, [1, 0, 2]])
    assert np.array_equal(swapped.pvalue[0], r.pvalue[0], equal_nan=True)
    decided = np.count_nonzero(x[:, 0] != x[:, 1])
    assert swapped.statistic[0] == decided - r.statistic[0]
    order = list(range(len(x)))
    random.shuffle(order)
    assert np.array_equal(sign_test(x[order]).pvalue, r.pvalue, equal_nan=True)
    assert np.array_equal(sign_test(3 * x ** 3 + x + 1).pvalue, r.pvalue, equal_nan=True)
    assert np.array_equal(sign_test(np.vstack([x, [[0.5, 0.5, 0.5]] * 3])).pvalue, r.pvalue, equal_nan=True)
    for p, (i, j) in enumerate(combinations(range(3), 2)):
        n = np.count_nonzero(x[:, i] != x[:, j])
        assert np.isnan(r.pvalue[p]) if n == 0 else 2.0 ** (1 - n) <= r.pvalue[p] <= 1.0
