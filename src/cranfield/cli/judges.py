"""``cranfield judges``: agreement between a reference's qrels and other judges' (a second
assessor, crowd workers, a large language model) on labels, leaderboards and significance
(:func:`cranfield.analysis.judges.compare_judges`; docs/judges.md)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from cranfield.analysis.options import TOPIC_SETS
from cranfield.cli.options import add_format_option, write_result

EPILOG = """\
labels (over the documents both judged; with diversity qrels an (intent, document) pair):
n_both, n_reference_only, n_judge_only; agreement (the fraction with the same grade);
kappa(rel=L), Cohen's kappa on the labels binarised at rel >= L, at every positive grade
(--rel L: at L only); weighted_kappa(linear|quadratic), weights by the distance between
grades; alpha(nominal|ordinal|interval), Krippendorff's alpha. Per topic and pooled (all).
An undefined kappa or alpha (one label throughout) is null, with a warning.

leaderboards (with --runs, per measure): tau_b, tau_ap (the reference's ranking as the truth),
spearman, pearson between the runs' means, each with a bootstrap interval over topics
(name[low], name[high]; --ci-B resamples, --seed); rmse, bias = mean(judge - reference),
loa_low/loa_high = bias -/+ 1.96 sd (Bland-Altman), max_drop (the most places a run falls in
the judge's ranking), same_top (1 if both put the same run first).

significance (with --runs, per measure; --test, --correction, --alpha as `compare`): the run
pairs significant under both qrels with the same sign (both_same), with opposite signs
(swaps), under one only (reference_only, judge_only), under neither; power(reference) and
power(judge), the discriminative power under each.

A judge is named by its file name, or name=path. --topics common (default) compares the
leaderboards on the topics both judged, --topics reference on the reference's (a topic the
judge lacks scores 0); either way a warning names the topics the judge lacks. --fill FILE
writes the reference's qrels with the judge's labels added for the documents the reference
left unjudged (with several judges, FILE holds {judge}): layered qrels, whose fifth column names
the source of each label (the reference's file name or --jg group, the judge's name), which
eval and compare read; Judged@k(source=NAME) is the share of the top k judged by NAME.

nugget assignments (docs/nuggets.md): --nuggets REFERENCE JUDGE... compares assignment sets of
the same answers' nuggets (manual and automatic, say): labels support 2, partial_support 1,
not_support 0 per (topic, run, nugget); leaderboards and significance of the runs by nugget
measures (-m, default V_strict and A).

examples:
  cranfield judges qrels.txt llm.qrels
  cranfield judges qrels.txt llm=umbrela.qrels crowd=mturk.qrels --runs runs/*.gz -m AP -m nDCG@10
  cranfield judges qrels.txt llm.qrels --runs runs/*.gz -m P@10 --rel 2 --test bootstrap --format csv
  cranfield judges qrels.txt llm.qrels --fill filled.qrels
  cranfield eval filled.qrels run.txt -m AP -m Judged@10 -m 'Judged(source=llm.qrels)@10'
  cranfield judges assessors.qrels_jg --jg --reference-group nist --runs runs/*.gz -m AP
  cranfield judges --nuggets manual.jsonl auto=autonuggetizer.jsonl -m V_strict -m A
"""


def add_parser(sub: Any) -> None:
    """Add ``cranfield judges`` to the ``cranfield`` parser."""
    from cranfield.cli.meta import add_tested_command

    p = sub.add_parser(
        "judges", help="agreement between judges' qrels: labels (kappa, alpha), leaderboards, significance",
        description="Compare one or more judges' qrels (a second assessor, crowd workers, an LLM) with a "
                    "reference's: label agreement, and with runs the agreement of the leaderboards and of "
                    "the significant differences.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("reference", nargs="?", help="the reference qrels (qid iter docno rel, or diversity qrels)")
    p.add_argument("judges", nargs="*", metavar="judge",
                   help="a judge's qrels: a path (named by its file name) or name=path")
    p.add_argument("--jg", action="store_true",
                   help="REFERENCE is trec_eval's multi-judge qrels_jg file (qid group docno rel): its first group "
                        "(or --reference-group) is the reference, every other group a judge")
    p.add_argument("--reference-group", metavar="NAME", help="with --jg: the group that is the reference")
    p.add_argument("--runs", nargs="+", metavar="RUN", help="run files: the leaderboard and significance parts")
    p.add_argument("--nuggets", nargs="+", metavar="FILE",
                   help="compare nugget assignment files instead of qrels: the first is the reference, the others "
                        "judges (name=path works); -m takes nugget measures (docs/nuggets.md)")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help="a measure of the leaderboards (repeatable, or comma-separated; default: AP, nDCG@10)")
    p.add_argument("--rel", metavar="L",
                   help="the lowest relevant grade: kappa at rel >= L only, and the binary measures count "
                        "grades >= L (default: kappa at every positive grade)")
    p.add_argument("--topics", choices=TOPIC_SETS, default="common",
                   help="topics of the leaderboards: common (both judged; default) or reference")
    p.add_argument("--fill", metavar="FILE",
                   help="write the reference's qrels with the judge's labels for the documents it left unjudged, "
                        "the source of each label in a fifth column (layered qrels: qid iter docno rel source)")
    p.add_argument("--ci-B", dest="ci_B", default="1000",
                   help="bootstrap resamples of the correlations' intervals, 0 to 100,000 (default: 1000)")
    p.add_argument("--plot", metavar="FILE",
                   help="save the figures (means under each qrels with the diagonal, Bland-Altman, per-topic "
                        "kappa) to FILE (.png, .svg, .pdf)")
    add_format_option(p, "judges", note="csv, json and parquet have the columns judge, part, measure, topic, "
                                          "statistic, value")
    add_tested_command(p, _run)


def _fill_paths(template: str, judges: list[str]) -> dict[str, str]:
    from cranfield.errors import CranfieldError

    if len(judges) > 1 and "{judge}" not in template:
        raise CranfieldError("--fill with several judges writes one file per judge: put {judge} in its name")
    return {j: template.replace("{judge}", j) for j in judges}


def _check(args: argparse.Namespace) -> None:
    """Check the options of ``judges`` before any work."""
    from pathlib import Path

    from cranfield._output import check_writable
    from cranfield.analysis.judges import judge_names
    from cranfield.errors import CranfieldError, check_int

    if args.rel is not None:
        args.rel = check_int(args.rel, "--rel", low=1)
    args.ci_B = check_int(args.ci_B, "--ci-B", low=0, high=100_000)
    if args.nuggets:
        given = [name for name, on in (("REFERENCE", args.reference is not None or args.judges), ("--runs", args.runs),
                                       ("--jg", args.jg), ("--rel", args.rel), ("--fill", args.fill)) if on]
        if given:
            raise CranfieldError(f"--nuggets compares nugget assignment files: {', '.join(given)} cannot go with it")
        if len(args.nuggets) < 2:
            raise CranfieldError("--nuggets takes the reference's assignments and at least one judge's")
        args.named = judge_names(args.nuggets[1:])
        return
    if args.reference is None:
        raise CranfieldError("give the reference qrels and at least one judge's (or --nuggets FILE FILE...)")
    if args.jg:
        from cranfield.io.qrels_jg import read_qrels_jg

        groups = read_qrels_jg(args.reference)
        first = next(iter(groups)) if args.reference_group is None else args.reference_group
        if first not in groups:
            raise CranfieldError(f"{args.reference} has no judgment group {first!r}; its groups are "
                                 f"{', '.join(groups)}")
        args.reference, args.reference_name = groups.pop(first), first
        args.named = {**groups, **judge_names(args.judges)} if args.judges else groups
    elif args.reference_group is not None:
        raise CranfieldError("--reference-group needs --jg")
    else:
        args.named = judge_names(args.judges)
        args.reference_name = Path(args.reference).name
    if args.fill:
        args.fill_paths = _fill_paths(args.fill, list(args.named))
        for path in args.fill_paths.values():
            check_writable(path, "--fill file")


def _run(args: argparse.Namespace, client: Any) -> int:
    """``cranfield judges``: the comparison in the format asked for."""
    from cranfield.analysis.judges import compare_judges
    from cranfield.cli.options import qrels_options_from, run_options_from, split_measures

    _check(args)
    diversity = qrels_options_from(args)["diversity"]
    measures = list(dict.fromkeys(split_measures(args.measure))) if args.measure else None
    if args.nuggets:
        from cranfield.analysis.judges import compare_nugget_judges

        result = compare_nugget_judges(
            args.nuggets[0], args.named, measures, topics=args.topics, test=args.test, correction=args.correction,
            alpha=args.alpha, n_resamples=args.B, seed=args.seed, bootstrap_resamples=args.ci_B,
            missing="skip" if args.missing == "skip" else "zero", client=client)
    else:
        result = compare_judges(
            args.reference, args.named, args.runs, measures, rel=args.rel, topics=args.topics, test=args.test,
            correction=args.correction, alpha=args.alpha, n_resamples=args.B, seed=args.seed,
            bootstrap_resamples=args.ci_B, diversity=diversity, order=args.order, on_duplicate=args.on_duplicate,
            client=client, **{k: v for k, v in {**qrels_options_from(args), **run_options_from(args)}.items()
                              if k != "diversity"})
    if args.fill:
        _write_fills(args, diversity)
    if args.plot:
        from cranfield.render.plots import plot_judges

        plot_judges(result, args.plot)
    from cranfield._version import __version__

    given = {"reference": result.reference, **{k: v for k, v in result.settings.items() if v is not None}}
    if args.provenance:
        from cranfield._output import write_text

        doc = {"cranfield": __version__, "command": "judges", **given}
        write_text(args.provenance, json.dumps(doc, indent=1, default=str) + "\n", "provenance file")
    header = f"# cranfield {__version__} command=judges " + " ".join(f"{k}={v}" for k, v in given.items())
    return write_result(args, result, header=header)


def _write_fills(args: argparse.Namespace, diversity: bool | None) -> None:
    """--fill: each judge's layered qrels (``qid iter docno rel source``, docs/judges.md#layered),
    written whole or not at all."""
    from cranfield._output import write_text
    from cranfield.analysis.judges import filled_qrels
    from cranfield.io import as_qrels

    reference = as_qrels(args.reference, diversity=diversity)
    for name, path in args.fill_paths.items():
        q = filled_qrels(reference, as_qrels(args.named[name], diversity=diversity), (args.reference_name, name))
        write_text(path, qrels_text(q), "--fill file")


def qrels_text(q: Any) -> str:
    """Qrels as TREC text: ``qid iter docno rel`` (``qid intent docno rel`` for diversity qrels),
    with a fifth column, the source of each label, for layered qrels."""
    import numpy as np

    topics = np.array(q.topic_ids, dtype=object)[q.topic]
    intents = np.array(q.intent_ids, dtype=object)[q.intent]
    docnos = [d.decode() if isinstance(d, bytes) else str(d) for d in q.docno]
    lines = [f"{t} {i} {d} {r}" for t, i, d, r in zip(topics, intents, docnos, q.rel.tolist())]
    if q.judged_by is not None:
        lines = [f"{line} {source}" for line, source in zip(lines, np.array(q.judges, dtype=object)[q.judged_by])]
    return "".join(line + "\n" for line in lines)
