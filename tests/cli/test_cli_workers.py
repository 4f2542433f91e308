"""``--workers 2`` on every command that takes it: a real local Dask cluster of two worker
processes prints exactly what one process prints (docs/scaling.md)."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the Dask backend needs dask.distributed (pip install 'cranfield[dask]')")

from conftest import DATA  # noqa: E402
from cranfield.cli.main import main  # noqa: E402

ROBUST = DATA / "robust03"
QRELS = str(ROBUST / "qrels.txt.gz")
RUNS = [str(p) for p in sorted(ROBUST.glob("input.*.gz"))]

COMMANDS = {
    "eval": ["eval", QRELS, *RUNS, "-m", "AP,P@10,nDCG@10", "-q"],
    "eval --baseline": ["eval", QRELS, *RUNS, "-m", "AP", "--baseline", RUNS[0], "--format", "csv"],
    "compare": ["compare", QRELS, *RUNS, "-m", "AP", "--test", "bootstrap", "--B", "300"],
    "discpower": ["discpower", QRELS, *RUNS, "-m", "AP,P@10", "--B", "300"],
    "coverage": ["coverage", QRELS, *RUNS, "-m", "AP", "--reference", "P@10", "--reference", "RR", "--pairs", "100"],
    "axioms": ["axioms", "-m", "RR", "-m", "alpha-nDCG@5", "--depth", "5"],
}


def output_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("command", list(COMMANDS))
def test_two_workers_print_what_one_process_prints(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    alone = output_of(COMMANDS[command], capsys)
    assert alone.strip()
    assert output_of([*COMMANDS[command], "--workers", "2"], capsys) == alone


def test_report_on_two_workers_is_the_same_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["report", QRELS, *RUNS, "-m", "AP,P@10", "--baseline", RUNS[1]]
    one, two = tmp_path / "one.md", tmp_path / "two.md"
    output_of([*argv, "-o", str(one)], capsys)
    output_of([*argv, "-o", str(two), "--workers", "2"], capsys)
    assert one.read_text(encoding="utf-8").strip() and one.read_bytes() == two.read_bytes()
