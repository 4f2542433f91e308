"""Unanimous Improvement Ratio and Quality Aspect Coverage (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cranfield import CranfieldError
from cranfield.meta import quality_aspect_coverage, unanimous_improvement_ratio


def reference_uir(reference, n_pairs, seed):
    """The paper's formula, one system pair and one topic pair at a time."""
    t, s = reference[0].shape
    pairs = np.random.default_rng(seed).integers(0, t, (n_pairs, 2))
    out = np.full((s, s), np.nan)
    for a in range(s):
        for b in range(s):
            if a != b:
                wins = sum(all(m[t1, a] >= m[t2, b] for m in reference) for t1, t2 in pairs)
                losses = sum(all(m[t2, b] >= m[t1, a] for m in reference) for t1, t2 in pairs)
                out[a, b] = (wins - losses) / n_pairs
    return out, pairs


def data(seed=0, topics=12, systems=5):
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 5, (topics, systems)) / 4  # ties across topics and systems
    return {"P@10": base, "R@100": np.clip(base + rng.integers(-1, 2, base.shape) / 4, 0, 1),
            "RR": rng.integers(0, 3, (topics, systems)) / 2, "AP": base * 0.9 + rng.random(base.shape) * 0.1}


def test_uir_equals_the_formula():
    d = data()
    r = unanimous_improvement_ratio(d, ["P@10", "R@100", "RR"], n_pairs=300, rng=4)
    expected, pairs = reference_uir([d["P@10"], d["R@100"], d["RR"]], 300, 4)
    assert np.array_equal(r.topic_pairs, pairs)
    np.testing.assert_array_equal(r.uir, expected)
    assert r.reference == ("P@10", "R@100", "RR")
    assert len(r.to_frame()) == 20


def test_a_dominant_system_improves_unanimously():
    x = np.array([[0.0, 1.0], [0.2, 1.0], [0.5, 1.0]])
    r = unanimous_improvement_ratio({"A": x, "B": x}, ["A", "B"], n_pairs=100, rng=0)
    assert r.uir[1, 0] == 1.0 and r.uir[0, 1] == -1.0 and np.isnan(r.uir[0, 0])


def test_coverage_is_spearman_over_ordered_pairs():
    d = data(1)
    cov = quality_aspect_coverage(d, ["AP", "RR"], ["P@10", "R@100"], n_pairs=200, rng=2)
    uir = unanimous_improvement_ratio(d, ["P@10", "R@100"], n_pairs=200, rng=2)
    off = ~np.eye(5, dtype=bool)
    for k, m in enumerate(["AP", "RR"]):
        means = d[m].mean(axis=0)
        diff = means[:, None] - means[None, :]
        assert cov.coverage[k] == pytest.approx(stats.spearmanr(diff[off], uir.uir[off])[0], abs=1e-12)
    assert [r["measure"] for r in cov.rows()] == ["AP", "RR"]
    assert cov.rows()[0]["reference"] == "P@10+R@100"


def test_uir_errors():
    with pytest.raises(CranfieldError, match="reference"):
        unanimous_improvement_ratio(data(), [])
    with pytest.raises(CranfieldError, match="n_pairs"):
        unanimous_improvement_ratio(data(), ["AP"], n_pairs=0)
    with pytest.raises(CranfieldError, match="no scores for measure 'nDCG'"):
        quality_aspect_coverage(data(), ["nDCG"], ["AP"])
