"""The Dask backend's cost model (docs/scaling.md): the same evaluation and the same bootstrap test
in one process, on a LocalCluster of 1 worker process and of 2, with the results checked equal
bit for bit.

Printed: seconds per setting (cluster start-up excluded, best of ``--repeat``), run lines per
second per worker, each worker's peak resident memory, and the bytes a run's task sends back
(its pickled scores) against S×M×T×8 for the score array alone.

    python benchmarks/bench_dask.py                      # 20 runs × 100 topics × 1,000 docs (2 M lines)
    python benchmarks/bench_dask.py --runs 8 --topics 50 # quicker
"""

from __future__ import annotations

import argparse
import os
import pickle
import resource
import time
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from _gen import make_collection
from cranfield.evaluation.evaluator import Evaluator, RunScores
from cranfield.meta import bootstrap_test

MEASURES = ["P@10", "AP", "nDCG@10", "RR"]


def peak_rss_mb() -> float:
    """This process's peak resident set size in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cpu_seconds() -> float:
    """User + system CPU time of this process and its threads."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(fn: Any, repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--topics", type=int, default=100)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--resamples", type=int, default=10_000, help="B of the bootstrap test (100 systems × 50 topics)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    from dask.distributed import Client, LocalCluster

    work = Path(__file__).parent / "_work" / f"dask_{args.runs}x{args.topics}x{args.docs}"
    qrels, runs = make_collection(work, topics=args.topics, runs=args.runs, docs=args.docs, judged=300)
    lines = args.runs * args.topics * args.docs
    warnings.simplefilter("ignore")
    evaluator = Evaluator(qrels, MEASURES)
    rng = np.random.default_rng(0)
    scores = np.round(rng.beta(2, 5, (50, 1)) + np.sort(rng.normal(0, 0.05, (1, 100)))
                      + rng.normal(0, 0.08, (50, 100)), 4)

    print(f"# {args.runs} runs × {args.topics} topics × {args.docs} docs = {lines:,} run lines; measures "
          f"{', '.join(MEASURES)}; bootstrap B={args.resamples:,} over 100 systems × 50 topics (4,950 pairs)")
    before = cpu_seconds()
    local_eval, expected = timed(lambda: evaluator.evaluate([str(p) for p in runs]), args.repeat)
    cpu = {"in process": (cpu_seconds() - before) / args.repeat}
    local_boot, boot = timed(lambda: bootstrap_test(scores, n_resamples=args.resamples, rng=1), args.repeat)
    rows = [("in process", local_eval, local_boot, peak_rss_mb(), "")]
    for workers in (1, 2):
        with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            evaluator.evaluate([str(runs[0])] * workers, client=client)  # imports on the workers: not timed
            bootstrap_test(scores, n_resamples=500, rng=1, client=client)
            before_workers = sum(client.run(cpu_seconds).values())
            seconds, got = timed(lambda: evaluator.evaluate([str(p) for p in runs], client=client), args.repeat)
            cpu[f"{workers}"] = (sum(client.run(cpu_seconds).values()) - before_workers) / args.repeat
            assert np.array_equal(got.values, expected.values, equal_nan=True), "evaluation differs"
            boot_s, b = timed(lambda: bootstrap_test(scores, n_resamples=args.resamples, rng=1, client=client),
                              args.repeat)
            assert np.array_equal(b.pvalue, boot.pvalue) and np.array_equal(b.delta, boot.delta, equal_nan=True)
            memory = client.run(peak_rss_mb)
            rows.append((f"{workers} worker{'s' * (workers > 1)}", seconds, boot_s, max(memory.values()), "yes"))

    one = evaluator.score_run(evaluator.prepare(__import__("cranfield").io.read_run(runs[0])))
    sent = len(pickle.dumps(RunScores(one.values, None, None, None), protocol=5))
    print("| setting     | eval s | eval CPU s | run lines per CPU s | bootstrap s | peak RSS per process MB | same |")
    print("|-------------|--------|------------|---------------------|-------------|-------------------------|------|")
    for name, seconds, boot_s, memory, same in rows:
        used = cpu["in process" if name == "in process" else name[0]]
        print(f"| {name:<11} | {seconds:6.2f} | {used:10.2f} | {lines / used:19,.0f} | {boot_s:11.2f} | {memory:23.0f} "
              f"| {same:<4} |")
    print(f"# speed-up 1 -> 2 workers: evaluation {rows[1][1] / rows[2][1]:.2f}x, "
          f"bootstrap {rows[1][2] / rows[2][2]:.2f}x")
    print(f"# load average while measured: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    print(f"# bytes sent back per run: {sent:,} (pickled scores; the array alone is M×T×8 = "
          f"{len(MEASURES) * args.topics * 8:,})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
