"""End-to-end ad hoc evaluation benchmark: cranfield vs pytrec_eval vs ranx.

Generates (seeded) a graded qrels file and many TREC run files into ``benchmarks/_work/``,
then, in this one process, times each tool from file paths to scores (parsing included) for
P@10, AP, nDCG@10 and RR over all runs, best of ``--repeat`` passes, and checks that
cranfield's scores equal pytrec_eval's (per topic and mean, to 1e-9).

    python benchmarks/bench_adhoc.py                 # 50 runs × 200 topics × 1000 docs
    python benchmarks/bench_adhoc.py --runs 5 --topics 50 --docs 100   # quick
    python benchmarks/bench_adhoc.py --profile       # + cProfile of the cranfield pass
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import sys
import time
import warnings
from importlib.metadata import version
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cranfield  # noqa: E402
from _gen import make_collection  # noqa: E402
from _timing import timed_runs  # noqa: E402

MEASURES = ["P@10", "AP", "nDCG@10", "RR"]
# the exact trec_eval names: pytrec_eval computes only the cutoff 10 for these (the cheapest
# faithful choice; {"P", "ndcg_cut"} would compute all nine standard cutoffs)
TREC_EVAL = {"P@10": "P_10", "AP": "map", "nDCG@10": "ndcg_cut_10", "RR": "recip_rank"}
RANX = {"P@10": "precision@10", "AP": "map", "nDCG@10": "ndcg@10", "RR": "mrr"}
TOL = 1e-9



def cranfield_evaluator(qrels: Path, runs: list[Path]):
    ev = cranfield.Evaluator(str(qrels), MEASURES)
    return ev.evaluate([str(p) for p in runs], progress_bar=False)


def cranfield_frame(qrels: Path, runs: list[Path]):
    return cranfield.evaluate(str(qrels), [str(p) for p in runs], MEASURES, per_topic=True)


def pytrec(qrels: Path, runs: list[Path]):
    import pytrec_eval

    with open(qrels) as f:
        q = pytrec_eval.parse_qrel(f)
    ev = pytrec_eval.RelevanceEvaluator(q, set(TREC_EVAL.values()))
    out = []
    for p in runs:
        with open(p) as f:
            run = pytrec_eval.parse_run(f)
        out.append(ev.evaluate(run))
    return out


def ranx_eval(qrels: Path, runs: list[Path]):
    from ranx import Qrels, Run, evaluate

    q = Qrels.from_file(str(qrels), kind="trec")
    metrics = [RANX[m] for m in MEASURES]
    out = []
    for p in runs:
        run = Run.from_file(str(p), kind="trec")
        out.append(evaluate(q, run, metrics))
    return out


def ranx_warmup(qrels: Path, runs: list[Path]) -> None:
    """One untimed ranx pass over the first run, so numba JIT compilation is not counted.

    Note: ranx's ``evaluate`` calls ``numba.set_num_threads(1)`` for qrels of fewer than 10
    topics and never resets it, so a toy warm-up would leave ranx single-threaded; the real
    qrels are used instead and numba is reset to all threads.
    """
    import numba

    ranx_eval(qrels, runs[:1])
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


def check_pytrec(res, pt: list[dict], runs: list[Path]) -> tuple[float, float]:
    """Max |cranfield − pytrec_eval| per topic and of the means, over runs × measures."""
    topics = res.topics
    means = res.summary()
    per_topic = mean = 0.0
    for s in range(len(runs)):
        for m, name in enumerate(MEASURES):
            key = TREC_EVAL[name]
            if set(pt[s]) != set(topics):
                raise AssertionError(f"run {s}: topic sets differ between cranfield and pytrec_eval")
            theirs = np.array([pt[s][t][key] for t in topics])
            per_topic = max(per_topic, float(np.max(np.abs(res.values[s, m] - theirs))))
            mean = max(mean, abs(float(means[s, m]) - float(theirs.mean())))
    return per_topic, mean


def check_ranx(res, rx: list[dict]) -> float:
    means = res.summary()
    return max(
        abs(float(means[s, m]) - float(rx[s][RANX[name]]))
        for s in range(len(rx)) for m, name in enumerate(MEASURES)
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--topics", type=int, default=200)
    ap.add_argument("--docs", type=int, default=1000, help="documents per topic in each run")
    ap.add_argument("--judged", type=int, default=300, help="judged documents per topic (about)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=3, help="best of this many passes per tool")
    ap.add_argument("--budget", type=float, default=75.0,
                    help="stop repeating a tool once its passes took this many seconds")
    ap.add_argument("--tools", default="cranfield,pytrec_eval,ranx")
    ap.add_argument("--profile", action="store_true", help="cProfile one cranfield pass afterwards")
    ap.add_argument("--work", type=Path, default=HERE / "_work")
    args = ap.parse_args(argv)
    tools = args.tools.split(",")

    out = args.work / f"adhoc_r{args.runs}_t{args.topics}_d{args.docs}_j{args.judged}_s{args.seed}"
    t0 = time.perf_counter()
    qrels, runs = make_collection(out, topics=args.topics, runs=args.runs, docs=args.docs,
                                  judged=args.judged, seed=args.seed)
    lines = sum(1 for p in runs for _ in open(p, "rb"))
    qlines = sum(1 for _ in open(qrels, "rb"))
    print(f"cranfield {cranfield.__version__}, pytrec_eval-terrier {version('pytrec-eval-terrier')}, "
          f"ranx {version('ranx')}, numpy {np.__version__}, python {sys.version.split()[0]}")
    print(f"data: {out}  ({len(runs)} runs, {args.topics} topics, {lines:,} run lines, "
          f"{qlines:,} qrels lines; ready in {time.perf_counter() - t0:.1f}s)")
    r0 = cranfield.read_run(str(runs[0]))
    topic = np.repeat(np.arange(len(r0.topic_ids)), r0.lengths)
    sim = r0.score.astype(np.float32)
    tied = (topic[1:] == topic[:-1]) & (sim[1:] == sim[:-1])
    in_tie = np.zeros(sim.size, dtype=bool)
    in_tie[1:] |= tied
    in_tie[:-1] |= tied
    print(f"ties: {in_tie.mean():.1%} of {runs[0].name}'s lines share their score with another line of the topic")
    print(f"measures: {', '.join(MEASURES)}; best of up to {args.repeat} passes "
          f"(fewer if a tool's passes exceed {args.budget:.0f}s), parsing included")

    rows: list[tuple[str, float, list[float]]] = []
    results: dict[str, object] = {}

    def bench(label: str, fn) -> None:
        times, result = timed_runs(lambda: fn(qrels, runs), args.repeat, args.budget)
        best = min(times)
        rows.append((label, best, times))
        results[label] = result
        print(f"  {label:<34} " + " ".join(f"{t:.2f}s" for t in times), flush=True)

    with warnings.catch_warnings():
        warnings.simplefilter("error", cranfield.EvaluationWarning)  # the data should raise none
        if "cranfield" in tools:
            bench("cranfield (Evaluator.evaluate)", cranfield_evaluator)
            bench("cranfield.evaluate -> DataFrame", cranfield_frame)
    if "pytrec_eval" in tools:
        bench("pytrec_eval", pytrec)
    if "ranx" in tools:
        import numba

        warnings.filterwarnings("ignore", category=numba.NumbaTypeSafetyWarning)

        t = time.perf_counter()
        ranx_warmup(qrels, runs)
        print(f"  (ranx {version('ranx')} warm-up: one untimed pass over 1 run for numba JIT, "
              f"{time.perf_counter() - t:.1f}s; numba threads = {numba.get_num_threads()})")
        bench("ranx", ranx_eval)

    base = next((b for label, b, _ in rows if label.startswith("cranfield (")), None)
    print()
    print(f"{'tool':<34} {'seconds':>9} {'ratio':>8}")
    print("-" * 53)
    for label, best, _ in rows:
        ratio = f"{best / base:.2f}x" if base else "-"
        print(f"{label:<34} {best:>9.3f} {ratio:>8}")
    print("(ratio = tool time / cranfield Evaluator time; best pass shown)")

    res = results.get("cranfield (Evaluator.evaluate)")
    if res is not None and "pytrec_eval" in results:
        per_topic, mean = check_pytrec(res, results["pytrec_eval"], runs)
        ok = per_topic <= TOL and mean <= TOL
        print(f"\nagreement with pytrec_eval ({len(runs)} runs × {len(MEASURES)} measures × "
              f"{len(res.topics)} topics): max |diff| per topic {per_topic:.3g}, of means {mean:.3g} "
              f"-> {'OK' if ok else 'MISMATCH'} (tol {TOL:g})")
    if res is not None and "ranx" in results:
        print(f"agreement with ranx (means, informational; ranx breaks score ties its own way): "
              f"max |diff| {check_ranx(res, results['ranx']):.3g}")
    if res is not None:
        means = res.summary().mean(axis=0)
        print("cranfield mean over runs: " + ", ".join(f"{m}={v:.4f}" for m, v in zip(MEASURES, means)))

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        cranfield_evaluator(qrels, runs)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("cumulative").print_stats(15)
        print("\ncProfile of one cranfield Evaluator pass (top 15 by cumulative time):")
        print(buf.getvalue())
    return 0 if res is None or "pytrec_eval" not in results or ok else 1


if __name__ == "__main__":
    sys.exit(main())
