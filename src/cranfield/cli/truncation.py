"""``cranfield truncation``: where should each run have stopped?"""

from __future__ import annotations

from typing import Any

from cranfield.analysis.options import DEFAULT_FULL

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

    from cranfield.cli.options import add_format_option, add_input_options, add_output_option, split_measures

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
    add_format_option(p, "truncation", note="json is {optimal, distribution, kendall}; csv one row per run, "
                                              "topic, measure")
    p.add_argument("--plot", metavar="FILE", help="save the length distribution as a bar chart (.png, .svg, .pdf, ...)")
    add_output_option(p)
    add_input_options(p.add_argument_group("reading the qrels and runs (as in `cranfield eval`)"))
    p.set_defaults(handler=lambda args: _run(args, split_measures(args.measure), split_measures(args.full)))


def _run(args: Any, measures: list[str], full: list[str]) -> int:
    from cranfield.analysis.truncation import optimal_truncation
    from cranfield.cli.options import check_output, qrels_options_from, run_options_from, write_result
    from cranfield.render.plots import check_plot_path, plot_truncation

    check_output(args)
    if args.plot:
        check_plot_path(args.plot)
    result = optimal_truncation(args.qrels, args.runs, measures, full_measures=full or DEFAULT_FULL,
                                order=args.order, on_duplicate=args.on_duplicate, **qrels_options_from(args),
                                **run_options_from(args))
    write_result(args, result)
    if args.plot:
        plot_truncation(result, args.plot)
    return 0
