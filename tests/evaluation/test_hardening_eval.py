"""Issue #14 for ``cranfield eval`` and :mod:`cranfield.evaluate`: bad input gives one error
line and exit status 2, never a traceback, never a silently wrong number, never a topic dropped
without a warning, never a half-written file."""

from __future__ import annotations

import dataclasses
import gzip
import io
import json
import math
import os
import warnings
from pathlib import Path

import numpy as np
import pytest

import cranfield
import cranfield.compat.formats
from conftest import run_main
from cranfield import CranfieldError, EvaluationWarning, Evaluator
from cranfield.cli.main import main
from cranfield.evaluation.averaging import average
from cranfield.evaluation.evaluator import Results

DATA = Path(__file__).parents[1] / "data"
QRELS = DATA / "web2012" / "qrels.adhoc.txt"
RUN = DATA / "web2012" / "ql-filtered.run.gz"
OTHER_YEAR_QRELS = DATA / "web2009" / "qrels.diversity.gz"  # topics 1-50; the runs are 151-200
DIV_QRELS = DATA / "web2012" / "qrels-for-ndeval.txt.gz"
TINY = {"1": {"a": 1, "b": 0}, "2": {"c": 2, "d": 0}}


def cli(capsys, *args):
    """(exit status, stdout, stderr) of ``cranfield`` with ``args`` (argparse's exit included)."""
    return run_main(capsys, args)


def errors(err: str) -> list[str]:
    """The lines of stderr that are not warnings."""
    return [line for line in err.splitlines() if not line.startswith("cranfield: warning:")]


def assert_one_error(code: int, err: str, *parts: str) -> None:
    lines = errors(err)
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("cranfield: error: "), err
    assert "Traceback" not in err
    for part in parts:
        assert part in lines[0], lines[0]


@pytest.fixture
def prefixed_run(tmp_path):
    """The Web 2012 run with its topics written ``wt12-151``, as some TREC runs are."""
    path = tmp_path / "prefixed.run"
    with gzip.open(RUN, "rt") as f:
        path.write_text("".join("wt12-" + line for line in f))
    return path


# -------------------------------------------------------------- 1. topic ids that match nothing

@pytest.mark.parametrize("missing", ["auto", "zero", "empty", "skip"])
def test_qrels_of_another_year_are_an_error_whatever_missing_says(capsys, missing):
    code, out, err = cli(capsys, "eval", OTHER_YEAR_QRELS, RUN, "-m", "AP", "--missing", missing)
    assert_one_error(code, err, "no topic of the run has judgments in the qrels", "151", "track and year")
    assert out == ""


@pytest.mark.parametrize("extra", [[], ["-c"], ["--compat", "trec_eval"], ["--format", "json"]])
def test_prefixed_run_topics_are_an_error_naming_the_prefix(capsys, prefixed_run, extra):
    code, out, err = cli(capsys, "eval", QRELS, prefixed_run, "-m", "AP", *extra)
    assert_one_error(code, err, "wt12-151", "'wt12-'", "--strip-topic-prefix")
    assert out == ""
    code, out, _ = cli(capsys, "eval", QRELS, prefixed_run, "-m", "AP", "--strip-topic-prefix", *extra)
    assert code == 0 and out


def test_a_prefixed_baseline_is_an_error_too(capsys, prefixed_run):
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "--baseline", prefixed_run)
    assert_one_error(code, err, "no topic of the run has judgments")


@pytest.mark.parametrize("run", [{"wt12-1": {"a": 1.0}}, {"9": {"a": 1.0}}, {}])
def test_python_api_refuses_a_run_without_any_qrels_topic(run):
    with pytest.raises(CranfieldError, match="no topic of the run has judgments"):
        cranfield.evaluate(TINY, run, "AP")
    with pytest.raises(CranfieldError, match="no topic of the run has judgments"):
        Evaluator(TINY, ["AP"], missing="skip").evaluate([run])


