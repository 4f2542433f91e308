"""The ``--help`` examples of ``eval -R qrels_jg``, ``judges --jg`` and ``judges --fill`` run as
written, on stand-in files: a qrels_jg file of five groups (one named ``nist``) and its runs; a
reference, a judge and a run of theirs."""

from __future__ import annotations

import glob
import shlex
import shutil
import warnings

import pytest

from conftest import DATA
from cranfield.cli.evaluate import EVAL_EPILOG
from cranfield.cli.judges import EPILOG as JUDGES_EPILOG

JG = DATA / "qrels_jg"
FILES = {"assessors.qrels_jg": JG / "groups.qrels_jg", "run1.txt": JG / "groups.run0", "run2.txt": JG / "groups.run1",
         "runs/a.gz": JG / "groups.run0", "runs/b.gz": JG / "groups.run1"}  # plain text named .gz: read as it is
EXAMPLES = [line.strip() for line in (EVAL_EPILOG + JUDGES_EPILOG).splitlines()
            if line.startswith("  cranfield ") and ("qrels_jg" in line or "filled.qrels" in line)]
FILL = next(e for e in EXAMPLES if "--fill" in e)


def run(example: str) -> int:
    from cranfield.cli.main import main

    argv = [x for token in shlex.split(example)[1:] for x in (sorted(glob.glob(token)) if "*" in token else [token])]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(argv)


def test_the_examples_are_found():
    assert len(EXAMPLES) == 5


@pytest.mark.parametrize("example", EXAMPLES)
def test_help_example_runs(example, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    for name, source in FILES.items():
        shutil.copy(source, tmp_path / name)
    shutil.copy(JG / ("groups.run0" if "qrels_jg" in example else "groups.run1"), tmp_path / "run.txt")
    if "--jg" in example:  # two groups judging two topics in common (a paired test needs two)
        lines = (JG / "groups.qrels_jg").read_text().splitlines()
        (tmp_path / "assessors.qrels_jg").write_text("".join(line + "\n" for line in lines
                                                             if line.split()[1] in ("nist", "01")))
    if "qrels_jg" not in example:
        (tmp_path / "qrels.txt").write_text("101 0 D001 2\n101 0 D002 0\n102 0 D001 1\n")
        (tmp_path / "llm.qrels").write_text("101 0 D001 1\n101 0 D003 1\n102 0 D004 0\n")
        assert example == FILL or run(FILL) == 0  # eval reads what --fill wrote
    assert run(example) == 0
    assert capsys.readouterr().out
