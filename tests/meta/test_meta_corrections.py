"""Multiple-comparison corrections against statsmodels' multipletests, every method; hand cases."""

from __future__ import annotations

import numpy as np
import pytest

from cranfield.meta import t_test
from cranfield.meta.significance import CORRECTIONS, adjust_pvalues

multitest = pytest.importorskip("statsmodels.stats.multitest")
STATSMODELS = {"bonferroni": "bonferroni", "holm": "holm", "hommel": "hommel", "bh": "fdr_bh", "by": "fdr_by"}


@pytest.mark.parametrize("method", sorted(STATSMODELS))
@pytest.mark.parametrize("seed", range(8))
def test_every_correction_agrees_with_statsmodels(method, seed):
    rng = np.random.default_rng(seed)
    p = rng.random(int(rng.integers(1, 80))) ** 3
    p[rng.random(p.size) < 0.25] = p[0]  # ties
    expected = multitest.multipletests(p, method=STATSMODELS[method])[1]
    np.testing.assert_allclose(adjust_pvalues(p, method), expected, rtol=0, atol=1e-15)


@pytest.mark.parametrize("method", sorted(STATSMODELS))
def test_nan_pvalues_stay_nan_and_do_not_count(method):
    p = np.array([0.01, np.nan, 0.04, 0.03])
    got = adjust_pvalues(p, method)
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2, 3]], adjust_pvalues(p[[0, 2, 3]], method))


def test_hand_worked_bh_and_by():
    """p = 0.01, 0.02, 0.03, 0.5 (m = 4): BH m·p/k = 0.04, 0.04, 0.04, 0.5; BY × (1 + 1/2 + 1/3 + 1/4)."""
    p = [0.01, 0.02, 0.03, 0.5]
    np.testing.assert_allclose(adjust_pvalues(p, "bh"), [0.04, 0.04, 0.04, 0.5])
    np.testing.assert_allclose(adjust_pvalues(p, "by"), np.minimum(1, np.array([0.04, 0.04, 0.04, 0.5]) * 25 / 12))


def test_hand_worked_hommel():
    """p = 0.01, 0.04, 0.03 (Wright 1992): s = 3: c = min(3·0.01/1, 3·0.03/2, 3·0.04/3) = 0.03;
    s = 2: c = min(2·0.03/1, 2·0.04/2) = 0.04, the smallest raised to min(2·0.01, 0.04) = 0.02 → 0.03."""
    np.testing.assert_allclose(adjust_pvalues([0.01, 0.04, 0.03], "hommel"), [0.03, 0.04, 0.04])


def test_tests_take_every_correction():
    x = np.random.default_rng(1).random((12, 5)) + np.linspace(0, 0.3, 5)
    raw = t_test(x).pvalue
    for method in CORRECTIONS:
        assert np.array_equal(t_test(x, correction=method).pvalue_adjusted, adjust_pvalues(raw, method),
                              equal_nan=True)
