"""`cranfield eval -R qrels_jg` benchmark: trec_eval's multi-judge measures over judgment groups.

Seeded synthetic data (benchmarks/_gen.py, written to benchmarks/_work/): a qrels_jg file of the
reference and ``--groups - 1`` judges derived from it (grades moved ±1, 5% left unjudged, as
bench_judges.py makes them), and ``--runs`` runs. Times, best of ``--repeat``:

- cranfield: ``JudgmentGroupEvaluator(...).evaluate(runs)`` with the measures of ``-m qrels_jg``
  (AP, P@5..1000, Rprec(mult=0.2..2.0)), in one warm process;
- trec_eval 9.0.x (the peer; a binary given with ``--trec-eval`` or found on PATH):
  ``trec_eval -q -R qrels_jg -m qrels_jg`` once per run, as a user runs it;

and prints the ratio cranfield / trec_eval (below 1: cranfield is faster).

    python benchmarks/bench_qrels_jg.py --trec-eval /path/to/trec_eval
    python benchmarks/bench_qrels_jg.py --runs 10 --topics 50     # quicker
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from _gen import make_collection  # noqa: E402
from _timing import best_time  # noqa: E402
from bench_judges import write_judges  # noqa: E402
from cranfield.compat.presets import resolve  # noqa: E402
from cranfield.evaluation.judgment_groups import JudgmentGroupEvaluator  # noqa: E402


def write_groups(qrels: Path, judges: list[Path]) -> Path:
    """The reference (group ``ref``) and each judge (``judge1``...) as one qrels_jg file."""
    path = qrels.with_name(f"groups{len(judges) + 1}.qrels_jg")
    if not path.exists():
        with path.open("w") as out:
            for name, source in [("ref", qrels), *((p.stem, p) for p in judges)]:
                out.writelines(f"{f[0]} {name} {f[2]} {f[3]}\n" for f in map(str.split, source.open()))
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--topics", type=int, default=250)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--judged", type=int, default=300)
    ap.add_argument("--groups", type=int, default=3)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", default=shutil.which("trec_eval"), help="the trec_eval 9.0.x binary")
    args = ap.parse_args()
    out = HERE / "_work" / f"qrels_jg_{args.runs}x{args.topics}x{args.docs}"
    qrels, runs = make_collection(out, topics=args.topics, runs=args.runs, docs=args.docs, judged=args.judged)
    groups = write_groups(qrels, write_judges(qrels, args.groups - 1))
    request = resolve(["qrels_jg"])
    measures = request.measures
    paths = [str(r) for r in runs]
    warnings.simplefilter("ignore")
    JudgmentGroupEvaluator(str(groups), measures, missing="skip").evaluate(paths[:1])  # warm

    def cranfield() -> object:
        return JudgmentGroupEvaluator(str(groups), measures, missing="skip").evaluate(paths)

    t_cf, result = best_time(cranfield, args.repeat)
    print(f"{args.groups} groups × {args.topics} topics × {args.runs} runs ({args.docs} docs), -m qrels_jg "
          f"({len(measures)} values per topic)")
    print(f"  cranfield JudgmentGroupEvaluator      {t_cf:8.2f} s")
    if not args.trec_eval:
        print("  trec_eval: not found (give --trec-eval PATH)")
        return

    def trec_eval() -> list[str]:
        return [subprocess.run([args.trec_eval, "-q", "-R", "qrels_jg", "-m", "qrels_jg", str(groups), p],
                               check=True, capture_output=True, text=True).stdout for p in paths]

    t_te, texts = best_time(trec_eval, args.repeat)
    print(f"  trec_eval -R qrels_jg, once per run   {t_te:8.2f} s")
    print(f"  ratio cranfield / trec_eval           {t_cf / t_te:8.2f}")
    line = next(x for x in texts[0].splitlines() if x.startswith("map_avgjg") and "\tall\t" in x)
    print(f"  (check: run 0 map_avgjg all: trec_eval {line.split()[-1]}, cranfield "
          f"{result.summary()[0, request.labels.index('map_avgjg')]:.4f})")  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
