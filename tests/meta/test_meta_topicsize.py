"""Topic set size design (Sakai, Inf. Retr. J. 2016): the paired t-test and ANOVA designs against
statsmodels' power solvers, the CI design by hand, the variance against statsmodels' ANOVA, the CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy import stats

from conftest import DATA
from cranfield import CranfieldError
from cranfield.cli.main import main
from cranfield.meta import topic_set_size
from cranfield.meta.topicsize import anova_size, ci_size, paired_t_size

power = pytest.importorskip("statsmodels.stats.power")


@pytest.mark.parametrize("variance, delta, alpha, beta", [(0.01, 0.05, 0.05, 0.2), (0.03, 0.1, 0.01, 0.1),
                                                          (0.005, 0.02, 0.05, 0.5)])
def test_paired_t_design_equals_statsmodels(variance, delta, alpha, beta):
    n = power.TTestPower().solve_power(effect_size=delta / math.sqrt(2 * variance), alpha=alpha, power=1 - beta,
                                       alternative="two-sided")
    assert paired_t_size(variance, delta, alpha, beta) == math.ceil(n)


@pytest.mark.parametrize("systems", [2, 5, 20])
def test_anova_design_equals_statsmodels(systems):
    variance, delta = 0.02, 0.08
    f = math.sqrt(delta**2 / (2 * systems * variance))  # λ = f²·(m·n) = n·Δ²/(2σ²)
    total = power.FTestAnovaPower().solve_power(effect_size=f, k_groups=systems, alpha=0.05, power=0.8)
    assert anova_size(variance, delta, systems) == math.ceil(total / systems)


def test_ci_design_by_hand():
    """The smallest n with 2·t_{.025; n−1}·c4(n)·σ_t/√n <= W, c4(n) = √(2/(n−1))·Γ(n/2)/Γ((n−1)/2)."""
    variance, width = 0.02, 0.1

    def expected_width(n):
        c4 = math.sqrt(2 / (n - 1)) * math.gamma(n / 2) / math.gamma((n - 1) / 2)
        return 2 * stats.t.ppf(0.975, n - 1) * c4 * math.sqrt(2 * variance) / math.sqrt(n)

    n = ci_size(variance, width)
    assert expected_width(n) <= width < expected_width(n - 1)


def test_variance_is_the_two_way_anova_residual_and_rows():
    rng = np.random.default_rng(2)
    x = rng.random((30, 6)) * 0.5 + np.linspace(0, 0.2, 6)
    r = topic_set_size(x, min_delta=0.05, ci_width=0.1)
    residual = x - x.mean(1, keepdims=True) - x.mean(0, keepdims=True) + x.mean()
    assert r.variance == pytest.approx((residual**2).sum() / (29 * 5), rel=1e-12)
    assert [row["design"] for row in r.rows()] == ["paired-t", "anova", "ci"]
    assert set(r.rows()[0]) == {"design", "measure", "n", "variance"}


def test_additive_scores_have_no_variance():
    with pytest.raises(CranfieldError, match="residual variance .* is 0"):
        topic_set_size(np.add.outer(np.arange(5.0), np.arange(3.0)))


def test_cli(capsys):
    runs = [str(p) for p in sorted((DATA / "robust03").glob("input.*"))]
    assert main(["topicsize", str(DATA / "robust03" / "qrels.txt.gz"), "--runs", *runs, "-m", "AP",
                 "--ci-width", "0.1", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["design"], r["measure"]) for r in rows] == [("paired-t", "AP"), ("anova", "AP"), ("ci", "AP")]
    assert rows[0]["n"] == paired_t_size(rows[0]["variance"], 0.05)
