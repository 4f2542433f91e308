"""Exposure-based fairness over stochastic rankings: cranfield's kernels at scale, and cranfield vs
diazf/expeval (the reference, pure Python) on a subsample, with the ratio.

Part 1 (scale): seeded stochastic runs built in memory (``--runs`` policies × ``--samples``
samples × ``--topics`` topics × ``--docs`` documents, each sample a permutation of the topic's
documents, graded qrels, four groups), scored with EE-L, EE-D, EE-R, AWRF and nDCG*AWRF by
:meth:`Evaluator.score_sampled` (joining the samples to the qrels, document codes, group
weights and the kernels; file parsing is the run reader's, timed by bench_parse.py).

Part 2 (vs expeval): one stochastic run file of ``--sub-samples`` × ``--sub-topics`` ×
``--sub-docs`` lines is written to ``benchmarks/_work/``; expeval (``--expeval DIR``, a checkout of
github.com/diazf/expeval) and ``cranfield eval --stochastic --order rank -m EE-L -m EE-D -m
EE-R`` are timed on it as whole processes, their per-topic values compared (to expeval's six
printed decimals), and the ratio printed.

    python benchmarks/bench_fairness.py                        # 10 × 100 × 250 × 1000 (about 11 s of CPU)
    python benchmarks/bench_fairness.py --docs 100             # 10 × 100 × 250 × 100, seconds
    python benchmarks/bench_fairness.py --expeval /tmp/expeval # + the comparison with expeval
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _timing import best_time  # noqa: E402
from cranfield.evaluation.evaluator import Evaluator  # noqa: E402
from cranfield.io import Run  # noqa: E402
from cranfield.io.stochastic import Groups, SampledRun  # noqa: E402

MEASURES = ["EE-L", "EE-D", "EE-R", "AWRF", "nDCG*AWRF"]


def collection(topics: int, docs: int, seed: int) -> tuple[dict, np.ndarray, Groups]:
    """Graded qrels (a third of each topic's documents judged: 0/1/2), the docnos (T, docs) and
    four groups (a tenth of the documents in none, a tenth in two)."""
    rng = np.random.default_rng(seed)
    names = np.char.add(np.char.add(np.arange(topics).astype("S6")[:, None], b"-d"),
                        np.arange(docs).astype("S6")[None, :])
    names = names.astype(f"S{np.char.str_len(names).max()}")  # (T, docs), as wide as the longest, as read
    qrels = {str(t): {names[t, k].decode(): int(rng.choice(3, p=(0.5, 0.3, 0.2)))
                      for k in rng.choice(docs, docs // 3, replace=False)} for t in range(topics)}
    flat = np.sort(names.ravel())
    group = rng.integers(0, 4, flat.size)
    two = rng.random(flat.size) < 0.1
    none = rng.random(flat.size) < 0.1
    keep = ~none
    docno = flat[keep]
    rows_group = np.concatenate([group[keep][:, None], ((group[keep] + 1) % 4)[:, None]], axis=1)
    counts = np.where(two[keep], 2, 1)
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    g = rows_group[np.repeat(np.arange(docno.size), counts), np.arange(counts.sum()) - np.repeat(offsets[:-1], counts)]
    w = 1.0 / np.repeat(counts, counts)
    return qrels, names, Groups(("g0", "g1", "g2", "g3"), docno, offsets, g, w, "<bench>")


def policy(names: np.ndarray, samples: int, seed: int) -> SampledRun:
    """A stochastic run: ``samples`` random permutations of each topic's documents (in memory)."""
    rng = np.random.default_rng(seed)
    topics, docs = names.shape
    perm = rng.permuted(np.broadcast_to(np.arange(docs), (samples, topics, docs)), axis=2)  # (N, T, D)
    docno = names[np.arange(topics)[None, :, None], perm].ravel()
    lists = samples * topics
    offsets = np.arange(lists + 1, dtype=np.int64) * docs
    ids = tuple(f"{t} (sample {s})" for s in range(samples) for t in range(topics))
    run = Run(f"run{seed}", "<bench>", ids, offsets, docno, np.zeros(docno.size))
    return SampledRun(run, np.tile(np.arange(topics), samples), np.repeat(np.arange(samples), topics),
                      tuple(str(t) for t in range(topics)))


def scale(args: argparse.Namespace) -> None:
    qrels, names, groups = collection(args.topics, args.docs, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = Evaluator(qrels, MEASURES, stochastic=True, groups=groups)
    total = cpu = 0.0
    for r in range(args.runs):
        run = policy(names, args.samples, 100 + r)
        t0, c0 = time.perf_counter(), time.process_time()
        scores = ev.score_sampled(run)
        total += time.perf_counter() - t0
        cpu += time.process_time() - c0
        assert np.isfinite(scores.values).all()
        del run
    lines = args.runs * args.samples * args.topics * args.docs
    print(f"scale: {args.runs} runs x {args.samples} samples x {args.topics} topics x {args.docs} docs "
          f"({lines:,} ranked documents), {len(MEASURES)} measures: {total:.2f} s ({cpu:.2f} s of CPU; "
          f"{lines / total / 1e6:.1f} M ranked documents/s)", flush=True)


def write_run(path: Path, names: np.ndarray, samples: int, topics: int) -> None:
    rng = np.random.default_rng(7)
    with open(path, "w") as f:
        for t in range(topics):
            for s in range(samples):
                for r, k in enumerate(rng.permutation(names.shape[1]), 1):
                    f.write(f"{t} {s} {names[t, k].decode()} {r} {-r} bench\n")


def versus_expeval(args: argparse.Namespace) -> None:
    work = HERE / "_work"
    work.mkdir(exist_ok=True)
    qrels, names, _ = collection(args.sub_topics, args.sub_docs, 1)
    qrels_path, run_path = work / "fair.qrels", work / "fair.stochastic.run"
    with open(qrels_path, "w") as f:
        for t, judged in qrels.items():
            f.writelines(f"{t} 0 {d} {g}\n" for d, g in judged.items())
    write_run(run_path, names, args.sub_samples, args.sub_topics)
    expeval = [sys.executable, str(Path(args.expeval) / "expeval.py"), str(qrels_path), str(run_path)]
    ours = [sys.executable, "-c", "from cranfield.cli.main import main; raise SystemExit(main())", "eval",
            str(qrels_path), str(run_path), "--stochastic", "--order", "rank", "--per-topic", "--format", "csv",
            "-m", "EE-L", "-m", "EE-D", "-m", "EE-R"]
    t_ref, ref = best_time(lambda: subprocess.run(expeval, capture_output=True, text=True, check=True).stdout,
                           args.repeat)
    t_us, out = best_time(lambda: subprocess.run(ours, capture_output=True, text=True, check=True).stdout,
                          args.repeat)
    name = {"difference": "EE-L", "disparity": "EE-D", "relevance": "EE-R"}
    expected = {(q, name[m]): float(v) for m, q, v in (line.split("\t") for line in ref.splitlines())}
    got = {(t, m): float(v) for _, t, m, v in (line.split(",") for line in out.splitlines()[1:]) if t != "all"}
    worst = max(abs(got[k] - v) for k, v in expected.items())
    lines = args.sub_samples * args.sub_topics * args.sub_docs
    print(f"vs expeval: {args.sub_samples} samples x {args.sub_topics} topics x {args.sub_docs} docs "
          f"({lines:,} lines), "
          f"whole processes: expeval {t_ref:.2f} s, cranfield {t_us:.2f} s, ratio {t_ref / t_us:.1f}x; "
          f"{len(expected)} values agree to {worst:.1e} (expeval prints 6 decimals)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--samples", type=int, default=100)
    p.add_argument("--topics", type=int, default=250)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--expeval", metavar="DIR", help="a checkout of github.com/diazf/expeval")
    p.add_argument("--sub-samples", type=int, default=100)
    p.add_argument("--sub-topics", type=int, default=20)
    p.add_argument("--sub-docs", type=int, default=200)
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    scale(args)
    if args.expeval:
        versus_expeval(args)


if __name__ == "__main__":
    main()