@pytest.mark.parametrize("extra", [[], ["-m", "relstring", "--format", "trec", "-q"], ["-J"]])
def test_some_unknown_topics_are_named_in_a_warning_once(capsys, tmp_path, extra):
    run = tmp_path / "part.run"
    with gzip.open(RUN, "rt") as f:
        lines = f.readlines()
    run.write_text("".join(lines[:500]) + "".join("x" + line for line in lines[500:3000]))
    code, _, err = cli(capsys, "eval", QRELS, run, "-m", "AP", *extra)
    assert code == 0
    warning = [line for line in err.splitlines() if "not in the qrels" in line]
    assert len(warning) == 1 and "topics are not in the qrels and are ignored: x15" in warning[0]
    count = int(warning[0].split("indri: ")[1].split()[0])
    assert count == len({line.split()[0] for line in lines[500:3000]})


def test_a_run_whose_topics_all_leave_by_the_rules_is_an_error(capsys, write):
    qrels = write("q.txt", "1 0 a 1\n2 0 b 0\n")
    run = write("r.txt", "2 Q0 b 1 1 r\n")  # only the topic without a relevant document
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "AP", "--norel", "exclude", "--missing", "skip")
    assert_one_error(code, err, "r: no topic of the run is left to score", "--norel exclude")
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "AP", "--norel", "exclude")
    assert code == 0 and out.splitlines()[-1].split() == ["r", "0.0000"]


def test_unknown_topics_are_announced_with_judged_only_too():
    with pytest.warns(EvaluationWarning, match="1 topics are not in the qrels and are ignored: 9"):
        Evaluator(TINY, ["AP"], judged_only=True).evaluate([{"1": {"a": 1.0}, "2": {"c": 1.0}, "9": {"z": 1.0}}])


# -------------------------------------------------------- 2. no topic leaves a mean silently

def _results(values, measures=("AP",), aggregate=None, unscored=None):
    values = np.asarray(values, dtype=float)
    return Results(runs=[f"r{s}" for s in range(values.shape[0])], measures=list(measures),
                   topics=[f"t{t}" for t in range(values.shape[2])], values=values,
                   aggregate=aggregate or ["mean"] * len(measures), provenance={}, unscored=unscored)


@pytest.mark.parametrize("average_how, kind", [("avg", "mean"), ("geom", "geometric mean")])
def test_nan_left_out_of_a_mean_is_named(average_how, kind):
    res = dataclasses.replace(_results([[[0.5, np.nan, 0.25, np.nan]]]), average=average_how)
    with pytest.warns(EvaluationWarning) as record:
        mean = res.summary()
    text = [str(w.message) for w in record]
    assert text == [f"AP: 2 topics have no value (NaN) and are left out of the {kind}: t1, t3"]
    assert mean[0, 0] == pytest.approx(0.375 if average_how == "avg" else math.sqrt(0.125))


def test_nan_left_out_of_a_sum_and_of_other_runs_is_named():
    res = _results([[[1.0, 2.0, 3.0], [0.1, 0.2, 0.3]], [[np.nan, 2.0, 3.0], [0.1, 0.2, 0.3]]],
                   measures=("NumRel", "P@5"), aggregate=["sum", "mean"])
    message = r"^NumRel: 1 topics have no value \(NaN\) and are left out of the sum: t0$"
    with pytest.warns(EvaluationWarning, match=message):
        assert res.summary()[:, 0].tolist() == [6.0, 5.0]


