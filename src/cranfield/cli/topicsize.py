"""``cranfield topicsize``: how many topics a test collection needs (Sakai, Inf. Retr. J. 2016),
with the variance estimated from runs' scores (:func:`cranfield.meta.topicsize.topic_set_size`)."""

from __future__ import annotations

import argparse
from typing import Any

EPILOG = """\
Sakai, "Topic set size design" (Inf. Retr. J. 2016): the variance sigma^2 is estimated from the
runs' scores on these qrels as the residual variance V_E of a two-way ANOVA without replication
(topics x runs; printed as variance). Designs:
  paired-t  the topics a two-sided paired t-test needs to detect a difference --min-delta with
            power 1 - beta (exact, noncentral t; sigma_t^2 = 2 sigma^2)
  anova     the topics a one-way ANOVA over the m runs needs to detect a range --min-delta of
            means with power 1 - beta (noncentral F)
  ci        (with --ci-width W) the topics for which the expected width of the 100(1 - alpha)%
            confidence interval of a difference is at most W
n is empty when more than 100,000 topics would be needed.

examples:
  cranfield topicsize qrels.txt --runs runs/*.gz -m AP
  cranfield topicsize qrels.txt --runs runs/*.gz -m AP -m nDCG@10 --beta 0.20 --min-delta 0.05 --ci-width 0.1
"""


def add_parser(sub: Any) -> None:
    """Add ``cranfield topicsize`` to the ``cranfield`` parser."""
    from cranfield.cli.options import add_format_option, add_input_options, add_output_option

    p = sub.add_parser("topicsize", help="topic set size design: the topics needed for a t-test, ANOVA or CI",
                       description="Estimate the variance of a measure from runs and compute the number of topics "
                                   "a test collection needs (Sakai, Inf. Retr. J. 2016).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("qrels", help="qrels file: qid iter docno rel (or diversity qrels)")
    p.add_argument("--runs", nargs="+", metavar="RUN", required=True, help="run files whose scores give the variance")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE", required=True,
                   help="a measure name (repeatable, or comma-separated)")
    p.add_argument("--alpha", default="0.05", help="type I error rate, in (0, 1) (default: 0.05)")
    p.add_argument("--beta", default="0.20", help="type II error rate, in (0, 1) (default: 0.20, power 0.8)")
    p.add_argument("--min-delta", dest="min_delta", default="0.05",
                   help="minimum detectable difference (t-test) or range of means (ANOVA) (default: 0.05)")
    p.add_argument("--ci-width", dest="ci_width", metavar="W", help="largest expected width of the confidence interval")
    add_format_option(p, "topicsize")
    g = p.add_argument_group("scoring (as in `cranfield eval`)")
    add_input_options(g)
    add_output_option(g)
    p.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    from cranfield._version import __version__
    from cranfield.cli.options import check_output, evaluator_from, split_measures, write_result
    from cranfield.errors import check_float
    from cranfield.meta._common import check_alpha
    from cranfield.meta.topicsize import topic_set_size

    alpha = check_alpha(args.alpha, text=True)
    beta = check_float(args.beta, "--beta", low=0, high=1, open_low=True, open_high=True)
    delta = check_float(args.min_delta, "--min-delta", low=0, open_low=True)
    width = None if args.ci_width is None else check_float(args.ci_width, "--ci-width", low=0, open_low=True)
    check_output(args)
    measures = list(dict.fromkeys(split_measures(args.measure)))
    results = evaluator_from(args, args.qrels, measures).evaluate(args.runs, order=args.order,
                                                                   on_duplicate=args.on_duplicate)
    rows = [row for m in measures for row in topic_set_size(
        results, measure=m, alpha=alpha, beta=beta, min_delta=delta, ci_width=width).rows()]
    header = (f"# cranfield {__version__} command=topicsize runs={len(results.runs)} topics={len(results.topics)} "
              f"alpha={alpha} beta={beta} min_delta={delta}" + (f" ci_width={width}" if width else ""))
    return write_result(args, rows, header=header)
