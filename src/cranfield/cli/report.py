"""``cranfield report``: evaluate and compare runs and write one report file — a self-contained
HTML page with the results table and figures (docs/report-html.md), or the LaTeX, Markdown, CSV,
JSON or Parquet of :class:`cranfield.render.report.Report`, by the extension of ``-o``."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from cranfield.cli.meta import add_correction_option, add_test_options

REPORT_EPILOG = """\
the HTML report is one file that loads nothing at view time (inline CSS and SVG figures; a
Content-Security-Policy forbids every request): the results table with significance and
confidence intervals and the per-pair tables first, per measure the system ranking with CIs, the
per-topic score distribution of every run and (with --baseline) the per-topic differences sorted
by size (hover a bar for its topic) with a per-topic table, interpolated precision-recall curves,
for diversity qrels the per-intent coverage and I-rec at depth, for truncation-aware measures the
run lengths, and last the settings and provenance (version, test and correction, options, file
names with sizes and SHA-256, topic-set warnings). Run tags, topic ids and file names are escaped.

-o picks the format by extension: .html, .tex (booktabs table), .md, .csv, .json, .parquet.

examples (on the TREC Web 2012 data bundled with cranfield):
  D=$(python -c 'import cranfield, pathlib; print(pathlib.Path(cranfield.__file__).parent / "data")')
  cranfield report $D/web2012.adhoc.qrels.gz $D/web2012.ql.run.gz $D/web2012.rm.run.gz \\
      -m AP,nDCG@20,P@10 --baseline $D/web2012.ql.run.gz -o report.html
  cranfield report $D/web2012.diversity.qrels.gz $D/web2012.*.run.gz -m alpha-nDCG@20,ERR-IA@20 -o div.html
  cranfield report $D/web2012.adhoc.qrels.gz $D/web2012.*.run.gz -m AP -m 'RBU(p=0.9)@20' --test randomization \\
      --B 2000 -o table.tex
  cranfield report --nuggets $D/rag.nuggets.jsonl -m V_strict,A -o nuggets.html
"""


def add_parser(sub: Any) -> None:
    """Add ``report`` to the ``cranfield`` parser."""
    from cranfield.cli.options import add_cluster_options, add_input_options, add_nuggets_option

    p = sub.add_parser("report", help="a shareable report: one self-contained HTML page with tables and figures",
                       description="Evaluate runs, test their differences and write one report file: a "
                                   "self-contained HTML page with the results table and figures (or LaTeX, "
                                   "Markdown, CSV, JSON, Parquet by the extension of -o).",
                       epilog=REPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", nargs="?", help="qrels file: qid iter docno rel (or diversity qrels: qid intent docno rel)")
    p.add_argument("runs", nargs="*", metavar="run", help="run files: qid Q0 docno rank score tag")
    add_nuggets_option(p)
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE", required=True,
                   help="a measure name (repeatable, or comma-separated), e.g. -m AP -m nDCG@10")
    p.add_argument("-o", "--output", metavar="FILE", required=True,
                   help="the report file: .html, .tex, .md, .csv, .json or .parquet (checked before the work; "
                        "written whole or not at all)")
    p.add_argument("--baseline", metavar="RUN", action="append",
                   help="compare every run with this one (a run file given, or a run name) instead of all pairs; "
                        "repeatable: every run with each baseline")
    p.add_argument("--judge", action="append", metavar="QRELS",
                   help="also compare another judge's qrels (a path, or name=path; repeatable) with QRELS on these "
                        "runs and measures: a section of the .md, .html and .json report (docs/judges.md)")
    add_test_options(p, "t")
    add_correction_option(p)
    p.add_argument("--confidence", default="0.95", help="level of the confidence intervals, in (0, 1) (default: 0.95)")
    g = p.add_argument_group("scoring (as in `cranfield eval`)")
    add_input_options(g)
    add_cluster_options(p.add_argument_group("where the work runs (docs/scaling.md)"))
    p.set_defaults(handler=run_report)


def _check(args: argparse.Namespace) -> None:
    """Every option value and the output file, before any run is read."""
    from pathlib import Path

    from cranfield._output import check_writable
    from cranfield.analysis.comparison import default_correction
    from cranfield.errors import check_float, check_int, invalid
    from cranfield.meta._common import check_alpha
    from cranfield.meta.registry import check_resamples
    from cranfield.meta.significance import check_test
    from cranfield.render.report import SAVE_FORMATS

    if Path(args.output).suffix.lower() not in SAVE_FORMATS:
        raise invalid("report file", "named with one of the extensions " + ", ".join(SAVE_FORMATS), args.output)
    check_writable(args.output, "report file")
    args.seed = check_int(args.seed, "--seed", low=0)
    args.B = None if args.B is None else check_resamples(args.B, "number of resamples --B", text=True)
    args.alpha = check_alpha(args.alpha, text=True)
    args.confidence = check_float(args.confidence, "confidence level --confidence", low=0, high=1,
                                  open_low=True, open_high=True)
    check_test(args.test, default_correction(args.test) if args.correction is None else args.correction)


def run_report(args: argparse.Namespace) -> int:
    """Build the :class:`~cranfield.render.report.Report` and save it to ``-o``."""
    import os

    from cranfield.cli.options import (
        check_cluster_options,
        check_scoring_inputs,
        cluster_from,
        evaluator_from,
        nugget_results,
        split_measures,
    )
    from cranfield.render.html import size_text
    from cranfield.render.report import Report

    check_scoring_inputs(args)
    _check(args)
    check_cluster_options(args)
    measures = list(dict.fromkeys(split_measures(args.measure)))
    with cluster_from(args) as client:
        options = dict(baseline=args.baseline, test=args.test, correction=args.correction, alpha=args.alpha,
                       n_resamples=args.B, seed=args.seed, confidence=args.confidence, client=client)
        if args.nuggets:
            report = Report.from_results(nugget_results(args, measures), files=[("nuggets", f) for f in args.nuggets],
                                         **options)
        else:
            report = Report.from_evaluator(evaluator_from(args, args.qrels, measures), args.runs, order=args.order,
                                           on_duplicate=args.on_duplicate, **options)
        if args.judge:
            report.compare_judges(args.judge, client=client)
    report.save(args.output)
    print(f"cranfield: wrote {args.output} ({size_text(os.path.getsize(args.output))})", file=sys.stderr)
    return 0
