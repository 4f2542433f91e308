"""Quiet by default (docs/conventions.md#qrels-kind): the diversity reading said once per file,
one warning for an intent file's renormalised topics, argparse's hint naming the real command,
the ``#`` line keeping the measure parameters as written."""

from __future__ import annotations

import os
import warnings

import pytest

from cranfield import EvaluationWarning
from cranfield.cli.main import main
from cranfield.evaluation.collection import Collection
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import qrels_from_dict, read_intents, read_qrels
from cranfield.io.examples import example_files


def _messages(record: list[warnings.WarningMessage], text: str) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, EvaluationWarning) and text in str(w.message)]


def test_diversity_reading_is_said_once_per_file(write) -> None:
    path = write("div.qrels", "1 1 a 1\n1 2 b 1\n")
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        for _ in range(3):
            assert read_qrels(path).diversity
    assert len(_messages(record, "read as diversity qrels")) == 1
    path.write_text("1 1 a 1\n1 2 b 1\n1 3 c 0\n")  # another file at the same path: said again
    os.utime(path, ns=(1, 1))
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        assert read_qrels(path).diversity
        assert not read_qrels(path, diversity=False, on_duplicate="max").diversity  # asked: nothing to say
    assert len(_messages(record, "read as diversity qrels")) == 1


def test_adhoc_reading_says_nothing(write) -> None:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        read_qrels(write("adhoc.qrels", "1 0 a 1\n2 0 b 1\n"))
    assert not _messages(record, "")


def test_renormalised_intent_file_is_one_warning(write) -> None:
    qrels = qrels_from_dict({q: {"a": {"x": 1}, "b": {"y": 1}} for q in ("1", "2", "3")})
    text = "".join(f"{q} a 0.333333\n{q} b 0.666666\n" for q in ("1", "2", "3"))  # 6-decimal rounding
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        coll = Collection.from_qrels(qrels, intents=read_intents(write("i.txt", text)))
    (message,) = _messages(record, "renormalised")
    assert "of 3 topics do not sum to 1" in message and "1 (0.999999), 2 (0.999999), 3 (0.999999)" in message
    assert coll.weights[:, :2].sum(axis=1) == pytest.approx([1, 1, 1])


@pytest.mark.parametrize("argv, command", [(["eval"], "eval"), (["compare", "x"], "compare"),
                                           (["--plugin", "p.py", "eval", "--nope"], "eval")])
def test_usage_errors_name_the_command(argv, command, capsys) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err.strip()
    assert exit_.value.code == 2 and err.count("\n") == 0
    assert err.startswith("cranfield: error: ") and err.endswith(f"(see `cranfield {command} --help`)")


def test_provenance_keeps_the_parameters_as_written() -> None:
    files = example_files()
    results = Evaluator(files["qrels"], ["RBP(p=0.8)", "nDCG(gains=exp)@10", "NDCG@10", "AP"]).evaluate(files["runs"])
    assert results.provenance["measures"] == ["RBP(p=0.8)", "nDCG(gains=exp)@10", "NDCG@10", "AP"]
    labelled = Evaluator(files["qrels"], ["RBP(p=0.9)"], names=["patience"]).evaluate(files["runs"][:1])
    assert labelled.provenance["measures"] == ["RBP(p=0.9)"]  # a label is no name: the measure's own


def test_provenance_line_of_eval(capsys) -> None:
    files = example_files()
    assert main(["eval", files["qrels"], files["runs"][0], "-m", "RBP(p=0.8)", "-m", "P@10"]) in (0, None)
    first = capsys.readouterr().out.splitlines()[0]
    assert " measures=RBP(p=0.8),P@10 " in first
