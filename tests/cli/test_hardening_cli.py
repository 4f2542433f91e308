"""Issue #30, tracebacks: whatever the input, the interpreter's flags, the output's state or
the caller's process model, a problem is one line ``cranfield: error: ...`` (exit status 2),
never a traceback (docs/conventions.md#errors).

- a deeply nested ``--config`` (JSON or TOML) is a parse error of that file;
- a label that ``--labels`` does not declare is named with its file and line;
- ``python -OO`` (no docstrings) runs every command;
- every result object, Measure and MeasureSpec round-trips through pickle;
- a closed standard output, or one that cannot encode a run's tag, is one line;
- the public API checks its arguments with the one template of :mod:`cranfield.errors`.
"""

from __future__ import annotations

import dataclasses
import math
import os
import pickle
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from conftest import DATA
from cranfield import Report
from cranfield.analysis.comparison import compare_runs
from cranfield.cli.main import main
from cranfield.meta.power import discriminative_power
from cranfield.meta.significance import bootstrap_test
from cranfield.meta.uir import unanimous_improvement_ratio

ROBUST = DATA / "robust03"
QRELS = str(ROBUST / "qrels.txt.gz")
RUNS = [str(ROBUST / f"input.{name}.gz") for name in ("NLPR03vb10", "humR03dc", "pircRBa1")]
WEB2012 = str(DATA / "web2012" / "qrels-for-ndeval.txt.gz")
WEB_RUNS = [str(DATA / "web2012" / f"{name}.run.gz") for name in ("ql-filtered", "rm-filtered")]
SRC = str(Path(__file__).resolve().parents[2] / "src")


def cli(*argv: str, env: dict[str, str] | None = None, flags: tuple[str, ...] = (), shell: str = "",
        timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``cranfield argv`` in a new interpreter (with ``flags``; ``shell`` redirections appended)."""
    environ = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""), **(env or {})}
    command = [sys.executable, *flags, "-m", "cranfield.cli.main", *argv]
    if shell:
        command = ["sh", "-c", f'"$0" "$@" {shell}', *command]
    return subprocess.run(command, capture_output=True, text=True, env=environ, timeout=timeout)


def one_error(err: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cranfield: error: "), err
    return lines[0]


# --------------------------------------------------------------------------- input files
@pytest.mark.parametrize(("name", "text"), [
    ("deep.json", "[" * 1000 + "]" * 1000),
    ("deep.json", '{"labels": ' + '{"a": ' * 1000 + "1" + "}" * 1001),
    ("deep.toml", "a = " + "[" * 1000 + "]" * 1000),
    ("deep.toml", "labels = " + "{a = " * 1000 + "1" + "}" * 1000),
])
def test_deeply_nested_config_is_one_error(name: str, text: str, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / name).write_text(text)
    assert main(["aspects", "order", "--config", str(tmp_path / name)]) == 2
    line = one_error(capsys.readouterr().err)
    assert f"{tmp_path / name}: cannot read the aspect configuration" in line


@pytest.mark.parametrize("layout", ["per aspect", "one file"])
def test_undeclared_label_names_file_and_line(layout: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "run.txt").write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\n")
    labels = ["--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c"]
    if layout == "per aspect":
        (tmp_path / "rel.qrels").write_text("t 0 d1 mr\nt 0 d2 hr\nt 0 d3 3\n")
        (tmp_path / "cor.qrels").write_text("t 0 d1 c\n\nt 0 d2 0\nt 0 d3 zz\n")
        judged = ["--aspect", f"relevance={tmp_path / 'rel.qrels'}",
                  "--aspect", f"correctness={tmp_path / 'cor.qrels'}"]
        where = f"{tmp_path / 'cor.qrels'}:4"
    else:
        (tmp_path / "both.qrels").write_text("t 0 d1 mr c\nt 0 d2 hr 2\nt 0 d3 hr 3\n")
        judged = ["--aspect-qrels", str(tmp_path / "both.qrels"), "--aspect-names", "relevance,correctness"]
        where = f"{tmp_path / 'both.qrels'}:3"
    assert main(["aspects", "eval", *judged, *labels, str(tmp_path / "run.txt"), "-m", "CAM(AP)"]) == 2
    line = one_error(capsys.readouterr().err)
    assert line.startswith(f"cranfield: error: {where}: label ")
    assert "of aspect 'correctness' is not one of nc, pc, c" in line


# --------------------------------------------------------------------------- python -OO
@pytest.mark.parametrize("argv", [
    ["eval", QRELS, *RUNS[:2], "-m", "AP,D#-nDCG@10,alpha-nDCG@10"],
    ["measures", "D#-nDCG"],
    ["compare", QRELS, *RUNS, "-m", "AP"],
    ["aspects", "order", "--labels", "relevance=nr,mr,hr", "--labels", "correctness=nc,c"],
])
def test_commands_run_without_docstrings(argv: list[str]) -> None:
    """``python -OO`` strips docstrings: nothing may be built from one."""
    optimised = cli(*argv, flags=("-OO",))
    plain = cli(*argv)
    assert optimised.returncode == 0, optimised.stderr
    assert optimised.stdout == plain.stdout and optimised.stdout.strip()


def test_report_runs_without_docstrings(tmp_path: Path) -> None:
    done = cli("report", QRELS, *RUNS[:2], "-m", "AP", "-o", str(tmp_path / "r.md"), flags=("-OO",))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.md").read_text(encoding="utf-8").strip()


# --------------------------------------------------------------------------- pickle
def same(a: Any, b: Any) -> bool:
    """Deep equality of result objects: fields, arrays (NaN equal to NaN), frames, containers."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and (
            np.array_equal(a, b, equal_nan=a.dtype.kind in "fc") if a.dtype != object else
            all(same(x, y) for x, y in zip(a.ravel(), b.ravel())))
    if isinstance(a, (pd.DataFrame, pd.Series)):
        return a.equals(b)
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if dataclasses.is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    if hasattr(a, "__dict__") and not callable(a):
        return same(vars(a), vars(b))
    return bool(a == b)


