"""``cranfield similarity`` (how alike are the rankings of runs?) and ``cranfield repro`` (did the
reproduction succeed? Breuer et al., SIGIR 2020)."""

from __future__ import annotations

import argparse
from typing import Any

from cranfield.cli.options import add_format_option, write_result

SIMILARITY_EPILOG = """\
similarities (docs/reproducibility.md): RBO(p=0.9,variant=ext|min|max|res,ties=a|w|b) (Webber, Moffat &
Zobel, TOIS 2010; ties as Corsi & Urbano, SIGIR 2024; default ties=a: a tie in scores means the
order is not known, and a is the expected RBO over random tie breaking), RBO@k (both rankings cut
at k first), nRBO(p=0.95)@k (repro_eval's truncated normalised RBO), KTU@k (Kendall's tau union as
repro_eval computes it), Jaccard@k.

examples:
  D=$(python -c 'import cranfield, pathlib; print(pathlib.Path(cranfield.__file__).parent / "data")')
  cranfield similarity $D/web2012.ql.run.gz $D/web2012.rm.run.gz -m 'RBO(p=0.9)' -m KTU@10 -m Jaccard@10
  cranfield similarity runs/*.gz --reference runs/base.gz -m 'RBO(p=0.95,variant=min)' --format csv
  cranfield similarity a.run b.run -m RBO --per-topic --format json -o similarity.json
"""

REPRO_EPILOG = """\
rows (every format): statistic (KTU, RBO, RMSE, ER, DeltaRI, p), measure (empty for KTU and RBO),
run (baseline or advanced; empty for ER and DeltaRI), cutoff (KTU and RBO), topic (an id or all),
value. RBO here is repro_eval's (p = 0.95, truncated at the cutoff and normalised), not RBO_ext.
With --rep-qrels (a replication on another collection) only ER, DeltaRI and unpaired t-test
p-values are defined.

examples:
  cranfield repro --qrels qrels.txt --orig-baseline b.run --orig-advanced a.run \\
      --rep-baseline b2.run --rep-advanced a2.run -m AP -m nDCG@10 -m 'alpha-nDCG@20'
  cranfield repro --qrels q.txt --orig-baseline b.run --orig-advanced a.run --rep-baseline b2.run \\
      --rep-advanced a2.run --rep-qrels q2.txt -m AP --format csv -o replication.csv
  cranfield repro ... --cutoffs 10,100 --per-topic --plot repro.png
  cranfield repro ... --format html -o repro.html
"""