def test_announced_skips_are_not_warned_twice_but_others_are():
    values = [[[0.5, np.nan, np.nan]]]
    unscored = np.array([[False, True, False]])
    with pytest.warns(EvaluationWarning) as record:
        _results(values, unscored=unscored).summary()
    assert [str(w.message) for w in record] == [
        "AP: 1 topics have no value (NaN) and are left out of the mean: t2"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _results([[[0.5, np.nan]]], unscored=np.array([[False, True]])).summary()


def test_skip_rule_is_announced_once_per_run():
    with pytest.warns(EvaluationWarning) as record:
        df = cranfield.evaluate(TINY, {"1": {"a": 1.0}}, ["AP", "P@1"], missing="skip", per_topic=False)
    messages = [str(w.message) for w in record]
    assert sum("left out" in m for m in messages) == 1
    assert "missing from the run, left out of the mean: 2" in messages[0]
    assert df.value.tolist() == [1.0, 1.0]


def test_average_and_total_name_the_topics_they_leave_out():
    from cranfield.evaluation.averaging import total

    with pytest.warns(EvaluationWarning, match=r"nDCG@10: 1 topics .* left out of the dd-weighted mean: b"):
        average([0.2, np.nan, 0.4], "dd", weights=[1, 1, 1], topics=["a", "b", "c"], measure="nDCG@10")
    with pytest.warns(EvaluationWarning, match="left out of the sum: 1"):
        assert total([3.0, np.nan]).item() == 3.0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert average([0.2, np.nan], announced=[False, True]).item() == pytest.approx(0.2)


def test_nan_rows_of_a_rendered_table_are_announced(capsys):
    res = _results([[[0.5, np.nan]]])
    with pytest.warns(EvaluationWarning, match="AP: 1 topics have no value"):
        text = cranfield.compat.formats.render(res, "table", True)
    assert "t1" not in text


# ------------------------------------------------------------- 3. outputs that cannot be written

@pytest.mark.parametrize("option", ["-o", "--provenance"])
def test_an_output_in_a_missing_directory_fails_before_any_work(capsys, tmp_path, option):
    target = tmp_path / "no" / "such" / "file"
    code, out, err = cli(capsys, "eval", QRELS, tmp_path / "missing.run", "-m", "AP", option, target)
    assert_one_error(code, err, str(target), "does not exist")  # not the missing run: checked first
    assert out == "" and not target.parent.exists()


@pytest.mark.parametrize("option", ["-o", "--provenance"])
def test_a_directory_given_as_the_output_file(capsys, tmp_path, option):
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", option, tmp_path)
    assert_one_error(code, err, "is a directory")


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("option", ["-o", "--provenance"])
def test_a_full_disk_is_one_error_line(capsys, option):
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", option, "/dev/full")
    assert_one_error(code, err, "/dev/full", "No space left on device")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only directories")
def test_a_read_only_directory(capsys, tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o555)
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "-o", locked / "out.txt")
    assert_one_error(code, err, "not writable")


def test_a_failed_write_leaves_the_previous_file_unchanged(capsys, tmp_path, monkeypatch):
    import cranfield._output

    out = tmp_path / "scores.txt"
    out.write_text("previous results\n")

    def fail(*args):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cranfield._output.os, "replace", fail)
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "-o", out)
    assert_one_error(code, err, "scores.txt", "No space left on device")
    assert out.read_text() == "previous results\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["scores.txt"]  # no temporary file left


def test_outputs_are_written_whole(capsys, tmp_path):
    out, prov = tmp_path / "scores.json", tmp_path / "prov.json"
    code, stdout, _ = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "--format", "json", "-o", out, "--provenance", prov)
    assert code == 0 and stdout == ""
    assert json.loads(out.read_text())[0]["measure"] == "AP" and json.loads(prov.read_text())["order"] == "score"
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "-o", out, "--provenance", out)
    assert_one_error(code, err, "the same file")


def test_a_full_standard_output_is_one_error_line(capsys, monkeypatch):
    class Full(io.StringIO):
        def write(self, text):
            raise OSError(28, "No space left on device")

    monkeypatch.setattr("sys.stdout", Full())
    code = main(["eval", str(QRELS), str(RUN), "-m", "AP"])
    assert_one_error(code, capsys.readouterr().err, "standard output", "No space left on device")


# ---------------------------------------------------------------------------- 4. option values

