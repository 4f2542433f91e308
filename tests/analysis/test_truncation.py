"""Optimal truncation analysis (Amigó, Mizzaro & Spina, SIGIR 2022, §4.2–4.3) and the Figure 1 utility curves."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import cranfield
from conftest import DATA
from cranfield import Batch, CranfieldError, Topics, parse_measure
from cranfield.analysis.figures import utility_curves
from cranfield.analysis.truncation import best_prefix, bin_label, length_bin, optimal_truncation
from cranfield.cli.main import main
from cranfield.measures.registry import lookup
from cranfield.render.tables import truncation_table

RUNS = [DATA / "robust03" / "input.NLPR03vb10.gz", DATA / "robust03" / "input.humR03dc.gz"]
QRELS = DATA / "robust03" / "qrels.txt.gz"


def test_ties_go_to_the_shortest_and_lengths_bound_the_search():
    values = np.array([[0.0, 0.5, 0.5 + 1e-15, 0.2, 9.0]])
    best, at = best_prefix(values, np.array([3]))
    assert best.tolist() == [1] and at.tolist() == [0.5]  # 9.0 lies past the ranking's length


def test_bins():
    n = np.array([0, 1, 4, 5, 8, 9, 16, 17, 32, 33, 1000])
    assert [bin_label(k) for k in length_bin(n)] == ["0", "1-4", "1-4", "5-8", "5-8", "9-16", "9-16",
                                                     "17-32", "17-32", "33-64", "513-1024"]


def test_matches_re_evaluating_every_prefix():
    """The one-pass result equals scoring each truncation n' = 0..n separately."""
    measures = ["RBU", "DCGU", "ERRU(e=0.1)", "RBPU(p=0.98)", "NDCGT", "ERRT", "RBPT", "RRT", "OIE", "F", "FlatUtility"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = optimal_truncation(QRELS, RUNS[:1], measures, full_measures=["AP"])
        coll = cranfield.Evaluator(QRELS, ["AP"]).collection
    run = cranfield.read_run(RUNS[0])
    batch = coll.batch([run])
    for m, name in enumerate(measures):
        measure = parse_measure(name)
        for t in range(0, coll.n_topics, 9):
            n = int(batch.length[0, t])
            one = Batch(batch.labels[:, t:t + 1], batch.judged[:, t:t + 1], batch.length[:, t:t + 1],
                        batch.present[:, t:t + 1], batch.topics.take(slice(t, t + 1)))
            scores = []
            for k in range(n + 1):
                cut = Batch.from_labels(one.labels, one.topics, length=np.array([[k]]), judged=one.judged)
                scores.append(measure(cut)[0, 0])
            scores = np.array(scores)
            best = int(np.flatnonzero(scores >= scores.max() - 1e-12 * max(1, abs(scores.max())))[0])
            assert fast.length[0, m, t] == best, (name, t)
            assert fast.value[0, m, t] == pytest.approx(scores.max(), abs=1e-12)


def test_report_and_cli(capsys, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = optimal_truncation(QRELS, RUNS, ["RBU", "OIE"], full_measures=["AP", "RBP(p=0.98)"])
    labels, counts = result.distribution()
    assert counts.sum(axis=1).tolist() == [200, 200] and labels[0] == "0"
    assert result.kendall().shape == (2, 2)
    assert "Kendall's tau" in truncation_table(result)
    code = main(["truncation", str(QRELS), *map(str, RUNS), "-m", "RBU,OIE", "--full", "AP",
                 "--format", "json", "--plot", str(tmp_path / "n.png")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and set(out) == {"optimal", "distribution", "kendall"}
    assert {"run", "topic", "measure", "length", "returned", "value"} == set(out["optimal"][0])
    assert (tmp_path / "n.png").stat().st_size > 1000
    assert main(["truncation", str(QRELS), str(RUNS[0]), "-m", "AP"]) == 2
    assert "does not" in capsys.readouterr().err


def test_not_a_truncation_measure():
    with pytest.raises(CranfieldError, match="AP does not"):
        optimal_truncation({"q": {"a": 1}}, [{"q": {"a": 1.0}}], ["AP"])


def test_figure_1_utility_curves():
    """Amigó, Mizzaro & Spina, SIGIR 2022, Figure 1 (ten non-relevant documents, then relevant ones, e = 1/20)."""
    curves = utility_curves()
    for name, c in curves.items():
        assert c[0] == 0 and np.all(np.diff(c[:11]) < 0), name      # only effort in ranks 1..10
        assert np.abs(c).max() == pytest.approx(1.0)                  # normalised by the largest magnitude
    raw = {name: lookup(parse_measure(name).name).prefix for name in ("RBPU(p=0.8)", "RBU(p=0.8)")}
    batch = Batch.from_labels(np.array([[[0] * 10 + [1] * 20]]), Topics.from_ideal(np.ones((1, 20), dtype=int)))
    a = raw["RBPU(p=0.8)"](batch, cutoff=None, p=0.8)[0, 0, :11]
    b = raw["RBU(p=0.8)"](batch, cutoff=None, p=0.8)[0, 0, :11]
    assert np.allclose(a, b)  # "RBPU(p=0.8) overlaps RBU(p=0.8) in [1..10]"
    rbu = curves["RBU(p=0.98)"]
    peak = int(np.argmax(rbu))
    assert 11 <= peak <= 15 and np.all(np.diff(rbu[peak:]) < 0)  # redundancy: decreasing after ~15
    assert np.abs(curves["RBPU(p=0.98)"] - curves["DCGU"]).max() < 0.06  # "RBPU(p=0.98) with DCGU" overlap