def results_objects() -> dict[str, Any]:
    """One object of every result type of cranfield's public API."""
    from cranfield import Evaluator, Report, parse_measure
    from cranfield.analysis.comparison import compare_runs
    from cranfield.analysis.diversity import collection_diversity
    from cranfield.analysis.dss import dss
    from cranfield.analysis.permuted import permuted_power
    from cranfield.analysis.properties import check_property
    from cranfield.analysis.topic_averaging import averaging_correlation
    from cranfield.analysis.truncation import optimal_truncation
    from cranfield.measures.registry import lookup
    from cranfield.meta.agreement import correlation_matrix, intuitiveness
    from cranfield.meta.power import discriminative_power, significance_overlap
    from cranfield.meta.scores import as_score_matrix
    from cranfield.meta.significance import pairwise_test
    from cranfield.meta.uir import quality_aspect_coverage, unanimous_improvement_ratio

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = Evaluator(QRELS, ["AP", "P@10", "RR", "nDCG@10"]).evaluate(RUNS)
        diverse = Evaluator(WEB2012, ["alpha-nDCG@10", "D#-nDCG@10", "nDCG_IA@10"]).evaluate(
            WEB_RUNS, per_intent=True)
        powers = [discriminative_power(results, measure=m, n_resamples=50) for m in ("AP", "P@10")]
        return {
            "Results": results, "Results (per intent)": diverse,
            "Report": Report.from_evaluator(Evaluator(QRELS, ["AP"]), RUNS, n_resamples=50),
            "Comparison": compare_runs(results, "AP"),
            "PairwiseResult": pairwise_test(results, measure="AP", test="bootstrap", n_resamples=50),
            "DiscriminativePower": powers[0], "SignificanceOverlap": significance_overlap(powers)[0],
            "Correlations": correlation_matrix(results, ["AP", "P@10", "RR"]),
            "Intuitiveness": intuitiveness(results, "AP", "P@10", "RR"),
            "UnanimousImprovement": unanimous_improvement_ratio(results, ["AP", "P@10"], n_pairs=50),
            "QualityAspectCoverage": quality_aspect_coverage(results, ["AP"], ["P@10", "RR"], n_pairs=50),
            "ScoreMatrix": as_score_matrix(results, measure="AP"),
            "TruncationResult": optimal_truncation(QRELS, RUNS[:2], ["RBU"], full_measures=["AP"]),
            "CollectionDiversity": collection_diversity(WEB2012),
            "DSSResult": dss(WEB2012, ["alpha-nDCG"], k=5, n=10, progress_bar=False),
            "AveragingCorrelation": averaging_correlation(WEB2012, WEB_RUNS, ["alpha-nDCG@10"]),
            "PermutedPower": permuted_power(WEB2012, ["alpha-nDCG@10"], n_runs=5, n_resamples=50),
            "PropertyCheck": check_property("AP", "priority", depth=4),
            "Measure": parse_measure("D#-nDCG(gamma=0.3)@10"),
            "MeasureSpec": lookup("alpha-nDCG"),
        }


OBJECTS = results_objects()


@pytest.mark.parametrize("name", list(OBJECTS))
def test_result_objects_round_trip_through_pickle(name: str) -> None:
    obj = OBJECTS[name]
    back = pickle.loads(pickle.dumps(obj))
    assert same(obj, back)  # every field: arrays bit for bit
    if hasattr(obj, "to_dict"):  # what is derived from them has the same shape and names
        assert pd.json_normalize(obj.to_dict()).columns.equals(pd.json_normalize(back.to_dict()).columns)


def test_every_registered_measure_pickles_by_name() -> None:
    """Kernels are often closures: a registered spec is sent by name and comes back as the registry's."""
    from cranfield.measures.registry import REGISTRY

    for name, spec in REGISTRY.items():
        assert pickle.loads(pickle.dumps(spec)) is spec, name


def test_results_unpickle_in_a_new_process(tmp_path: Path) -> None:
    (tmp_path / "r.pkl").write_bytes(pickle.dumps(OBJECTS["Results (per intent)"]))
    code = ("import pickle, sys; r = pickle.load(open(sys.argv[1], 'rb')); "
            "print(r.measure_specs[1].spec.name, r.to_frame().shape)")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "r.pkl")], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": SRC}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[0] == "D#-nDCG"