@pytest.mark.parametrize("args, message", [
    (["-m", ""], "The value of -m/--measure must be a measure name"),
    (["-m", ","], "Got ',' instead."),
    (["-m", "AP,,P@10"], "Got 'AP,,P@10' instead."),
    (["-m", "AP", "-m", " "], "Got ' ' instead."),
    (["-M", "0"], "The value of -M/--depth must be an integer >= 1. Got '0' instead."),
    (["-M", "-3"], "The value of -M/--depth must be an integer >= 1. Got '-3' instead."),
    (["-M", "2.5"], "The value of -M/--depth must be an integer >= 1. Got '2.5' instead."),
    (["-M", "ten"], "Got 'ten' instead."),
    (["-l", "x"], "The value of -l/--rel-level must be an integer >= 1. Got 'x' instead."),
    (["-l", "1.5"], "Got '1.5' instead."),
    (["-l", "0"], "Got '0' instead."),
    (["--docs-per-iteration", "0"], "The value of --docs-per-iteration must be an integer >= 1."),
    (["--docs-per-iteration", "1.5"], "Got '1.5' instead."),
    (["--baseline", RUN, "--risk-alpha", "nan"], "The value of --risk-alpha must be a finite number >= 0. Got 'nan'"),
    (["--baseline", RUN, "--risk-alpha", "inf"], "Got 'inf' instead."),
    (["--baseline", RUN, "--risk-alpha", "-1"], "Got '-1' instead."),
    (["--baseline", RUN, "--risk-alpha", "x"], "Got 'x' instead."),
    (["--compat", "gdeval", "--cutoffs", "0"],
     "The --cutoffs must be ranks of 1 or more separated by commas (e.g. 10,1000). Got '0' instead."),
    (["--compat", "gdeval", "--cutoffs", "2.5"], "Got '2.5' instead."),
    (["--compat", "ntcireval", "-g", "1:2", "--cutoffs", "10,"], "Got '10,' instead."),
    (["--cutoffs", "x"], "Got 'x' instead."),
    (["--format", "xml"], "invalid choice: 'xml'"),
    (["--average", "median"], "invalid choice: 'median'"),
    (["--no-such-option"], "unrecognized arguments: --no-such-option"),
])
def test_invalid_option_values_are_one_line(capsys, args, message):
    code, out, err = cli(capsys, "eval", QRELS, RUN, *args)
    assert_one_error(code, err, message)
    assert out == "" and "usage:" not in err


def test_measures_command_errors_are_one_line(capsys):
    code, _, err = cli(capsys, "measures", "nDGC")
    assert_one_error(code, err, "nDGC")
    code, _, err = cli(capsys, "measures", "--format", "xml")
    assert_one_error(code, err, "invalid choice")


def test_options_without_effect_are_announced(capsys):
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "--risk-alpha", "2")
    assert code == 0 and "--risk-alpha has no effect without --baseline" in err
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "--cutoffs", "5")
    assert code == 0 and "--cutoffs applies only to the measures of --compat gdeval or --compat ntcireval" in err
    code, _, err = cli(capsys, "eval", QRELS, RUN, "--compat", "gdeval", "-m", "AP", "--cutoffs", "5")
    assert code == 0 and "(without -m): ignored" in err


def test_one_measure_name_is_one_measure_not_its_letters():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        assert Evaluator(TINY, "AP").names == ["AP"]
        df = cranfield.evaluate(TINY, {"1": {"a": 1.0}, "2": {"c": 1.0}}, "nDCG@10", per_topic=False)
    assert df.measure.tolist() == ["nDCG@10"]


@pytest.mark.parametrize("measures", [None, 5, [None], ["AP", 3.0], {"AP": 1}.values, b"AP", {"AP": 1}])
def test_measures_of_the_wrong_type_are_a_type_error(measures):
    with pytest.raises(TypeError, match="measures must be a measure name"):
        Evaluator(TINY, measures)