def add_parser(sub: Any) -> None:
    """The ``cranfield similarity`` and ``cranfield repro`` subcommands."""
    from cranfield.cli.options import add_input_options, add_output_option
    from cranfield.io.run import ORDERS

    p = sub.add_parser(
        "similarity", help="how alike are the rankings of runs? (RBO, KTU, Jaccard per topic and mean)",
        description="Similarity between the rankings of every pair of runs (or of each run and --reference), per "
                    "topic and in the mean over the topics both rank: rank-biased overlap with its variants and "
                    "treatments of ties, Kendall's tau union, Jaccard.",
        epilog=SIMILARITY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("runs", nargs="+", metavar="run")
    p.add_argument("-m", "--measure", action="append", metavar="SIMILARITY",
                   help="a similarity (repeatable, or comma-separated; default RBO)")
    p.add_argument("--reference", metavar="RUN", help="compare each run with RUN only (not every pair)")
    p.add_argument("-q", "--per-topic", action="store_true", help="per-topic rows in the table (csv, json and "
                   "parquet always have them)")
    add_format_option(p, "similarity", note="the rows of csv, json and parquet are run_a, run_b, topic, measure, value")
    p.add_argument("--order", choices=ORDERS, default="score",
                   help="how run lines are ranked: score (trec_eval; default), rank column, or file order")
    p.add_argument("--on-duplicate", choices=("error", "first"), default="error",
                   help="a document twice in a topic of a run: error (default) or keep the first line")
    add_output_option(p)
    p.set_defaults(handler=_similarity)

    r = sub.add_parser(
        "repro", help="did the reproduction succeed? (KTU, RBO, RMSE, ER, ΔRI, p; Breuer et al. 2020)",
        description="Breuer et al.'s (SIGIR 2020) measures of a reproduced (same collection) or replicated "
                    "(--rep-qrels) experiment with a baseline and an advanced run, on any cranfield measure.",
        epilog=REPRO_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    r.add_argument("--qrels", required=True, help="the original collection's qrels")
    for role in ("orig-baseline", "orig-advanced", "rep-baseline", "rep-advanced"):
        r.add_argument(f"--{role}", required=True, metavar="RUN")
    r.add_argument("--rep-qrels", metavar="QRELS", help="the qrels of another collection: a replication")
    r.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="a measure (repeatable, or comma-separated; default AP, nDCG, P@10)")
    r.add_argument("--cutoffs", default="5,10,20,50,100,1000", metavar="K,K,...",
                   help="the cutoffs of KTU and RBO (default 5,10,20,50,100,1000)")
    r.add_argument("-q", "--per-topic", action="store_true", help="per-topic rows in the table")
    add_format_option(r, "repro", note="the rows of csv, json and parquet are statistic, measure, run, cutoff, "
                                       "topic, value; html is a page with the provenance (the runs' ir_metadata "
                                       "headers), the means and the figures")
    r.add_argument("--provenance", metavar="FILE", help="write the version, settings and the runs' ir_metadata "
                   "headers to FILE as an ir_metadata header (# ir_metadata.start ... # ir_metadata.end)")
    r.add_argument("--plot", metavar="FILE", help="save per-topic differences and KTU/RBO against the cutoff "
                   "(.png, .svg, .pdf, ...)")
    add_output_option(r)
    add_input_options(r.add_argument_group("reading the qrels and runs (as in `cranfield eval`)"))
    r.set_defaults(handler=_repro)


def _check(args: Any) -> None:
    """Output checks shared by both commands, before any work."""
    from cranfield.cli.options import check_output

    check_output(args)


def _similarity(args: Any) -> int:
    from cranfield.analysis.similarity import compare_rankings
    from cranfield.cli.options import split_measures
    from cranfield.errors import CranfieldError
    from cranfield.measures.similarity import parse_similarity

    _check(args)
    measures = split_measures(args.measure) or ["RBO"]
    for name in measures:  # every name checked before any run is read
        parse_similarity(name)
    if len(args.runs) < 2 and args.reference is None:
        raise CranfieldError("similarity needs two runs or more, or --reference RUN")
    result = compare_rankings(args.runs, measures, reference=args.reference, order=args.order,
                              on_duplicate=args.on_duplicate)
    return write_result(args, result, per_topic=args.per_topic)


def _repro(args: Any) -> int:
    from cranfield.analysis.repro import reproduce
    from cranfield.cli.options import qrels_options_from, run_options_from, split_measures
    from cranfield.errors import invalid

    _check(args)
    if args.plot:
        from cranfield.render.plots import check_plot_path

        check_plot_path(args.plot)
    try:
        cutoffs = [int(k) for k in args.cutoffs.split(",")]
    except ValueError:
        raise invalid("value of --cutoffs", "positive integers separated by commas (5,10,100)", args.cutoffs) from None
    options = {**qrels_options_from(args), **run_options_from(args)}
    result = reproduce(args.qrels, args.orig_baseline, args.orig_advanced, args.rep_baseline, args.rep_advanced,
                       split_measures(args.measure) or ["AP", "nDCG", "P@10"], rep_qrels=args.rep_qrels,
                       cutoffs=cutoffs, order=args.order, on_duplicate=args.on_duplicate, **options)
    write_result(args, result, per_topic=args.per_topic)
    if args.plot:
        from cranfield.render.plots import plot_repro

        plot_repro(result, args.plot)
    if args.provenance:
        from cranfield._output import write_text
        from cranfield.io.ir_metadata import format_ir_metadata

        write_text(args.provenance, format_ir_metadata(result.metadata), "provenance file")
    return 0