# --------------------------------------------------------------------------- standard output
def test_closed_stdout_is_one_error() -> None:
    done = cli("eval", QRELS, RUNS[0], "-m", "AP", shell=">&-")
    assert done.returncode == 2
    assert one_error(done.stderr) == ("cranfield: error: cannot write the results to standard output: "
                                      "it is closed (give -o FILE)")


def test_closed_stdout_with_output_file(tmp_path: Path) -> None:
    done = cli("eval", QRELS, RUNS[0], "-m", "AP", "-o", str(tmp_path / "out.txt"), shell=">&-")
    assert done.returncode == 0 and done.stderr == ""
    assert "AP" in (tmp_path / "out.txt").read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_ascii_stdout_escapes_with_one_warning(fmt: str, tmp_path: Path) -> None:
    """Under ``LC_ALL=C`` a run tagged ``café`` prints as ``caf\\xe9``, with one warning; ``-o FILE``
    is UTF-8 whatever the locale."""
    (tmp_path / "q.txt").write_text("t 0 d1 1\nt 0 d2 0\n")
    (tmp_path / "r.txt").write_text("t Q0 d1 1 3 café\nt Q0 d2 2 2 café\n", encoding="utf-8")
    ascii_env = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
    argv = ("eval", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "AP", "--format", fmt)
    done = cli(*argv, env=ascii_env)
    assert done.returncode == 0, done.stderr
    assert "caf\\xe9" in done.stdout
    warning, = done.stderr.splitlines()
    assert warning.startswith("cranfield: warning: standard output's encoding ascii cannot write ")
    written = cli(*argv, "-o", str(tmp_path / "out.txt"), env=ascii_env)
    assert written.returncode == 0 and written.stderr == ""
    assert "café" in (tmp_path / "out.txt").read_text(encoding="utf-8")


# --------------------------------------------------------------------------- the public API
@pytest.mark.parametrize(("call", "message"), [
    (lambda E, ev: E(QRELS, "AP", depth="10"), "The depth must be an integer >= 1. Got '10' instead."),
    (lambda E, ev: E(QRELS, "AP", depth=2.5), "The depth must be an integer >= 1. Got 2.5 instead."),
    (lambda E, ev: E(QRELS, "AP", judged_only="no"), "The judged_only option must be True or False. Got 'no' instead."),
    (lambda E, ev: E(QRELS, "AP", strip_topic_prefix=1),
     "The strip_topic_prefix option must be True or False. Got 1 instead."),
    (lambda E, ev: ev(QRELS, RUNS[0], "AP", per_topic="yes"),
     "The per_topic option must be True or False. Got 'yes' instead."),
    (lambda E, ev: ev(QRELS, RUNS[0], "AP", per_intent=0),
     "The per_intent option must be True or False. Got 0 instead."),
    (lambda E, ev: E(QRELS, "AP").evaluate(RUNS[0], per_iteration="no"),
     "The per_iteration option must be True or False. Got 'no' instead."),
])
def test_public_api_checks_argument_types(call: Any, message: str) -> None:
    from cranfield import CranfieldError, Evaluator, evaluate

    with pytest.raises(CranfieldError) as error:
        call(Evaluator, evaluate)
    assert str(error.value) == message


@pytest.mark.parametrize(("call", "message"), [
    (lambda r: compare_runs(r, "AP", seed="1"), "The seed must be an integer >= 0. Got '1' instead."),
    (lambda r: compare_runs(r, "AP", confidence="0.9"),
     "The confidence level must be a finite number in the range (0, 1). Got '0.9' instead."),
    (lambda r: bootstrap_test(r, measure="AP", n_resamples="100"),
     "The number of resamples B (n_resamples) must be an integer in the range [1, 100000]. Got '100' instead."),
    (lambda r: discriminative_power(r, measure="AP", alpha="0.05"),
     "The significance level alpha must be a finite number in the range (0, 1). Got '0.05' instead."),
    (lambda r: unanimous_improvement_ratio(r, ["AP"], n_pairs="5"),
     "The number of topic pairs n_pairs must be an integer in the range [1, 100000]. Got '5' instead."),
    (lambda r: Report.from_results(r, alpha="0.05"),
     "The significance level alpha must be a finite number in the range (0, 1). Got '0.05' instead."),
])
def test_meta_api_checks_argument_types(call: Any, message: str) -> None:
    """The meta-evaluation functions and Report take numbers, not their text."""
    from cranfield import CranfieldError

    with pytest.raises(CranfieldError) as error:
        call(OBJECTS["Results"])
    assert str(error.value) == message


def test_numeric_text_is_for_the_command_line() -> None:
    """The command line's option values are text: ``-M 10`` is read as 10."""
    from cranfield import Evaluator
    from cranfield.errors import check_int

    assert check_int("10", "depth") == 10
    assert Evaluator(QRELS, "AP", depth=np.int64(10)).max_depth == 10
