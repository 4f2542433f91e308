"""Label agreement (cranfield.meta.labels): scikit-learn's cohen_kappa_score and the krippendorff
package on random labels, per topic and pooled; hand-worked cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import CranfieldError, EvaluationWarning
from cranfield.meta.labels import LabelTable, cohen_kappa, krippendorff_alpha, label_agreement, weighted_kappa

krippendorff = pytest.importorskip("krippendorff")
metrics = pytest.importorskip("sklearn.metrics")


def _tables(topic, unit, x, y):
    return LabelTable.of(topic, unit, x), LabelTable.of(topic, unit, y)


def _random_pairs(seed: int, n_topics: int = 4, n: int = 400):
    rng = np.random.default_rng(seed)
    topic = rng.integers(0, n_topics, n)
    unit = rng.permutation(n)
    x = rng.choice([-2, 0, 1, 2, 3], n, p=[0.05, 0.5, 0.2, 0.15, 0.1])
    y = np.where(rng.random(n) < 0.6, x, rng.choice([-2, 0, 1, 2, 3], n))
    return topic, unit, x, y


def _quiet(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        return label_agreement(*args, **kwargs)


@pytest.mark.parametrize("seed", range(5))
def test_kappas_agree_with_scikit_learn_per_topic_and_pooled(seed):
    topic, unit, x, y = _random_pairs(seed)
    a = _quiet(*_tables(topic, unit, x, y))
    grades = np.arange(-2, 4)  # integer grades: scikit-learn's index distance is the grade distance
    for k in range(a.topics.size + 1):
        sel = topic == k if k < a.topics.size else np.ones(topic.size, dtype=bool)
        for w in ("linear", "quadratic"):
            expected = metrics.cohen_kappa_score(x[sel], y[sel], weights=w, labels=grades)
            assert a.statistics[f"weighted_kappa({w})"][k] == pytest.approx(expected, abs=1e-12)
        for level in (1, 2, 3):
            expected = metrics.cohen_kappa_score(x[sel] >= level, y[sel] >= level)
            assert a.statistics[f"kappa(rel={level})"][k] == pytest.approx(expected, abs=1e-12)
        assert a.statistics["agreement"][k] == pytest.approx(np.mean(x[sel] == y[sel]), abs=1e-15)


@pytest.mark.parametrize("seed", range(5))
def test_alpha_agrees_with_krippendorff_package(seed):
    topic, unit, x, y = _random_pairs(seed + 10)
    a = _quiet(*_tables(topic, unit, x, y))
    for k in range(a.topics.size + 1):
        sel = topic == k if k < a.topics.size else np.ones(topic.size, dtype=bool)
        data = np.stack([x[sel], y[sel]]).astype(float)
        for metric in ("nominal", "ordinal", "interval"):
            expected = krippendorff.alpha(reliability_data=data, level_of_measurement=metric)
            assert a.statistics[f"alpha({metric})"][k] == pytest.approx(expected, abs=1e-10)


def test_weights_are_grade_distances_not_label_positions():
    """Grades 0, 1, 3: the distance 1 → 3 is 2. scikit-learn with the unused label 2 listed agrees."""
    x = np.array([0, 1, 3, 3, 0, 1, 1, 3])
    y = np.array([0, 3, 3, 1, 1, 1, 0, 3])
    a = label_agreement(*_tables(np.zeros(8), np.arange(8), x, y))
    assert a.grades.tolist() == [0, 1, 3]
    for w in ("linear", "quadratic"):
        expected = metrics.cohen_kappa_score(x, y, weights=w, labels=[0, 1, 2, 3])
        assert a.pooled(f"weighted_kappa({w})") == pytest.approx(expected, abs=1e-12)
        by_index = metrics.cohen_kappa_score(x, y, weights=w)  # positions 0, 1, 2: a different number
        assert a.pooled(f"weighted_kappa({w})") != pytest.approx(by_index, abs=1e-6)


def test_hand_worked_kappa_with_ties_in_the_marginals():
    """Reference 0 0 1 1 2 2, judge 0 1 1 1 2 0. p_o = 4/6; marginals (2, 2, 2) and (2, 3, 1):
    p_e = (4 + 6 + 2)/36 = 1/3, κ = (2/3 − 1/3)/(2/3) = 1/2. Binarised at 1: ref 0 0 1 1 1 1,
    judge 0 1 1 1 1 0: p_o = 4/6, p_e = (2·2 + 4·4)/36 = 5/9, κ = (1/9)/(4/9) = 1/4."""
    x, y = [0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 2, 0]
    a = label_agreement(*_tables(np.zeros(6), np.arange(6), x, y))
    assert a.pooled("agreement") == pytest.approx(4 / 6)
    assert cohen_kappa(a.confusion[0]) == pytest.approx(0.5)
    assert a.pooled("kappa(rel=1)") == pytest.approx(0.25)
    assert a.confusion[0].tolist() == [[1, 1, 0], [0, 2, 0], [1, 0, 1]]


def test_a_judge_that_labels_everything_relevant():
    """Pooled: κ = 0 (p_o = p_e). Topic 1, which the reference also judges all relevant: one
    class throughout, so κ and α are undefined there → NaN with a warning naming the topic."""
    topic = [0, 0, 0, 0, 1, 1]
    x = [0, 1, 0, 1, 1, 1]
    y = [1, 1, 1, 1, 1, 1]
    with pytest.warns(EvaluationWarning, match=r"kappa\(rel=1\), .*alpha\(interval\) undefined .*topics 1;"):
        a = label_agreement(*_tables(topic, np.arange(6), x, y))
    assert a.statistics["kappa(rel=1)"].tolist()[::2] == [0.0, 0.0]
    assert np.isnan(a.statistics["kappa(rel=1)"][1])
    assert np.isnan(a.statistics["alpha(nominal)"][1])
    assert a.pooled("agreement") == pytest.approx(4 / 6)


def test_one_topic_counts_and_missing_units():
    ref = LabelTable.of([3, 3, 3, 3], [10, 11, 12, 13], [1, 0, 2, 1])
    judge = LabelTable.of([3, 3, 3], [11, 12, 99], [0, 2, 1])
    a = label_agreement(ref, judge)
    assert a.topics.tolist() == [3]
    assert (a.n_both.tolist(), a.n_reference_only.tolist(), a.n_judge_only.tolist()) == ([2, 2], [2, 2], [1, 1])
    assert a.pooled("agreement") == 1.0
    assert a.pooled("kappa(rel=2)") == 1.0


def test_topics_only_one_coder_has_are_counted():
    ref = LabelTable.of([0, 0, 1], [1, 2, 1], [1, 0, 1])
    judge = LabelTable.of([0, 0, 2], [1, 2, 1], [1, 0, 0])
    a = label_agreement(ref, judge)
    assert a.topics.tolist() == [0, 1, 2]
    assert a.n_both.tolist() == [2, 0, 0, 2]
    assert a.n_reference_only.tolist() == [0, 1, 0, 1]
    assert a.n_judge_only.tolist() == [0, 0, 1, 1]
    assert np.isnan(a.statistics["agreement"][1])  # nothing compared: null, and no warning for it


def test_no_common_units_is_an_error():
    with pytest.raises(CranfieldError, match="no labelled unit in common"):
        label_agreement(LabelTable.of([0], [1], [1]), LabelTable.of([0], [2], [1]))


def test_a_unit_twice_is_an_error():
    with pytest.raises(CranfieldError, match="judge labels a unit of a topic twice"):
        label_agreement(LabelTable.of([0, 0], [1, 2], [1, 0]), LabelTable.of([0, 0], [2, 2], [1, 0]))


def test_kernels_on_stacked_matrices_match_one_by_one():
    rng = np.random.default_rng(5)
    tables = rng.integers(0, 9, (6, 3, 3))
    grades = np.array([0.0, 1.0, 2.0])
    for fn, kw in ((weighted_kappa, {"weights": "quadratic"}), (krippendorff_alpha, {"metric": "ordinal"})):
        stacked = fn(tables, grades, **kw)
        assert np.array_equal(stacked, [fn(t, grades, **kw) for t in tables])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=40))
def test_symmetry_and_identity(pairs):
    """κ, weighted κ and α are symmetric in the two coders; a coder agrees perfectly with itself."""
    x = np.array([p[0] for p in pairs])
    y = np.array([p[1] for p in pairs])
    unit = np.arange(x.size)
    forward = _quiet(*_tables(np.zeros_like(x), unit, x, y))
    backward = _quiet(*_tables(np.zeros_like(x), unit, y, x))
    for name, values in forward.statistics.items():
        np.testing.assert_allclose(values, backward.statistics[name], rtol=1e-12, atol=1e-12, equal_nan=True)
    same = _quiet(*_tables(np.zeros_like(x), unit, x, x))
    assert same.pooled("agreement") == 1.0
    if np.unique(x).size > 1:
        assert same.pooled("weighted_kappa(linear)") == pytest.approx(1.0)
        assert same.pooled("alpha(interval)") == pytest.approx(1.0)
