"""cranfield.Report and compare_runs (#16): the numbers in LaTeX and Markdown are those of Results,
the bold value is the best, the marks agree with cranfield.meta, the intervals agree with scipy and
an independent bootstrap loop, wins/ties/losses are counted by hand, input is escaped."""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import cranfield
from conftest import DATA
from cranfield.analysis.comparison import compare_runs, hedges_correction
from cranfield.errors import CranfieldError, EvaluationWarning
from cranfield.meta import pairwise_test
from cranfield.render.report import escape_latex, escape_markdown, measure_digits

QRELS = str(DATA / "robust03" / "qrels.txt.gz")
RUNS = [str(p) for p in sorted((DATA / "robust03").glob("input.*"))]
MEASURES = ["AP", "P@10", "nDCG@10"]


@pytest.fixture(scope="module")
def report():
    return cranfield.Report(QRELS, RUNS, MEASURES)


@pytest.fixture(scope="module")
def results():
    return cranfield.Evaluator(QRELS, MEASURES).evaluate(RUNS)


def test_report_holds_the_results_and_one_comparison_per_measure(report, results):
    assert report.results.runs == results.runs and np.array_equal(report.results.values, results.values)
    assert [c.measure for c in report.comparisons] == MEASURES
    assert report.settings["test"] == "t" and report.settings["correction"] == "holm"
    assert report.evaluator is not None and [r.name for r in report.runs] == results.runs
    for m, c in enumerate(report.comparisons):
        assert np.allclose(c.means, results.values[:, m, :].mean(axis=1), rtol=0, atol=1e-15)
        assert c.pairs.tolist() == [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]]


def test_inputs_are_listed_with_their_size_and_sha256(report):
    assert [i["role"] for i in report.inputs] == ["qrels", "run", "run", "run", "run"]
    for item, path in zip(report.inputs, [QRELS, *RUNS]):
        data = open(path, "rb").read()
        assert item["path"] == path and item["bytes"] == len(data)
        assert item["sha256"] == hashlib.sha256(data).hexdigest()


def test_intervals_agree_with_scipy_and_an_independent_bootstrap(results):
    c = compare_runs(results, "AP", seed=7, bootstrap_resamples=500, confidence=0.9)
    x = results.values[:, 0, :]  # (S, T)
    n = x.shape[1]
    for s in range(len(results.runs)):
        lo, hi = stats.t.interval(0.9, n - 1, loc=x[s].mean(), scale=stats.sem(x[s]))
        assert c.ci[s] == pytest.approx([lo, hi], rel=1e-12)
    rng = np.random.default_rng(7)
    idx = rng.integers(0, n, (500, n))
    for k, (i, j) in enumerate(c.pairs):
        d = x[i] - x[j]
        ci = stats.ttest_rel(x[i], x[j]).confidence_interval(0.9)
        assert c.ci_t[k] == pytest.approx([ci.low, ci.high], rel=1e-10)
        boot = [d[row].mean() for row in idx]  # one resample at a time
        assert c.ci_bootstrap[k] == pytest.approx(np.quantile(boot, [0.05, 0.95]), abs=1e-12)
        assert c.effect_size[k] == pytest.approx(statistics.mean(d) / statistics.stdev(d), rel=1e-10)
        nu = n - 1  # Hedges (1981), Eq. 6e, with math.gamma
        factor = math.gamma(nu / 2) / (math.sqrt(nu / 2) * math.gamma((nu - 1) / 2))
        assert c.effect_size_hedges[k] == pytest.approx(factor * c.effect_size[k], rel=1e-12)
        assert c.difference[k] == pytest.approx(x[i].mean() - x[j].mean(), abs=1e-15)


def test_hedges_correction_by_hand():
    """J(10) = Γ(5) / (√5 · Γ(4.5)) = 24 / (2.2360680 · 11.6317284) = 0.92274; ≈ 1 − 3/39."""
    assert hedges_correction(10) == pytest.approx(0.9227456, abs=1e-7)
    assert hedges_correction(200) == pytest.approx(1 - 3 / 799, abs=1e-5)
    assert math.isnan(hedges_correction(1))


