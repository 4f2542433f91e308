"""The meta-evaluation subcommands: ``compare``, ``discpower``, ``correlate``, ``intuitiveness``
and ``coverage``.

Each evaluates the runs against the qrels (the options of ``cranfield eval`` that decide the
scores are accepted), builds the topics × runs score matrices and hands them to
:mod:`cranfield.meta`; ``compare`` is a front end over :class:`cranfield.render.report.Report`.
The table format starts with one ``#`` line of provenance (version, settings, test, B, α,
seed); ``--format csv`` is a header row and data rows only and ``--format json`` one JSON array
of objects, the provenance going to ``--provenance FILE``.
"""

from __future__ import annotations

import argparse
import json
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

from cranfield.analysis.options import DEFAULT_CORRECTION
from cranfield.cli.options import add_format_option, add_nuggets_option, write_result
from cranfield.meta.registry import CORRECTIONS, MAX_RESAMPLES, MAX_SAMPLES, lookup, names, resampling

CORRECTION_CHOICES = CORRECTIONS  # the choices of --correction, as cranfield.meta names them

SCORES_EPILOG = """\
scores: runs are evaluated as by `cranfield eval` (same --order, --missing, --norel,
--diversity, --intents, ... options); each measure gives a topics × runs matrix.
--nuggets FILE... scores generated answers by nugget assignments instead of runs against
qrels, with nugget measures (-m V_strict -m A; `cranfield nuggets --help`, docs/nuggets.md).
"""
COMMON_EPILOG = SCORES_EPILOG + """\
random draws: --seed (an integer >= 0; default 0) makes every resampling result reproducible
bit for bit; each measure uses the same draws.
"""


def listed(words: Sequence[str]) -> str:
    """``a, b and c``."""
    return ", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else "".join(words)


def tests_epilog() -> str:
    """The tests paragraph of ``--help``, from the registry (:mod:`cranfield.meta.registry`)."""
    tests = [lookup(name) for name in names()]
    described = [f"{t.name}\xa0=\xa0{t.summary}" + (f" (B\xa0=\xa0{t.default_resamples:,})" if t.resampling else "")
                 for t in tests]  # no line break around " = "
    family = listed([t.name for t in tests if t.all_systems])
    text = (f"tests (two-sided): {'; '.join(described)}. The {family} tests need no --correction. "
            "(Changed: --test tukey used to be the randomised test, now tukey-randomised.)")
    return textwrap.fill(text, 93, break_on_hyphens=False).replace("\xa0", " ") + "\n"


COMPARE_EPILOG = """\
corrections: bonferroni, holm, hommel, bh (Benjamini-Hochberg FDR), by (Benjamini-Yekutieli FDR).
ASL/p-values have no +1 correction (docs/conventions.md#meta).

markers: with all pairs, each run gets a letter and a cell lists the letters of the runs it
is significantly better than (p < alpha); with --baseline, '+' / '-' mark runs significantly
better / worse than the baseline (daggers in latex). latex is a booktabs table (best value per
measure in bold, caption and label: --caption, --label); markdown a GitHub table; html the
report of `cranfield report`. json and csv give one row per pair: the mean difference, its paired
t and percentile bootstrap confidence intervals (95%, B = 2,000), the effect size d_z = mean/sd
of the per-topic differences, wins/ties/losses over topics, the p-values (docs/report.md).

""" + COMMON_EPILOG + """
examples:
  cranfield compare qrels.txt runs/*.gz -m AP -m nDCG@10
  cranfield compare qrels.txt base.run new1.run new2.run -m AP --baseline base.run --test randomization
  cranfield compare qrels.txt runs/*.gz -m AP,P@10 --test t --correction holm --format latex > table.tex
  cranfield compare qrels.txt runs/*.gz -m AP --format csv --provenance settings.json -o pairs.csv
  cranfield compare qrels.txt runs/*.gz -m AP --test tukey --format json
  cranfield compare --nuggets assignments.jsonl -m V_strict,A --test randomization --correction holm
"""

