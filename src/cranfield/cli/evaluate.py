"""``cranfield eval``, ``cranfield measures`` and ``cranfield example``."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Any

from cranfield.cli.options import (
    add_cluster_options,
    add_format_option,
    add_input_options,
    add_output_option,
    check_cluster_options,
    check_output,
    chosen_format,
    cluster_from,
    evaluator_from,
    split_measures,
    write_result,
)
from cranfield.errors import CranfieldError, check_float, check_int, invalid, listing, warn
from cranfield.evaluation.options import AVERAGES, SCORE_DTYPES

DEFAULT_MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000"]


# ndeval's 21 default columns, under ndeval's own names (cranfield reads them as aliases)
NDEVAL_MEASURES = [f"{name}@{k}" for name in ("ERR-IA", "nERR-IA", "alpha-DCG", "alpha-nDCG") for k in (5, 10, 20)] + [
    "NRBP", "nNRBP", "MAP-IA"] + [f"{name}@{k}" for name in ("P-IA", "strec") for k in (5, 10, 20)]


COMPAT_MEASURES = {"ndeval": NDEVAL_MEASURES, "trec_eval": ["official"],
                   "trec_eval10": ["official"],  # gdeval, ntcireval: _preset_request
                   "dd2017": ["CT@10", "ACT@10", "nCT@10"]}  # the TREC DD 2017 scorer's columns at its --cutoff
COMPAT_FORMATS = {"ndeval": "ndeval", "gdeval": "gdeval", "trec_eval": "trec", "trec_eval10": "trec",
                  "ntcireval": "ntcireval"}  # each tool's own layout, the default format under its --compat


EVAL_EPILOG = """\
measures use ir_measures' syntax: Name(param=value,...)@cutoff, e.g.
  -m P@10 -m AP -m nDCG@10 -m 'nDCG(gains=exp)@20' -m 'RBP(p=0.8)' -m 'Q@10'
several may share one -m, separated by commas: -m P@5,P@10,AP
`cranfield measures` lists every measure with its parameters and the paper it implements.

numbers are trec_eval's by default: runs ranked by score (compared as float32) with ties
broken by docno descending, labels >= 1 relevant, negative labels not relevant.
differences from trec_eval's defaults: topics of the qrels missing from a run score 0 and
count in the mean (trec_eval -c); use --missing skip for trec_eval without -c.
a run none of whose topics is in the qrels is an error (other qrels? a prefix such as wt12-:
--strip-topic-prefix); run topics not in the qrels, topics left out of a mean and a relevance
level (-l) no document reaches are named in warnings.

