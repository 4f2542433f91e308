"""``--workers 2`` on stochastic runs: a local Dask cluster of two worker processes prints
exactly what one process prints (docs/fairness.md, docs/scaling.md)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("distributed", reason="the Dask backend needs dask.distributed (pip install 'cranfield[dask]')")

from conftest import DATA  # noqa: E402
from cranfield.cli.main import main  # noqa: E402

FAIR = DATA / "fairness"


def test_two_workers_print_what_one_process_prints(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", str(FAIR / "case03.qrels"), str(FAIR / "case03.run"), str(FAIR / "case05.run"), "--stochastic",
            "--order", "rank", "--groups", str(FAIR / "case03.groups"), "-m",
            "EE-L,EE-D,EE-R(level=group),AWRF,nDCG*AWRF,nDCG@10", "--per-group", "--format", "csv"]
    outputs = []
    for extra in ([], ["--workers", "2"]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert main(argv + extra) == 0
        outputs.append(capsys.readouterr().out)
    assert outputs[0].count("\n") > 20 and outputs[0] == outputs[1]
