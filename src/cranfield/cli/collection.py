"""``cranfield collection`` (how diverse is each topic?) and ``cranfield dss`` (how sensitive is a
measure to diversity?), after Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5 and §7."""

from __future__ import annotations

import argparse
from typing import Any

from cranfield.analysis.options import MAX_RUNS
from cranfield.cli.meta import add_test_options
from cranfield.cli.options import add_format_option, add_run_options, chosen_format, write_result
from cranfield.errors import CranfieldError
from cranfield.evaluation.options import AVERAGES

COLLECTION_EPILOG = """\
per topic: M declared intents, R relevant documents (to some intent), R_i per intent, xi (the
fewest relevant documents covering every subtopic, exact; --xi greedy: the greedy set cover, ties
to the larger docno; a warning lists the topics where greedy needs more), the depth k used, d_max
(maximum S-recall), d_mean(k) (expected S-recall of k random relevant documents, Eq. 1), dd (their
harmonic mean, Eq. 2) and smr_i(k) (subtopic miss rate, Eq. 3); then min/max/mean of dd (Table 2). Equations and tables:
Golbus, Aslam & Clarke, Inf. Retr. 2013. --depth xi reproduces its Table 3 (smr); Table 1's dd
values need --depth xi+1.

With --permuted N: N artificial runs, each ranking every topic's relevant documents in a uniformly
random order (perfect combined precision), and the discriminative power of each -m measure over
them (paired bootstrap test, B = 1000, alpha = 0.05 by default): Figure 6 of Golbus, Aslam &
Clarke, where it is almost an order of magnitude below that on real runs.
With runs: the runs scored by each -m measure, averaged over topics in each way of --averages
(avg, geom, dd@xi, dd@xi+1 by default; dd = weights 1 - dd(t) at that depth), and Kendall's tau
between the run orderings of each pair of averagings (their Tables 6-7), then between each pair of
measures under each averaging (Table 8, with the alpha#-IA subtopic averagings as the measures).

examples:
  cranfield collection qrels.diversity.txt
  cranfield collection qrels.diversity.txt --depth xi+1 --plot dd.png
  cranfield collection qrels.diversity.txt --format json > collection.json
  cranfield collection qrels.diversity.txt --permuted 50 -m 'alpha#-IA@20,alpha#-IA(subtopics=geom)@20,ERR-IA@20'
  cranfield collection qrels.diversity.txt runs/* -m ERR-IA@20,D#-nDCG@20 --averages avg,geom,dd@xi+1
"""

DSS_EPILOG = """\
DSS = SD/mean of a measure over n random permutations of each topic's relevant documents cut at
k (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7): every such ranking is perfect at ad hoc
retrieval, so what varies is diversity.
Give measures without @k; each is evaluated at every k. Measures that can be negative are refused.
--average geom floors each topic's DSS at --geom-floor (default 1e-5): topics whose permutations
all score the same (DSS 0) count as that floor, so it decides the geom rows of Table 10.

examples:
  cranfield dss qrels.diversity.txt -m alpha-nDCG,ERR-IA,I-rec,D#-nDCG --k 5,10,20 --n 1000
  cranfield dss qrels.diversity.txt -m 'alpha#-IA(subtopics=geom)' --average dd
  cranfield dss qrels.diversity.txt -m alpha-nDCG,ERR-IA --average geom --geom-floor 1e-3
  cranfield dss qrels.diversity.txt --sweep --plot dss.png      # alpha#-IA against lambda and alpha
"""


def _qrels_options(p: argparse.ArgumentParser) -> None:
    from cranfield.cli.options import add_output_option, add_qrels_options

    p.add_argument("qrels", help="diversity qrels: qid intent docno rel (ad hoc qrels give one intent per topic)")
    add_qrels_options(p)
    add_output_option(p)


def _ks(text: str) -> list[str]:
    """The cutoffs of ``--k``: comma-separated (each checked by :func:`cranfield.analysis.dss.check_sizes`)."""
    from cranfield.errors import invalid

    parts = [x.strip() for x in text.split(",")]
    if not all(parts):
        raise invalid("--k", "cutoffs separated by commas, e.g. 5,10,20", text)
    return parts


def _check_files(args: argparse.Namespace) -> None:
    """The -o and --plot files, checked before any work."""
    from cranfield.cli.options import check_output
    from cranfield.render.plots import check_plot_path

    check_output(args)
    if args.plot:
        check_plot_path(args.plot)


def add_parser(sub: Any) -> None:
    """The ``cranfield collection`` and ``cranfield dss`` subcommands."""
    _add_collection(sub)
    _add_dss(sub)


