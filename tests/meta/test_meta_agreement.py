"""Rank correlations (scipy for τ-b and ρ, hand-worked τ_ap) and intuitiveness (Sakai, WWW 2012,
Figure 6)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import cranfield
from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning
from cranfield.io.examples import example_files
from cranfield.meta import correlation_matrix, intuitiveness, kendall_tau, spearman_rho, tau_ap


# --------------------------------------------------------------------------- τ-b and ρ
@pytest.mark.parametrize("seed", range(6))
def test_kendall_and_spearman_agree_with_scipy(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 40))
    x = rng.integers(0, 6, n) / 5  # many ties
    y = np.where(rng.random(n) < 0.5, x, rng.integers(0, 6, n) / 5)
    assert kendall_tau(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)
    assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)


def test_correlations_of_constant_orderings_are_nan():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
        assert np.isnan(spearman_rho([1, 2, 3], [2, 2, 2]))


def test_ties_follow_the_equality_rule():
    """Means that differ by rounding noise are tied (docs/conventions.md#equality), unlike scipy on raw floats."""
    assert kendall_tau([0.3, 0.1 + 0.2, 0.5], [1, 2, 3]) == pytest.approx(stats.kendalltau([0, 0, 1], [1, 2, 3])[0])


# --------------------------------------------------------------------------- τ_ap
@pytest.mark.parametrize("evaluated, reference, expected", [
    # truth a > b > c > d > e; swapping the top two costs more than swapping the bottom two
    ([4, 5, 3, 2, 1], [5, 4, 3, 2, 1], 0.5),   # C = 0, 1, 1, 1: 2/4 · 3 − 1
    ([5, 4, 3, 1, 2], [5, 4, 3, 2, 1], 0.875),  # C = 1, 1, 1, 3/4: 2/4 · 3.75 − 1
    ([5, 4, 3, 2, 1], [5, 4, 3, 2, 1], 1.0),
    ([1, 2, 3, 4, 5], [5, 4, 3, 2, 1], -1.0),
    # truth 1 > 2 > 3 (systems 0, 1, 2); the evaluated list 3, 1, 2: C(2) = 0, C(3) = 1 → −0.5
    ([2, 1, 3], [3, 2, 1], -0.5),
    # and the other direction: the list 1, 2, 3 against the truth 3, 1, 2: C(2) = 1, C(3) = 0 → 0
    ([3, 2, 1], [2, 1, 3], 0.0),
])
def test_tau_ap_hand_worked(evaluated, reference, expected):
    assert tau_ap(evaluated, reference, symmetric=False) == pytest.approx(expected, abs=1e-15)


def test_symmetric_tau_ap_is_the_mean_of_both_directions():
    assert tau_ap([2, 1, 3], [3, 2, 1]) == pytest.approx(-0.25)
    assert tau_ap([3, 2, 1], [2, 1, 3]) == pytest.approx(-0.25)
    assert kendall_tau([2, 1, 3], [3, 2, 1]) == pytest.approx(-1 / 3)


def test_tau_ap_breaks_ties_by_system_name_with_a_warning():
    with pytest.warns(EvaluationWarning, match="ties systems a, b"):
        # a and b tie in x; by name a ranks first, which agrees with y
        assert tau_ap([1, 1, 0], [2, 1, 0], systems=["a", "b", "c"], symmetric=False) == 1.0
    with pytest.warns(EvaluationWarning):
        assert tau_ap([1, 1, 0], [2, 1, 0], systems=["b", "a", "c"], symmetric=False) == 0.0


def test_correlation_matrix():
    rng = np.random.default_rng(0)
    base = rng.random((20, 8))
    data = {"A": base, "B": base + rng.normal(0, 0.05, base.shape), "C": rng.random((20, 8))}
    c = correlation_matrix(data, ["A", "B", "C"])
    means = {k: v.mean(axis=0) for k, v in data.items()}
    assert c.measures == ("A", "B", "C") and np.allclose(np.diag(c.kendall), 1)
    assert c.kendall[0, 2] == c.kendall[2, 0] == pytest.approx(stats.kendalltau(means["A"], means["C"])[0])
    assert c.tau_ap[1, 2] == pytest.approx(tau_ap(means["B"], means["C"]))
    assert c.spearman[0, 1] == pytest.approx(stats.spearmanr(means["A"], means["B"])[0])
    rows = c.rows()
    assert [(r["measure_1"], r["measure_2"]) for r in rows] == [("A", "B"), ("A", "C"), ("B", "C")]
    assert list(c.to_frame().columns) == ["measure_1", "measure_2", "kendall_tau", "tau_ap", "spearman_rho",
                                          "systems"]
    with pytest.raises(CranfieldError, match="at least two measures"):
        correlation_matrix(data, ["A"])


# --------------------------------------------------------------------------- intuitiveness
def reference_intuitiveness(m1, m2, golds):
    """Sakai, WWW 2012, Figure 6, as printed, one topic and pair at a time."""
    t, s = m1.shape
    dis = c1 = c2 = 0
    for i in range(s):
        for j in range(i + 1, s):
            for k in range(t):
                d1, d2 = m1[k, i] - m1[k, j], m2[k, i] - m2[k, j]
                dg = [g[k, i] - g[k, j] for g in golds]
                if d1 * d2 < 0:
                    dis += 1
                    c1 += all(d1 * x >= 0 for x in dg)
                    c2 += all(d2 * x >= 0 for x in dg)
    return dis, c1, c2


def test_intuitiveness_equals_figure_6():
    rng = np.random.default_rng(5)
    m1, m2 = rng.integers(0, 4, (15, 6)) / 4, rng.integers(0, 4, (15, 6)) / 4
    g1, g2 = rng.integers(0, 3, (15, 6)) / 2, rng.integers(0, 3, (15, 6)) / 2
    data = {"M1": m1, "M2": m2, "I-rec": g1, "Ef-P": g2}
    for golds in (["I-rec"], ["I-rec", "Ef-P"]):
        r = intuitiveness(data, "M1", "M2", golds)
        dis, c1, c2 = reference_intuitiveness(m1, m2, [data[g] for g in golds])
        assert (r.disagreements, r.correct_1, r.correct_2) == (dis, c1, c2)
        assert r.intuitiveness_1 == c1 / dis and r.cases == 15 * 15
    assert r.to_dict()["gold"] == "I-rec+Ef-P"


def test_intuitiveness_hand_worked_with_gold_ties():
    # topic 0: M1 prefers s0, M2 prefers s1, gold tie -> both correct
    # topic 1: M1 prefers s1, M2 prefers s0, gold prefers s1 -> only M1 correct
    # topic 2: both prefer s0 -> not a disagreement
    data = {"M1": [[1, 0], [0, 1], [1, 0]], "M2": [[0, 1], [1, 0], [1, 0]], "GS": [[1, 1], [0, 1], [0, 1]]}
    r = intuitiveness(data, "M1", "M2", "GS")
    assert (r.disagreements, r.correct_1, r.correct_2) == (2, 2, 1)
    assert (r.intuitiveness_1, r.intuitiveness_2) == (1.0, 0.5)


def test_intuitiveness_uses_the_equality_rule():
    """A difference of rounding noise is no preference: no disagreement here."""
    data = {"M1": [[0.3, 0.1 + 0.2]], "M2": [[0.1 + 0.2, 0.3]], "GS": [[0.0, 1.0]]}
    r = intuitiveness(data, "M1", "M2", "GS")
    assert r.disagreements == 0 and np.isnan(r.intuitiveness_1)


def test_intuitiveness_on_diversity_runs():
    """The bundled TREC 2012 Web runs with I-rec@10 and Ef-P@10 as gold standards."""
    runs = example_files()["runs"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        frame = cranfield.evaluate(str(DATA / "web2012" / "qrels-for-ndeval.txt.gz"), runs,
                                   ["alpha-nDCG@10", "P@10", "I-rec@10", "Ef-P@10"])
    r = intuitiveness(frame, "alpha-nDCG@10", "P@10", ["I-rec@10", "Ef-P@10"])
    pivot = {m: frame[(frame.measure == m) & (frame.topic != "all")].pivot(index="topic", columns="run",
                                                                          values="value").to_numpy()
             for m in ("alpha-nDCG@10", "P@10", "I-rec@10", "Ef-P@10")}
    expected = reference_intuitiveness(pivot["alpha-nDCG@10"], pivot["P@10"], [pivot["I-rec@10"], pivot["Ef-P@10"]])
    assert (r.disagreements, r.correct_1, r.correct_2) == expected
    assert r.cases == 50


def test_intuitiveness_needs_a_gold_standard():
    with pytest.raises(CranfieldError, match="gold"):
        intuitiveness({"A": np.eye(2), "B": np.eye(2)}, "A", "B", [])
