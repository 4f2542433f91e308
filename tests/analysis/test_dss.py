"""Document selection sensitivity (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7; docs/conventions.md#dss): seeded,
vectorised, equal to scoring each permutation alone, and `cranfield dss`."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield.analysis.dss as dss_module
from conftest import DATA
from cranfield import Batch, CranfieldError, EvaluationWarning, parse_measure
from cranfield.analysis.dss import at_cutoff, coefficient_of_variation, dss, random_prefixes, sweep_measures
from cranfield.cli.main import main
from cranfield.evaluation.averaging import average, dd_weights
from cranfield.evaluation.collection import load_collection

WEB2012 = DATA / "web2012" / "qrels-for-ndeval.txt.gz"
SMALL = {"1": {"a": {"x": 1, "y": 2}, "b": {"y": 1, "z": 1, "w": 1}, "c": {"x": 1, "u": 1}},
         "2": {"a": {"p": 1, "q": 1, "r": 1, "s": 1, "t": 1}, "b": {"q": 1, "v": 1}},
         "3": {"a": {"m": 1}}}
MEASURES = ["alpha_nDCG", "ERR_IA", "StRecall", "IA(nDCG)", "AP_IA", "alpha#-IA(subtopics=geom)", "D#-nDCG"]


def quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def test_coefficient_of_variation():
    x = np.array([[1.0, 0.0], [2.0, 0.0], [4.0, 0.0]])
    got = coefficient_of_variation(x)
    assert got[0] == pytest.approx(np.std([1, 2, 4], ddof=1) / (7 / 3)) and np.isnan(got[1])


def test_random_prefixes_are_the_argsort_of_the_keys():
    for n_docs, depth in [(50, 7), (7, 7), (5, 20), (1, 3)]:
        got = random_prefixes(np.random.default_rng(4), n_docs, 300, depth)
        keys = np.random.default_rng(4).random((300, n_docs))
        assert np.array_equal(got, np.argsort(keys, axis=1, kind="stable")[:, :depth])
        assert all(len(set(row)) == len(row) for row in got.tolist())


def test_permutations_are_uniform():
    first = random_prefixes(np.random.default_rng(0), 4, 40_000, 2)
    pairs = np.bincount(first[:, 0] * 4 + first[:, 1], minlength=16).reshape(4, 4)
    assert (np.diag(pairs) == 0).all()
    assert np.abs(pairs[~np.eye(4, dtype=bool)] / 40_000 - 1 / 12).max() < 0.006


def test_one_batch_equals_scoring_each_permutation_alone():
    """The vectorised result is identical to scoring the same N permutations one at a time."""
    n, ks, seed = 25, [2, 5], 11
    got = quiet(dss, SMALL, MEASURES, k=ks, n=n, seed=seed)
    coll = quiet(load_collection, SMALL)
    topics = coll.topics
    rng = np.random.default_rng(seed)
    for t in range(coll.n_topics):
        docs = topics.rel_docs[t][(topics.rel_docs[t] >= 1).any(axis=1)]
        keys = rng.random((n, docs.shape[0]))
        perms = np.argsort(keys, axis=1, kind="stable")
        one = topics.take(slice(t, t + 1))
        for j, k in enumerate(ks):
            for m, name in enumerate(MEASURES):
                measure = at_cutoff(name, k)
                scores = []
                for p in perms:
                    ranked = docs[p[:k]]
                    batch = Batch.from_labels(ranked[None, None], one)
                    scores.append(measure(batch)[0, 0])
                expected = np.std(scores, ddof=1) / np.mean(scores)
                assert got.values[m, j, t] == pytest.approx(expected, rel=1e-12, abs=1e-15), (name, k, t)
                assert got.means[m, j, t] == pytest.approx(np.mean(scores), rel=1e-12)


def test_seeded_and_independent_of_the_block_size(monkeypatch):
    a = quiet(dss, WEB2012, ["alpha_nDCG", "alpha#-IA(subtopics=cascade)"], k=[3, 10], n=40, seed=5)
    monkeypatch.setattr(dss_module, "DSS_CELL_BUDGET", 1)  # one topic per block
    b = quiet(dss, WEB2012, ["alpha_nDCG", "alpha#-IA(subtopics=cascade)"], k=[3, 10], n=40, seed=5)
    c = quiet(dss, WEB2012, ["alpha_nDCG", "alpha#-IA(subtopics=cascade)"], k=[3, 10], n=40, seed=6)
    # the same permutations; only BLAS's summation order inside the kernels may follow the block shape
    assert np.allclose(a.values, b.values, rtol=1e-13, atol=0, equal_nan=True)
    assert np.allclose(a.averaged, b.averaged, rtol=1e-13, atol=0)
    assert not np.array_equal(a.values, c.values, equal_nan=True)
    assert a.values.shape == (2, 2, 50) and (a.values[~np.isnan(a.values)] >= 0).all()


def test_analytic_value():
    """Intents x, y, z; a {x}, b {y}, c {x, z}; S-recall@2 is 2/3, 2/3, 1 with probability 1/3
    each: coefficient of variation √2/7 (population SD; ddof = 1 adds a factor √(N/(N−1)))."""
    qrels = {"1": {"x": {"a": 1, "c": 1}, "y": {"b": 1}, "z": {"c": 1}}}
    n = 60_000
    got = dss(qrels, ["StRecall"], k=2, n=n, seed=0)
    assert got.averaged[0, 0] == pytest.approx(math.sqrt(2) / 7 * math.sqrt(n / (n - 1)), rel=0.01)
    # k >= R: every permutation retrieves all three documents, S-recall is always 1
    assert dss(qrels, ["StRecall"], k=3, n=50).averaged[0, 0] == 0.0


def test_topic_averages():
    res = quiet(dss, WEB2012, ["alpha#-IA", "nDCG_IA"], k=[5, 20], n=30, seed=2, average="dd")
    coll = quiet(load_collection, WEB2012)
    w = dd_weights(coll)
    assert np.array_equal(res.weights, w)
    assert res.averaged == pytest.approx(quiet(average, res.values, "dd", weights=w), abs=0)
    for how in ("avg", "geom"):
        other = quiet(dss, WEB2012, ["alpha#-IA", "nDCG_IA"], k=[5, 20], n=30, seed=2, average=how)
        assert np.array_equal(other.values, res.values, equal_nan=True)
        assert other.averaged == pytest.approx(average(res.values, how), abs=0)
    # smaller cutoffs are more sensitive (Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 10)
    assert (res.averaged[:, 0] > res.averaged[:, 1]).all()


def test_topics_without_relevant_documents_and_all_zero_scores():
    qrels = {"1": {"x": {"a": 1, "b": 1}, "y": {"c": 1}}, "2": {"x": {"a": 0}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = dss(qrels, ["StRecall", "P_IA"], k=1, n=20, seed=1)
        zero = dss(qrels, ["IA(RR(rel=2))"], k=1, n=20)
    messages = [str(w.message) for w in caught if issubclass(w.category, EvaluationWarning)]
    assert "1 topics without relevant documents have no permutations and no DSS: 2" in messages
    assert any("score 0 on every permutation" in m and m.endswith(": 1") for m in messages)
    assert res.topics == ["1"] and res.values.shape == (2, 1, 1)
    assert np.isnan(zero.values[0, 0, 0]) and np.isnan(zero.averaged[0, 0])


@pytest.mark.parametrize("measures, kwargs, message", [
    (["RBU"], {}, "needs a non-negative measure; RBU@5 ranges from -1"),
    (["OIE"], {}, "needs a non-negative measure"),
    (["alpha_nDCG@10"], {}, "without @k"),
    (["IA(nDCG@10)"], {}, "without @k"),
    (["alpha_nDCG"], {"n": 1}, r"permutations n must be an integer in the range \[2, 100000\]"),
    (["alpha_nDCG"], {"k": [0]}, r"The cutoff k must be an integer in the range \[1, 10000\]"),
    (["alpha_nDCG"], {"average": "median"}, "The topic average must be one of 'avg'"),
    ([], {}, "no measures"),
])
def test_errors(measures, kwargs, message):
    with pytest.raises(CranfieldError, match=message):
        dss(SMALL, measures, **{"k": [5], **kwargs})


def test_cutoffs_reach_wrapped_measures():
    assert str(at_cutoff("IA(nDCG)", 7)) == "IA(nDCG@7)"
    assert str(at_cutoff(parse_measure("AP"), 3)) == "AP@3"
    assert str(at_cutoff("alpha#-IA(subtopics=smr)", 4)) == "alpha#-IA(subtopics=smr)@4"


def test_sweep_measures():
    names = sweep_measures()
    assert len(names) == 4 * 21 and len(set(names)) == len(names)
    assert "alpha#-IA(subtopics=cascade)" in names and "alpha#-IA(subtopics=geom,alpha=1)" in names
    assert "alpha#-IA(subtopics=smr,lambda=0)" in names


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_dss_is_non_negative(seed):
    rng = np.random.default_rng(seed)
    qrels = {str(t): {str(i): {f"d{j}": int(rng.integers(0, 3)) for j in range(int(rng.integers(1, 9)))}
                      for i in range(int(rng.integers(1, 5)))} for t in range(3)}
    qrels["0"]["0"]["d0"] = 1  # at least one topic with a relevant document
    res = quiet(dss, qrels, ["alpha#-IA(subtopics=cascade)", "StRecall", "ERR_IA"], k=[1, 4], n=10, seed=seed)
    v = res.values[~np.isnan(res.values)]
    assert (v >= 0).all() and np.isfinite(v).all()


def test_cli(capsys, tmp_path):
    args = ["dss", str(WEB2012), "-m", "alpha-nDCG,I-rec", "-m", "alpha#-IA(subtopics=geom)", "--k", "5,10",
            "--n", "20", "--seed", "3"]
    assert quiet(main, args) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0] == "# DSS n=20 seed=3 average=avg k=5,10"
    assert table[1].split() == ["measure", "DSS@5", "DSS@10"] and table[2].startswith("alpha-nDCG ")
    assert quiet(main, [*args, "--format", "json", "--per-topic", "--average", "geom"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert set(rows[0]) == {"measure", "k", "topic", "value"} and rows[0]["measure"] == "alpha_nDCG@5"
    assert sum(r["topic"] == "all" for r in rows) == 6 and len(rows) == 6 * 51
    assert quiet(main, [*args, "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "measure,k,topic,value"  # no # line: pandas reads it as is
    plot = tmp_path / "dss.png"
    assert quiet(main, ["dss", str(WEB2012), "--sweep", "--k", "5", "--n", "10", "--plot", str(plot)]) == 0
    assert plot.stat().st_size > 1000 and "alpha#-IA(subtopics=smr,alpha=1)" in capsys.readouterr().out
    assert quiet(main, ["dss", str(WEB2012), "-m", "alpha-nDCG", "--plot", str(plot)]) == 2
    assert "add --sweep" in capsys.readouterr().err
    assert quiet(main, ["dss", str(WEB2012), "-m", "RBU"]) == 2
