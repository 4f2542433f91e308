"""Topic averaging (Golbus, Aslam & Clarke, Inf. Retr. 2013, §6.3; docs/conventions.md#averaging): arithmetic,
geometric (ε = 1e-5) and dd-weighted."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning
from cranfield.analysis.diversity import collection_diversity
from cranfield.evaluation.averaging import GEOM_EPSILON, average, dd_weights


def test_arithmetic_and_geometric():
    x = [0.5, 0.0, 0.25, 0.1]
    assert average(x, "avg") == pytest.approx(0.2125)
    # trec_eval's gm_map: exp(mean(log(max(x, 1e-5))))
    expected = math.exp((math.log(0.5) + math.log(1e-5) + math.log(0.25) + math.log(0.1)) / 4)
    assert average(x, "geom") == pytest.approx(expected, rel=1e-14)
    assert GEOM_EPSILON == 1e-5
    assert average(x, "geom", eps=0.01) == pytest.approx(math.exp(np.log([0.5, 0.01, 0.25, 0.1]).mean()))


def test_dd_weights_normalised():
    x = np.array([0.2, 0.4, 0.9])
    assert average(x, "dd", weights=[1, 1, 2]) == pytest.approx((0.2 + 0.4 + 1.8) / 4)
    assert average(x, "dd", weights=[0.5, 0.5, 1.0]) == average(x, "dd", weights=[1, 1, 2])


def test_axis_and_nan():
    values = np.array([[[0.5, np.nan, 0.1], [1.0, 1.0, 1.0]], [[np.nan, np.nan, np.nan], [0.2, 0.4, 0.0]]])  # (S, M, T)
    with pytest.warns(EvaluationWarning, match="3 topics have no value"):
        got = average(values, "avg")
    assert got.shape == (2, 2)
    assert got[0, 0] == pytest.approx(0.3) and np.isnan(got[1, 0]) and got[1, 1] == pytest.approx(0.2)
    with pytest.warns(EvaluationWarning, match="dd-weighted mean"):
        assert average(values, "dd", weights=[1, 3, 1])[0, 0] == pytest.approx(0.3)  # NaN topic's weight dropped
    with pytest.warns(EvaluationWarning, match="geometric mean"):
        assert average(values, "geom")[0, 0] == pytest.approx(math.sqrt(0.05))
    with pytest.warns(EvaluationWarning, match="3 topics"):
        assert average(values.swapaxes(0, 2), "avg", axis=0).T == pytest.approx(got, nan_ok=True)


def test_weight_zero_topics_are_reported():
    with pytest.warns(EvaluationWarning, match=r"2 topics have weight 1 - dd = 0 .*: b, c"):
        got = average([0.3, 0.9, 0.9], "dd", weights=[0.5, 0.0, 0.0], topics=["a", "b", "c"])
    assert got == pytest.approx(0.3)


@pytest.mark.parametrize("kwargs, message", [
    ({"how": "median"}, "The average must be one of 'avg', 'geom', 'dd'. Got 'median' instead."),
    ({"how": "dd"}, "needs topic weights"),
    ({"how": "dd", "weights": [0, 0, 0]}, "every topic has weight 0"),
    ({"how": "dd", "weights": [1, 1]}, "expected 3 topic weights"),
    ({"how": "dd", "weights": [1, -1, 1]}, "non-negative"),
    ({"how": "geom", "measure": "RBU"}, "RBU can be negative"),
])
def test_errors(kwargs, message):
    with pytest.raises(CranfieldError, match=message):
        average([0.1, 0.2, 0.3], **kwargs)


def test_geom_refuses_negative_values():
    with pytest.raises(CranfieldError, match="negative value"):
        average([0.1, -0.2], "geom")
    assert average([0.1, -0.2], "avg") == pytest.approx(-0.05)
    assert average([0.1, 0.4], "geom", measure="nDCG@10") == pytest.approx(0.2)


def test_dd_weights_from_qrels():
    """1 − dd(t) at depth ξ; a topic with one intent has dd = 1 and weight 0 (reported when averaged)."""
    path = DATA / "web2009" / "qrels.diversity.gz"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w = dd_weights(path)
        stats = collection_diversity(path)
    assert w == pytest.approx(1 - stats.stats.dd, abs=0)
    single = [t for t, ids in zip(stats.topic_ids, stats.intent_ids) if len(ids) == 1]
    assert single and all(w[stats.topic_ids.index(t)] == 0.0 for t in single)
    with pytest.warns(EvaluationWarning, match="do not count in the dd average: " + ", ".join(single)):
        average(np.ones(len(w)), "dd", weights=w, topics=list(stats.topic_ids))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=20), st.data())
def test_means_lie_between_min_and_max(x, data):
    w = data.draw(st.lists(st.floats(0.01, 1), min_size=len(x), max_size=len(x)))
    for how, kw in [("avg", {}), ("geom", {}), ("dd", {"weights": w})]:
        got = float(average(x, how, **kw))
        low = max(min(x), GEOM_EPSILON) if how == "geom" else min(x)
        assert low - 1e-12 <= got <= max(max(x), GEOM_EPSILON) + 1e-12
    assert float(average(x, "geom")) <= float(average(np.maximum(x, GEOM_EPSILON), "avg")) + 1e-12  # AM-GM


@pytest.mark.parametrize("module", ["cranfield.evaluation.averaging", "cranfield.measures.topics",
                                    "cranfield.analysis.dss", "cranfield.measures.alpha_sharp"])
def test_docstring_examples(module):
    import doctest
    import importlib

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # examples must not warn
        result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0


def test_evaluate_dd_depth_weights_by_hand():
    """cranfield.evaluate(..., average="dd", dd_depth=...): topic t weighs 1 - dd(t) (Golbus, Aslam &
    Clarke, Inf. Retr. 2013, §6.3), dd = 2·d_max·d_mean(k)/(d_max + d_mean(k)), d_max = 1.

    Topic 1: x {d1}, y {d2}: xi = 2, d_mean(k) = 1 - 0.5^k: dd(2) = 6/7, dd(3) = 14/15.
    Topic 2: x {d3, d4, d5}, y {d6}: xi = 2, d_mean(k) = 1 - (0.25^k + 0.75^k)/2: d_mean(2) = 22/32,
    dd(2) = 22/27; d_mean(3) = 100/128, dd(3) = 50/57. The run scores S-recall@2 = 1 on topic 1
    (d1, d2) and 1/2 on topic 2 (d3, d4)."""
    import cranfield

    qrels = {"1": {"x": {"d1": 1}, "y": {"d2": 1}}, "2": {"x": {"d3": 1, "d4": 1, "d5": 1}, "y": {"d6": 1}}}
    run = {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 2.0, "d4": 1.0}}

    def mean(**kw):
        df = cranfield.evaluate(qrels, run, ["StRecall@2"], **kw)
        return float(df[df.topic == "all"].value.iloc[0])

    w_xi, w_xi1 = (1 - 6 / 7, 1 - 22 / 27), (1 - 14 / 15, 1 - 50 / 57)
    hand_xi1 = (w_xi1[0] * 1.0 + w_xi1[1] * 0.5) / sum(w_xi1)
    hand_xi = (w_xi[0] * 1.0 + w_xi[1] * 0.5) / sum(w_xi)
    assert hand_xi1 == pytest.approx(0.675926, abs=1e-6) and hand_xi == pytest.approx(0.717742, abs=1e-6)
    assert mean(average="dd", dd_depth="xi+1") == pytest.approx(hand_xi1, abs=1e-12)
    assert mean(average="dd", dd_depth="xi") == pytest.approx(hand_xi, abs=1e-12)
    assert mean(average="dd") == pytest.approx(hand_xi, abs=1e-12)  # the default depth is xi
    assert abs(hand_xi1 - hand_xi) > 0.04 and mean(average="avg") == pytest.approx(0.75)
    # an integer depth: dd(3) is the xi+1 value here
    assert mean(average="dd", dd_depth=3) == pytest.approx(hand_xi1, abs=1e-12)