@pytest.mark.parametrize("runs", [None, 5, 2.5])
def test_runs_of_the_wrong_type_are_a_type_error(runs):
    with pytest.raises(TypeError, match="runs must be a run"):
        cranfield.evaluate(TINY, runs, ["AP"])
    with pytest.raises(TypeError, match="runs must be a run"):
        Evaluator(TINY, ["AP"]).evaluate(runs)


@pytest.mark.parametrize("kwargs, message", [
    ({"depth": 2.5}, "The depth must be an integer >= 1. Got 2.5 instead."),
    ({"depth": 0}, "The depth must be an integer >= 1. Got 0 instead."),
    ({"depth": True}, "The depth must be an integer >= 1. Got True instead."),
    ({"depth": "x"}, "Got 'x' instead."),
    ({"missing": "never"}, "The missing option must be one of 'auto', 'zero', 'empty', 'skip'. Got 'never'"),
    ({"norel": "drop"}, "The norel option must be one of 'include', 'exclude'."),
    ({"average": "median"}, "The average option must be one of 'avg', 'geom', 'dd'."),
    ({"names": ["a", "b"]}, "2 names given for 1 measures"),
])
def test_evaluator_settings_use_the_one_template(kwargs, message):
    with pytest.raises(CranfieldError, match=message.replace("(", r"\(").replace(".", r"\.")):
        Evaluator(TINY, ["AP"], **kwargs)


@pytest.mark.parametrize("kwargs, error, message", [
    ({"order": "best"}, CranfieldError, "The order option must be one of 'score', 'rank', 'file'."),
    ({"on_duplicate": "last"}, CranfieldError, "The on_duplicate option must be one of 'error', 'first'."),
    ({"empty_intents": "x"}, CranfieldError, "The empty_intents option must be one of 'drop', 'keep'."),
    ({"diversity": "yes"}, TypeError, "diversity must be True, False or None; got str"),
    ({"intents": 5}, TypeError, "intents must be a path, an Intents, 'uniform' or 'nonuniform'; got int"),
    ({"intent_types": 3}, TypeError, "intent_types must be a path or a dict"),
])
def test_evaluate_settings_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message.replace("(", r"\(").replace(".", r"\.")):
        cranfield.evaluate(TINY, {"1": {"a": 1.0}, "2": {"c": 1.0}}, "AP", **kwargs)


def test_risk_alpha_in_python_uses_the_template():
    from cranfield.evaluation.evaluator import risk_adjusted

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        res = Evaluator(TINY, ["P@1"]).evaluate([{"1": {"a": 1.0}, "2": {"c": 1.0}}])
    for alpha in (float("nan"), float("inf"), -0.5):
        with pytest.raises(CranfieldError, match="The risk alpha must be a finite number >= 0"):
            risk_adjusted(res, res, alpha)


# ----------------------------------------------------------------- 5. no numpy RuntimeWarning

ODD_QRELS = ("1 0 a 0\n1 0 b 0\n"  # judged, nothing relevant
             "2 0 c -1\n2 0 d -2\n"  # every label negative
             "3 0 e 1\n3 0 f 2\n3 0 g 0\n")
ODD_RUN = "1 Q0 a 1 3 r\n1 Q0 x 2 2 r\n2 Q0 c 1 1 r\n2 Q0 d 2 1 r\n3 Q0 g 1 5 r\n3 Q0 e 2 4 r\n3 Q0 z 3 3 r\n"
ODD_DIV = "1 1 a 0\n1 2 b 0\n2 1 c 1\n2 2 d 0\n2 1 e 0\n3 1 f 1\n3 2 f 2\n3 3 g 1\n"
ODD_DIV_RUN = "1 Q0 a 1 3 r\n2 Q0 c 1 1 r\n2 Q0 e 2 1 r\n3 Q0 f 1 5 r\n3 Q0 g 2 4 r\n"
DIVERSITY = ["alpha-nDCG@5", "ERR-IA@5", "I-rec@5", "IA(nDCG@5)", "D#-nDCG@5", "NRBP", "MAP-IA", "P+Q#@5"]