def test_wins_ties_losses_by_hand(results):
    c = compare_runs(results, "P@10")
    x = results.values[:, 1, :]
    for k, (i, j) in enumerate(c.pairs):
        wins = sum(1 for a, b in zip(x[i], x[j]) if a > b and abs(a - b) > 1e-9)
        losses = sum(1 for a, b in zip(x[i], x[j]) if a < b and abs(a - b) > 1e-9)
        assert (c.wins[k], c.ties[k], c.losses[k]) == (wins, len(results.topics) - wins - losses, losses)
    assert c.ties.sum() > 0  # P@10 ties often: the count is exercised


@pytest.mark.parametrize("test, correction", [("t", "holm"), ("wilcoxon", "bonferroni"), ("randomization", "none"),
                                              ("tukey", "none"), ("tukey-randomised", "none")])
def test_pvalues_and_significance_are_those_of_cranfield_meta(results, test, correction):
    c = compare_runs(results, "AP", test=test, correction=correction, n_resamples=300, seed=3)
    r = pairwise_test(results, test=test, measure="AP", correction=correction, n_resamples=300, rng=3)
    assert np.array_equal(c.pvalue, r.pvalue) and np.array_equal(c.pvalue_adjusted, r.pvalue_adjusted)
    assert np.array_equal(c.significant, r.significant()) and np.array_equal(c.statistic, r.statistic)


def _latex_rows(text: str) -> list[list[str]]:
    body = text.split("\\midrule\n")[1].split("\\bottomrule")[0]
    return [[cell.strip() for cell in line.rstrip(" \\").split(" & ")] for line in body.strip().splitlines()]


def test_latex_numbers_bold_and_letters(report, results):
    tex = report.to_latex(caption="Robust 2003.", label="tab:robust")
    assert tex.startswith("\\begin{table}") and "\\caption{Robust 2003.}" in tex and "\\label{tab:robust}" in tex
    assert "\\toprule" in tex and "\\midrule" in tex and "\\bottomrule" in tex
    rows = _latex_rows(tex)
    assert [r[1] for r in rows] == [escape_latex(n) for n in results.runs]
    for m in range(len(MEASURES)):
        means = results.values[:, m, :].mean(axis=1)
        tested = pairwise_test(results, test="t", measure=MEASURES[m], correction="holm")
        for s, row in enumerate(rows):
            cell = row[2 + m]
            number = re.search(r"\d+\.\d+", cell).group()
            assert number == f"{means[s]:.4f}"
            assert ("\\textbf{" in cell) == (s == int(np.argmax(means)))
            letters = re.search(r"\\rlap\{\$\^\{\\mathrm\{([a-z]*)\}", cell)  # the mark, not the phantom
            beaten = sorted("abcd"[j if i == s else i] for (i, j), e, sig in
                            zip(tested.pairs, tested.effect, tested.significant())
                            if sig and s in (i, j) and (e > 0) == (i == s))
            assert (letters.group(1) if letters else "") == "".join(beaten)
    assert "Holm correction" in tex


def test_latex_digits_align_with_marks(report, results):
    """Each cell of a column ends with the same phantom (the column's longest mark) and its own
    mark in a zero-width box, so the numbers of a right-aligned column line up."""
    rows = _latex_rows(report.to_latex())
    assert any("\\rlap" in cell for row in rows for cell in row)  # the fixture has marks
    for m in range(len(MEASURES)):
        cells = [row[2 + m] for row in rows]
        tails = {re.search(r"\\phantom\{.*\}$", c).group() if "\\phantom" in c else "" for c in cells}
        assert len(tails) == 1
        marked = [re.search(r"\\rlap\{\$\^\{\\mathrm\{([a-z]+)\}", c) for c in cells]
        widest = max((x.group(1) for x in marked if x), key=len, default="")
        assert tails == ({f"\\phantom{{$^{{\\mathrm{{{widest}}}}}$}}"} if widest else {""})
        assert all(("\\rlap" in c) == bool(x) for c, x in zip(cells, marked))


