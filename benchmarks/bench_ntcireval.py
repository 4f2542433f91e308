"""NTCIREVAL benchmark: ``--compat ntcireval``'s 19 measures, cranfield vs pyNTCIREVAL.

Generates (seeded) graded qrels (labels 0–2) and TREC runs into ``benchmarks/_work/`` with the
ad hoc generator, then, in one process, times each tool from files to per-topic scores for
NTCIREVAL ``compute``'s measures (RR, O-measure, P-measure, P-plus, AP, Q-measure, the four NCU
variants, RBP, ERR, and AP, Q, nDCG, MSnDCG, P, nERR, Hit at 10 and 1000) with gains 1:2.
pyNTCIREVAL is pure Python and its blended-ratio measures are quadratic in the run length, so
the default collection is small. The two must agree to 1e-9 per topic.

    python benchmarks/bench_ntcireval.py                       # 5 runs × 20 topics × 1000 docs
    python benchmarks/bench_ntcireval.py --runs 2 --topics 5 --docs 200
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
from _gen import make_collection  # noqa: E402
from _timing import best_time  # noqa: E402
from cranfield.compat.presets import ntcireval_request  # noqa: E402

GAINS = [1, 2]
CUTOFFS = [10, 1000]


def run_cranfield(qrels: Path, runs: list[Path]):
    request = ntcireval_request(CUTOFFS)
    measures = [cranfield.compat.presets.with_gains(m, ":".join(map(str, GAINS))) for m in request.measures]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ev = cranfield.Evaluator(str(qrels), measures, names=request.labels, missing="skip")
        return ev.evaluate([str(p) for p in runs], progress_bar=False)


def _read(path: Path, columns: tuple[int, int]) -> dict[str, list[tuple[str, str]]]:
    out: dict[str, list[tuple[str, str]]] = {}
    with open(path) as f:
        for line in f:
            parts = line.split()
            out.setdefault(parts[0], []).append((parts[columns[0]], parts[columns[1]]))
    return out


def run_pyntcireval(qrels: Path, runs: list[Path]) -> list[dict[str, list[float]]]:
    """pyNTCIREVAL's metric objects on each topic, ranked as trec_eval and cranfield rank (score
    as float32, ties by docno descending)."""
    from pyNTCIREVAL import metrics as m

    judged = {q: {d: int(r) for d, r in pairs} for q, pairs in _read(qrels, (2, 3)).items()}
    out = []
    for path in runs:
        scores: dict[str, list[float]] = {}
        for qid, pairs in _read(path, (2, 4)).items():
            ranked = [d for d, _ in sorted(pairs, key=lambda p: (-np.float32(p[1]), [-b for b in p[0].encode()]))]
            labels = judged[qid]
            xrelnum = [sum(1 for v in labels.values() if v == level) for level in range(len(GAINS) + 1)]
            ranked_list = [(d, labels.get(d)) for d in ranked]
            objs = [m.RR(), m.OMeasure(xrelnum, GAINS, 1.0), m.PMeasure(xrelnum, GAINS, 1.0),
                    m.PPlusMeasure(xrelnum, GAINS, 1.0), m.AP(xrelnum, GAINS), m.QMeasure(xrelnum, GAINS, 1.0),
                    m.NCUguP(xrelnum, GAINS, GAINS), m.NCUguBR(xrelnum, GAINS, GAINS, 1.0),
                    m.NCUrbP(xrelnum, GAINS, 0.95), m.NCUrbBR(xrelnum, GAINS, 0.95, 1.0),
                    m.RBP(xrelnum, GAINS, 0.95), m.ERR(xrelnum, GAINS)]
            for k in CUTOFFS:
                objs += [m.AP(xrelnum, GAINS, k), m.QMeasure(xrelnum, GAINS, 1.0, k), m.nDCG(xrelnum, GAINS, 2, k),
                         m.MSnDCG(xrelnum, GAINS, k), m.Precision(k), m.nERR(xrelnum, GAINS, k), m.Hit(k)]
            scores[qid] = [o.compute(ranked_list) for o in objs]
        out.append(scores)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--topics", type=int, default=20)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--work", type=Path, default=HERE / "_work")
    args = ap.parse_args(argv)
    out = args.work / f"ntcir_r{args.runs}_t{args.topics}_d{args.docs}_j{args.judged}_s{args.seed}"
    qrels, runs = make_collection(out, topics=args.topics, runs=args.runs, docs=args.docs,
                                  judged=args.judged, seed=args.seed)
    print(f"cranfield {cranfield.__version__}, pyNTCIREVAL {version('pyNTCIREVAL')}, numpy {np.__version__}")
    print(f"{args.runs} runs × {args.topics} topics × {args.docs} docs; 19 NTCIREVAL measures at cutoffs {CUTOFFS}")
    t_cf, res = best_time(lambda: run_cranfield(qrels, runs), args.repeat)
    print(f"  cranfield    {t_cf:8.2f} s")
    t_py, ref = best_time(lambda: run_pyntcireval(qrels, runs), 1)
    print(f"  pyNTCIREVAL  {t_py:8.2f} s")
    worst = 0.0
    for s, scores in enumerate(ref):
        for qid, values in scores.items():
            t = res.topics.index(qid)
            worst = max(worst, float(np.max(np.abs(res.values[s, :, t] - np.array(values)))))
    print(f"max |difference| per topic: {worst:.1e}")
    print(f"cranfield is {t_py / t_cf:.0f}× faster")
    return 0 if worst <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
