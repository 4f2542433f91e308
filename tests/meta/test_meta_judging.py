"""Leaderboard and significance agreement between a reference's and a judge's score matrices:
scipy's kendalltau/spearmanr/pearsonr, a hand-written τ_ap, hand-worked cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from cranfield import CranfieldError, EvaluationWarning
from cranfield.meta._common import resample_blocks
from cranfield.meta.agreement import leaderboard_agreement
from cranfield.meta.power import discriminative_power, significance_agreement


def tau_ap_by_hand(truth: list[float], estimate: list[float]) -> float:
    """Yilmaz, Aslam & Robertson (SIGIR 2008), Eq. 3, written from the paper: walk the estimated
    ranking from its second system down; p(i) = the fraction of the systems above it in the
    estimate that the truth also ranks above it; τ_ap = 2/(n−1) Σ p(i) − 1. No ties."""
    n = len(truth)
    ranking = sorted(range(n), key=lambda s: -estimate[s])
    total = 0.0
    for i in range(1, n):
        system = ranking[i]
        correct = sum(1 for above in ranking[:i] if truth[above] > truth[system])
        total += correct / i
    return 2.0 * total / (n - 1) - 1.0


def _pair(seed: int, topics: int = 30, systems: int = 12):
    rng = np.random.default_rng(seed)
    ref = rng.random((topics, systems)) + np.linspace(0, 0.3, systems)
    judge = ref + rng.normal(0, 0.15, ref.shape)
    return ref, judge


@pytest.mark.parametrize("seed", range(5))
def test_point_statistics_agree_with_scipy_and_by_hand(seed):
    ref, judge = _pair(seed)
    s = leaderboard_agreement(ref, judge, n_resamples=0).statistics
    r, j = ref.mean(axis=0), judge.mean(axis=0)
    assert s["tau_b"] == pytest.approx(stats.kendalltau(r, j).statistic, abs=1e-12)
    assert s["spearman"] == pytest.approx(stats.spearmanr(r, j).statistic, abs=1e-12)
    assert s["pearson"] == pytest.approx(stats.pearsonr(r, j).statistic, abs=1e-12)
    assert s["tau_ap"] == pytest.approx(tau_ap_by_hand(list(r), list(j)), abs=1e-12)
    d = j - r
    assert s["rmse"] == pytest.approx(np.sqrt(np.mean(d**2)), abs=1e-15)
    assert s["bias"] == pytest.approx(d.mean(), abs=1e-15)
    assert s["loa_low"] == pytest.approx(d.mean() - 1.96 * d.std(ddof=1), abs=1e-15)
    assert s["loa_high"] == pytest.approx(d.mean() + 1.96 * d.std(ddof=1), abs=1e-15)
    drop = np.argsort(np.argsort(-j)) - np.argsort(np.argsort(-r))
    assert s["max_drop"] == drop.max()
    assert s["same_top"] == float(np.argmax(r) == np.argmax(j))


def test_tau_ap_is_asymmetric_with_the_reference_as_truth():
    """Truth a > b > c > d; the judge swaps the top two: p = 0, 1/2... by hand: ranking b a c d,
    p(a) = 0/1, p(c) = 2/2, p(d) = 3/3 → τ_ap = 2/3 · 2 − 1 = 1/3; a swap at the bottom costs less."""
    ref = np.array([[0.4, 0.3, 0.2, 0.1]] * 2)
    top = np.array([[0.3, 0.4, 0.2, 0.1]] * 2)
    bottom = np.array([[0.4, 0.3, 0.1, 0.2]] * 2)
    assert leaderboard_agreement(ref, top, n_resamples=0).statistics["tau_ap"] == pytest.approx(1 / 3)
    assert leaderboard_agreement(ref, bottom, n_resamples=0).statistics["tau_ap"] == pytest.approx(
        tau_ap_by_hand([4, 3, 2, 1], [4, 3, 1, 2]))
    s = leaderboard_agreement(ref, top, n_resamples=0).statistics
    assert (s["tau_b"], s["max_drop"], s["same_top"]) == (pytest.approx(2 / 3), 1.0, 0.0)


def test_ties_in_the_means_are_broken_by_name_with_a_warning():
    ref = np.array([[0.2, 0.2, 0.1], [0.2, 0.2, 0.2]])
    judge = np.array([[0.3, 0.2, 0.1], [0.3, 0.2, 0.1]])
    with pytest.warns(EvaluationWarning, match="ties systems"):
        s = leaderboard_agreement(ref, judge, n_resamples=0).statistics
    assert s["tau_b"] == pytest.approx(stats.kendalltau(ref.mean(0), judge.mean(0)).statistic)


@pytest.mark.parametrize("seed", range(3))
def test_bootstrap_intervals_are_percentiles_over_topic_resamples(seed):
    ref, judge = _pair(seed + 20, topics=15, systems=6)
    s = leaderboard_agreement(ref, judge, n_resamples=300, rng=seed).statistics
    draws = np.concatenate([b.generator().integers(0, 15, (b.size, 15)) for b in resample_blocks(300, seed)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        taus = [stats.kendalltau(ref[d].mean(0), judge[d].mean(0)).statistic for d in draws]
        rhos = [stats.pearsonr(ref[d].mean(0), judge[d].mean(0)).statistic for d in draws]
        aps = [tau_ap_by_hand(list(ref[d].mean(0)), list(judge[d].mean(0))) for d in draws]
    assert (s["tau_b[low]"], s["tau_b[high]"]) == pytest.approx(tuple(np.nanquantile(taus, [0.025, 0.975])))
    assert (s["pearson[low]"], s["pearson[high]"]) == pytest.approx(tuple(np.quantile(rhos, [0.025, 0.975])))
    assert (s["tau_ap[low]"], s["tau_ap[high]"]) == pytest.approx(tuple(np.quantile(aps, [0.025, 0.975])))
    again = leaderboard_agreement(ref, judge, n_resamples=300, rng=seed).statistics
    assert again == s


def test_different_systems_are_an_error():
    with pytest.raises(CranfieldError, match="same systems and topics"):
        leaderboard_agreement(np.ones((3, 3)), np.ones((3, 4)), n_resamples=0)


def test_significance_agreement_counts_swaps():
    """Runs 0 < 1 < 2 clearly under the reference; the judge reverses 0 and 2 and ties 1 with 0."""
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 0.01, (20, 3))
    ref = np.array([0.1, 0.5, 0.9]) + noise
    judge = np.array([0.9, 0.1, 0.1]) + noise[:, [2, 0, 1]] * 0.5 + np.array([0, 0, 0.0])
    judge[:, 2] = 0.1 + noise[:, 1]
    a = significance_agreement(discriminative_power(ref, test="t"), discriminative_power(judge, test="t"))
    # pairs (0,1), (0,2), (1,2): reference 0<1, 0<2, 1<2 all significant;
    # judge: 0>1 significant (swap), 0>2 significant (swap), 1 vs 2 not significant
    assert (a.swaps, a.both_same, a.reference_only, a.judge_only, a.neither) == (2, 0, 1, 0, 0)
    assert (a.power_reference, a.power_judge) == (1.0, pytest.approx(2 / 3))
    assert a.to_dict()["power(judge)"] == pytest.approx(2 / 3)


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 12), st.integers(3, 9), st.integers(0, 2**32 - 1))
def test_a_judge_equal_to_the_reference_agrees_perfectly(topics, systems, seed):
    """Invariant: identical score matrices give τ_b = τ_ap = ρ = 1, no error, no drop, the same top."""
    x = np.random.default_rng(seed).random((topics, systems))
    s = leaderboard_agreement(x, x.copy(), n_resamples=20, rng=seed).statistics
    assert (s["tau_b"], s["tau_ap"], s["spearman"], s["max_drop"], s["same_top"]) == (1.0, 1.0, 1.0, 0.0, 1.0)
    assert (s["rmse"], s["bias"], s["loa_low"], s["loa_high"]) == (0.0, 0.0, 0.0, 0.0)
    assert s["tau_b[low]"] == s["tau_b[high]"] == 1.0
