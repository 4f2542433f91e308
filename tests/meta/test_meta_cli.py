"""The meta-evaluation subcommands: tables, LaTeX, the JSON contract, plots and errors."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest

import cranfield
from conftest import DATA
from cranfield.cli.main import main
from cranfield.io.examples import example_files
from cranfield.meta import discriminative_power, randomization_test, t_test

QRELS = DATA / "robust03" / "qrels.txt.gz"
RUNS = sorted((DATA / "robust03").glob("input.*"))
DIV_QRELS = DATA / "web2012" / "qrels-for-ndeval.txt.gz"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def results():
    return cranfield.Evaluator(str(QRELS), ["AP", "P@10"]).evaluate([str(p) for p in RUNS])


def expected_letters(result, k):
    """The letters of the runs that run k beats significantly."""
    beaten = []
    for (i, j), effect, significant in zip(result.pairs, result.effect, result.significant()):
        if significant and k in (i, j) and (effect > 0) == (i == k):
            beaten.append("abcd"[j if i == k else i])
    return "".join(sorted(beaten))


def test_compare_table_marks_the_runs_beaten(capsys, results):
    code, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "P@10,AP")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("# cranfield ") and "test=t" in lines[0] and "alpha=0.05" in lines[0]
    assert lines[1].split() == ["#", "run", "P@10", "AP"]
    assert lines[-1].startswith("# letters:")
    ap = t_test(results, measure="AP")
    assert any(expected_letters(ap, k) for k in range(4))
    for k, name in enumerate(results.runs):
        cells = lines[2 + k].split()
        ap_cell = [f"{ap.means[k]:.4f}"] + ([expected_letters(ap, k)] if expected_letters(ap, k) else [])
        assert cells[:2] == ["abcd"[k], name] and cells[-len(ap_cell):] == ap_cell


def test_compare_against_a_baseline_file(capsys, results):
    base = RUNS[3]
    code, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "--baseline", base, "--test", "randomization",
                           "--B", 500, "--seed", 3)
    assert code == 0
    name = results.runs[3]
    assert "seed=3" in out.splitlines()[0] and "baseline=" + name in out.splitlines()[0]
    r = randomization_test(results, measure="AP", baseline=name, n_resamples=500, rng=3)
    assert r.pairs.tolist() == [[0, 3], [1, 3], [2, 3]]
    rows = out.splitlines()[2:-1]
    assert rows[3].split()[1:3] == [name, "(baseline)"]
    for k in range(3):
        mark = ("+" if r.effect[k] > 0 else "-") if r.significant()[k] else None
        assert rows[k].split()[2:] == [f"{r.means[k]:.4f}"] + ([mark] if mark else [])


def test_compare_latex(capsys):
    code, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--format", "latex",
                           "--test", "tukey-randomised", "--B", 300)
    assert code == 0
    assert out.startswith("% cranfield") and "\\begin{tabular}{llrr}" in out and out.rstrip().endswith("\\end{table}")
    assert "\\toprule" in out and "\\midrule" in out and "\\bottomrule" in out and "\\textbf{" in out
    assert " & Run & AP & P@10 \\\\" in out and "$^{" in out


def test_compare_json_contract(capsys, results):
    code, out, _ = run_cli(capsys, "compare", QRELS, *RUNS, "-m", "AP", "--format", "json", "--correction", "holm")
    rows = json.loads(out)
    assert code == 0 and isinstance(rows, list) and len(rows) == 6
    assert set(rows[0]) == {"measure", "test", "correction", "run_1", "run_2", "mean_1", "mean_2", "difference",
                            "statistic", "pvalue", "pvalue_adjusted", "significant", "ci_t_low", "ci_t_high",
                            "ci_bootstrap_low", "ci_bootstrap_high", "effect_size", "effect_size_hedges", "wins",
                            "ties", "losses"}
    r = t_test(results, measure="AP", correction="holm")
    assert [row["pvalue_adjusted"] for row in rows] == r.pvalue_adjusted.tolist()


def test_discpower_table_json_and_plot(capsys, tmp_path, results):
    plot = tmp_path / "asl.svg"
    code, out, _ = run_cli(capsys, "discpower", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--B", 200, "--seed", 1,
                           "--plot", plot, "--format", "json")
    assert code == 0 and plot.read_text().lstrip().startswith("<?xml")
    rows = json.loads(out)
    assert [r["measure"] for r in rows] == ["AP", "P@10"]
    expected = discriminative_power(results, measure="AP", test="bootstrap", n_resamples=200, rng=1,
                                    correction="holm")  # the one default correction (docs/meta.md)
    assert rows[0] == expected.to_dict()
    code, out, _ = run_cli(capsys, "discpower", QRELS, *RUNS, "-m", "AP", "--test", "tukey-randomised", "--B", 200)
    lines = out.splitlines()
    assert lines[1].split() == ["measure", "test", "n_resamples", "correction", "alpha", "pairs", "significant",
                                "power", "delta"]
    assert lines[2].split()[:4] == ["AP", "tukey-randomised", "200", "none"]


def test_correlate_csv(capsys):
    code, out, _ = run_cli(capsys, "correlate", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "-m", "nDCG@10",
                           "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))  # a header row and data rows only
    assert [(r["measure_1"], r["measure_2"]) for r in rows] == [("AP", "P@10"), ("AP", "nDCG@10"), ("P@10", "nDCG@10")]
    assert -1 <= float(rows[0]["kendall_tau"]) <= 1


def test_intuitiveness_command(capsys):
    runs = example_files()["runs"]
    code, out, err = run_cli(capsys, "intuitiveness", DIV_QRELS, *runs, "-m", "alpha-nDCG@10", "-m", "P@10",
                             "--gold", "I-rec@10", "--gold", "Ef-P@10", "--format", "json")
    assert code == 0
    (row,) = json.loads(out)
    assert row["gold"] == "I-rec@10+Ef-P@10" and row["cases"] == 50
    assert row["disagreements"] >= row["correct_1"] >= 0


def test_coverage_command(capsys):
    code, out, _ = run_cli(capsys, "coverage", QRELS, *RUNS, "-m", "AP", "-m", "nDCG@10", "--reference", "P@10",
                           "--reference", "R@100", "--reference", "RR", "--pairs", 200)
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split() == ["measure", "reference", "coverage"] and "pairs=200" in lines[0]
    assert lines[2].split()[:2] == ["AP", "P@10+R@100+RR"]


@pytest.mark.parametrize("args, message", [
    (["compare", "-m", "AP", "--alpha", "1.5"], "alpha must be a finite number in the range (0, 1)"),
    (["compare", "-m", "AP", "--baseline", "nope"], "the baseline 'nope' is neither"),
    (["discpower", "-m", "AP", "--test", "tukey", "--correction", "holm"], "family-wise"),
    (["discpower", "-m", "AP", "--B", "0"], "resamples --B"),
    (["compare", "-m", "AP", "--missing", "skip", "--norel", "exclude"], None),
    (["intuitiveness", "-m", "AP", "--gold", "P@10"], "at least two -m"),
])
def test_errors_are_one_line(capsys, args, message):
    code, out, err = run_cli(capsys, args[0], QRELS, *RUNS, *args[1:])
    if message is None:
        assert code == 0
        return
    assert code == 2 and out == "" and message in err and "Traceback" not in err
    assert err.count("cranfield: error:") == 1


def test_one_run_is_not_enough(capsys):
    code, _, err = run_cli(capsys, "compare", QRELS, RUNS[0], "-m", "AP")
    assert code == 2 and "at least 2 systems" in err


@pytest.mark.parametrize("command", ["compare", "discpower", "correlate", "intuitiveness", "coverage"])
def test_help_teaches(capsys, command):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    out = capsys.readouterr().out
    assert "examples:" in out and f"cranfield {command} " in out


def test_seeded_output_is_reproducible(capsys):
    args = ["discpower", QRELS, *RUNS, "-m", "AP", "--B", 100, "--format", "json"]
    assert run_cli(capsys, *args)[1] == run_cli(capsys, *args)[1]
    assert np.isfinite(json.loads(run_cli(capsys, *args)[1])[0]["power"])
