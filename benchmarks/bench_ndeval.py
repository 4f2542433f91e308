"""Diversity benchmark: ndeval's measure set, cranfield vs pyndeval (ndeval 4.5 in C).

Generates (seeded) diversity qrels for 100 topics with 3–6 intents each (``qid intent docno
rel``, binary and graded labels, documents relevant to several intents) and 50 TREC runs of
1,000 documents per topic into ``benchmarks/_work/``, then, in one process, times each tool
from files to per-topic scores (parsing included) for ndeval's default measures: ERR-IA,
nERR-IA, alpha-DCG, alpha-nDCG, P-IA and strec at 5, 10 and 20, NRBP, nNRBP and MAP-IA.
It also checks that the two agree to 1e-6 per topic.

    python benchmarks/bench_ndeval.py                     # 50 runs × 100 topics × 1000 docs
    python benchmarks/bench_ndeval.py --runs 5 --topics 20
"""

from __future__ import annotations

import argparse
import sys
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cranfield  # noqa: E402
from _gen import docnos, unique_ids, write_lines  # noqa: E402
from _timing import best_time  # noqa: E402

NDEVAL = {
    **{f"ERR-IA@{k}": f"ERR_IA@{k}" for k in (5, 10, 20)},
    **{f"nERR-IA@{k}": f"nERR_IA@{k}" for k in (5, 10, 20)},
    **{f"alpha-DCG@{k}": f"alpha_DCG@{k}" for k in (5, 10, 20)},
    **{f"alpha-nDCG@{k}": f"alpha_nDCG@{k}" for k in (5, 10, 20)},
    "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA",
    **{f"P-IA@{k}": f"P_IA@{k}" for k in (5, 10, 20)},
    **{f"strec@{k}": f"StRecall@{k}" for k in (5, 10, 20)},
}


def make_data(out: Path, runs: int, topics: int, docs: int, seed: int) -> tuple[Path, list[Path]]:
    """Diversity qrels and runs; reused when already written with these settings."""
    out.mkdir(parents=True, exist_ok=True)
    qrels = out / "qrels.txt"
    paths = [out / f"run{s:02d}.txt" for s in range(runs)]
    stamp = out / "COMPLETE"
    if stamp.exists() and all(p.exists() for p in paths):
        return qrels, paths
    rng = np.random.default_rng(seed)
    pool = 3 * docs
    names = np.array(docnos(unique_ids(rng, topics, pool).ravel()), dtype=object).reshape(topics, pool)
    lines, relevant = [], np.zeros((topics, pool))
    for t in range(topics):
        n_int = int(rng.integers(3, 7))
        judged = rng.choice(pool, size=int(rng.integers(150, 400)), replace=False)
        for i in range(1, n_int + 1):
            labels = rng.choice([0, 0, 0, 1, 1, 2], size=judged.size) * (rng.random(judged.size) < 0.5)
            relevant[t, judged] += labels > 0
            lines += [f"{t + 1} {i} {names[t, d]} {g}" for d, g in zip(judged.tolist(), labels.tolist())]
    write_lines(qrels, lines)
    for s, path in enumerate(paths):
        utility = rng.uniform(0.3, 1.5) * relevant + rng.normal(size=(topics, pool))
        top = np.argsort(-utility, axis=1)[:, :docs]
        # distinct scores, so that pyndeval's tie rule (docno ascending) does not matter
        write_lines(path, [
            f"{t + 1} Q0 {names[t, d]} {r + 1} {(docs - r) / 100:.2f} run{s:02d}"
            for t in range(topics) for r, d in enumerate(top[t].tolist())
        ])
    stamp.write_text("ok\n")
    return qrels, paths


def run_cranfield(qrels: Path, runs: list[Path]):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cranfield.Evaluator(str(qrels), list(NDEVAL.values()), diversity=True, missing="skip")
        return ev.evaluate([str(p) for p in runs], progress_bar=False)


def run_pyndeval(qrels: Path, runs: list[Path]):
    import pyndeval

    with open(qrels) as f:
        judged = [(q, i, d, int(r)) for q, i, d, r in (line.split() for line in f)]
    ev = pyndeval.RelevanceEvaluator(judged, list(NDEVAL))
    out = []
    for path in runs:
        with open(path) as f:
            run = [(q, d, float(s)) for q, _, d, _, s, _ in (line.split() for line in f)]
        out.append(ev.evaluate(run))
    return out



def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--runs", type=int, default=50)
    p.add_argument("--topics", type=int, default=100)
    p.add_argument("--docs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args()
    qrels, runs = make_data(HERE / "_work" / f"ndeval_r{a.runs}_t{a.topics}_d{a.docs}_s{a.seed}",
                            a.runs, a.topics, a.docs, a.seed)
    print(f"cranfield {cranfield.__version__}, pyndeval {version('pyndeval')}; "
          f"{a.runs} runs × {a.topics} topics × {a.docs} docs, {len(NDEVAL)} measures, best of {a.repeat}")
    t_c, ours = best_time(lambda: run_cranfield(qrels, runs), a.repeat)
    t_n, ref = best_time(lambda: run_pyndeval(qrels, runs), a.repeat)
    worst = 0.0
    for s, per_topic in enumerate(ref):  # type: ignore[arg-type]
        for t, topic in enumerate(ours.topics):  # type: ignore[union-attr]
            for m, name in enumerate(NDEVAL):
                v = per_topic[topic][name]
                if not np.isnan(v):
                    worst = max(worst, abs(v - ours.values[s, m, t]))  # type: ignore[union-attr]
    print(f"\n{'tool':<28}{'seconds':>10}{'ratio':>9}")
    print("-" * 47)
    print(f"{'cranfield (Evaluator)':<28}{t_c:>10.3f}{1.0:>8.2f}x")
    print(f"{'pyndeval (ndeval 4.5, C)':<28}{t_n:>10.3f}{t_n / t_c:>8.2f}x")
    print("(ratio = tool time / cranfield time)")
    print(f"agreement with pyndeval: largest per-topic difference {worst:.2e} "
          f"-> {'OK' if worst <= 1e-6 else 'FAIL'} (tol 1e-6)")
    if worst > 1e-6:
        sys.exit(1)


if __name__ == "__main__":
    main()
