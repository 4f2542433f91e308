"""Optimal-truncation benchmark: cranfield's one-pass prefix scoring vs re-evaluating every prefix.

For 50 runs × 200 topics × 1,000 documents (the ad hoc benchmark's data, generated seeded into
``benchmarks/_work/``) and every truncation measure, finds each run × topic's optimal length.
cranfield scores all 1,001 prefixes of every ranking at once from cumulative sums; the naive
way scores each prefix length separately (here: cranfield's own kernel on the ranking cut at
n', for n' = 0..n). The naive loop is timed on a sample of run × topic pairs and extrapolated
to the whole set (it would take hours); the two must find the same optima on the sample.

    python benchmarks/bench_truncation.py            # 50 runs × 200 topics × 1000 docs
    python benchmarks/bench_truncation.py --sample 4
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cranfield  # noqa: E402
from _gen import make_collection  # noqa: E402
from cranfield import Batch, parse_measure  # noqa: E402
from cranfield.analysis.truncation import optimal_truncation  # noqa: E402

MEASURES = ["FlatUtility", "RBU(p=0.8)", "RBU(p=0.98)", "DCGU", "ERRU", "RBPU(p=0.8)", "RBPU(p=0.98)",
            "NDCGT", "ERRT", "RBPT(p=0.8)", "RBPT(p=0.98)", "RRT", "OIE", "F"]


def naive(coll, run, topic: int, measure) -> tuple[int, float]:
    """Score every prefix of one ranking separately; the first best length."""
    batch = coll.batch([run], topics=slice(topic, topic + 1))
    scores = [measure(Batch.from_labels(batch.labels, batch.topics, length=np.array([[k]]), judged=batch.judged))[0, 0]
              for k in range(int(batch.length[0, 0]) + 1)]
    scores = np.array(scores)
    top = scores.max()
    return int(np.flatnonzero(scores >= top - 1e-12 * max(1.0, abs(top)))[0]), float(top)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--topics", type=int, default=200)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--sample", type=int, default=6, help="run × topic pairs timed with the naive loop")
    a = p.parse_args()
    qrels, runs = make_collection(HERE / "_work" / f"adhoc_r{a.runs}_t{a.topics}_d{a.docs}_j300_s0",
                                  topics=a.topics, runs=a.runs, docs=a.docs, judged=300)
    warnings.simplefilter("ignore")
    print(f"cranfield {cranfield.__version__}; {a.runs} runs × {a.topics} topics × {a.docs} docs; "
          f"{len(MEASURES)} truncation measures")
    t0 = time.perf_counter()
    result = optimal_truncation(str(qrels), [str(r) for r in runs], MEASURES, full_measures=["AP"])
    fast = time.perf_counter() - t0

    evaluator = cranfield.Evaluator(str(qrels), ["AP"])
    coll = evaluator.collection
    rng = np.random.default_rng(0)
    pairs = [(int(rng.integers(a.runs)), int(rng.integers(coll.n_topics))) for _ in range(a.sample)]
    loaded = {s: cranfield.read_run(runs[s]) for s, _ in pairs}
    parsed = [parse_measure(m) for m in MEASURES]
    t0 = time.perf_counter()
    for s, t in pairs:
        for m, measure in enumerate(parsed):
            length, value = naive(coll, loaded[s], t, measure)
            assert length == result.length[s, m, t], (MEASURES[m], s, t)
            assert abs(value - result.value[s, m, t]) <= 1e-9 * max(1.0, abs(value))
    per_pair = (time.perf_counter() - t0) / len(pairs)
    slow = per_pair * a.runs * coll.n_topics
    print(f"\n{'method':<44}{'seconds':>12}{'ratio':>10}")
    print("-" * 66)
    print(f"{'cranfield optimal_truncation (all prefixes)':<44}{fast:>12.2f}{1.0:>9.1f}x")
    print(f"{'re-evaluate every prefix (extrapolated)':<44}{slow:>12.0f}{slow / fast:>9.0f}x")
    print(f"(naive loop timed on {len(pairs)} run × topic pairs, {per_pair:.2f} s each, "
          f"× {a.runs * coll.n_topics} pairs; "
          "same optimal lengths and values on the sample)")


if __name__ == "__main__":
    main()
