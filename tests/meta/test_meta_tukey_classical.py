"""The classical Tukey HSD (two-way ANOVA without replication): the residual variance against
statsmodels' ANOVA table, p-values against scipy's studentized_range, Sakai's ES_HSD, a hand case."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from cranfield.meta import discriminative_power, pairwise_test
from cranfield.meta.significance import residual_variance, tukey_hsd_classical

sm = pytest.importorskip("statsmodels.api")
smf = pytest.importorskip("statsmodels.formula.api")


def _anova_residual(x: np.ndarray) -> tuple[float, float]:
    t, s = x.shape
    frame = pd.DataFrame({"topic": np.repeat(np.arange(t), s), "system": np.tile(np.arange(s), t), "y": x.ravel()})
    table = sm.stats.anova_lm(smf.ols("y ~ C(topic) + C(system)", frame).fit())
    return float(table.loc["Residual", "mean_sq"]), float(table.loc["Residual", "df"])


@pytest.mark.parametrize("seed", range(5))
def test_agrees_with_statsmodels_anova_and_scipy_studentized_range(seed):
    rng = np.random.default_rng(seed)
    t, s = int(rng.integers(3, 30)), int(rng.integers(2, 8))
    x = rng.random((t, s)) + np.linspace(0, 0.3, s)
    ve, df = _anova_residual(x)
    assert residual_variance(x) == (pytest.approx(ve, rel=1e-10), int(df))
    r = tukey_hsd_classical(x)
    m = x.mean(axis=0)
    for k, (i, j) in enumerate(r.pairs):
        q = abs(m[i] - m[j]) / np.sqrt(ve / t)
        assert r.statistic[k] == pytest.approx(q, rel=1e-9)
        assert r.pvalue[k] == pytest.approx(stats.studentized_range.sf(q, s, df), rel=1e-9, abs=1e-12)
        assert r.effect_size[k] == pytest.approx((m[i] - m[j]) / np.sqrt(ve), rel=1e-9)
    assert r.test == "tukey" and np.array_equal(r.pvalue, r.pvalue_adjusted)


def test_hand_worked_residual_variance():
    """x = [[1, 2], [3, 5]]: row means 1.5, 4; column means 2, 3.5; grand mean 2.75; residuals
    ±0.25 → SS = 4·0.0625 = 0.25 on (2−1)(2−1) = 1 degree of freedom; q = 1.5 / √(0.25/2)."""
    x = np.array([[1.0, 2.0], [3.0, 5.0]])
    assert residual_variance(x) == (0.25, 1)
    r = tukey_hsd_classical(x)
    assert r.statistic[0] == pytest.approx(1.5 / np.sqrt(0.125))
    assert r.effect_size[0] == pytest.approx(-1.5 / 0.5)


def test_dispatch_baseline_and_power():
    rng = np.random.default_rng(4)
    x = rng.random((25, 5)) + np.linspace(0, 0.4, 5)
    full = pairwise_test(x, test="tukey")
    against = pairwise_test(x, test="tukey", baseline=2)
    assert against.pvalue.tolist() == [full.pvalue[1], full.pvalue[4], full.pvalue[7], full.pvalue[8]]
    dp = discriminative_power(x, test="tukey")
    assert dp.result.n_resamples is None and dp.test == "tukey"
    significant = full.pvalue < 0.05
    assert dp.delta == np.abs(full.effect[significant]).min()