def test_markdown_numbers_and_bold(report, results):
    md = report.to_markdown()
    lines = md.splitlines()
    assert lines[0] == "|  | Run | AP | P@10 | nDCG@10 |" and lines[1] == "|---|---|---:|---:|---:|"
    for s, line in enumerate(lines[2:6]):
        cells = [c.strip() for c in line.strip("|").split("|")]
        for m in range(len(MEASURES)):
            means = results.values[:, m, :].mean(axis=1)
            assert re.search(r"\d+\.\d+", cells[2 + m]).group() == f"{means[s]:.4f}"
            assert cells[2 + m].startswith("**") == (s == int(np.argmax(means)))


def test_baseline_by_name_path_or_index_and_daggers(results):
    by_path = cranfield.Report.from_results(results, baseline=3, test="t", correction="none")
    name = results.runs[3]
    for given in (name, -1):
        other = cranfield.Report.from_results(results, baseline=given, correction="none")
        assert other.baseline == name and other.to_latex() == by_path.to_latex()
    via_file = cranfield.Report(QRELS, RUNS, ["AP", "P@10", "nDCG@10"], baseline=RUNS[3], correction="none")
    assert via_file.baseline == name
    c = by_path.comparisons[0]
    assert c.pairs.tolist() == [[0, 3], [1, 3], [2, 3]]
    r = pairwise_test(results, measure="AP", baseline=name)
    rows = _latex_rows(by_path.to_latex())
    for k in range(3):
        cell = rows[k][1].split("\\phantom")[0]  # the mark, not the column's phantom
        want = ("\\dagger" if r.effect[k] > 0 else "\\ddagger") if r.significant()[k] else None
        assert (want in cell) if want else ("dagger" not in cell)
    assert rows[3][0].endswith("(baseline)")
    frame = by_path.to_frame()
    ap = frame[frame.measure == "AP"].set_index("run")
    assert ap.loc[results.runs[0], "pvalue"] == r.pvalue[0] and ap.loc[name, "difference"] == 0
    with pytest.raises(CranfieldError, match="the baseline 'nope' is neither"):
        cranfield.Report.from_results(results, baseline="nope")


def test_frames_tidy_and_wide(report, results):
    tidy = report.to_frame()
    assert list(tidy.columns[:5]) == ["run", "measure", "mean", "ci_low", "ci_high"] and len(tidy) == 12
    wide = report.to_frame(wide=True)
    assert list(wide.index) == results.runs and list(wide.columns) == MEASURES
    assert np.allclose(wide.to_numpy(), results.values.mean(axis=2), rtol=0, atol=1e-15)
    assert len(report.pairs_frame()) == 18


def test_digits_per_measure():
    assert [measure_digits(v) for v in ([0.1, 1.0], [3.2], [45.0], [120.5], [2500.0], [-0.5])] == [4, 3, 2, 1, 0, 4]


