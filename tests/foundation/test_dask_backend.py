"""The Dask backend on a real ``dask.distributed.LocalCluster`` of worker processes: evaluation
and the resampling tests give bit for bit the numbers of one process, whatever the number of
workers, and a worker killed mid-job is replaced and its task rerun with the same result
(docs/scaling.md)."""

from __future__ import annotations

import os
import signal
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("distributed", reason="the Dask backend needs dask.distributed "
                                                        "(pip install 'cranfield[dask]')")

import cloudpickle  # noqa: E402  (a dependency of dask)
from distributed import Client, LocalCluster, WorkerPlugin  # noqa: E402

import cranfield  # noqa: E402
from conftest import DATA  # noqa: E402
from cranfield.evaluation.evaluator import Evaluator  # noqa: E402
from cranfield.io import read_run  # noqa: E402
from cranfield.meta import (  # noqa: E402
    bootstrap_test,
    discriminative_power,
    quality_aspect_coverage,
    randomization_test,
    tukey_hsd,
)

cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import this test module

BUNDLED = Path(cranfield.__file__).parent / "data"
ROBUST = DATA / "robust03"
ROBUST_RUNS = sorted(ROBUST.glob("input.*.gz"))
WEB_RUNS = [BUNDLED / "web2012.ql.run.gz", BUNDLED / "web2012.rm.run.gz"]


def start(workers: int) -> tuple[LocalCluster, Client]:
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0")
    return cluster, Client(cluster)


def running(workers: int):
    """A client of a local cluster of ``workers`` processes, closed with its cluster afterwards."""
    cluster, client = start(workers)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def two():
    yield from running(2)


@pytest.fixture(scope="module")
def one():
    yield from running(1)


def same(a: np.ndarray | None, b: np.ndarray | None) -> bool:
    """Equal bit for bit: same dtype, shape, values and NaN positions."""
    if a is None or b is None:
        return a is None and b is None
    return a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


