"""Memory of Evaluator.evaluate does not grow with the number of runs: each run is read,
scored and dropped; only its scores are kept (issue: 0.46 GB for 20 files of 500 k lines when
every parsed run was kept to the end)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

TOPICS, DOCS, RUNS = 200, 500, 8  # one parsed run (~3 MB) well above the allocator's noise (~2 MB)


def write_collection(tmp_path):
    rng = np.random.default_rng(0)
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 doc{t}-{d} {int(rng.integers(0, 3))}\n"
                             for t in range(TOPICS) for d in range(0, 2 * DOCS, 7)))
    runs = []
    for s in range(RUNS):
        path = tmp_path / f"run{s}.txt"
        lines = []
        for t in range(TOPICS):
            docs = rng.permutation(2 * DOCS)[:DOCS]
            lines.extend(f"{t} Q0 doc{t}-{d} {r + 1} {DOCS - r} tag{s}\n" for r, d in enumerate(docs))
        path.write_text("".join(lines))
        runs.append(path)
    return qrels, runs


MEASURE = """
import json, sys, tracemalloc, warnings
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import read_run

def traced(fn):
    tracemalloc.start()
    try:
        out = fn()
        current, peak = tracemalloc.get_traced_memory()
        return out, peak, current
    finally:
        tracemalloc.stop()

qrels, runs = sys.argv[1], sys.argv[2:]
warnings.simplefilter("ignore")
evaluator = Evaluator(qrels, ["P@10", "AP", "nDCG@10"])
evaluator.evaluate(runs[:1])  # first-call costs (imports, caches) out of the comparison
_, _, one_run = traced(lambda: read_run(runs[0]))  # what keeping one parsed run costs
one, _, _ = traced(lambda: evaluator.evaluate(runs[:1]))
half, peak_half, _ = traced(lambda: evaluator.evaluate(runs[: len(runs) // 2]))
every, peak_all, _ = traced(lambda: evaluator.evaluate(runs))
print(json.dumps({"one_run": one_run, "peak_half": peak_half, "peak_all": peak_all,
                  "shape": every.values.shape, "same": bool((every.values[:1] == one.values).all())}))
"""


def test_peak_memory_does_not_grow_with_the_number_of_runs(tmp_path):
    """Measured in a fresh process: tracemalloc counts every thread's allocations, and threads
    left by other tests (a Dask client's event loop) would blur the peaks."""
    qrels, runs = write_collection(tmp_path)
    out = subprocess.run([sys.executable, "-c", MEASURE, str(qrels), *map(str, runs)], capture_output=True,
                         text=True, check=True)
    m = json.loads(out.stdout)
    assert m["shape"] == [RUNS, 3, TOPICS] and m["same"]
    # keeping the 4 further parsed runs would add ~4 × one_run; their scores take a few KB. Both
    # evaluations tokenise the next two files on threads while they score one (scheduling.py), a
    # constant cost whose peak varies with the threads' timing by about one_run (one run alone is
    # read by this thread)
    assert m["peak_all"] - m["peak_half"] < 2 * m["one_run"], m