HOSTILE = {"<script>alert(1)</script>": {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d4": 1.0}},
           "\\input{/etc/passwd}": {"1": {"d2": 2.0, "d1": 1.0}, "2": {"d5": 1.0}},
           "a|b*c_d`e": {"1": {"d3": 1.0}, "2": {"d4": 1.0}}}
HOSTILE_QRELS = {"1": {"d1": 1, "d2": 0, "d3": 1}, "2": {"d4": 1, "d5": 0}}


def test_names_from_input_are_escaped():
    rep = cranfield.Report(HOSTILE_QRELS, HOSTILE, ["P@1", "RR"], test="t", correction="none")
    tex = rep.to_latex()
    assert "\\input{" not in tex and "\\textbackslash{}input\\{/etc/passwd\\}" in tex
    assert "<script>" not in tex and "\\textless{}script\\textgreater{}" in tex
    md = rep.to_markdown()
    assert "<script>" not in md and "\\<script\\>" in md and "a\\|b\\*c\\_d\\`e" in md
    markdown_it = pytest.importorskip("markdown_it")
    html = markdown_it.MarkdownIt("commonmark").enable("table").render(md)
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert html.count("<tr>") == 4  # the header and three runs: no '|' broke a row
    base = cranfield.Report(HOSTILE_QRELS, HOSTILE, ["P@1"], baseline="\\input{/etc/passwd}", correction="none")
    assert "\\input{" not in base.to_latex() and "\\input{" not in base.to_markdown().replace("\\\\input", "")


def test_escape_functions():
    assert escape_latex("a_b & {c}% $#~^\\") == ("a\\_b \\& \\{c\\}\\% \\$\\#\\textasciitilde{}"
                                                   "\\textasciicircum{}\\textbackslash{}")
    assert escape_markdown("x|y\nz") == "x\\|y z"


def test_warnings_are_kept_and_still_shown():
    runs = {"r1": {"1": {"d1": 1.0}}, "r2": {"1": {"d3": 1.0}, "2": {"d4": 1.0}}}
    with pytest.warns(EvaluationWarning, match="missing from the run"):
        rep = cranfield.Report(HOSTILE_QRELS, runs, ["P@1"])
    assert any("r1: 1 qrels topics are missing from the run" in w for w in rep.warnings)


def test_save_by_extension(tmp_path, report, results):
    for ext in (".tex", ".md", ".csv", ".json"):
        report.save(tmp_path / f"r{ext}")
    assert (tmp_path / "r.tex").read_text() == report.to_latex()
    assert (tmp_path / "r.md").read_text() == report.to_markdown()
    frame = pd.read_csv(tmp_path / "r.csv")
    assert frame["mean"].tolist() == pytest.approx(report.to_frame()["mean"].tolist(), rel=1e-15)
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["settings"]["test"] == "t" and len(doc["pairs"]) == 18 and len(doc["table"]) == 12
    pytest.importorskip("pyarrow")
    report.save(tmp_path / "r.parquet")
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(results.to_frame())
    with pytest.raises(CranfieldError, match="extensions .tex, .md, .html"):
        report.save(tmp_path / "r.txt")


def test_bundled_data_and_one_run():
    from cranfield.io.examples import example_files

    files = example_files()
    rep = cranfield.Report(files["qrels"], files["runs"], ["AP", "nDCG@10"], test="randomization",
                           n_resamples=200)
    assert rep.settings["B"] == 200 and len(rep.comparisons[0].pairs) == 1
    assert "\\#web2012" in rep.to_latex()  # indri#web2012.ql.run.gz
    one = cranfield.Report(files["qrels"], files["runs"][:1], ["AP"])
    assert len(one.comparisons[0].pairs) == 0 and "**" not in one.to_markdown()


def test_compare_cli_markdown_and_latex_caption(capsys):
    from cranfield.cli.main import main

    assert main(["compare", QRELS, *RUNS, "-m", "AP", "--format", "latex", "--caption", "Cap.", "--label", "t:1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("% cranfield") and "\\caption{Cap.}" in out and "\\label{t:1}" in out
    assert main(["compare", QRELS, *RUNS, "-m", "AP", "--format", "markdown"]) == 0
    assert capsys.readouterr().out == cranfield.Report(QRELS, RUNS, ["AP"]).to_markdown()  # Holm for both


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_plot_option_of_eval_and_compare(capsys, tmp_path, monkeypatch, command):
    from cranfield.cli.main import main
    from cranfield.evaluation.evaluator import Evaluator

    target = tmp_path / "fig.svg"
    assert main([command, QRELS, *RUNS[:2], "-m", "AP,P@10", "--baseline", RUNS[1], "--plot", str(target)]) == 0
    capsys.readouterr()
    assert target.read_text().lstrip().startswith("<?xml") and "<svg" in target.read_text()

    def boom(*args, **kwargs):
        raise AssertionError("the runs were scored before the plot file was checked")

    monkeypatch.setattr(Evaluator, "evaluate", boom)
    assert main([command, QRELS, *RUNS[:2], "-m", "AP", "--plot", str(tmp_path / "fig.txt")]) == 2
    assert "The plot file must be named with one of the extensions" in capsys.readouterr().err
