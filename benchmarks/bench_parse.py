"""Run-file parsing benchmark: time and peak memory of cranfield.read_run vs pytrec_eval.parse_run.

Generates (seeded) one large TREC run file into ``benchmarks/_work/`` (default 10,000 topics ×
1,000 documents = 10 million lines), then parses it with each tool in a fresh subprocess,
``--repeat`` times, reporting the best wall time of the parse call and the subprocess's peak
resident memory (``getrusage(RUSAGE_SELF).ru_maxrss``, which includes the interpreter and the
imported modules; the RSS after imports, before parsing, is shown as the baseline). ru_maxrss
is inherited through fork/exec, so this parent process never imports numpy: the data are
written by another subprocess.

    python benchmarks/bench_parse.py                  # 10,000,000 lines
    python benchmarks/bench_parse.py --lines 1000000  # quick
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
tool, path = sys.argv[1], sys.argv[2]
if tool == "cranfield":
    import cranfield
    parse = lambda: cranfield.read_run(path)
else:
    import pytrec_eval
    def parse():
        with open(path) as f:
            return pytrec_eval.parse_run(f)
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t0 = time.perf_counter()
obj = parse()
seconds = time.perf_counter() - t0
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
n = int(obj.docno.size) if tool == "cranfield" else sum(len(v) for v in obj.values())
print(json.dumps({"seconds": seconds, "peak_kb": peak, "base_kb": base, "rows": n}))
"""

GEN = r"""
import sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from _gen import make_big_run
make_big_run(Path(sys.argv[2]), topics=int(sys.argv[3]), docs=int(sys.argv[4]), seed=int(sys.argv[5]))
"""

TOOLS = {
    "cranfield.read_run": "cranfield",
    "pytrec_eval.parse_run": "pytrec_eval",
}


def child(tool: str, path: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, tool, str(path)], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lines", type=int, default=10_000_000, help="run lines (topics × --docs)")
    ap.add_argument("--docs", type=int, default=1000, help="documents per topic")
    ap.add_argument("--repeat", type=int, default=3, help="subprocesses per tool (best time, max RSS)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=HERE / "_work")
    args = ap.parse_args(argv)

    topics = max(1, args.lines // args.docs)
    path = args.work / f"big_t{topics}_d{args.docs}_s{args.seed}.run"
    t0 = time.perf_counter()
    # in a subprocess: ru_maxrss is inherited through fork/exec, so this process must stay small
    subprocess.run([sys.executable, "-c", GEN, str(HERE), str(path), str(topics), str(args.docs),
                    str(args.seed)], check=True)
    size = path.stat().st_size
    print(f"data: {path}  ({topics:,} topics × {args.docs:,} docs = {topics * args.docs:,} lines, "
          f"{size / 2**20:,.0f} MiB; ready in {time.perf_counter() - t0:.1f}s)")
    print(f"each tool parses it in {args.repeat} fresh subprocess(es); best time, max peak RSS")

    rows = []
    for label, tool in TOOLS.items():
        runs = [child(tool, path) for _ in range(args.repeat)]
        assert all(r["rows"] == topics * args.docs for r in runs), runs
        best = min(r["seconds"] for r in runs)
        peak = max(r["peak_kb"] for r in runs) / 1024
        base = max(r["base_kb"] for r in runs) / 1024
        rows.append((label, best, peak, base))
        print(f"  {label:<24} " + " ".join(f"{r['seconds']:.2f}s" for r in runs), flush=True)

    t_ref, m_ref = rows[0][1], rows[0][2]
    print()
    print(f"{'tool':<24} {'seconds':>9} {'time ratio':>11} {'peak RSS MB':>12} "
          f"{'after import MB':>16} {'RSS ratio':>10}")
    print("-" * 87)
    for label, best, peak, base in rows:
        print(f"{label:<24} {best:>9.2f} {best / t_ref:>10.2f}x {peak:>12,.0f} {base:>16,.0f} {peak / m_ref:>9.2f}x")
    print("(ratios = tool / cranfield.read_run; MB = 2^20 bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
