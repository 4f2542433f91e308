"""Issue #30: bad input on a local Dask cluster (``--workers N``) is the one error line it is in
one process: the workers, which share the command's standard error, log no ``Compute Failed``
with a traceback before it."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("distributed", reason="the Dask backend needs dask.distributed (pip install 'cranfield[dask]')")

from conftest import DATA  # noqa: E402
from cranfield._parallel import drop_task_failure  # noqa: E402

ROBUST = DATA / "robust03"
QRELS = str(ROBUST / "qrels.txt.gz")
RUN = str(ROBUST / "input.humR03dc.gz")
SRC = str(Path(__file__).resolve().parents[2] / "src")


def cranfield(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    return subprocess.run([sys.executable, "-m", "cranfield.cli.main", *argv], capture_output=True, text=True,
                          env=env, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("command", [["eval", "-m", "AP"], ["compare", "-m", "AP", "--test", "t"]])
def test_bad_run_on_two_workers_is_one_line(command: list[str], tmp_path: Path) -> None:
    (tmp_path / "bad.run").write_text("301 Q0 d1 1 x r\n")
    argv = [command[0], QRELS, RUN, str(tmp_path / "bad.run"), *command[1:]]
    alone = cranfield(*argv)
    assert alone.returncode == 2 and alone.stderr.endswith("score 'x' in column 5 is not a number\n"), alone.stderr
    on_cluster = cranfield(*argv, "--workers", "2")
    assert on_cluster.returncode == 2
    assert on_cluster.stderr.splitlines()[-1:] == alone.stderr.splitlines()[-1:]
    assert [line for line in on_cluster.stderr.splitlines() if not line.startswith("cranfield: warning:")] == [
        line for line in alone.stderr.splitlines() if not line.startswith("cranfield: warning:")]


def test_only_failed_tasks_and_shutdown_heartbeats_are_kept_out_of_the_workers_log() -> None:
    def record(msg: str) -> logging.LogRecord:
        return logging.LogRecord("distributed.worker", logging.ERROR, __file__, 1, msg, None, None)

    assert not drop_task_failure(record("Compute Failed\nKey:       %s\n"))
    # a worker's heartbeat after the local cluster's scheduler stopped (seen in CI on a loaded machine)
    assert not drop_task_failure(record("Failed to communicate with scheduler during heartbeat."))
    assert drop_task_failure(record("Worker stream died during communication"))
