"""HTML report benchmark: ``cranfield report`` on 100 runs × 250 topics (docs/report-html.md).

Generates (seeded) a graded qrels file and the runs into ``benchmarks/_work/report_*``, then
builds the :class:`cranfield.Report` (evaluation and significance tests) and its HTML page
(figures included), and prints each step's time and the HTML file's size.

    python benchmarks/bench_report.py                          # 100 runs × 250 topics × 1000 docs, AP, nDCG@10, P@10
    python benchmarks/bench_report.py --runs 10 --topics 50    # quick
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _gen import make_collection  # noqa: E402
from cranfield.render.report import Report  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=300)
    ap.add_argument("-m", "--measures", default="AP,nDCG@10,P@10")
    ap.add_argument("--no-baseline", action="store_true", help="compare all pairs instead of against run00")
    ap.add_argument("-o", "--output", default=str(HERE / "_work" / "report.html"))
    args = ap.parse_args()
    out = HERE / "_work" / f"report_{args.runs}x{args.topics}x{args.docs}"
    qrels, runs = make_collection(out, topics=args.topics, runs=args.runs, docs=args.docs, judged=args.judged)
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    report = Report(str(qrels), [str(r) for r in runs], args.measures.split(","),
                    baseline=None if args.no_baseline else 0)
    t1 = time.perf_counter()
    text = report.to_html()
    t2 = time.perf_counter()
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"{args.runs} runs × {args.topics} topics × {args.docs} docs, measures {args.measures}, "
          f"{'all pairs' if args.no_baseline else 'baseline run00'}")
    print(f"Report (evaluate + tests): {t1 - t0:.1f} s")
    print(f"to_html (figures + page):  {t2 - t1:.1f} s")
    print(f"total:                     {t2 - t0:.1f} s")
    print(f"HTML file: {len(text.encode('utf-8')) / 1024 / 1024:.2f} MiB ({args.output})")


if __name__ == "__main__":
    main()
