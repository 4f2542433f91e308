"""`cranfield judges` benchmark: 3 judges × 250 topics × 100 runs × 4 measures, B = 1,000.

Times, in one warm process (scipy.stats and pandas imported first) on seeded synthetic data
(benchmarks/_gen.py, 100 documents per topic and run, written to benchmarks/_work/):

- ``cranfield.compare_judges`` (labels, leaderboards with B = 1,000 bootstrap intervals of the four
  correlations, significance by the paired t-test) against ``Evaluator.evaluate`` of the same runs
  with the same measures under one qrels, times the number of qrels (the reference and the three
  judges): the issue's budget is a ratio of at most 2;
- the label kernel alone (``cranfield.meta.labels.label_agreement``) on 10 million judged pairs
  (250 topics × 40,000 units, the judge's table in another order), which must stay under 10 s.

The judges are derived from the reference deterministically: judge k moves a grade up or down with
probability 0.1·k and leaves 5% of the documents unjudged.

    python benchmarks/bench_judges.py                       # the full benchmark (~1-2 min on 2 cores)
    python benchmarks/bench_judges.py --runs 20 --topics 100  # quicker
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
from _gen import make_collection  # noqa: E402
from cranfield import Evaluator, compare_judges  # noqa: E402
from cranfield.meta.labels import LabelTable, label_agreement  # noqa: E402


def write_judges(qrels: Path, n: int, seed: int = 1) -> list[Path]:
    """``n`` judges' qrels next to ``qrels``: grades moved ±1 with probability 0.1·k, 5% unjudged."""
    lines = [line.split() for line in qrels.read_text().splitlines()]
    rel = np.array([int(f[3]) for f in lines])
    out = []
    for k in range(1, n + 1):
        path = qrels.with_name(f"judge{k}.qrels")
        out.append(path)
        if path.exists():
            continue
        rng = np.random.default_rng(seed + k)
        u = rng.random(rel.size)
        grade = np.where(u < 0.05 * k, np.minimum(rel + 1, 2), np.where(u < 0.1 * k, np.maximum(rel - 1, 0), rel))
        keep = rng.random(rel.size) >= 0.05
        path.write_text("".join(f"{f[0]} 0 {f[2]} {g}\n" for f, g, ok in zip(lines, grade.tolist(), keep) if ok))
    return out


def warm_up() -> None:
    """Import what both sides use (scipy.stats, pandas) before timing: one process, warm."""
    qrels = {"1": {"a": 1, "b": 0}, "2": {"a": 0, "c": 1}}
    runs = {"r1": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}}, "r2": {"1": {"b": 2.0}, "2": {"a": 1.0}},
            "r3": {"1": {"a": 1.0}, "2": {"a": 2.0, "c": 1.0}}}
    compare_judges(qrels, {"j": qrels}, runs, ["AP"], bootstrap_resamples=10)


def label_kernel(pairs: int, topics: int = 250, seed: int = 0) -> float:
    """Seconds of label_agreement on ``pairs`` commonly judged units (best of two)."""
    rng = np.random.default_rng(seed)
    per = pairs // topics
    topic = np.repeat(np.arange(topics), per)
    unit = np.tile(np.arange(per), topics)
    x = rng.integers(0, 4, topic.size)
    y = np.where(rng.random(topic.size) < 0.7, x, rng.integers(0, 4, topic.size))
    order = rng.permutation(topic.size)
    reference, judge = LabelTable.of(topic, unit, x), LabelTable.of(topic[order], unit[order], y[order])
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        label_agreement(reference, judge)
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--judged", type=int, default=300)
    ap.add_argument("--judges", type=int, default=3)
    ap.add_argument("-m", "--measures", default="AP,nDCG@10,P@10,RR")
    ap.add_argument("--B", type=int, default=1000, help="bootstrap resamples of the intervals")
    ap.add_argument("--pairs", type=int, default=10_000_000, help="judged pairs of the label kernel")
    args = ap.parse_args()
    out = HERE / "_work" / f"judges_{args.runs}x{args.topics}x{args.docs}"
    qrels, runs = make_collection(out, topics=args.topics, runs=args.runs, docs=args.docs, judged=args.judged)
    judges = write_judges(qrels, args.judges)
    measures = args.measures.split(",")
    paths = [str(r) for r in runs]
    warnings.simplefilter("ignore")
    warm_up()

    t0 = time.perf_counter()
    Evaluator(str(qrels), measures).evaluate(paths)
    t_eval = time.perf_counter() - t0
    t0 = time.perf_counter()
    result = compare_judges(str(qrels), [str(j) for j in judges], paths, measures, bootstrap_resamples=args.B)
    t_judges = time.perf_counter() - t0
    n_qrels = 1 + len(judges)
    t_labels = label_kernel(args.pairs, args.topics)

    print(f"{len(judges)} judges × {args.topics} topics × {args.runs} runs ({args.docs} docs) × {len(measures)} "
          f"measures ({args.measures}), B = {args.B}")
    print(f"  cranfield eval, one qrels                {t_eval:8.2f} s")
    print(f"  × {n_qrels} qrels                              {t_eval * n_qrels:8.2f} s")
    print(f"  cranfield judges                         {t_judges:8.2f} s")
    print(f"  ratio judges / (eval × {n_qrels})               {t_judges / (t_eval * n_qrels):8.2f}   (budget 2)")
    print(f"  label agreement, {args.pairs:,} pairs   {t_labels:8.2f} s   (budget 10 s)")
    tau = result.leaderboards[result.judges[0], measures[0]].statistics["tau_b"]
    print(f"  (check: {result.judges[0]} τ_b on {measures[0]} = {tau:.4f})")


if __name__ == "__main__":
    main()
