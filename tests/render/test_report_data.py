"""Results are data (issue #24): the report's numbers are one frozen ReportData computed once by
analysis/report.py, which render/ presents; one default correction everywhere (issue #29); the
page's tooltips, shared scales and intent labels (render/plots.py)."""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from cranfield._display import measure_digits, run_letter
from cranfield.analysis import report as analysis_report
from cranfield.analysis.comparison import DEFAULT_CORRECTION, default_correction
from cranfield.analysis.report import ReportData, ord_index
from cranfield.render import plots
from cranfield.render.report import Report

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "cranfield" / "data"
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"e1": 1, "e2": 1}, "q3": {"f1": 1}, "<q4>": {"g1": 1}}
RUNS = {
    "a": {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"e1": 2, "x": 1}, "q3": {"x": 1}, "<q4>": {"g1": 1}},
    "b": {"q1": {"d3": 3, "d1": 2}, "q2": {"x": 2, "e2": 1, "e1": 0.5}, "q3": {"f1": 2, "y": 1}, "<q4>": {"z": 1}},
    "c": {"q1": {"d2": 3}, "q2": {"e2": 2}, "q3": {"f1": 1}, "<q4>": {"g1": 2, "z": 1}},
}


@pytest.fixture(scope="module")
def report() -> Report:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return Report(QRELS, RUNS, ["AP", "RBU(p=0.8)@5"], baseline="a")


def test_the_data_is_frozen_and_every_format_presents_it(report):
    data = report.data
    assert isinstance(data, ReportData)
    with pytest.raises(dataclasses.FrozenInstanceError):
        data.settings = {}  # type: ignore[misc]
    again = Report.from_data(data)
    for fmt in ("to_markdown", "to_latex", "to_json", "to_csv"):
        assert getattr(again, fmt)() == getattr(report, fmt)()
    assert report.comparisons == list(data.comparisons) and report.baseline == data.baseline == "a"
    assert repr(report.records()) == repr(data.records())  # NaN p-values: compared as text
    assert repr(report.pair_records()) == repr(data.pair_records())


def test_the_page_scores_nothing_and_the_figures_are_computed_once(report, monkeypatch):
    calls = []
    real = analysis_report.figures_of
    monkeypatch.setattr(analysis_report, "figures_of", lambda *a: calls.append(1) or real(*a))
    data = dataclasses.replace(report.data)  # a fresh copy: its figures not computed yet
    first, second = (re.sub(r"\b[mp][0-9a-f]{10}\b", "id", Report.from_data(data).to_html()) for _ in range(2))
    assert first == second and calls == [1]  # the same page (but its random path ids, unique per figure)
    assert data.figures is not None and data.figures.lengths is not None  # RBU is truncation-aware
    assert data.figures.precision.shape == (3, 11)


def test_run_letters_and_digits_moved_down_but_still_exported():
    from cranfield.render import report as render_report

    assert render_report.run_letter is run_letter and render_report.measure_digits is measure_digits
    assert [run_letter(k) for k in (0, 25, 26, 27, 701, 702)] == ["a", "z", "aa", "ab", "zz", "aaa"]
    assert all(ord_index(run_letter(k)) == k for k in range(800))
    assert measure_digits(np.array([0.25, np.nan, -1.0])) == 4 and measure_digits([np.inf, 12.0]) == 2


def test_one_default_correction_named_in_every_output(report):
    assert default_correction("t") == DEFAULT_CORRECTION == "holm" and default_correction("tukey") == "none"
    assert report.settings["correction"] == "holm"
    assert "Holm correction" in report.to_markdown() and "Holm correction" in report.to_latex()
    assert "Holm correction" in report.to_html()
    assert {(r["test"], r["correction"]) for r in json.loads(report.to_json())["table"]} == {("t", "holm")}
    assert {(r["test"], r["correction"]) for r in report.pair_records()} == {("t", "holm")}
    assert report.to_csv().splitlines()[0].endswith(",marker,test,correction")
    plain = Report.from_results(report.results, correction="none")
    assert "paired t-test, no correction" in plain.legend()
    tukey = Report.from_results(report.results, test="tukey")
    assert "correction" not in tukey.legend() and tukey.settings["correction"] == "none"


def _correction_actions(parser: argparse.ArgumentParser, path: str = "") -> list[tuple[str, argparse.Action]]:
    found = []
    for action in parser._actions:
        if "--correction" in action.option_strings:
            found.append((path, action))
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _correction_actions(sub, f"{path} {name}".strip())
    return found


def test_every_correction_option_has_the_one_default():
    from cranfield.cli.main import build_parser

    found = _correction_actions(build_parser())  # every command
    assert {"compare", "report", "discpower", "judges"} <= {where for where, _ in found}
    for where, action in found:
        assert action.default is None, where  # resolved with the test: default_correction(test)
        assert f"default: {DEFAULT_CORRECTION}" in (action.help or ""), where


def test_compare_applies_holm_by_default_and_says_so(capsys):
    from cranfield.cli.main import main

    qrels, runs = DATA / "web2012.adhoc.qrels.gz", [DATA / "web2012.ql.run.gz", DATA / "web2012.rm.run.gz"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["compare", str(qrels), *map(str, runs), "-m", "AP"]) == 0
    out = capsys.readouterr().out
    assert "correction=holm" in out.splitlines()[0] and "Holm correction" in out.splitlines()[-1]


def test_difference_bars_carry_escaped_topic_tooltips_on_one_y_scale(report):
    results = report.results
    fig = plots.difference_figure(results, "AP", "a")
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert len(axes) == 2 and axes[0].get_shared_y_axes().joined(axes[0], axes[1])
    svg = plots.figure_svg(fig)
    titles = re.findall(r"<title>([^<]*)</title>", svg)
    assert len(titles) == 2 * len(results.topics)
    assert any(t.startswith("topic &lt;q4&gt;: Δ ") for t in titles) and "<q4>" not in svg
    assert "hover-" not in svg


def test_intent_labels_name_the_intent_type():
    from cranfield.evaluation.evaluator import Evaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = Evaluator(DATA / "web2012.diversity.qrels.gz", ["alpha-nDCG@20"],
                          intent_types=ROOT / "tests" / "data" / "web2012" / "full-topics.xml")
        untyped = Evaluator(DATA / "web2012.diversity.qrels.gz", ["alpha-nDCG@20"])
    given = [f"151:{i}" for i in range(1, 6)]  # topic 151's subtopics: inf inf nav inf nav in full-topics.xml
    assert analysis_report.intent_labels(typed, given)[:5] == ["151:1 (inf)", "151:2 (inf)", "151:3 (nav)",
                                                               "151:4 (inf)", "151:5 (nav)"]
    assert analysis_report.intent_labels(untyped, given) == given
