"""Several baselines in compare_runs, Report and `cranfield compare --baseline A --baseline B`: every
run against each baseline, two baselines compared once, the correction over all those pairs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

from conftest import DATA
from cranfield.analysis.comparison import compare_runs
from cranfield.cli.main import main
from cranfield.meta.significance import adjust_pvalues
from cranfield.render.report import Report

QRELS = str(DATA / "robust03" / "qrels.txt.gz")
RUNS = [str(p) for p in sorted((DATA / "robust03").glob("input.*"))]


def test_pairs_pvalues_and_one_correction_over_all():
    x = np.random.default_rng(3).random((20, 4)) + np.linspace(0, 0.3, 4)
    c = compare_runs(x, None, baseline=["0", "1"], correction="holm")
    assert c.pairs.tolist() == [[1, 0], [2, 0], [3, 0], [2, 1], [3, 1]]  # (0, 1) is (1, 0): tested once
    raw = [stats.ttest_rel(x[:, i], x[:, j]).pvalue for i, j in c.pairs]
    np.testing.assert_allclose(c.pvalue, raw, rtol=1e-12)
    np.testing.assert_allclose(c.pvalue_adjusted, adjust_pvalues(raw, "holm"), rtol=1e-12)
    assert c.baseline == "0, 1"
    one = compare_runs(x, None, baseline=["1"], correction="holm")
    assert one.pairs.tolist() == [[0, 1], [2, 1], [3, 1]] and one.baseline == "1"


def test_report_marks_letters_against_the_baselines():
    report = Report(QRELS, RUNS, ["AP"], baseline=[RUNS[1], RUNS[0]], correction="none")
    assert report.baseline is None and len(report.baselines) == 2
    table = report.table()
    assert sum(r.endswith("(baseline)") for r in table["runs"]) == 2
    assert "each run against the baselines" in table["legend"]
    assert report.settings["baseline"] == list(report.baselines)
    c = report.comparisons[0]
    assert len(c.pairs) == 2 * (len(RUNS) - 1) - 1


def test_cli_repeated_baseline(capsys):
    argv = ["compare", QRELS, *RUNS, "-m", "AP", "--baseline", RUNS[0], "--baseline", RUNS[2], "--format", "json",
            "--correction", "bh"]
    assert main(argv) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 2 * (len(RUNS) - 1) - 1
    raw = [r["pvalue"] for r in rows]
    assert [r["pvalue_adjusted"] for r in rows] == pytest.approx(adjust_pvalues(raw, "bh").tolist())
