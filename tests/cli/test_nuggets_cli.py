"""``cranfield nuggets`` and ``--nuggets`` in compare, discpower, correlate and report (docs/nuggets.md)."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys

import pandas as pd
import pytest

from conftest import DATA, run_main
from cranfield.cli.nuggets import NUGGETS_EPILOG

N = str(DATA / "nuggets" / "rag.nuggets.jsonl")


def test_table_of_means(capsys):
    code, out, err = run_main(capsys, ["nuggets", N, "-m", "V_strict", "-m", "A"])
    assert code == 0 and err.count("warning") == 1 and "1 nugget assignment marked 'failed'" in err
    lines = out.splitlines()
    assert lines[0].startswith("# cranfield") and lines[1].split() == ["run", "V_strict", "A"]
    assert lines[2].split() == ["bm25_llama", "0.3889", "0.3750"]


def test_formats_agree(capsys, tmp_path):
    base = ["nuggets", N, "-m", "V_strict,W", "-q"]
    rows = json.loads(run_main(capsys, [*base, "--format", "json"])[1])
    frame = pd.read_csv(pd.io.common.StringIO(run_main(capsys, [*base, "--format", "csv"])[1]))
    assert len(rows) == len(frame) == 3 * (6 + 1) * 2
    assert rows[0] == {"run": "bm25_llama", "topic": "t1", "measure": "V_strict", "value": 0.5}
    trec = run_main(capsys, [*base, "--format", "trec"])[1].splitlines()
    assert "V_strict              \tt4\t0.0000" in trec and "runid                 \tall\tdense_mistral" in trec
    pytest.importorskip("pyarrow")
    target = tmp_path / "s.parquet"
    assert run_main(capsys, [*base, "--format", "parquet", "-o", target])[0] == 0
    assert pd.read_parquet(target).equals(frame)


@pytest.mark.parametrize(("args", "message"), [
    (["-m", "AP"], "AP scores rankings against qrels, not nugget assignments"),
    (["-m", "V_strikt"], "Unknown nugget measure 'V_strikt'. Did you mean V_strict"),
    (["-m", "NuggetRecall(partial=3)"], "'partial' parameter of NuggetRecall"),
    (["--format", "parquet"], "--format parquet writes a binary file"),
])
def test_errors_are_one_line(capsys, args, message):
    code, out, err = run_main(capsys, ["nuggets", N, *args])
    assert code == 2 and out == "" and message in err and len(err.strip().splitlines()) == 1


def test_bad_file_names_its_line(capsys, write):
    path = write("a.tsv", "q1\tr1\tn1\tvital\tsupport\nq1\tr1\tn2\tcritical\tsupport\n")
    code, _, err = run_main(capsys, ["nuggets", path])
    assert code == 2 and err.strip() == f"cranfield: error: {path}:2: unknown importance 'critical': expected " \
                                        "'vital' or 'okay'"


def test_compare_discpower_correlate_take_nuggets(capsys):
    code, out, _ = run_main(capsys, ["compare", "--nuggets", N, "-m", "V_strict,A", "--format", "json",
                                     "--baseline", "bm25_llama"])
    pairs = json.loads(out)
    assert code == 0 and {p["run_2"] for p in pairs} == {"bm25_llama"} and len(pairs) == 4
    assert {(p["measure"], p["run_1"], p["wins"]) for p in pairs} >= {("A", "hybrid_gpt4o", 6)}
    code, out, _ = run_main(capsys, ["discpower", "--nuggets", N, "-m", "V_strict", "-m", "A", "--B", "100",
                                     "--format", "json"])
    assert code == 0 and [d["measure"] for d in json.loads(out)] == ["V_strict", "A"]
    code, out, _ = run_main(capsys, ["correlate", "--nuggets", N, "-m", "V_strict,A", "--format", "json"])
    assert code == 0 and json.loads(out)[0]["systems"] == 3


def test_report_takes_nuggets(capsys, tmp_path):
    target = tmp_path / "r.html"
    code, _, err = run_main(capsys, ["report", "--nuggets", N, "-m", "V_strict,A", "-o", target])
    page = target.read_text(encoding="utf-8")
    assert code == 0 and "wrote" in err and "V_strict" in page and "rag.nuggets.jsonl" in page
    import hashlib

    assert hashlib.sha256(open(N, "rb").read()).hexdigest() in page


@pytest.mark.parametrize("argv", [["compare", "-m", "A"], ["compare", N, "x.run", "--nuggets", N, "-m", "A"],
                                  ["report", "-m", "A", "-o", "r.html"]])
def test_runs_or_nuggets_not_both_nor_neither(capsys, argv):
    code, _, err = run_main(capsys, argv)
    assert code == 2 and ("give the qrels and the run files" in err or "not both" in err)


def test_help_examples_run(tmp_path):
    """Every example of `cranfield nuggets --help` runs on the bundled file."""
    lines = NUGGETS_EPILOG.split("examples")[1].splitlines()[1:]
    setup, commands = lines[0].strip(), [line.strip() for line in lines[1:] if line.strip()]
    value = setup.split("=", 1)[1]
    path = subprocess.run(["bash", "-c", f"echo {value}"], capture_output=True, text=True, check=True,
                          env={"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "PYTHONPATH": ":".join(sys.path)}).stdout
    assert path.strip().endswith("rag.nuggets.jsonl")
    for command in commands:
        words = [w.replace("$N", path.strip()) for w in shlex.split(command)]
        assert words[0] == "cranfield"
        from cranfield.cli.main import main

        assert main(words[1:]) == 0, command
    assert re.search(r"cranfield compare --nuggets", NUGGETS_EPILOG)


def test_missing_answers_zero_or_skip(capsys, write):
    path = write("a.tsv", "q1 r1 1 vital support\nq2 r1 1 vital support\nq1 r2 1 vital support\n")
    code, out, err = run_main(capsys, ["nuggets", path, "-m", "A", "--format", "csv"])
    assert code == 0 and "1 (run, topic) answer missing, in 1 run (r2): scored 0" in err
    assert out.splitlines()[1:] == ["r1,all,A,1.0", "r2,all,A,0.5"]
    code, out, err = run_main(capsys, ["nuggets", path, "-m", "A", "--format", "csv", "--missing", "skip"])
    assert code == 0 and "left out" in err and out.splitlines()[1:] == ["r1,all,A,1.0", "r2,all,A,1.0"]
    code, out, _ = run_main(capsys, ["correlate", "--nuggets", path, "-m", "A,V", "--format", "json"])
    assert code == 0 and json.loads(out)[0]["systems"] == 2