@pytest.mark.parametrize("case", [
    ["eval", QRELS, RUN, DATA / "web2012" / "rm-filtered.run.gz", "-m", "all_trec", "--format", "trec", "-q"],
    ["eval", QRELS, RUN, "-m", "AP,nDCG@10,P@10,RR,ERR@20,RBP,Q@10,map,gm_map", "--average", "geom", "-q"],
    ["eval", DIV_QRELS, RUN, "-m", ",".join(DIVERSITY), "--average", "dd", "--per-intent"],
    ["eval", "{qrels}", "{run}", "-m", "all_trec", "--format", "trec", "-q"],
    ["eval", "{qrels}", "{run}", "-m", "all_trec", "-J", "--norel", "exclude"],
    ["eval", "{qrels}", "{run}", "-m", "AP,nDCG@3,RR,Q@3,ERR@3", "--average", "geom", "-l", "2"],
    ["eval", "{div}", "{div_run}", "-m", ",".join(DIVERSITY), "--average", "dd", "--empty-intents", "keep"],
    ["eval", "{single}", "{single_run}", "-m", "AP,P@1", "--baseline", "{single_run}"],
    ["eval", "{qrels}", "{run}", "-m", "AP,nDCG@3", "--baseline", "{run}", "--missing", "skip"],
])
def test_no_runtime_warning_reaches_the_terminal(capsys, write, case):
    files = {"qrels": write("odd.qrels", ODD_QRELS), "run": write("odd.run", ODD_RUN),
             "div": write("odd.div", ODD_DIV), "div_run": write("odd.divrun", ODD_DIV_RUN),
             "single": write("one.qrels", "1 0 a 1\n"), "single_run": write("one.run", "1 Q0 a 1 1 r\n")}
    args = [str(a).format(**files) for a in case]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        code = main(args)
    err = capsys.readouterr().err
    assert code == 0, err
    assert "RuntimeWarning" not in err


def test_undefined_trisk_is_nan_with_a_warning_not_zero(capsys, write):
    qrels, run = write("one.qrels", "1 0 a 1\n"), write("one.run", "1 Q0 a 1 1 r\n")
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "P@1", "--baseline", run, "--format", "json")
    assert code == 0
    rows = {r["measure"]: r["value"] for r in json.loads(out)}  # valid JSON: NaN is null
    assert rows == {"P@1": 0.0, "P@1[TRisk]": None}
    assert "TRisk of P@1 is undefined (NaN): fewer than 2 topics are scored" in err


# --------------------------------------------------------------- 6. a level nothing reaches

def test_a_relevance_level_above_every_label_warns(capsys):
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP,P@10,nDCG@10", "-l", "99")
    assert code == 0
    line = [x for x in err.splitlines() if "no evaluated topic has a relevant document" in x]
    assert len(line) == 1 and "label >= 99" in line[0] and "highest label in the qrels is 4" in line[0]
    assert "AP" in line[0] and "P@10" in line[0] and "nDCG@10" not in line[0]  # nDCG has no rel level
    code, _, err = cli(capsys, "eval", QRELS, RUN, "-m", "AP", "-l", "4")
    assert code == 0 and "no evaluated topic" not in err


def test_qrels_without_any_relevant_document_warn(write):
    with pytest.warns(EvaluationWarning, match="no evaluated topic has a relevant document at label >= 1"):
        Evaluator({"1": {"a": 0}, "2": {"b": -1}}, ["AP", "nDCG@10"])
    with pytest.warns(EvaluationWarning, match="label >= 3"):
        Evaluator(TINY, ["AP(rel=3)"])


def test_excluding_every_topic_is_an_error():
    with pytest.raises(CranfieldError, match="no topic is left to evaluate"):
        Evaluator({"1": {"a": 0}, "2": {"b": -1}}, ["AP"], norel="exclude")