DISCPOWER_EPILOG = """\
discriminative power (Sakai, SIGIR 2006; Sakai, WWW 2012, §4): the fraction of run pairs whose
difference is significant, ASL < alpha, for each measure. delta is the difference in means
required for significance: for the bootstrap, the largest over pairs of the |mean| of the
resample at the floor(B·alpha)-th largest |t*| (Figure 3); for tukey, the smallest
significant difference (Figure 5). --plot draws the ASL curves (pairs sorted by ASL, one line
per measure) as PNG, SVG or PDF (by the file's extension).
--overlap prints instead, for each pair of measures, the run pairs significant by both
(both), by the first only (only_1) and by the second only (only_2) (Sakai, WWW 2012, Table 4).

""" + COMMON_EPILOG + """
examples:
  cranfield discpower qrels.txt runs/*.gz -m AP -m nDCG@10 -m P@10 --test bootstrap --B 1000
  cranfield discpower qrels.div runs/*.gz -m alpha-nDCG@10 -m 'D#-nDCG@10' --test tukey --plot asl.png
  cranfield discpower qrels.txt runs/*.gz -m AP --test t --correction holm --format json
  cranfield discpower qrels.div runs/*.gz -m I-rec@10 -m 'P+Q#@10' --test tukey-randomised --B 1000 --overlap
  cranfield discpower --nuggets assignments.jsonl -m V_strict -m A --test bootstrap --B 1000
"""

CORRELATE_EPILOG = """\
the runs are ordered by each measure's mean score; for every pair of measures: Kendall's
tau-b (ties counted), the symmetric AP correlation tau_ap (Yilmaz, Aslam and Robertson 2008;
mean of both directions; tied means broken by run name, with a warning) and Spearman's rho.

""" + SCORES_EPILOG + """
examples:
  cranfield correlate qrels.txt runs/*.gz -m AP -m nDCG@10 -m P@10
  cranfield correlate qrels.txt runs/*.gz -m AP,RR,'RBP(p=0.8)' --format csv
"""

INTUITIVENESS_EPILOG = """\
Sakai, WWW 2012, Figure 6: over every topic and pair of runs where two measures prefer different
runs, the fraction where each agrees with the gold standard (a gold-standard tie counts as
agreement; with two --gold measures both must agree). Every pair of -m measures is reported.
Gold standards for diversity: I-rec@l (intent recall, 'diversity') and Ef-P@l (effective
precision, 'relevance'); give navigational intents with --intents or --intent-types.

""" + SCORES_EPILOG + """
examples:
  cranfield intuitiveness qrels.div runs/*.gz -m alpha-nDCG@10 -m 'D#-nDCG@10' --gold I-rec@10
  cranfield intuitiveness qrels.div runs/*.gz -m alpha-nDCG@10 -m 'DIN#-nDCG@10' -m 'P+Q#@10' \\
      --gold I-rec@10 --gold Ef-P@10 --intent-types topics.xml
"""

COVERAGE_EPILOG = """\
Amigó, Mizzaro & Spina, SIGIR 2022, §4.4: --pairs ordered topic pairs (t1, t2) are drawn once; UIR(s, s') counts the
pairs where run s at t1 is at least run s' at t2 on every --reference measure, minus the
reverse, over the number of pairs; Cov(M) is Spearman's rho between M(s) - M(s') and
UIR(s, s') over all ordered pairs of distinct runs.

""" + COMMON_EPILOG + """
examples:
  cranfield coverage qrels.txt runs/*.gz -m nDCG -m 'RBP(p=0.8)' -m RR --reference P@10 --reference R@100 --reference RR
"""