def evaluated(evaluator: Evaluator, runs, **kw):
    """The Results and the warnings (category, text) raised while evaluating."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        results = evaluator.evaluate(runs, **kw)
    return results, [(w.category, str(w.message)) for w in caught]


def assert_same_results(a, b):
    assert a.runs == b.runs and a.topics == b.topics and a.measures == b.measures
    for field in ("values", "intent_values", "iteration_values", "unscored"):
        assert same(getattr(a, field), getattr(b, field)), field
    assert same(a.summary(), b.summary())


# --------------------------------------------------------------------------- evaluation
@pytest.mark.parametrize("missing", ["auto", "skip"])
def test_robust03_runs_evaluate_as_in_one_process(two, missing):
    evaluator = Evaluator(ROBUST / "qrels.txt.gz", ["P@10", "AP", "nDCG@10", "RR", "R-Prec", "bpref"],
                          missing=missing)
    local, local_warnings = evaluated(evaluator, ROBUST_RUNS)
    remote, remote_warnings = evaluated(evaluator, ROBUST_RUNS, client=two)
    assert_same_results(local, remote)
    assert remote_warnings == local_warnings  # the runs' warnings, repeated in run order


def test_bundled_diversity_runs_with_intents_evaluate_as_in_one_process(two):
    evaluator = Evaluator(BUNDLED / "web2012.diversity.qrels.gz", ["alpha-nDCG@20", "ERR-IA@20", "P@10", "NRBP"])
    local, _ = evaluated(evaluator, WEB_RUNS, per_intent=True)
    remote, _ = evaluated(evaluator, WEB_RUNS, per_intent=True, client=two)
    assert local.intent_values is not None
    assert_same_results(local, remote)


@pytest.mark.slow
def test_in_memory_runs_are_sent_as_they_are(two):
    """A parsed Run and a dict travel to the workers with the paths; names follow the same rules."""
    qrels = BUNDLED / "web2012.adhoc.qrels.gz"
    run = read_run(WEB_RUNS[1])
    as_dict = {q: {d: float(len(run.ranking(q)) - k) for k, d in enumerate(run.ranking(q))}
               for q in run.topic_ids[:20]}
    runs = [WEB_RUNS[0], run, as_dict]
    evaluator = Evaluator(qrels, ["AP", "nDCG@10"])
    local, _ = evaluated(evaluator, runs, score_dtype="float64")
    remote, _ = evaluated(evaluator, runs, score_dtype="float64", client=two)
    assert_same_results(local, remote)
    frame = cranfield.evaluate(qrels, WEB_RUNS, ["AP", "P@10"], client=two)
    assert frame.equals(cranfield.evaluate(qrels, WEB_RUNS, ["AP", "P@10"]))


def test_an_error_on_a_worker_is_the_same_error(two):
    evaluator = Evaluator(BUNDLED / "web2012.adhoc.qrels.gz", ["AP"])
    with pytest.raises(cranfield.CranfieldError, match="no topic of the run has judgments"):
        evaluator.evaluate([ROBUST_RUNS[0]], client=two)


# --------------------------------------------------------------------------- resampling
def scores(topics: int = 30, systems: int = 8, seed: int = 5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.random((topics, systems)) + np.linspace(0, 0.3, systems)
    x[:, 1] = x[:, 0]  # identical systems: constant differences and degenerate resamples
    return np.round(x, 2)


@pytest.mark.parametrize("workers", ["one", "two"])
def test_resampling_tests_equal_one_process(request, workers):
    client = request.getfixturevalue(workers)
    x = scores()
    for test, kw in [(bootstrap_test, {"n_resamples": 1000, "keep_null": True}),
                     (randomization_test, {"n_resamples": 1200, "keep_null": True}),
                     (tukey_hsd, {"n_resamples": 800})]:
        local, remote = test(x, rng=11, **kw), test(x, rng=11, client=client, **kw)
        for field in ("pvalue", "statistic", "null_distribution", "delta"):
            assert same(getattr(local, field), getattr(remote, field)), (test.__name__, field)


@pytest.mark.parametrize("workers", ["one", "two"])
def test_discriminative_power_equals_one_process(request, workers):
    client = request.getfixturevalue(workers)
    x = scores(systems=10)
    for test in ("bootstrap", "tukey-randomised", "randomization"):
        local = discriminative_power(x, test=test, n_resamples=600, rng=3)
        remote = discriminative_power(x, test=test, n_resamples=600, rng=3, client=client)
        assert (local.n_significant, same(local.asl, remote.asl)) == (remote.n_significant, True), test
        assert same(np.array(local.delta), np.array(remote.delta)), test


def test_uir_and_coverage_equal_one_process(two):
    x = scores()
    data = {"A": x, "B": np.round(x[::-1] * 0.9, 2), "C": np.round(np.sqrt(x), 2)}
    local = quality_aspect_coverage(data, ["A", "B"], ["C"], n_pairs=3000, rng=2)
    remote = quality_aspect_coverage(data, ["A", "B"], ["C"], n_pairs=3000, rng=2, client=two)
    assert same(local.coverage, remote.coverage) and same(local.uir.uir, remote.uir.uir)


# --------------------------------------------------------------------------- a worker dies
class KillOnce(WorkerPlugin):
    """Kill the worker process (SIGKILL, as the OOM killer would) when it starts the first task
    whose name begins with ``prefix``; the marker file makes it happen once in the cluster."""

    name = "kill-once"

    def __init__(self, prefix: str, marker: str) -> None:
        self.prefix, self.marker = prefix, marker

    def setup(self, worker) -> None:
        self.worker = worker

    def transition(self, key, start, finish, **kwargs) -> None:
        name = key if isinstance(key, str) else str(key[0]) if isinstance(key, tuple) else str(key)
        if finish == "executing" and name.startswith(self.prefix):
            try:
                fd = os.open(self.marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            except FileExistsError:
                return
            os.close(fd)
            os.kill(os.getpid(), signal.SIGKILL)


@pytest.mark.parametrize("prefix", ["_score_task", "_bootstrap_resamples"])
def test_a_worker_killed_mid_job_is_replaced_and_the_result_is_exact(two, tmp_path, prefix):
    marker = tmp_path / "killed"
    evaluator = Evaluator(ROBUST / "qrels.txt.gz", ["P@10", "AP", "nDCG@10"])
    x = scores(systems=12)
    expected = evaluator.evaluate(ROBUST_RUNS) if prefix == "_score_task" else bootstrap_test(x, rng=4)
    two.register_plugin(KillOnce(prefix, str(marker)))
    try:
        if prefix == "_score_task":
            got = evaluator.evaluate(ROBUST_RUNS, client=two)
            assert_same_results(expected, got)
        else:
            got = bootstrap_test(x, rng=4, client=two)
            assert same(expected.pvalue, got.pvalue) and same(expected.delta, got.delta)
    finally:
        two.unregister_worker_plugin(KillOnce.name)
    assert marker.exists()  # a worker did die during the job
    two.wait_for_workers(2, timeout=60)  # and the nanny started a new one