# ------------------------------------------------------------------ 7. never a traceback

@pytest.mark.parametrize("exc, parts", [
    (OSError(13, "Permission denied", "secret.run"), ["secret.run: Permission denied"]),
    (FileNotFoundError(2, "No such file or directory", "gone.txt"), ["gone.txt: No such file or directory"]),
    (ValueError("could not convert string to float: 'x'"), ["could not convert string to float"]),
    (UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte"), ["invalid start byte"]),
    (CranfieldError("first line\nsecond line"), ["first line second line"]),
])
def test_input_errors_are_one_line(capsys, monkeypatch, exc, parts):
    import cranfield.cli.evaluate

    def fail(*args):
        raise exc

    monkeypatch.setattr(cranfield.cli.evaluate, "_run_eval", fail)
    code, _, err = cli(capsys, "eval", QRELS, RUN)
    assert_one_error(code, err, *parts)


def test_programming_errors_stay_visible(monkeypatch):
    import cranfield.cli.evaluate

    def fail(*args):
        raise AssertionError("a bug")

    monkeypatch.setattr(cranfield.cli.evaluate, "_run_eval", fail)
    with pytest.raises(AssertionError, match="a bug"):
        main(["eval", str(QRELS), str(RUN)])


def test_interrupt_is_one_line_and_status_130(capsys, monkeypatch):
    import cranfield.cli.evaluate

    def interrupted(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cranfield.cli.evaluate, "_run_eval", interrupted)
    code, out, err = cli(capsys, "eval", QRELS, RUN)
    assert code == 130 and out == "" and err == "cranfield: interrupted\n"


# ------------------------------------------------------------- 8. per-iteration rows in tables

def test_per_iteration_rows_appear_in_the_table(capsys):
    truth = DATA / "trec-dd" / "trecdd2016-qrels.txt.gz"
    run = DATA / "trec-dd" / "trecdd2016-sample-run.txt"
    code, out, _ = cli(capsys, "eval", "--dd-truth", truth, run, "-m", "CT@3", "--per-iteration")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert rows[0] == ["run", "topic", "measure", "value"]
    measures = {r[2] for r in rows[1:]}
    assert {"CT@3", "CT@3[iteration=1]", "CT@3[iteration=3]"} <= measures
    _, csv, _ = cli(capsys, "eval", "--dd-truth", truth, run, "-m", "CT@3", "--per-iteration", "--format", "csv")
    assert len(rows) - 1 == len(csv.splitlines()) - 1  # the same rows as the CSV (a header row, no # line)


def test_risk_with_several_runs_and_skipped_topics_is_announced_once():
    from cranfield.evaluation.evaluator import risk_adjusted

    ev = Evaluator(TINY, ["P@1"], missing="skip")
    with pytest.warns(EvaluationWarning) as record:
        runs = ev.evaluate([{"1": {"a": 1.0}, "2": {"c": 1.0}}, {"1": {"b": 1.0}, "2": {"c": 1.0}}])
        base = ev.evaluate([{"1": {"a": 1.0}}])
    assert [str(w.message) for w in record] == ["run: 1 qrels topics are missing from the run, left out of the mean: 2"]
    adjusted = risk_adjusted(runs, base)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert adjusted.summary()[:, 0].tolist() == [0.0, -1.0]


def test_qrels_with_only_negative_labels_score_zero(capsys, tmp_path):
    """Every label negative (spam only): nothing is relevant, max_rel is 0, every measure scores 0."""
    qrels, run = tmp_path / "neg.qrels", tmp_path / "neg.run"
    qrels.write_text("1 0 a -2\n1 0 b -1\n")
    run.write_text("1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "AP,nDCG@10,ERR,RBP", "--format", "json")
    assert code == 0, err
    assert {row["value"] for row in json.loads(out)} == {0.0}
