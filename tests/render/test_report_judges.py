"""`cranfield report ... --judge QRELS`: the judges' section of the Markdown, HTML and JSON reports
holds the numbers of cranfield.compare_judges on the same runs, measures and test."""

from __future__ import annotations

import json
import warnings

import pytest

from conftest import DATA
from cranfield import CranfieldError, EvaluationWarning
from cranfield.analysis.judges import compare_judges
from cranfield.cli.main import main
from cranfield.render.report import Report

QRELS = str(DATA / "robust03" / "qrels.txt.gz")
RUNS = [str(p) for p in sorted((DATA / "robust03").glob("input.*"))]
JG = DATA / "qrels_jg" / "robust03.qrels_jg.gz"


@pytest.fixture(scope="module")
def judge(tmp_path_factory):
    """The llm group of the bundled qrels_jg test file as a qrels file (12 topics)."""
    path = tmp_path_factory.mktemp("judge") / "llm.qrels"
    import gzip

    with gzip.open(JG, "rt") as f:
        path.write_text("".join(line.replace(" llm ", " 0 ") for line in f if " llm " in line))
    return str(path)


def test_markdown_html_and_json_hold_the_comparison(capsys, tmp_path, judge):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        expected = compare_judges(QRELS, {"llm": judge}, RUNS, ["AP"], correction="holm", bootstrap_resamples=1000)
        for suffix in (".md", ".html", ".json"):
            assert main(["report", QRELS, *RUNS, "-m", "AP", "--judge", f"llm={judge}", "-o",
                         str(tmp_path / f"r{suffix}")]) == 0
    capsys.readouterr()
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["judges"] == json.loads(json.dumps(expected.records()))
    md = (tmp_path / "r.md").read_text()
    assert "**Judges: leaderboards** (reference " in md
    tau = expected.leaderboards["llm", "AP"].statistics["tau_b"]
    assert f"| llm | AP | {tau:.4f} |" in md
    html = (tmp_path / "r.html").read_text()
    assert '<section id="judges"><h2>Judges</h2>' in html and 'href="#judges"' in html


def test_a_report_from_results_has_no_qrels_to_compare():
    import numpy as np

    from cranfield.evaluation.evaluator import Evaluator

    results = Evaluator(QRELS, ["AP"]).evaluate(RUNS[:2])
    report = Report.from_results(results)
    assert report.judge_tables() == [] and np.isfinite(report.comparisons[0].means).all()
    with pytest.raises(CranfieldError, match="needs a report built from qrels and runs"):
        report.compare_judges({"x": QRELS})
