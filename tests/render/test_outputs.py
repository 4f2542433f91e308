"""The output registry (cranfield.render.outputs): every command's formats declared once, each
(kind, format) with a writer, jsonl the rows of json for every command that has json, ``-o FILE``
choosing the format by its extension."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

import cranfield.compat.formats  # noqa: F401  (registers the tool layouts)
import cranfield.render.writers  # noqa: F401  (registers cranfield's own formats)
from cranfield.cli.main import main
from cranfield.render import outputs
from cranfield.render.outputs import FORMATS, OUTPUTS, format_from_path, formats_for

ROOT = Path(__file__).resolve().parents[2]
D = ROOT / "tests" / "data"
S = ROOT / "src" / "cranfield" / "data"
QRELS, RUN_A, RUN_B = D / "web2012/qrels.adhoc.txt", D / "web2012/ql-filtered.run.gz", D / "web2012/rm-filtered.run.gz"

# a command line of every command that has json (without --format)
COMMANDS = {
    "eval": f"eval {QRELS} {RUN_A} {RUN_B} -m AP -m P@10 -q",
    "nuggets": f"nuggets {S}/rag.nuggets.jsonl -m V_strict",
    "measures": "measures AP RBP",
    "compare": f"compare {QRELS} {RUN_A} {RUN_B} -m AP",
    "discpower": f"discpower {QRELS} {RUN_A} {RUN_B} -m AP --test t",
    "correlate": f"correlate {QRELS} {RUN_A} {RUN_B} -m AP -m P@10",
    "topicsize": f"topicsize {QRELS} --runs {RUN_A} {RUN_B} -m AP",
    "axioms": "axioms -m AP --depth 3 --aspects 2",
    "collection": f"collection {D}/web2009/qrels.diversity.gz",
    "dss": f"dss {D}/web2009/qrels.diversity.gz -m ERR-IA --k 5 --n 20",
    "truncation": f"truncation {QRELS} {RUN_A} {RUN_B} -m RBU",
    "similarity": f"similarity {RUN_A} {RUN_B} -m RBO",
    "judges": f"judges {QRELS} other={S}/web2012.adhoc.qrels.gz",
}


def _out(capsys: pytest.CaptureFixture[str], line: str) -> str:
    capsys.readouterr()
    assert main(line.split()) == 0
    return capsys.readouterr().out


def test_format_is_declared_once():
    """One ``--format`` declaration in the CLI: cli/options.add_format_option."""
    places = [p.relative_to(ROOT).as_posix() for p in (ROOT / "src/cranfield/cli").glob("*.py")
              if re.search(r"""add_argument\(\s*["']--format["']""", p.read_text())]
    assert places == ["src/cranfield/cli/options.py"]


def test_every_declared_format_of_every_kind_has_a_writer():
    for kind in OUTPUTS:
        for fmt in formats_for(kind):
            assert fmt in FORMATS
            generic = kind in outputs._ROW_MAKERS and ("*", fmt) in outputs._WRITERS
            assert (kind, fmt) in outputs._WRITERS or generic, (kind, fmt)


def test_every_kind_with_json_has_jsonl():
    assert [k for k in OUTPUTS if "json" in OUTPUTS[k] and "jsonl" not in formats_for(k)] == []
    assert all("jsonl" not in formats_for(k) for k in OUTPUTS if "json" not in OUTPUTS[k])


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_jsonl_holds_the_rows_of_json(command, capsys):
    """JSON Lines: one object per line; for a command whose json is a list, the same objects in
    the same order; for one whose json is a document, its rows (the rows of the registry)."""
    line = COMMANDS[command]
    lines = _out(capsys, f"{line} --format jsonl").splitlines()
    rows = [json.loads(x) for x in lines]
    assert rows and all(isinstance(r, dict) for r in rows)
    document = json.loads(_out(capsys, f"{line} --format json"))
    if isinstance(document, list):
        assert rows == document
    else:  # a nested document: its rows are one of its lists
        assert any(rows == v for v in document.values() if isinstance(v, list)) or rows == document.get("rows")


def test_jsonl_reads_in_pandas(tmp_path):
    out = tmp_path / "scores.jsonl"
    assert main(f"eval {QRELS} {RUN_A} -m AP -m P@10 -q -o {out}".split()) == 0
    frame = pd.read_json(out, lines=True, dtype={"topic": str})
    assert list(frame.columns) == ["run", "topic", "measure", "value"]
    assert len(frame) == 2 * 51 and frame.topic.iloc[-1] == "all"


@pytest.mark.parametrize(("name", "fmt"), [("scores.csv", "csv"), ("scores.json", "json"), ("s.ndjson", "jsonl"),
                                           ("s.PARQUET", "parquet"), ("scores.txt", None), ("scores", None)])
def test_output_file_extension_names_the_format(name, fmt):
    assert format_from_path("eval", name) == fmt


def test_o_with_an_extension_writes_that_format(tmp_path, capsys):
    out = tmp_path / "power.csv"
    assert main(f"discpower {QRELS} {RUN_A} {RUN_B} -m AP --test t -o {out}".split()) == 0
    assert list(pd.read_csv(out).columns[:2]) == ["measure", "test"]
    tex = tmp_path / "table.tex"
    assert main(f"compare {QRELS} {RUN_A} {RUN_B} -m AP -o {tex}".split()) == 0
    assert "\\begin{tabular}" in tex.read_text() or "\\toprule" in tex.read_text()


def test_compat_layout_wins_over_the_extension(tmp_path):
    """``--compat ndeval -o ndeval.csv`` is ndeval's CSV, not cranfield's."""
    out = tmp_path / "ndeval.csv"
    assert main(f"eval --compat ndeval {S}/web2012.diversity.qrels.gz {S}/web2012.ql.run.gz -o {out}".split()) == 0
    assert out.read_text().startswith("runid,topic,")


def test_a_binary_format_needs_a_file(capsys):
    assert main(f"similarity {RUN_A} {RUN_B} --format parquet".split()) == 2
    assert "--format parquet writes a binary file: give it with -o FILE" in capsys.readouterr().err


def test_the_registry_imports_no_numpy():
    code = "import sys, cranfield.render.outputs; print('numpy' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_an_unknown_pair_is_a_clear_error():
    from cranfield.errors import CranfieldError

    with pytest.raises(CranfieldError, match="have no format 'latex'"):
        outputs.render_output("eval", "latex", None)