# --------------------------------------------------------------------------- parsers
def add_parser(sub: Any) -> None:
    """Add the meta-evaluation subcommands to the ``cranfield`` parser."""
    commands: list[tuple[str, str, str, str, Callable[..., None], Callable[[argparse.Namespace, Any], int]]] = [
        ("compare", "significance tests between runs: a results table with markers",
         "Evaluate runs and test every pair (or every run against --baseline) for significant "
         "differences, printing mean scores with significance markers, as in a paper's table.",
         tests_epilog() + COMPARE_EPILOG, _compare_options, _run_compare),
        ("discpower", "discriminative power of measures, with the delta required and ASL curves",
         "For each measure, test every pair of runs and report the fraction of pairs with a "
         "significant difference (discriminative power) and the difference required for significance.",
         DISCPOWER_EPILOG, _discpower_options, _run_discpower),
        ("correlate", "rank correlations (Kendall tau-b, tau_ap, Spearman rho) between measures",
         "Compare the orderings of the runs by each measure's mean score, for every pair of measures.",
         CORRELATE_EPILOG, lambda p: None, _run_correlate),
        ("intuitiveness", "intuitiveness of measures by agreement with gold-standard measures",
         "Where two measures disagree about which of two runs is better on a topic, how often "
         "each agrees with the gold standard(s) (Sakai, WWW 2012, Figure 6).",
         INTUITIVENESS_EPILOG, _intuitiveness_options, _run_intuitiveness),
        ("coverage", "Quality Aspect Coverage (UIR) of measures against reference measures",
         "How well each measure's differences follow unanimous improvements on a reference set of "
         "measures (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4).",
         COVERAGE_EPILOG, _coverage_options, _run_coverage),
    ]
    for name, summary, description, epilog, options, handler in commands:
        p = sub.add_parser(name, help=summary, description=description, epilog=epilog,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("qrels", nargs="?", help="qrels file: qid iter docno rel (or diversity qrels: qid intent docno "
                                                "rel)")
        p.add_argument("runs", nargs="*", metavar="run", help="run files: qid Q0 docno rank score tag")
        p.add_argument("-m", "--measure", action="append", metavar="MEASURE", required=True,
                       help="a measure name (repeatable, or comma-separated), e.g. -m AP -m nDCG@10")
        add_nuggets_option(p)
        options(p)
        add_format_option(p, name)
        if name in ("discpower", "correlate"):
            p.add_argument("--aspects", metavar="CONFIG",
                           help="TOMA/CAM/MM measures (Maistro et al., CIKM 2021): qrels is then qid iter docno "
                                "label_1 .. label_A, the aspects of CONFIG's labels in order (see `aspects eval`)")
        _input_options(p)
        p.set_defaults(handler=_checked(handler))


def add_tested_command(p: argparse.ArgumentParser, handler: Callable[[argparse.Namespace, Any], int],
                       default_test: str = "t") -> None:
    """The options of a command that scores runs and tests pairs of them as ``compare`` does
    (``--test``, ``--correction``, ``--B``, ``--alpha``, ``--seed``, scoring, ``-o``, the cluster):
    checked, then ``handler(args, client)``."""
    _test_options(p, default_test)
    _input_options(p)
    p.set_defaults(handler=_checked(handler, scoring_inputs=False))


def _checked(handler: Callable[[argparse.Namespace, Any], int], scoring_inputs: bool = True
             ) -> Callable[[argparse.Namespace], int]:
    """``handler(args, client)`` after :func:`_check_options` (and, with ``scoring_inputs``, the
    check of the qrels and runs or ``--nuggets``), with the Dask client of ``--dask`` or
    ``--workers`` (None: everything in this process)."""
    def run(args: argparse.Namespace) -> int:
        from cranfield.cli.options import check_scoring_inputs, cluster_from

        if scoring_inputs:
            check_scoring_inputs(args)
        _check_options(args)
        with cluster_from(args) as client:
            return handler(args, client)

    return run


def _input_options(p: argparse.ArgumentParser) -> None:
    from cranfield.cli.options import add_cluster_options, add_input_options, add_output_option

    g = p.add_argument_group("scoring (as in `cranfield eval`; --missing skip leaves holes, which "
                             "meta-evaluation rejects)")
    add_input_options(g)
    add_output_option(g)
    g.add_argument("--provenance", metavar="FILE",
                   help="write the version and settings as JSON to FILE (the csv and json outputs hold data only)")
    add_cluster_options(p.add_argument_group("where the work runs (docs/scaling.md)"))


def _random_options(p: Any, what: str = "the resampling") -> None:
    p.add_argument("--seed", default="0", help=f"random seed of {what}, an integer >= 0 (default: 0)")


def add_test_options(p: Any, default: str, seed_of: str = "the resampling") -> None:
    """``--test`` (``default``), ``--B``, ``--alpha`` and ``--seed`` (of ``seed_of``): the
    significance test of ``compare``, ``discpower``, ``report`` and ``collection --permuted``."""
    defaults = ", ".join(f"{t.name} {t.default_resamples}" for t in resampling())
    p.add_argument("--test", choices=names(), default=default, help=f"significance test (default: {default})")
    p.add_argument("--B", metavar="B", dest="B", help=f"resamples, 1 to {MAX_RESAMPLES:,} (default: {defaults})")
    p.add_argument("--alpha", default="0.05", help="significance level, in (0, 1) (default: 0.05)")
    _random_options(p, seed_of)


CORRECTION_HELP = (f"multiple-comparison correction over the pairs compared (default: {DEFAULT_CORRECTION}; none for "
                   "tukey and tukey-randomised, which control the family-wise error themselves)")


def add_correction_option(p: Any) -> None:
    """``--correction``, its default :data:`~cranfield.analysis.options.DEFAULT_CORRECTION` (None
    here, resolved with the test by :func:`~cranfield.analysis.comparison.default_correction`)."""
    p.add_argument("--correction", choices=CORRECTION_CHOICES, help=CORRECTION_HELP)


def _test_options(p: argparse.ArgumentParser, default: str) -> None:
    add_test_options(p, default)
    add_correction_option(p)


def _compare_options(p: argparse.ArgumentParser) -> None:
    _test_options(p, "t")
    p.add_argument("--baseline", metavar="RUN", action="append",
                   help="compare every run with this one (a run file given, or a run name) instead of all pairs; "
                        "repeatable: every run with each baseline, the correction over all those pairs")
    p.add_argument("--caption", help="--format latex: the table's caption (LaTeX; default: what the numbers are)")
    p.add_argument("--label", help="--format latex: the table's \\label")
    p.add_argument("--plot", metavar="FILE",
                   help="also save the figures (per measure: score distributions, the ranking with confidence "
                        "intervals, with --baseline the sorted per-topic differences) to FILE (.png, .svg, .pdf)")


def _discpower_options(p: argparse.ArgumentParser) -> None:
    _test_options(p, "bootstrap")
    p.add_argument("--plot", metavar="FILE", help="save the ASL curves to FILE (.png, .svg, .pdf, ...)")
    p.add_argument("--overlap", action="store_true",
                   help="print, for each pair of measures, the run pairs significant by both and by each alone")


def _intuitiveness_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--gold", action="append", metavar="MEASURE", required=True,
                   help="gold-standard measure, e.g. I-rec@10 or Ef-P@10 (repeatable: all must agree)")


