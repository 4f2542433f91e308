"""Ranking-similarity benchmark: cranfield's RBO over every pair of runs vs the ``rbo`` package.

For R runs × T topics × D documents (default 100 × 250 × 1,000: 4,950 pairs of runs, 1.24 million
pairs of rankings), cranfield computes RBO_ext (p = 0.9) of every pair of runs on every topic at once
(:func:`cranfield.analysis.similarity.compare_rankings`, the four RBO values come together). The
``rbo`` package (PyPI, ``RankingSimilarity(a, b).rbo_ext(p)``) computes one pair of rankings per call in
Python: it is timed on a random sample of (pair, topic) cases and extrapolated linearly to all of
them (it would take hours); the two must agree on the sample. Times are CPU times of this process
(both sides run on one thread), so a busy machine does not distort the ratio. The rankings are synthetic, seeded:
each run ranks D of a topic's 3·D candidate documents by a shared relevance plus its own noise, so
pairs of runs overlap partly; scores are distinct (no ties, where RBO^a = RBO^w = the rbo package's).

    pip install --no-deps rbo   # rbo 0.1.3 pins numpy<2 in its metadata but runs on numpy 2
    python benchmarks/bench_similarity.py
    python benchmarks/bench_similarity.py --runs 20 --topics 50 --sample 200
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
from cranfield.analysis.similarity import compare_rankings  # noqa: E402
from cranfield.io import Run  # noqa: E402


def make_runs(runs: int, topics: int, docs: int, seed: int = 0) -> list[Run]:
    """``runs`` Runs of ``topics`` rankings of ``docs`` documents each (see the module docstring)."""
    rng = np.random.default_rng(seed)
    pool = 3 * docs
    relevance = rng.gamma(0.5, size=(topics, pool))
    topic_ids = tuple(str(t + 1) for t in range(topics))
    offsets = np.arange(topics + 1, dtype=np.int64) * docs
    out = []
    for r in range(runs):
        noisy = relevance + rng.gamma(0.5, size=(topics, pool))
        ranked = np.argsort(-noisy, axis=1, kind="stable")[:, :docs]
        docno = ranked.ravel().astype("S6")
        score = np.tile(np.arange(docs, 0, -1, dtype=np.float64), topics)
        out.append(Run(f"run{r}", "<synthetic>", topic_ids, offsets, docno, score))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=100)
    p.add_argument("--topics", type=int, default=250)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--sample", type=int, default=100, help="(pair, topic) cases timed with the rbo package")
    a = p.parse_args()
    import rbo  # the peer: pip install --no-deps rbo

    runs = make_runs(a.runs, a.topics, a.docs)
    pairs = a.runs * (a.runs - 1) // 2
    cases = pairs * a.topics
    print(f"cranfield {cranfield.__version__}; {a.runs} runs ({pairs:,} pairs) × {a.topics} topics × "
          f"{a.docs} documents: {cases:,} RBO values")
    w0, t0 = time.perf_counter(), time.process_time()
    result = compare_rankings(runs, ["RBO(p=0.9)"])
    fast, fast_wall = time.process_time() - t0, time.perf_counter() - w0

    rng = np.random.default_rng(1)
    pick = rng.choice(cases, size=min(a.sample, cases), replace=False)
    lists = [[r.docno[r.offsets[t]:r.offsets[t + 1]].tolist() for t in range(a.topics)] for r in runs]
    ia, ib = np.triu_indices(a.runs, 1)
    worst = 0.0
    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        values = [rbo.RankingSimilarity(lists[ia[c // a.topics]][c % a.topics],
                                        lists[ib[c // a.topics]][c % a.topics]).rbo_ext(p=0.9) for c in pick]
    slow = (time.process_time() - t0) / pick.size * cases
    for c, v in zip(pick, values):
        worst = max(worst, abs(float(result.values[c // a.topics, 0, c % a.topics]) - v))
    print(f"cranfield compare_rankings  {fast:9.1f} s   (all {cases:,}; {fast_wall:.1f} s elapsed)")
    print(f"rbo package (extrapolated)  {slow:9.1f} s   ({pick.size} timed, × {cases / pick.size:,.0f})")
    print(f"ratio (rbo / cranfield)     {slow / fast:9.1f} ×")
    print(f"largest difference on the sample: {worst:.2e}")
    if worst > 1e-9:
        raise SystemExit("cranfield and the rbo package disagree")


if __name__ == "__main__":
    main()