def _add_collection(sub: Any) -> None:
    c = sub.add_parser(
        "collection", help="how diverse is each topic? (xi, d_max, d_mean, dd, smr)",
        description="Collection diversity from the judgments alone (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4-5): "
                    "per topic the minimum set cover xi, maximum and expected S-recall, diversity difficulty dd and "
                    "the subtopic miss rate of each intent.",
        epilog=COLLECTION_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _qrels_options(c)
    c.add_argument("--depth", default="xi", metavar="D",
                   help="depth k of d_mean, dd and smr: xi (default), xi+1 or an integer from 0 to 1,000,000")
    c.add_argument("--xi", choices=("exact", "greedy"), default="exact",
                   help="xi: the minimum set cover (default) or the greedy one (an upper bound)")
    c.add_argument("--rel", default="1", help="the lowest label counted as relevant, >= 1 (default 1)")
    add_format_option(c, "collection", note="json is one object per topic (with --permuted or runs: one "
                                            "document); csv goes with --permuted or runs")
    c.add_argument("--plot", metavar="FILE",
                   help="save a histogram of dd over topics (Golbus, Aslam & Clarke, Inf. Retr. 2013, Figure 2)")
    c.add_argument("runs", nargs="*", metavar="run",
                   help="runs: compare the topic averagings of each -m measure (Golbus, Aslam & Clarke, Inf. Retr. "
                        "2013, Tables 6-7)")
    c.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="with runs or --permuted: a measure with its cutoff (repeatable, or comma-separated)")
    c.add_argument("--averages", metavar="A,B,...",
                   help="with runs: the topic averagings compared, at least two of avg, geom, dd (= dd@xi), dd@xi, "
                        "dd@xi+1, dd@K (default avg,geom,dd@xi,dd@xi+1)")
    c.add_argument("--permuted", metavar="N",
                   help="discriminative power of the -m measures over N artificial runs, each a random permutation "
                        f"of every topic's relevant documents, 2 to {MAX_RUNS} (Golbus, Aslam & Clarke, Inf. Retr. "
                        "2013, Figure 6: 50)")
    g = c.add_argument_group("--permuted: the significance test (as in `cranfield discpower`)")
    add_test_options(g, "bootstrap", seed_of="the permutations and the resampling")
    add_run_options(c.add_argument_group("reading the runs (as in `cranfield eval`)"))
    c.set_defaults(handler=_run_collection)


def _add_dss(sub: Any) -> None:
    from cranfield.cli.options import split_measures

    d = sub.add_parser(
        "dss", help="document selection sensitivity of measures (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7)",
        description="Document selection sensitivity: the coefficient of variation of each measure over n "
                    "random permutations of each topic's relevant documents cut at k, averaged over topics.",
        epilog=DSS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _qrels_options(d)
    d.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="a measure without @k (repeatable, or comma-separated)")
    d.add_argument("--k", default="5,10,20", metavar="K,...", help="cutoffs from 1 to 10,000 (default 5,10,20)")
    d.add_argument("--n", default="1000", help="permutations per topic, 2 to 100,000, n times the largest k at most "
                                              "4,194,304 (default 1000)")
    d.add_argument("--seed", default="0", help="random seed, an integer >= 0 (default 0)")
    d.add_argument("--average", choices=AVERAGES, default="avg",
                   help="topic averaging: avg (default), geom (floor --geom-floor) or dd (weights 1 - dd at --depth)")
    d.add_argument("--geom-floor", default="1e-5", metavar="EPS",
                   help="floor of each topic's DSS in --average geom, > 0 (default 1e-5, trec_eval's gm_map)")
    d.add_argument("--depth", default="xi", metavar="D", help="depth of dd for --average dd: xi (default), xi+1 or "
                                                              "an integer from 0 to 1,000,000")
    d.add_argument("--sweep", action="store_true",
                   help="add alpha#-IA measures over lambda (alpha=0.3) and alpha (lambda=0.5) for every subtopic "
                        "averaging (Golbus, Aslam & Clarke, Inf. Retr. 2013, Figures 8-9)")
    d.add_argument("--discount", choices=("err", "dcg", "rbp"), default="dcg", help="discount of the --sweep measures")
    d.add_argument("--per-topic", action="store_true", help="also each topic's DSS (json and csv)")
    add_format_option(d, "dss", note="with --per-topic, json and csv hold each topic's DSS too")
    d.add_argument("--plot", metavar="FILE", help="save DSS of the alpha#-IA measures against lambda and alpha")
    d.set_defaults(handler=lambda args: _run_dss(args, split_measures(args.measure)))


def _run_collection(args: argparse.Namespace) -> int:
    from cranfield.analysis.diversity import collection_diversity
    from cranfield.cli.options import qrels_options_from

    if args.runs or args.permuted is not None:
        return _run_collection_study(args)
    for given, option in ((args.measure, "-m"), (args.averages, "--averages")):
        if given:
            raise CranfieldError(f"{option} goes with runs (topic averagings) or --permuted N (artificial runs)")
    if chosen_format(args) == "csv":
        raise CranfieldError("--format csv goes with runs or --permuted; the per-topic table is table or json")
    _check_files(args)
    result = collection_diversity(args.qrels, depth=args.depth, rel=args.rel, xi=args.xi, **qrels_options_from(args))
    gaps = result.greedy_gaps()
    if gaps and args.xi == "exact":
        from cranfield.errors import listing, warn

        warn(f"the greedy set cover is larger than the minimum xi for {len(gaps)} topics (topic: greedy > exact): "
             + listing([f"{t}: {g} > {x}" for t, g, x in gaps]))
    write_result(args, result)
    if args.plot:
        from cranfield.render.plots import plot_collection_diversity

        plot_collection_diversity(result, args.plot)
    return 0


