"""The HTML report (render/html.py): its numbers are the Results', input is escaped, the CSP is
there and nothing is loaded from a URL; `cranfield report` errors are one line."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from cranfield.cli.main import main
from cranfield.render.html import CSP

DATA = Path(__file__).resolve().parents[2] / "src" / "cranfield" / "data"
QRELS = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"e1": 1, "e2": 1}, "q3": {"f1": 1}}
EVIL = "<script>alert(1)</script>"
RUNS = {
    EVIL: {"q1": {"d1": 3, "d2": 2, "d3": 1}, "q2": {"e1": 2, "x": 1}, "q3": {"x": 1}},
    'b"&\'': {"q1": {"d3": 3, "d1": 2}, "q2": {"x": 2, "e2": 1, "e1": 0.5}, "q3": {"f1": 2, "y": 1}},
}


@pytest.fixture(scope="module")
def page():
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(QRELS, RUNS, ["AP", "P@2", "RBU(p=0.8)@5"], baseline=EVIL)
    return report, report.to_html()


def test_numbers_are_the_results(page):
    report, text = page
    means = report.results.summary()
    for s in range(len(report.results.runs)):
        for m in range(len(report.results.measures)):
            cell = re.search(rf'data-run="{s}" data-measure="{m}"><span class="\w+">([-0-9.]+)</span>', text)
            assert cell is not None and float(cell.group(1)) == pytest.approx(means[s, m], abs=5e-5)
    # AP by hand: run 1: q1 (1 + 2/3)/3... run b: q1 d3 d1 → (1 + 1)/2 of R=2 = 1; q2 e2 at 2 (1/2), e1 at 3
    # (2/3) → (1/2 + 2/3)/2 = 7/12; q3 f1 at 1 → 1: mean (1 + 7/12 + 1)/3 = 0.8611
    assert "0.8611" in text


def test_input_is_escaped(page):
    _, text = page
    assert EVIL not in text and "&lt;script&gt;alert(1)&lt;/script&gt;" in text
    assert "<script" not in text.lower()
    assert 'b"&\'' not in text and "b&quot;&amp;&#x27;" in text  # the & always escaped; quotes in attributes too


def test_self_contained(page):
    _, text = page
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP.replace(chr(39), "&#x27;")}">' in text
    assert not re.search(r'(src|href)\s*=\s*["\']?\s*(https?:|//)', text, re.I)
    assert not re.search(r"url\((?!#)", text) and "@import" not in text  # only url(#clip-path) references
    for section in ("settings", "results", "measure-0", "measure-2", "precision-recall", "run-lengths"):
        assert f'id="{section}"' in text
    assert 'id="difference-0"' in text and 'id="intent-coverage"' not in text  # ad hoc qrels


def test_from_results_says_what_is_missing():
    from cranfield.evaluation.evaluator import Evaluator
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = Evaluator(QRELS, ["AP"]).evaluate(list(RUNS.values()), names=["x", "y"])
    text = Report.from_results(res).to_html()
    assert "Report.from_results" in text and 'id="ranking-0"' in text and 'id="difference-0"' not in text


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_writes_html(capsys, tmp_path):
    out = tmp_path / "r.html"
    code, _, err = run_cli(capsys, "report", str(DATA / "web2012.adhoc.qrels.gz"), str(DATA / "web2012.ql.run.gz"),
                           str(DATA / "web2012.rm.run.gz"), "-m", "AP", "--baseline", str(DATA / "web2012.ql.run.gz"),
                           "-o", str(out))
    assert code == 0 and out.read_text().startswith("<!DOCTYPE html>") and "wrote" in err


@pytest.mark.parametrize("output, message", [
    ("{tmp}/missing/r.html", "the directory"),
    ("{tmp}/r.txt", "The report file must be named with one of the extensions"),
])
def test_cli_bad_output_is_one_line_before_the_work(capsys, tmp_path, output, message):
    code, out, err = run_cli(capsys, "report", str(DATA / "web2012.adhoc.qrels.gz"), "/nonexistent.run", "-m", "AP",
                             "-o", output.format(tmp=tmp_path))
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cranfield: error: ") and message in lines[0]


@pytest.mark.parametrize("option, value", [("--alpha", "2"), ("--confidence", "1"), ("--seed", "-1"), ("--B", "0")])
def test_cli_bad_option_is_one_line(capsys, tmp_path, option, value):
    code, _, err = run_cli(capsys, "report", str(DATA / "web2012.adhoc.qrels.gz"), "/nonexistent.run", "-m", "AP",
                           "-o", str(tmp_path / "r.html"), option, value)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "cranfield: error:" in err


def test_short_run_names() -> None:
    from cranfield.render.html import short_run_names

    assert short_run_names(["indri#web2012.ql.run.gz", "indri#web2012.rm.run.gz"]) == ["web2012.ql", "web2012.rm"]
    assert short_run_names(["bm25.txt", "dense.txt"]) == ["bm25", "dense"]
    assert short_run_names(["a#x.run", "b#x.run"]) == ["a#x", "b#x"]  # different tags: the tag tells
    assert short_run_names(["x.run", "x.run.gz"]) == ["x.run", "x.run.gz"]  # no shared extension
    assert short_run_names(["bm25.v1", "bm25.v2"]) == ["bm25.v1", "bm25.v2"]  # not an extension
    assert short_run_names(["t#a.gz", "t#a.gz.gz"]) == ["a", "a.gz"]
    assert short_run_names(["t#run", "t#run.gz"]) == ["run", "run.gz"]
    assert short_run_names([EVIL]) == [EVIL]


def test_results_first_pairs_open_and_marked(capsys, tmp_path) -> None:
    """Results before the settings; the per-pair tables open; ▲/▼ marks with a title; short run
    labels, the full name in the title."""
    from cranfield.render.report import Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report(str(DATA / "web2012.adhoc.qrels.gz"), [str(DATA / "web2012.ql.run.gz"),
                        str(DATA / "web2012.rm.run.gz")], ["AP", "RR"], baseline=0, correction="none",
                        alpha=0.5)
    text = report.to_html()
    assert text.index('id="results"') < text.index('id="measure-0"') < text.index('id="settings"')
    assert re.search(r'<details open><summary>AP: 1 pair, \d significant', text)
    rows = re.findall(r'<td title="indri#web2012.rm.run.gz">web2012.rm</td>', text)
    assert rows and "indri#web2012.rm.run.gz</td>" not in text
    c = report.comparisons[1]  # RR at α = 0.5: rm is significantly worse than ql (see the means)
    assert c.significant[0] and c.difference[0] < 0
    assert 'class="worse" title="significantly worse than the baseline"' in text and "▲/▼: significantly" in text
