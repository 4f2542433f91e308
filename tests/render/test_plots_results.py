"""The everyday figures (render/plots.py) draw the values of the Results, and the data of the
report's figures (analysis/report_data.py) equal the registered measures' values."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from cranfield.analysis import comparison, report_data
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import as_run
from cranfield.render import plots

QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2, "d4": 1}, "q2": {"e1": 1, "e2": 1}, "q3": {"f1": 1}}
RUNS = {
    "a": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"e1": 2, "x": 1}, "q3": {"x": 1}},
    "b": {"q1": {"d3": 3, "d4": 2}, "q2": {"x": 2, "e2": 1, "e1": 0.5}, "q3": {"f1": 2, "y": 1}},
    "$c$": {"q1": {"x": 1}, "q2": {"e2": 1}},
}


@pytest.fixture(scope="module")
def scored():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(QRELS, ["AP", "P@2"])
        runs = [as_run(r) for r in RUNS.values()]
        res = ev.evaluate(list(RUNS.values()), names=list(RUNS))
    return ev, runs, res


def test_distribution_means_are_the_summary(scored):
    _, _, res = scored
    fig = plots.distribution_figure(res, "AP")
    line = next(x for x in fig.axes[0].lines if x.get_gid() == "means")
    order = plots.run_order(res.summary()[:, 0])[::-1]
    np.testing.assert_allclose(line.get_xdata(), res.summary()[order, 0])
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == [res.runs[s].replace("$", r"\$") for s in order]


def test_ranking_is_sorted_with_t_intervals(scored):
    _, _, res = scored
    fig = plots.ranking_figure(res, 1)
    line = next(x for x in fig.axes[0].lines if x.get_gid() == "ranking")
    means = np.sort(res.summary()[:, 1])
    np.testing.assert_allclose(line.get_xdata(), means)
    # run b's P@2 per topic by hand: q1 1, q2 1/2, q3 1/2: mean 2/3, s = sqrt(1/12),
    # t_{0.975, 2} = 4.302653 → 2/3 ± 4.302653 · sqrt(1/12) / sqrt(3) = 2/3 ± 0.717109
    ci = comparison.t_interval(res.values[:, 1])
    np.testing.assert_allclose(ci[res.runs.index("b")], [2 / 3 - 0.717109, 2 / 3 + 0.717109], atol=1e-6)
    assert np.isnan(comparison.t_interval(np.array([[0.5, np.nan]]))).all()  # one value: no interval


def test_differences_sorted_against_the_baseline(scored):
    _, _, res = scored
    fig = plots.difference_figure(res, "AP", "a", runs=["b"])
    ax = fig.axes[0]
    d = res.values[1, 0] - res.values[0, 0]
    better = next(p for p in ax.patches if p.get_gid() == "better")
    assert better is not None
    wins, ties, losses = (d > 0).sum(), (d == 0).sum(), (d < 0).sum()
    assert f"{wins} better, {ties} equal, {losses} worse" in ax.get_title()


def test_plot_results_writes_each_format(scored, tmp_path):
    _, _, res = scored
    for ext in ("png", "svg", "pdf"):
        plots.plot_results(res, tmp_path / f"r.{ext}", baseline="a")
        assert (tmp_path / f"r.{ext}").stat().st_size > 1000
    fig = plots.results_figure(res, baseline="a")
    assert len(fig.axes) == 2 * 3
    fig = plots.results_figure(res)
    assert len(fig.axes) == 2 * 2
    with pytest.raises(Exception, match="baseline"):
        plots.plot_results(res, tmp_path / "x.png", baseline="nope")


def test_figure_svg_escapes_text_from_input(scored):
    _, _, res = scored
    res = type(res)(**{**res.__dict__, "runs": ["<script>alert(1)</script>", "b&c", "$c$"]})
    svg = plots.figure_svg(plots.distribution_figure(res, 0))
    assert svg.startswith("<svg") and "<?xml" not in svg and "<metadata" not in svg
    assert "<script" not in svg and "&lt;script&gt;alert(1)&lt;/script&gt;" in svg and "b&amp;c" in svg


def test_precision_recall_is_the_mean_of_iprec(scored):
    ev, _, res = scored
    runs = [as_run(r) for r in RUNS.values()]
    pr = report_data.precision_recall(ev, runs, levels=[0.0, 0.5, 1.0])
    # run a by hand: q1 ranks d1(1) d2(0) d3(2) of R=3: precision at recall 1/3: 1, 2/3: 2/3, R=1 never
    # → iprec@0 = 1, @0.5 = 2/3, @1 = 0; q2: e1 first of R=2 → @0 = 1, @0.5 = 1, @1 = 0; q3: 0
    np.testing.assert_allclose(pr[0], [(1 + 1 + 0) / 3, (2 / 3 + 1 + 0) / 3, 0.0])
    again = Evaluator(QRELS, ["IPrec@0.5"]).evaluate(list(RUNS.values()), names=list(RUNS))
    np.testing.assert_allclose(pr[:, 1], again.summary()[:, 0])


def test_run_lengths_count_documents(scored):
    ev, _, _ = scored
    lengths = report_data.run_lengths(ev, [as_run(r) for r in RUNS.values()])
    np.testing.assert_array_equal(lengths, [[3, 2, 1], [2, 3, 2], [1, 1, 0]])


def test_intent_coverage_and_irec():
    import pandas as pd

    frame = pd.DataFrame([("t1", "i1", "a", 1), ("t1", "i2", "b", 1), ("t1", "i3", "c", 1)],
                         columns=["query_id", "iteration", "doc_id", "relevance"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(frame, ["StRecall@2"], diversity=True)
    runs = [as_run({"t1": {"b": 3, "x": 2, "a": 1}})]
    labels, cov = report_data.intent_coverage(ev, runs, depth=2)
    assert labels == ["t1:i1", "t1:i2", "t1:i3"]
    np.testing.assert_array_equal(cov, [[0, 1, 0]])  # only b (i2) in the first 2 ranks
    irec = report_data.intent_recall(ev, runs, depths=[1, 2, 3])
    np.testing.assert_allclose(irec, [[1 / 3, 1 / 3, 2 / 3]])
