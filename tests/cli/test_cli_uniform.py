"""Every command takes the same input options and ``-o`` (issue #15): ``--help`` lists them, and
``-o FILE`` writes exactly what the command prints, checked before any work."""

from __future__ import annotations

import argparse
import gzip
import warnings
from pathlib import Path

import pytest

from conftest import DATA
from cranfield.cli.main import build_parser, main

ROBUST = DATA / "robust03"
QRELS = str(ROBUST / "qrels.txt.gz")
RUNS = [str(ROBUST / f"input.{name}.gz") for name in ("NLPR03vb10", "humR03dc", "pircRBa1")]
WEB2012 = str(DATA / "web2012" / "qrels-for-ndeval.txt.gz")
LABELS = ["--labels", "relevance=nr,mr,fr,hr", "--labels", "correctness=nc,pc,c", "--gate", "relevance"]

RUN_OPTIONS = ["--order", "--missing", "--norel", "--on-duplicate", "--strip-topic-prefix"]
QRELS_OPTIONS = ["--diversity", "--adhoc", "--intents", "--intent-types", "--empty-intents"]


def aspect_files(tmp: Path) -> list[str]:
    """``aspects eval`` on Maistro et al., CIKM 2021, Table 3's three documents."""
    (tmp / "rel.qrels").write_text("t 0 d1 mr\nt 0 d2 hr\nt 0 d3 hr\n")
    (tmp / "cor.qrels").write_text("t 0 d1 c\nt 0 d2 pc\nt 0 d3 nc\n")
    (tmp / "run.txt").write_text("t Q0 d1 1 3 r\nt Q0 d2 2 2 r\nt Q0 d3 3 1 r\n")
    return ["--aspect", f"relevance={tmp / 'rel.qrels'}", "--aspect", f"correctness={tmp / 'cor.qrels'}", *LABELS,
            str(tmp / "run.txt"), "-m", "CAM(AP)", "-m", "TOMA(AP)", "--grades", "relevance=0,0,1,1",
            "--grades", "correctness=0,0,1", "--report"]


# command: (arguments of a small run, what its --help must list besides -o)
COMMANDS: dict[str, tuple[list[str], list[str]]] = {
    "eval": ([QRELS, *RUNS[:2], "-m", "AP,P@10", "-q"], RUN_OPTIONS + QRELS_OPTIONS),
    "example": (["-m", "AP"], RUN_OPTIONS + QRELS_OPTIONS),
    "measures": (["AP", "RR"], []),
    "compare": ([QRELS, *RUNS, "-m", "AP", "--test", "t"], RUN_OPTIONS + QRELS_OPTIONS),
    "discpower": ([QRELS, *RUNS, "-m", "AP", "--B", "50"], RUN_OPTIONS + QRELS_OPTIONS),
    "correlate": ([QRELS, *RUNS, "-m", "AP", "-m", "P@10"], RUN_OPTIONS + QRELS_OPTIONS),
    "intuitiveness": ([QRELS, *RUNS, "-m", "AP", "-m", "P@10", "--gold", "RR"], RUN_OPTIONS + QRELS_OPTIONS),
    "coverage": ([QRELS, *RUNS, "-m", "AP", "--reference", "P@10", "--reference", "RR", "--pairs", "50"],
                 RUN_OPTIONS + QRELS_OPTIONS),
    "axioms": (["-m", "RR", "--depth", "4"], []),
    "collection": ([WEB2012, "--format", "json"], QRELS_OPTIONS),
    "dss": ([WEB2012, "-m", "alpha-nDCG", "--k", "5", "--n", "10", "--format", "csv"], QRELS_OPTIONS),
    "truncation": ([QRELS, *RUNS[:2], "-m", "RBU,OIE", "--full", "AP"], RUN_OPTIONS + QRELS_OPTIONS),
    "aspects order": ([*LABELS], []),
    "aspects eval": (["<aspect files>"], RUN_OPTIONS),
    "report": ([QRELS, *RUNS[:2], "-m", "AP,P@10"], RUN_OPTIONS + QRELS_OPTIONS),
    "nuggets": ([str(DATA / "nuggets" / "rag.nuggets.jsonl"), "-m", "V_strict,A", "-q"], ["--missing"]),
    "similarity": ([*RUNS[:2], "-m", "RBO,KTU@10"], ["--order", "--on-duplicate"]),
    "repro": (["--qrels", QRELS, "--orig-baseline", RUNS[0], "--orig-advanced", RUNS[1], "--rep-baseline", RUNS[2],
               "--rep-advanced", RUNS[0], "-m", "AP", "--cutoffs", "10"], RUN_OPTIONS + QRELS_OPTIONS),
    "judges": ([QRELS, f"same={QRELS}", "--runs", *RUNS, "-m", "AP", "--ci-B", "20"], RUN_OPTIONS + QRELS_OPTIONS),
    "topicsize": ([QRELS, "--runs", *RUNS, "-m", "AP"], RUN_OPTIONS + QRELS_OPTIONS),
}
# Commands that write only to -o (a report file), never to standard output.
FILE_ONLY = {"report": ".md"}