def _coverage_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--reference", action="append", metavar="MEASURE", required=True,
                   help="a measure of the reference set (repeatable), e.g. P@10, R@100, RR")
    p.add_argument("--pairs", default="1000", help=f"sampled topic pairs, 1 to {MAX_SAMPLES:,} (default: 1000)")
    _random_options(p)


# --------------------------------------------------------------------------- shared steps
def _measures(values: list[str] | None) -> list[str]:
    from cranfield.cli.options import split_measures

    return list(dict.fromkeys(split_measures(values)))


def _scores(args: argparse.Namespace, measures: list[str], client: Any = None) -> Any:
    """Evaluate the runs (on the Dask ``client``'s cluster when given): :class:`~cranfield.Results`
    with the measures in order."""
    from cranfield.cli.options import evaluator_from, nugget_results

    nuggets = nugget_results(args, measures)
    if nuggets is not None:
        return nuggets
    if getattr(args, "aspects", None):
        from cranfield.cli.aspects import aspect_results

        return aspect_results(args, measures)
    return evaluator_from(args, args.qrels, measures).evaluate(args.runs, order=args.order,
                                                               on_duplicate=args.on_duplicate, client=client)


def _header(args: argparse.Namespace, results: Any, command: str, settings: dict[str, Any]) -> str:
    """The ``#`` provenance line of the text formats (version, scoring settings, the command's
    own settings); with ``--provenance FILE`` the same as JSON in FILE."""
    from cranfield.render.tables import provenance_line

    given = {k: v for k, v in settings.items() if v is not None}
    if getattr(args, "provenance", None):
        from cranfield._output import write_text

        doc = {**results.provenance, "command": command, **given}
        write_text(args.provenance, json.dumps(doc, indent=1, default=str) + "\n", "provenance file")
    extra = " ".join(f"{k}={v}" for k, v in given.items())
    return f"{provenance_line(results)} command={command} {extra}".rstrip()


def _check_options(args: argparse.Namespace) -> None:
    """Check (and convert) the option values before any run is scored: --seed, --B, --alpha,
    --pairs, --test with --correction, and the -o and --plot files."""
    from cranfield.analysis.comparison import default_correction
    from cranfield.cli.options import check_cluster_options, check_output
    from cranfield.errors import check_int, warn
    from cranfield.meta._common import check_alpha, check_count
    from cranfield.meta.registry import check_resamples
    from cranfield.meta.significance import check_test
    from cranfield.render.plots import check_plot_path

    if getattr(args, "seed", None) is not None:
        args.seed = check_int(args.seed, "--seed", low=0)
    if getattr(args, "B", None) is not None:
        args.B = check_resamples(args.B, "number of resamples --B", text=True)
    if hasattr(args, "alpha"):
        args.alpha = check_alpha(args.alpha, text=True)
    if hasattr(args, "pairs"):
        args.pairs = check_count(args.pairs, "number of topic pairs --pairs", text=True)
    if hasattr(args, "test"):
        if getattr(args, "correction", "none") is None:
            args.correction = default_correction(args.test)
        check_test(args.test, args.correction)
        if args.B is not None and not lookup(args.test).resampling:
            warn(f"--B sets the resamples of the {listed([t.name for t in resampling()])} tests; the {args.test} "
                 "test draws none and ignores it")
    if getattr(args, "plot", None):
        check_plot_path(args.plot)
    check_output(args)
    check_cluster_options(args)


