"""C/W/L benchmark: ir_measures' C/W/L measures (INST, INSQ, BPM, SDCG, NERR8–NERR11 with max_rel),
cranfield vs ir_measures' cwl_eval provider (cwl_eval 1.0 in Python), on the TREC 2003 Robust
runs of tests/data (100 topics, up to 1,000 documents each; labels 0–2, max_rel=2).

Both tools get the same qrels (ir_measures' namedtuples) and runs (dicts whose scores are minus the
rank, so that tied scores cannot be broken differently: cwl_eval keeps ties in input order,
cranfield orders them as trec_eval does) and return per-topic values; the time is from those
objects to the values (and, for cranfield, also from the files). It also checks that the two
agree to 1e-9 per topic.

    python benchmarks/bench_cwl.py                 # the four Robust 2003 runs
    python benchmarks/bench_cwl.py --runs 1
"""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import version
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import ir_measures as im  # noqa: E402

import cranfield  # noqa: E402
from _timing import best_time  # noqa: E402

ROBUST = HERE.parent / "tests" / "data" / "robust03"
MEASURES = [im.INST(T=3.0, max_rel=2), im.INSQ(max_rel=2), im.BPM(max_rel=2) @ 10, im.SDCG(max_rel=2) @ 10,
            im.NERR8(max_rel=2) @ 10, im.NERR9(max_rel=2) @ 10, im.NERR10(max_rel=2), im.NERR11(max_rel=2)]


def by_rank(run: object) -> dict[str, dict[str, float]]:
    """{topic: {docno: −rank}}, ranked by score descending, ties by docno descending."""
    docs: dict[str, list] = {}
    for r in run:
        docs.setdefault(r.query_id, []).append((-r.score, [-b for b in r.doc_id.encode()], r.doc_id))
    return {q: {d: -float(k) for k, (_, _, d) in enumerate(sorted(items))} for q, items in docs.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=4, help="how many of the four Robust 2003 runs")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    qrels = list(im.read_trec_qrels(str(ROBUST / "qrels.txt.gz")))
    runs = [by_rank(im.read_trec_run(str(p))) for p in sorted(ROBUST.glob("input.*.gz"))[: args.runs]]
    ours = cranfield.as_ir_measures_provider(pipeline="none")
    theirs = im.providers.registry["cwl_eval"]

    def score(provider: object) -> list[dict]:
        return [{(m.query_id, str(m.measure)): m.value for m in provider.iter_calc(MEASURES, qrels, run)}
                for run in runs]

    paths = sorted(ROBUST.glob("input.*.gz"))[: args.runs]
    native = cranfield.Evaluator(ROBUST / "qrels.txt.gz", MEASURES)  # from the files, without ir_measures' objects
    t_native, _ = best_time(lambda: native.evaluate(paths, order="file"), args.repeat)
    t_ours, a = best_time(lambda: score(ours), args.repeat)
    t_theirs, b = best_time(lambda: score(theirs), args.repeat)
    worst = max(abs(x[k] - y[k]) for x, y in zip(a, b) for k in y)
    print(f"{len(runs)} runs x {len(MEASURES)} C/W/L measures, Robust 2003 (100 topics)")
    print(f"cranfield {cranfield.__version__:>10}  {t_ours:8.2f} s  (its ir_measures provider; from the files: "
          f"{t_native:.2f} s, {t_theirs / t_native:.0f}x faster)")
    print(f"cwl_eval  {version('cwl-eval'):>10}  {t_theirs:8.2f} s  (ir_measures {version('ir-measures')})")
    print(f"ratio: cranfield is {t_theirs / t_ours:.1f}x faster; largest per-topic difference {worst:.1e}")
    assert worst <= 1e-9


if __name__ == "__main__":
    main()