def _run_dss(args: argparse.Namespace, measures: list[str]) -> int:
    from cranfield.analysis.dss import at_cutoff, check_sizes, dss, sweep_measures
    from cranfield.cli.options import qrels_options_from
    from cranfield.errors import CranfieldError, check_float, check_int
    from cranfield.measures.topics import check_depth

    _check_files(args)
    ks, n = check_sizes(_ks(args.k), args.n)
    seed = check_int(args.seed, "--seed", low=0)
    depth = check_depth(args.depth)
    eps = check_float(args.geom_floor, "--geom-floor", low=0, open_low=True)
    if args.sweep:
        measures = measures + [m for m in sweep_measures(discount=args.discount) if m not in measures]
    if not measures:
        raise CranfieldError("give measures with -m (without @k), or --sweep")
    if args.plot and sum(at_cutoff(m, 1).name == "alpha#-IA" for m in measures) < 2:  # before the work
        raise CranfieldError("--plot shows alpha#-IA measures against lambda and alpha: add --sweep, or give "
                             "several alpha#-IA measures with -m")
    result = dss(args.qrels, measures, k=ks, n=n, seed=seed, average=args.average, depth=depth, eps=eps,
                 **qrels_options_from(args))
    write_result(args, result, per_topic=args.per_topic)
    if args.plot:
        from cranfield.render.plots import plot_dss

        plot_dss(result, args.plot)
    return 0


def _run_collection_study(args: argparse.Namespace) -> int:
    """``collection QRELS --permuted N -m ...`` (Figure 6) or ``collection QRELS RUN... -m ...`` (Tables 6-7)."""
    from cranfield.cli.options import check_output, qrels_options_from, run_options_from, split_measures
    from cranfield.errors import check_float, check_int

    if args.runs and args.permuted is not None:
        raise CranfieldError("give either runs (compare topic averagings) or --permuted N (artificial runs), not both")
    if args.plot:
        raise CranfieldError("--plot draws the dd histogram of the per-topic table; it does not go with runs or "
                             "--permuted")
    measures = list(dict.fromkeys(split_measures(args.measure)))
    if not measures:
        raise CranfieldError("give the measures with -m, with their cutoff (e.g. -m ERR-IA@20)")
    check_output(args)
    if args.permuted is not None:
        from cranfield.analysis.permuted import permuted_power
        from cranfield.meta.registry import check_resamples

        if args.averages:
            raise CranfieldError("--averages goes with runs, not with --permuted")
        n = check_int(args.permuted, "--permuted", low=2, high=MAX_RUNS)
        seed = check_int(args.seed, "--seed", low=0)
        alpha = check_float(args.alpha, "--alpha", low=0, high=1, open_low=True, open_high=True)
        b = None if args.B is None else check_resamples(args.B, "number of resamples --B", text=True)
        power = permuted_power(args.qrels, measures, n_runs=n, seed=seed, test=args.test, alpha=alpha,
                               n_resamples=b, rel=check_int(args.rel, "--rel", low=1), **qrels_options_from(args))
        header = (f"# {n} artificial runs (random permutations of each topic's relevant documents, seed {seed}), "
                  f"{len(power.topics)} topics; discriminative power at alpha={alpha:g} "
                  "(Golbus, Aslam & Clarke, Inf. Retr. 2013, Figure 6)")
        return write_result(args, power, "collection-permuted", header=header)
    from cranfield.analysis.topic_averaging import DEFAULT_AVERAGINGS, averaging_correlation
    from cranfield.io import as_run

    for option, value, default in (("--test", args.test, "bootstrap"), ("--B", args.B, None),
                                   ("--alpha", args.alpha, "0.05")):
        if value != default:
            raise CranfieldError(f"{option} goes with --permuted (the significance test of the artificial runs)")
    averages = args.averages or ",".join(DEFAULT_AVERAGINGS)
    runs = [as_run(r, order=args.order, on_duplicate=args.on_duplicate) for r in args.runs]
    result = averaging_correlation(args.qrels, runs, measures, averagings=averages, **qrels_options_from(args),
                                   **run_options_from(args))
    header = (f"# Kendall's tau between the run orderings under two topic averagings ({len(result.runs)} runs, "
              f"{len(result.topics)} topics; Golbus, Aslam & Clarke, Inf. Retr. 2013, Tables 6-7)")
    return write_result(args, result, "collection-runs", header=header)
