"""The command line: formats and the JSON contract, errors as one line and exit status 2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from conftest import DATA
from cranfield.cli.main import main

QRELS = DATA / "web2012" / "qrels.adhoc.txt"
RUN = DATA / "web2012" / "ql-filtered.run.gz"


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(capsys):
    code, out, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "P@10", "-m", "nDCG(gains=exp)@20",
                           "--per-topic", "--format", "json")
    assert code == 0
    rows = json.loads(out)
    assert all(set(r) == {"run", "topic", "measure", "value"} for r in rows)
    assert {r["measure"] for r in rows} == {"P@10", "nDCG(gains=exp)@20"}  # as the user wrote them
    assert {r["run"] for r in rows} == {"indri"}
    alls = [r for r in rows if r["topic"] == "all"]
    assert len(alls) == 2 and len(rows) == 2 * 50 + 2
    assert all(isinstance(r["value"], float) for r in rows)


def test_comma_separated_measures_and_formats(capsys, tmp_path):
    code, out, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "AP,P@5,nDCG(gains=0:0,1:1,2:3)@5",
                           "--format", "csv", "--provenance", tmp_path / "p.json")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "run,topic,measure,value"  # data only: the provenance is in --provenance
    assert [line.split(",")[2] for line in lines[1:4]] == ["AP", "P@5", '"nDCG(gains=0:0']
    assert json.loads((tmp_path / "p.json").read_text())["order"] == "score"
    code, out, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "NumRet,AP,runid", "--format", "trec", "-q")
    lines = out.splitlines()
    assert lines[1].startswith("NumRet                \t151\t") and lines[1].split("\t")[2].isdigit()
    assert lines[-3:-1] == ["runid                 \tall\tindri", lines[-2]] and lines[-2].startswith("NumRet")
    code, out, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "AP")
    assert out.splitlines()[1].split() == ["run", "AP"]


@pytest.mark.parametrize("args, message", [
    (["-m", "nDGC@10"], "cranfield: error: Unknown measure 'nDGC'. Did you mean nDCG"),
    (["-m", "RBP(p=2)"], "must be a float in the range [0, 1)"),
])
def test_measure_errors(capsys, args, message):
    code, out, err = run_cli(capsys, "eval", QRELS, RUN, *args)
    assert code == 2 and out == "" and message in err and "Traceback" not in err


def test_file_errors_name_file_and_line(capsys, write):
    bad = write("bad.run", "151 Q0 a 1 1 t\n151 Q0 b 2 t\n")
    code, _, err = run_cli(capsys, "eval", QRELS, bad, "-m", "AP")
    assert code == 2 and err.strip() == (f"cranfield: error: {bad}:2: expected 6 columns "
                                         "(qid Q0 docno rank score tag), got 5")
    code, _, err = run_cli(capsys, "eval", "/no/such/qrels", RUN)
    assert code == 2 and "/no/such/qrels: cannot open" in err


def test_warnings_go_to_stderr(capsys, write):
    run = write("r.txt", "151 Q0 a 1 1 t\n999 Q0 a 1 1 t\n")
    code, out, err = run_cli(capsys, "eval", QRELS, run, "-m", "P@10", "--missing", "skip")
    assert code == 0
    assert "cranfield: warning: t: 1 topics are not in the qrels and are ignored: 999" in err
    assert "49 qrels topics are missing from the run, left out of the mean" in err


def test_a_run_without_any_judged_topic_is_an_error(capsys, write):
    """As trec_eval ("No queries with both results and relevance info"): no silent NaN rows."""
    run = write("r.txt", "wt12-151 Q0 a 1 1 t\n")
    code, out, err = run_cli(capsys, "eval", QRELS, run, "-m", "P@10", "--missing", "skip")
    assert code == 2 and out == ""
    assert "t: no topic of the run has judgments" in err and "--strip-topic-prefix" in err
    code, out, _ = run_cli(capsys, "eval", QRELS, run, "-m", "P@10", "--strip-topic-prefix")
    assert code == 0


def test_example_and_measures(capsys):
    code, out, err = run_cli(capsys, "example")
    assert code == 0 and "indri#web2012.ql.run.gz" in out and "# cranfield eval" in err
    code, out, _ = run_cli(capsys, "measures", "--format", "json")
    names = {m["name"] for m in json.loads(out)}
    assert {"P", "AP", "nDCG", "RR", "ERR", "RBP", "Q", "P+", "Rprec", "F", "NumRet"} <= names
    code, out, _ = run_cli(capsys, "measures", "nDCG")
    assert code == 0 and "gains=linear" in out and "Järvelin" in out
    assert run_cli(capsys)[0] == 2


def test_console_script_exit_status(write):
    bad = write("bad.qrels", "1 0 a\n")
    proc = subprocess.run([sys.executable, "-m", "cranfield.cli.main", "eval", str(bad), str(RUN)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.startswith("cranfield: error: ") and "bad.qrels:1" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "cranfield.cli.main", "eval", "--help"],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "ir_measures' syntax" in proc.stdout


def test_baseline_gives_urisk_and_trisk(capsys):
    code, out, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "P@10", "--baseline", RUN, "--risk-alpha", "1",
                           "--format", "json")
    assert code == 0
    rows = {r["measure"]: r["value"] for r in json.loads(out) if r["topic"] == "all"}
    assert rows == {"P@10": 0.0, "P@10[TRisk]": 0.0}  # a run against itself neither wins nor loses


def test_baseline_urisk_matches_per_topic_differences(capsys):
    other = DATA / "web2012" / "rm-filtered.run.gz"
    _, out, _ = run_cli(capsys, "eval", QRELS, other, "-m", "nDCG@20", "--per-topic", "--format", "json")
    _, base, _ = run_cli(capsys, "eval", QRELS, RUN, "-m", "nDCG@20", "--per-topic", "--format", "json")
    ours = {r["topic"]: r["value"] for r in json.loads(out) if r["topic"] != "all"}
    theirs = {r["topic"]: r["value"] for r in json.loads(base) if r["topic"] != "all"}
    delta = [ours[t] - theirs[t] for t in ours]
    adjusted = [d if d >= 0 else 6 * d for d in delta]
    _, risk, _ = run_cli(capsys, "eval", QRELS, other, "-m", "nDCG@20", "--baseline", RUN, "--risk-alpha", "5",
                         "--format", "json")
    rows = {r["measure"]: r["value"] for r in json.loads(risk) if r["topic"] == "all"}
    assert rows["nDCG@20"] == pytest.approx(sum(adjusted) / len(adjusted))
    se = float(np.std(adjusted, ddof=1)) / len(adjusted) ** 0.5
    assert rows["nDCG@20[TRisk]"] == pytest.approx(sum(adjusted) / len(adjusted) / se)
