"""``cranfield truncation``: where should each run have stopped?"""

from __future__ import annotations

from typing import Any

from cranfield.analysis.truncation import DEFAULT_FULL, optimal_truncation
from cranfield.render.plots import plot_truncation
from cranfield.render.tables import truncation_table

TRUNCATION_EPILOG = """\
truncation measures: RBU, DCGU, ERRU, RBPU, FlatUtility (utility: gain minus an effort e per
document), NDCGT, ERRT, RBPT, RRT (a terminal document rewards stopping), OIE (information
theory), F. Each returns the length n* in [0, n] that maximises it (ties: the shortest).

examples:
  cranfield truncation qrels.txt runs/*.gz -m RBU -m 'RBPU(p=0.98)' -m OIE -m NDCGT
  cranfield truncation qrels.txt runs/*.gz -m DCGU --full AP --full nDCG --plot lengths.png
  cranfield truncation qrels.txt run.txt -m OIE --format json > optimal.json
"""


def add_parser(sub: Any) -> None:
    """The ``cranfield truncation`` subcommand."""
    import argparse

    from cranfield.cli.options import split_measures

    p = sub.add_parser(
        "truncation", help="where should each run have stopped? (optimal truncation analysis)",
        description="For each run × topic, the ranking length that maximises each truncation measure; the "
                    "distribution of those lengths over log bins (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2) "
                    "and, with two or more "
                    "runs, Kendall's tau between full-ranking measures and truncation measures at their "
                    "optimum (their Table 2).",
        epilog=TRUNCATION_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels")
    p.add_argument("runs", nargs="+", metavar="run")
    p.add_argument("-m", "--measure", action="append", required=True, metavar="MEASURE",
                   help="a truncation measure (repeatable, or comma-separated)")
    p.add_argument("--full", action="append", metavar="MEASURE",
                   help=f"full-ranking measures for the tau table (default: {' '.join(DEFAULT_FULL)})")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="table (default), json ({optimal, distribution, kendall}) "
                        "or csv (one row per run, topic, measure)")
    p.add_argument("--plot", metavar="FILE", help="save the length distribution as a bar chart (.png, .svg, .pdf, ...; "
                                                  "needs matplotlib: pip install 'cranfield[plot]')")
    p.add_argument("--order", choices=("score", "rank", "file"), default="score")
    p.add_argument("--diversity", action="store_true", default=None, help="read the qrels as diversity qrels")
    p.set_defaults(handler=lambda args: _run(args, split_measures(args.measure), split_measures(args.full)))


def _run(args: Any, measures: list[str], full: list[str]) -> int:
    import sys

    from cranfield.render.plots import check_plot_path

    if args.plot:
        check_plot_path(args.plot)
    result = optimal_truncation(args.qrels, args.runs, measures, full_measures=full or DEFAULT_FULL,
                                order=args.order, diversity=args.diversity)
    if args.format == "json":
        sys.stdout.write(result.to_json())
    elif args.format == "csv":
        rows = result.to_dict()["optimal"]
        sys.stdout.write("run,topic,measure,length,returned,value\n")
        sys.stdout.writelines(f"{r['run']},{r['topic']},\"{r['measure']}\",{r['length']},{r['returned']},{r['value']!r}\n"
                              for r in rows)
    else:
        sys.stdout.write(truncation_table(result))
    if args.plot:
        plot_truncation(result, args.plot)
    return 0