# --------------------------------------------------------------------------- compare
def _run_compare(args: argparse.Namespace, client: Any) -> int:
    """``cranfield compare``: a :class:`~cranfield.render.report.Report` in the format asked for."""
    from cranfield.cli.options import evaluator_from
    from cranfield.render.report import Report

    measures = _measures(args.measure)
    scored = _scores(args, measures) if args.nuggets else None
    systems = len(args.runs) if scored is None else len(scored.runs)
    if systems < 2:
        from cranfield.errors import CranfieldError

        raise CranfieldError(f"compare tests differences between runs: it needs at least 2 systems (runs); "
                             f"got {systems}")
    options = dict(baseline=args.baseline, test=args.test, correction=args.correction, alpha=args.alpha,
                   n_resamples=args.B, seed=args.seed, client=client)
    report = (Report.from_results(scored, files=[("nuggets", f) for f in args.nuggets], **options)
              if scored is not None else Report.from_evaluator(
        evaluator_from(args, args.qrels, measures), args.runs, order=args.order, on_duplicate=args.on_duplicate,
        **options))
    results, first = report.results, report.comparisons[0]
    if args.plot:
        from cranfield.render.plots import plot_results

        plot_results(results, args.plot, baseline=report.baseline, ci=[c.ci for c in report.comparisons])
    header = _header(args, results, "compare", {
        "test": args.test, "B": first.n_resamples, "alpha": args.alpha, "correction": args.correction,
        "seed": args.seed if first.n_resamples else None, "baseline": ",".join(report.baselines) or None,
    })
    return write_result(args, report, header=header, caption=args.caption, label=args.label)


# --------------------------------------------------------------------------- other commands
def _run_discpower(args: argparse.Namespace, client: Any) -> int:
    from cranfield.meta.power import discriminative_power, significance_overlap
    from cranfield.render.plots import plot_asl_curves

    measures = _measures(args.measure)
    results = _scores(args, measures, client)
    powers = [discriminative_power(results, measure=m, test=args.test, alpha=args.alpha, n_resamples=args.B,
                                   rng=args.seed, correction=args.correction, client=client) for m in measures]
    if args.plot:
        plot_asl_curves(powers, args.plot)
    b = powers[0].result.n_resamples
    header = _header(args, results, "discpower", {"test": args.test, "B": b, "alpha": args.alpha,
                                            "correction": args.correction, "seed": args.seed if b else None})
    if getattr(args, "overlap", False):
        rows = [o.to_dict() for o in significance_overlap(powers)]
        return write_result(args, rows, header=header + " overlap=yes")
    return write_result(args, [p.to_dict() for p in powers], header=header)


def _run_correlate(args: argparse.Namespace, client: Any) -> int:
    from cranfield.meta.agreement import correlation_matrix

    measures = _measures(args.measure)
    results = _scores(args, measures, client)
    rows = correlation_matrix(results, measures).rows()
    return write_result(args, rows, header=_header(args, results, "correlate", {}))


def _run_intuitiveness(args: argparse.Namespace, client: Any) -> int:
    from cranfield.errors import CranfieldError
    from cranfield.meta._common import all_pairs
    from cranfield.meta.agreement import intuitiveness

    measures = _measures(args.measure)
    gold = _measures(args.gold)
    if len(measures) < 2:
        raise CranfieldError("intuitiveness compares measures: give at least two -m")
    results = _scores(args, list(dict.fromkeys(measures + gold)), client)
    rows = [intuitiveness(results, measures[i], measures[j], gold).to_dict() for i, j in all_pairs(len(measures))]
    header = _header(args, results, "intuitiveness", {"gold": "+".join(gold)})
    return write_result(args, rows, header=header)


def _run_coverage(args: argparse.Namespace, client: Any) -> int:
    from cranfield.meta.uir import quality_aspect_coverage

    measures = _measures(args.measure)
    reference = _measures(args.reference)
    results = _scores(args, list(dict.fromkeys(measures + reference)), client)
    cov = quality_aspect_coverage(results, measures, reference, n_pairs=args.pairs, rng=args.seed, client=client)
    header = _header(args, results, "coverage", {"pairs": args.pairs, "seed": args.seed})
    return write_result(args, cov.rows(), header=header)