diversity: diversity qrels (qid intent docno rel, ndeval's format) are detected when the
second column varies within a topic, or forced with --diversity; --intents gives intent
probabilities (NTCIR Iprob files), --intent-types navigational/informational types.
  -m alpha-nDCG@20 -m ERR-IA@20 -m I-rec@10 -m 'IA(nDCG@10)' -m 'D#-nDCG@10' -m 'P+Q#@10'

TREC Dynamic Domain: cranfield eval --dd-truth truth.xml run.txt -m CT@10 -m nCT@10 -m ACT@10
(the truth XML or the 5-column text truth; --per-iteration adds the value after each iteration;
@c counts iterations); --compat dd2017 gives the TREC DD 2017 scorer's values exactly.

trec_eval users: trec_eval's names and options work too, e.g.
  cranfield eval -q -c -l 2 -M 100 -m map -m P.5,10 -m ndcg_cut.10 --format trec qrels.txt run.txt
and --compat trec_eval prints exactly what trec_eval -q prints (default -m official):
  cranfield eval --compat trec_eval -q qrels.txt run.txt
(--compat trec_eval10: trec_eval 10.0's, with rbp, rbp_resid and unj in all_trec)
trec_eval's multi-judge qrels (qid group docno rel; docs/judges.md#qrels_jg): -R qrels_jg scores
each measure under every group that judges a topic and averages over those groups:
  cranfield eval -R qrels_jg assessors.qrels_jg run1.txt run2.txt -m AP -m P@10
  cranfield eval --compat trec_eval -q -R qrels_jg assessors.qrels_jg run.txt

fairness over stochastic rankings (docs/fairness.md): --stochastic reads qid sample docno rank
score tag; --groups FILE (docno group [weight]) and --target for AWRF and nDCG*AWRF:
  -m EE-L -m EE-D -m EE-R -m 'EE-L(model=rbp,gamma=0.8)' -m AWRF -m 'nDCG*AWRF' --per-group

examples:
  cranfield eval qrels.txt run1.txt run2.txt -m AP -m nDCG@10
  cranfield eval qrels.txt run.txt -m P@10 --per-topic --format trec
  cranfield eval qrels.txt runs/*.gz -m AP,P@10 --format json > scores.json
"""


def _add_eval_options(p: argparse.ArgumentParser) -> None:
    add_input_options(p)
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help=f"a measure name (repeatable; default: {' '.join(DEFAULT_MEASURES)})")
    p.add_argument("-q", "--per-topic", action="store_true", help="also print one row per topic")
    add_format_option(p, "eval", default=None,
                      note="with --compat the tool's own layout is the default; the rows of csv, json and parquet "
                           "are run, topic, measure, value")
    p.add_argument("--compat", choices=("trec_eval", "trec_eval10", "gdeval", "ndeval", "ntcireval", "dd2017"),
                   help="trec_eval: its default measures (-m official), topics missing from a run skipped "
                        "unless -c, its output byte for byte (--format trec without the # line; trec_eval 9.0.x); "
                        "trec_eval10: trec_eval 10.0's (scores compared as doubles, recall levels rounded, "
                        "rbp, rbp_resid and unj in all_trec, -c -q printing the topics a run lacks); "
                        "gdeval: its ndcg@20 and err@20 (nDCG(gains=exp)@20, ERR(max_rel=4)@20), topics without "
                        "relevant documents or results skipped, scores compared as doubles, its CSV output "
                        "(gdeval.pl 1.2); ndeval: "
                        "ndeval's 21 default measures under its names, its CSV output, topic prefixes such as "
                        "wt09- stripped, documents ranked by score as ndeval -traditional ranks them (--order rank: "
                        "by the rank column, ndeval's default) (ndeval 4.5); ntcireval: NTCIREVAL compute's 19 "
                        "measures under its names "
                        "(needs -g; cutoffs from --cutoffs) in its layout (pyNTCIREVAL 0.0.3); dd2017: the TREC "
                        "DD 2017 scorer (trec-dd-jig scorer/cubetest.py; needs --dd-truth): CT@10, ACT@10, nCT@10 "
                        "by default, DD runs read as its reader reads them, nCT over its bound, topics missing "
                        "from a run skipped")
    p.add_argument("-R", "--qrels-format", choices=("qrels", "qrels_jg"), default="qrels",
                   help="qrels: TREC qrels (default); qrels_jg: trec_eval's multi-judge qrels (qid group docno rel), "
                        "each measure scored under every group that judges a topic and averaged over them "
                        "(trec_eval -R qrels_jg; its map_avgjg, P_avgjg, Rprec_mult_avgjg, -m qrels_jg)")
    p.add_argument("-g", "--gains", metavar="G",
                   help="gain vector for every measure with a gains parameter, e.g. 1:2:3 for labels 1..3 "
                        "(NTCIREVAL -g), or exp / linear")
    p.add_argument("--cutoffs", metavar="L[,L...]",
                   help="--compat ntcireval: the cutoffs of its @l measures (NTCIREVAL --cutoffs; default 1000); "
                        "--compat gdeval: its depth k (gdeval -k; default 20)")
    p.add_argument("--score-dtype", choices=SCORE_DTYPES, default=None,
                   help="compare run scores as C floats (trec_eval; default) or doubles (gdeval)")
    p.add_argument("-c", dest="complete", action="store_true",
                   help="average over all qrels topics, missing ones scored as the empty ranking (trec_eval -c; "
                        "= --missing empty: 0 for every measure but num_rel)")
    p.add_argument("-M", "--depth", metavar="N",
                   help="only the first N documents of each ranking count (trec_eval -M; N >= 1)")
    p.add_argument("-J", "--judged-only", action="store_true",
                   help="drop unjudged documents (and negative labels) from the rankings first (trec_eval -J)")
    p.add_argument("-l", "--rel-level", metavar="L",
                   help="the lowest label counted as relevant by binary measures (trec_eval -l; measure parameter "
                        "rel=L; L >= 1); a warning when no topic has a document labelled L or more")
    p.add_argument("--average", choices=AVERAGES, default="avg",
                   help="topic average of the 'all' row: avg (default), geom (trec_eval's gm_map, 1e-5 floor) "
                        "or dd (weights 1 - diversity difficulty; Golbus, Aslam & Clarke, Inf. Retr. 2013)")
    _add_study_options(p)


def _add_study_options(p: argparse.ArgumentParser) -> None:
    """``eval``'s options of the other families: diversity averaging, the TREC DD jig's inputs,
    per-iteration/intent/group rows, risk-sensitive evaluation, provenance, plots and -o."""
    p.add_argument("--dd-depth", default="xi", metavar="{xi,xi+1,N}",
                   help="depth of dd for --average dd: xi (default; the minimum set cover), xi+1 or an integer "
                        "from 0 to 1,000,000")
    p.add_argument("--dd-truth", metavar="FILE",
                   help="TREC Dynamic Domain ground truth: the organisers' truth XML (domain > topic > subtopic > "
                        "passage, the 2017 scorer's input) or text (topic subtopic docno passage rating), told apart "
                        "by content; every declared subtopic counts in the weights (--intents, --empty-intents do not "
                        "apply). Then every positional file is a run; DD runs (topic iteration docno score "
                        "on_topic ...) are detected")
    p.add_argument("--dd-combine", choices=("sum", "dcg"), default="sum",
                   help="combine a document's passage ratings: sum (2017 scorer; default) or dcg (2016 scorer; "
                        "not with --compat dd2017)")
    p.add_argument("--docs-per-iteration", metavar="N",
                   help="Cube Test measures: split plain rankings into iterations of N documents (N >= 1)")
    p.add_argument("--per-iteration", action="store_true",
                   help="Cube Test measures: also the value after each iteration, as rows CT@5[iteration=k]")
    p.add_argument("--per-intent", action="store_true",
                   help="with intent-aware measures (IA(X), nDCG_IA, ...), also each intent's score and "
                        "probability, as rows measure[intent=i] and measure[intent=i].w (implies --per-topic)")
    p.add_argument("--per-group", action="store_true",
                   help="with --groups, also each group's share of the attention, its target and their ratio, as "
                        "rows exposure[group=g], exposure[group=g].target and .ratio (implies --per-topic)")
    p.add_argument("--baseline", metavar="RUN",
                   help="risk-sensitive evaluation against this run (TREC Web 2013-14, ndeval -baseline): per topic "
                        "run - baseline, losses weighted by 1 + risk alpha; the all row is URisk, and rows "
                        "MEASURE[TRisk] give TRisk")
    p.add_argument("--risk-alpha", default="0", metavar="A",
                   help="with --baseline, the weight of losses: 1 + A (a finite number >= 0; default 0)")
    p.add_argument("--provenance", metavar="FILE", help="write the version and settings as JSON to FILE")
    p.add_argument("--plot", metavar="FILE",
                   help="also save the figures (per measure: score distributions and the ranking with confidence "
                        "intervals; with --baseline among the runs, the sorted per-topic differences) to FILE "
                        "(.png, .svg, .pdf)")
    add_output_option(p)
    add_cluster_options(p)


def _run_example(args: argparse.Namespace) -> int:
    from cranfield.io.examples import example_files

    files = example_files()
    print(f"# cranfield eval {files['qrels']} {' '.join(files['runs'])}", file=sys.stderr)
    return _run_eval(args, files["qrels"], files["runs"])


def _check_options(args: argparse.Namespace) -> None:
    """Validate ``eval``'s numeric options and output files before any work: one line each
    (``The value of -M/--depth must be an integer >= 1. Got '0' instead.``), exit status 2."""
    for dest, option in (("depth", "-M/--depth"), ("rel_level", "-l/--rel-level"),
                         ("docs_per_iteration", "--docs-per-iteration")):
        if getattr(args, dest) is not None:
            setattr(args, dest, check_int(getattr(args, dest), f"value of {option}", low=1))
    args.risk_alpha = check_float(args.risk_alpha, "value of --risk-alpha", low=0)
    if args.risk_alpha and not args.baseline:
        warn("--risk-alpha has no effect without --baseline")
    if args.cutoffs is not None:
        _parse_cutoffs(args.cutoffs)
        if args.compat not in ("gdeval", "ntcireval") or args.measure:
            warn("--cutoffs applies only to the measures of --compat gdeval or --compat ntcireval "
                 "(without -m): ignored")
    if args.plot:
        from cranfield.render.plots import check_plot_path

        check_plot_path(args.plot)
    check_output(args)


def _run_eval(args: argparse.Namespace, qrels: Any, runs: list[Any]) -> int:
    from cranfield.io import check_stdin_once

    check_stdin_once([qrels, *runs, args.dd_truth, args.intents])
    _check_options(args)
    check_cluster_options(args)
    try:
        with cluster_from(args) as client:
            return _evaluate(args, qrels, runs, client)
    finally:  # what was read ahead and not scored (the command stopped early) is not kept
        scheduling = sys.modules.get("cranfield.evaluation.scheduling")  # not imported: nothing read ahead
        if scheduling is not None:
            scheduling.forget_prefetched()


def _evaluate(args: argparse.Namespace, qrels: Any, runs: list[Any], client: Any) -> int:
    """``eval`` once its options are checked: runs scored in this process (``client`` None) or on
    the Dask cluster of ``--dask``/``--workers``."""
    trec_eval10 = args.compat == "trec_eval10"
    fmt = args.format = args.format or COMPAT_FORMATS.get(args.compat) or chosen_format(args)
    detail = args.per_topic or args.per_intent or args.per_iteration or args.per_group
    if args.per_group and not args.groups:
        raise CranfieldError("--per-group needs document groups: --groups FILE")
    missing, norel, score_dtype = _compat_rules(args)
    args, qrels, runs = _dd_inputs(args, qrels, runs)
    if not runs:
        raise CranfieldError("give at least one run file after the qrels")
    _read_ahead(args, runs, fmt, client, score_dtype)  # before anything else is imported: the measures, the evaluator
    request, parsed, text_only = _measure_request(args)
    evaluator = (_judgment_groups if args.qrels_format == "qrels_jg" else evaluator_from)(
        args, qrels, parsed, missing=missing, norel=norel, depth=args.depth, judged_only=args.judged_only,
        names=request.labels, average=args.average, dd_depth=args.dd_depth,
        strip_topic_prefix=args.strip_topic_prefix or args.compat in ("ndeval", "gdeval"))
    runs = _read_once(args, runs, fmt, score_dtype)
    results = evaluator.evaluate(runs, order=args.order, on_duplicate=args.on_duplicate, per_intent=args.per_intent,
                                 per_iteration=args.per_iteration, score_dtype=score_dtype, client=client,
                                 per_group=args.per_group)
    results = _as_requested(args, results, request, text_only)
    shape = {"header": args.compat not in ("trec_eval", "trec_eval10"), "runid": request.runid or len(results.runs) > 1,
             "relstrings": _relstrings(evaluator, [r.samples()[0] if hasattr(r, "samples") else r for r in runs],
                                       request.relstring, fmt, detail, 10 if trec_eval10 else 9)}
    if args.plot and results.measures:
        from cranfield.render.plots import plot_results

        plot_results(results, args.plot, baseline=_baseline_index(args.baseline, runs))
    if args.baseline:  # URisk in the all rows, TRisk as ordinary rows MEASURE[TRisk] in every format
        from cranfield.evaluation.risk import risk_adjusted

        base = evaluator.evaluate([args.baseline], order=args.order, on_duplicate=args.on_duplicate,
                                  score_dtype=score_dtype, client=client)
        results = risk_adjusted(results, base, args.risk_alpha)
    write_result(args, results, per_topic=detail, **shape)
    if args.provenance:
        from cranfield.render.tables import write_provenance

        write_provenance(results, args.provenance)
    return 0


def _read_ahead(args: argparse.Namespace, runs: list[Any], fmt: str, client: Any, score_dtype: str) -> None:
    """Start reading the first run files on threads now, so that they are read while the qrels
    are (:func:`cranfield.evaluation.scheduling.prefetch`): when the evaluation that follows reads
    them as TREC runs in this process (not on a cluster, not read before it for the trec layout,
    not stochastic runs, DD truth or judgment groups)."""
    if client is None and fmt != "trec" and not (args.stochastic or args.dd_truth or args.qrels_format == "qrels_jg"):
        from cranfield.evaluation.scheduling import prefetch

        prefetch(runs, args.order, args.on_duplicate, score_dtype)


def _compat_rules(args: argparse.Namespace) -> tuple[str, str, str]:
    """``missing``, ``norel`` and the score type under ``--compat``: trec_eval (without -c), gdeval
    and the DD 2017 scorer average over the topics the run has; gdeval skips topics without relevant
    documents; gdeval, ndeval and trec_eval 10 compare scores as doubles."""
    gdeval, trec_eval10 = args.compat == "gdeval", args.compat == "trec_eval10"
    norel = "exclude" if gdeval and args.norel == "include" else args.norel
    averages_run_topics = args.compat in ("trec_eval", "trec_eval10", "gdeval", "dd2017")
    missing = ("empty" if args.complete else "skip" if averages_run_topics and args.missing == "auto"
               else args.missing)
    score_dtype = args.score_dtype or ("float64" if gdeval or trec_eval10 or args.compat == "ndeval" else "float32")
    return missing, norel, score_dtype


def _dd_inputs(args: argparse.Namespace, qrels: Any, runs: list[Any]) -> tuple[argparse.Namespace, Any, list[Any]]:
    """With ``--dd-truth``, every positional file is a run and the truth file is the judgments;
    every declared subtopic weighs 1/(subtopics). Otherwise the inputs as given."""
    dd2017 = args.compat == "dd2017"
    if not args.dd_truth:
        if dd2017:
            raise CranfieldError("--compat dd2017 needs the DD ground truth: --dd-truth FILE")
        return args, qrels, runs
    from cranfield.io.dd import read_dd_run, read_dd_subtopics, read_dd_truth

    if args.intents:
        raise CranfieldError("--dd-truth declares the subtopics and their weights: --intents does not apply")
    if dd2017 and args.dd_combine != "sum":
        raise CranfieldError("--compat dd2017 sums passage ratings, as the 2017 scorer does: "
                             "--dd-combine dcg is the 2016 scorer's")
    qrels, runs = read_dd_truth(args.dd_truth, combine=args.dd_combine), [qrels, *runs]
    args = argparse.Namespace(**{**vars(args), "intents": read_dd_subtopics(args.dd_truth), "empty_intents": "keep"})
    if dd2017:  # read as the 2017 scorer's reader reads them
        runs = [read_dd_run(r, compat="dd2017") for r in runs]
    return args, qrels, runs


def _measure_request(args: argparse.Namespace) -> tuple[Any, list[Any], bool]:
    """The measures asked for (``-m``, or the ``--compat`` tool's own), resolved with trec_eval's
    names and nicknames and adjusted by ``--gains``, ``--docs-per-iteration``, ``-l`` and the
    tool's conventions: the request, its parsed measures, and whether only relstring text is asked for."""
    from cranfield.compat import presets
    from cranfield.compat.presets import as_trec_eval10, resolve, with_gains, with_relevance_level
    from cranfield.compat.qrels_jg import check_request

    trec_eval10 = args.compat == "trec_eval10"
    nicknames = presets.NICKNAMES10 if trec_eval10 else presets.NICKNAMES
    measures = split_measures(args.measure) or COMPAT_MEASURES.get(args.compat, DEFAULT_MEASURES)
    judgment_groups = args.qrels_format == "qrels_jg"
    if judgment_groups and not args.measure and args.compat in ("trec_eval", "trec_eval10"):
        measures = ["qrels_jg"]  # trec_eval's official measures cannot read qrels_jg: it stops (exit 4)
    request = resolve(measures, nicknames) if args.measure else _preset_request(args) or resolve(measures, nicknames)
    check_request(request, judgment_groups)
    # -m relstring alone: a placeholder count finds the scored topics; only the text is printed
    text_only = not request.measures and request.relstring is not None
    if text_only:
        request = dataclasses.replace(request, labels=["num_ret"], measures=resolve(["num_ret"]).measures,
                                      averages=[None])
    parsed = request.measures
    if args.gains:
        parsed = [with_gains(m, args.gains) for m in parsed]
    if args.docs_per_iteration:
        parsed = [_with_iterations(m, args.docs_per_iteration) for m in parsed]
    if args.compat == "dd2017":
        from cranfield.measures.cubetest import as_dd2017

        parsed = [as_dd2017(m) for m in parsed]
    if args.rel_level is not None:
        parsed = [with_relevance_level(m, args.rel_level) for m in parsed]
    if trec_eval10:
        parsed = [as_trec_eval10(m) for m in parsed]
    return request, parsed, text_only


def _read_once(args: argparse.Namespace, runs: list[Any], fmt: str, score_dtype: str) -> list[Any]:
    """The runs read now when the trec layout needs the rankings again (relstring, trec_eval's
    topic rules), so that each file is read once; the inputs as given otherwise."""
    if fmt != "trec":
        return runs
    if args.stochastic:  # the trec layout's topic rules see the first samples
        from cranfield.io.stochastic import as_sampled_run

        return [as_sampled_run(r, order=args.order, on_duplicate=args.on_duplicate, score_dtype=score_dtype)
                for r in runs]
    from cranfield.io import as_run

    return [as_run(r, order=args.order, on_duplicate=args.on_duplicate, score_dtype=score_dtype) for r in runs]


def _as_requested(args: argparse.Namespace, results: Any, request: Any, text_only: bool) -> Any:
    """The results checked for scored topics (and, under trec_eval 10 without -c, for every topic),
    with the averages the request names (gm_map: geometric) and no scores when only text is asked for."""
    _require_scored_topics(results)
    if args.compat == "trec_eval10" and not args.complete:
        _require_every_topic(results)
    results = dataclasses.replace(results, aggregate=[
        override or how for override, how in zip(request.averages, results.aggregate)])
    if text_only:
        results = dataclasses.replace(results, measures=[], values=results.values[:, :0], aggregate=[],
                                      measure_specs=[])
    return results


def _baseline_index(baseline: str | None, runs: list[Any]) -> int | None:
    """The place of the --baseline file among the runs given (for --plot), or None."""
    if baseline is None:
        return None
    sources = [r if isinstance(r, (str, Path)) else getattr(r, "source", None) for r in runs]
    given = [str(Path(r).resolve()) if isinstance(r, (str, Path)) else None for r in sources]
    target = str(Path(baseline).resolve())
    return given.index(target) if target in given else None


def _require_scored_topics(results: Any) -> None:
    """A run none of whose topics is scored (``--missing skip``) is an error, as in trec_eval
    ("No queries with both results and relevance info"), not a row of NaN. (A run without any
    qrels topic is refused earlier, by the Evaluator.)"""
    if results.unscored is None:
        return
    for run, unscored in zip(results.runs, results.unscored):
        if unscored.size and unscored.all():
            raise CranfieldError(f"{run}: no topic of the run is left to score: the qrels topics it has are "
                                 "excluded (--norel exclude: no relevant document), and --missing skip leaves out "
                                 "the topics missing from the run")


def _require_every_topic(results: Any) -> None:
    """trec_eval 10.0 without -c stops at the first qrels topic a run lacks (``trec_eval.c``: exit
    4, "result qid '303' not found in qrels"), printing nothing: so does ``--compat trec_eval10``."""
    for run, unscored in zip(results.runs, results.unscored if results.unscored is not None else []):
        if unscored.any():
            names = [topic for topic, lacking in zip(results.topics, unscored.tolist()) if lacking]
            raise CranfieldError(f"{run}: the run lacks qrels topics ({listing(names)}): trec_eval 10.0 stops "
                                 "there without -c (its message: result qid not found in qrels); give -c to score "
                                 "them as the empty ranking, or use --compat trec_eval (9.0.x skips them)")


def _judgment_groups(args: argparse.Namespace, qrels: Any, measures: list[Any], **options: Any) -> Any:
    """``-R qrels_jg``: the :class:`~cranfield.evaluation.judgment_groups.JudgmentGroupEvaluator` of
    the file, refusing the options that need other qrels (intents, stochastic runs, DD truth)."""
    from cranfield.cli.options import run_options_from
    from cranfield.evaluation.judgment_groups import JudgmentGroupEvaluator

    given = [option for option, on in (("--diversity", args.diversity), ("--intents", args.intents),
                                       ("--intent-types", args.intent_types), ("--stochastic", args.stochastic),
                                       ("--groups", args.groups), ("--dd-truth", args.dd_truth)) if on]
    if given:
        raise CranfieldError(f"-R qrels_jg reads ad hoc judgments of several groups: {', '.join(given)} does not "
                             "apply")
    return JudgmentGroupEvaluator(qrels, measures, **{**run_options_from(args), **options})


def _preset_request(args: argparse.Namespace) -> Any:
    """The measures of ``--compat gdeval`` (``ndcg@K``, ``err@K``; K from --cutoffs, gdeval's -k)
    and ``--compat ntcireval`` (NTCIREVAL needs a gain vector, so -g is required); None otherwise."""
    from cranfield.compat.presets import gdeval_request, ntcireval_request

    if args.compat not in ("gdeval", "ntcireval"):
        return None
    given = args.cutoffs or ("20" if args.compat == "gdeval" else "1000")
    cutoffs = _parse_cutoffs(given)
    if args.compat == "gdeval":
        if len(cutoffs) != 1:
            raise CranfieldError(f"--compat gdeval takes one cutoff (gdeval's -k); got {given!r}")
        return gdeval_request(cutoffs[0])
    if not args.gains:
        raise CranfieldError("--compat ntcireval needs the gain vector, as NTCIREVAL's -g does: e.g. -g 1:2:3")
    return ntcireval_request(cutoffs)


def _parse_cutoffs(text: str) -> list[int]:
    """The ranks of ``--cutoffs`` (``10,1000``), each an integer >= 1."""
    try:
        return [check_int(c, "cutoff", low=1) for c in text.split(",")]
    except CranfieldError:
        raise invalid("--cutoffs", "ranks of 1 or more separated by commas (e.g. 10,1000)", text) from None


def _relstrings(evaluator: Any, runs: list[Any], relstring: Any, fmt: str, per_topic: bool, version: int = 9) -> Any:
    """For the trec layout, the evaluated runs (:class:`cranfield.compat.presets.TrecTopics`): it prints
    per topic more than the scores, trec_eval's relstring texts when asked for (``-m relstring``,
    ``all_trec``; a per-topic text, so only ``--format trec -q`` prints it) and trec_eval's topic
    rules (of trec_eval 9.0.x, or of 10.0 with ``version=10``); None for the other formats."""
    from cranfield.compat.presets import TrecTopics
    from cranfield.evaluation.judgment_groups import JudgmentGroupEvaluator

    if fmt == "trec" and isinstance(evaluator, JudgmentGroupEvaluator):  # -R qrels_jg
        from cranfield.compat.qrels_jg import JudgmentGroupTopics

        return JudgmentGroupTopics(evaluator, runs)
    if relstring is not None and (fmt != "trec" or not per_topic):
        warn("relstring (the first labels of each ranking, as text) is printed only with --format trec -q")
        relstring = None
    return TrecTopics(evaluator, runs, relstring, version) if fmt == "trec" else None


def _with_iterations(measure, size: int):  # noqa: ANN001, ANN202
    """A Cube Test measure with ``docs_per_iteration`` set (others unchanged)."""
    names = {p.name for p in measure.spec.params}
    if "docs_per_iteration" in names and measure.params.get("docs_per_iteration") is None:
        return measure.with_params(docs_per_iteration=size)
    return measure


def _run_measures(args: argparse.Namespace) -> int:
    from cranfield.measures.nuggets import NUGGET_MEASURES, is_nugget_measure, iter_nugget_specs, lookup_nugget
    from cranfield.measures.registry import iter_specs, lookup

    check_output(args)
    specs = ([lookup_nugget(n) if n in NUGGET_MEASURES else lookup(n) for n in args.names] if args.names
             else [*iter_specs(), *iter_nugget_specs()])
    return write_result(args, specs, nuggets=[is_nugget_measure(s) for s in specs])


def add_parser(sub: Any) -> None:
    """``eval``, ``measures`` and ``example``."""
    ev = sub.add_parser(
        "eval", help="evaluate runs against qrels",
        description="Evaluate TREC runs against qrels (plain or .gz) and print the scores.",
        epilog=EVAL_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ev.add_argument("qrels", help="qrels file: qid iter docno rel (or diversity qrels: qid intent docno rel), "
                                  "or NTCIREVAL's <topic>.rel file (docID L<n>) or a directory of them, "
                                  "or irds:<dataset-id>: an ir_datasets dataset's qrels (docs/datasets.md)")
    ev.add_argument("runs", nargs="*", metavar="run", help="run files: qid Q0 docno rank score tag, or NTCIREVAL's "
                                                           "<topic>.res ranked list or a directory of them")
    _add_eval_options(ev)
    ev.set_defaults(handler=lambda args: _run_eval(args, args.qrels, args.runs))

    ms = sub.add_parser("measures", help="list the measures, their parameters and sources",
                        description="List every registered measure (or the named ones) with its "
                                    "parameters, defaults, valid ranges and the paper it implements.")
    ms.add_argument("names", nargs="*", help="measure names to describe (default: all)")
    add_format_option(ms, "measures")
    add_output_option(ms)
    ms.set_defaults(handler=_run_measures)

    ex = sub.add_parser("example", help="evaluate the bundled TREC Web 2012 example",
                        description="Evaluate the two Indri baseline runs of the TREC 2012 Web "
                                    "track (shipped with cranfield) against the official ad hoc qrels.")
    _add_eval_options(ex)
    ex.set_defaults(handler=_run_example)
