"""``--dask ADDRESS`` / ``--workers N`` (cli/options.py): checked before any work, one error
line for a bad value, a missing dask or an unreachable scheduler; a local cluster is stopped
at exit."""

from __future__ import annotations

import argparse
import socket
import sys

import pytest

from cranfield.cli.options import add_cluster_options, check_cluster_options, cluster_from
from cranfield.errors import CranfieldError

pytest.importorskip("distributed", reason="the Dask backend needs dask.distributed (pip install 'cranfield[dask]')")


def parsed(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="cranfield")
    add_cluster_options(p)
    return p.parse_args(list(argv))


@pytest.mark.parametrize(("argv", "message"), [
    (["--workers", "0"], "The number of workers (--workers) must be an integer >= 1. Got '0' instead."),
    (["--workers", "two"], "The number of workers (--workers) must be an integer >= 1. Got 'two' instead."),
    (["--dask", "http://host:8786"], "The Dask scheduler address (--dask) must be an address such as "
                                     "tcp://host:8786 or host:8786. Got 'http://host:8786' instead."),
    (["--dask", "tcp://host:70000"], "Got 'tcp://host:70000' instead."),
    (["--dask", "tcp://two words:1"], "Got 'tcp://two words:1' instead."),
])
def test_bad_values_are_one_error_before_any_work(argv, message):
    with pytest.raises(CranfieldError) as err:
        check_cluster_options(parsed(*argv))
    assert message in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("argv", [["--dask", "tcp://10.0.0.1:8786"], ["--dask", "localhost:8786"],
                                  ["--dask", "tls://[::1]:8786"], ["--workers", "3"], []])
def test_good_values_pass(argv):
    args = parsed(*argv)
    check_cluster_options(args)
    assert args.workers in (None, 3)


def test_the_options_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as stop:
        parsed("--dask", "tcp://h:1", "--workers", "2")
    assert stop.value.code == 2 and "not allowed with" in capsys.readouterr().err


def test_without_dask_the_options_say_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # dask.distributed cannot be imported
    with pytest.raises(CranfieldError, match=r"pip install 'cranfield\[dask\]'"):
        check_cluster_options(parsed("--workers", "2"))
    check_cluster_options(parsed())  # no cluster asked for: nothing needed


def test_an_unreachable_scheduler_is_one_error_line():
    with socket.socket() as s:  # a port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(CranfieldError, match=rf"cannot reach the Dask scheduler at tcp://127.0.0.1:{port} within 2 s"):
        with cluster_from(parsed("--dask", f"tcp://127.0.0.1:{port}"), timeout=2):
            pass


def test_no_option_runs_here_and_workers_start_a_local_cluster_stopped_at_exit():
    with cluster_from(parsed()) as client:
        assert client is None
    with cluster_from(parsed("--workers", "2")) as client:
        assert len(client.scheduler_info()["workers"]) == 2
        assert client.submit(sum, [1, 2], pure=False).result() == 3
        cluster = client.cluster
    assert client.status == "closed" and cluster.status.name == "closed"