def commands(parser: argparse.ArgumentParser, prefix: str = "") -> dict[str, argparse.ArgumentParser]:
    """Every (sub)command that does something: ``aspects`` by its actions."""
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                inner = commands(sub, f"{prefix}{name} ")
                out.update(inner or {f"{prefix}{name}": sub})
    return out


def args_of(command: str, tmp: Path) -> list[str]:
    given = COMMANDS[command][0]
    return [*command.split(), *(aspect_files(tmp) if given == ["<aspect files>"] else given)]


def quiet_main(argv: list[str]) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(argv)


def test_every_command_is_checked() -> None:
    assert set(commands(build_parser())) == set(COMMANDS)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_help_lists_output_and_input_options(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main([*command.split(), "--help"])
    assert exit_.value.code == 0
    text = capsys.readouterr().out
    assert "-o FILE, --output FILE" in text
    for option in COMMANDS[command][1]:
        assert f"{option} " in text or f"{option}\n" in text or f"{option}," in text, option


@pytest.mark.parametrize("command", list(COMMANDS))
def test_output_file_holds_what_stdout_shows(command: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = args_of(command, tmp_path)
    if command in FILE_ONLY:  # no standard output: the file is written whole, the same each time
        first, second = tmp_path / f"a{FILE_ONLY[command]}", tmp_path / f"b{FILE_ONLY[command]}"
        assert quiet_main([*argv, "-o", str(first)]) == 0 and quiet_main([*argv, "-o", str(second)]) == 0
        assert capsys.readouterr().out == ""
        assert first.read_text(encoding="utf-8").strip() and first.read_bytes() == second.read_bytes()
        assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]
        return
    assert quiet_main(argv) == 0
    shown = capsys.readouterr().out
    assert shown.strip()
    out = tmp_path / "out.txt"
    assert quiet_main([*argv, "-o", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert out.read_text(encoding="utf-8") == shown
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".part")]  # no temporary file left


@pytest.mark.parametrize("command", list(COMMANDS))
def test_unwritable_output_fails_before_the_work(command: str, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    argv = args_of(command, tmp_path)
    name = f"out{FILE_ONLY.get(command, '.txt')}"
    assert quiet_main([*argv, "-o", str(tmp_path / "missing" / name)]) == 2
    captured = capsys.readouterr()
    what = "report" if command in FILE_ONLY else "output"
    assert captured.out == "" and f"cannot write the {what} file" in captured.err
    # one error line, no warning of a started evaluation (example names its files on stderr first)
    assert [line for line in captured.err.splitlines() if not line.startswith("# ")] == [
        line for line in captured.err.splitlines() if line.startswith("cranfield: error: cannot write")]


def test_truncation_reads_runs_like_eval(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The shared options reach optimal_truncation: prefixed topic ids, duplicate lines."""
    with gzip.open(ROBUST / "input.humR03dc.gz", "rt") as f:
        text = f.read()
    prefixed = tmp_path / "prefixed.run"
    prefixed.write_text("".join(f"rb-{line}\n" for line in text.splitlines()))
    base = ["truncation", QRELS, "-m", "RBU", "--full", "AP", "--format", "json"]
    assert quiet_main([*base, str(ROBUST / "input.humR03dc.gz")]) == 0
    plain = capsys.readouterr().out
    assert quiet_main([*base, str(prefixed)]) == 2
    capsys.readouterr()
    assert quiet_main([*base, str(prefixed), "--strip-topic-prefix"]) == 0
    assert capsys.readouterr().out.replace("prefixed", "humR03dc") == plain.replace("input.humR03dc.gz", "humR03dc")
    doubled = tmp_path / "doubled.run"
    first = text.splitlines()[0]
    doubled.write_text(text + first + "\n")
    assert quiet_main([*base, str(doubled)]) == 2
    assert "--on-duplicate first" in capsys.readouterr().err
    assert quiet_main([*base, str(doubled), "--on-duplicate", "first"]) == 0
