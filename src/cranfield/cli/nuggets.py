"""``cranfield nuggets``: nugget evaluation of generated answers (docs/nuggets.md)."""

from __future__ import annotations

import argparse
from typing import Any

from cranfield.cli.options import add_format_option, add_output_option, check_output, split_measures, write_result
from cranfield.evaluation.options import DEFAULT_NUGGET_MEASURES, NUGGET_MISSING

NUGGETS_EPILOG = """\
inputs: nuggetizer's assignment JSONL (one record per answer: run_id, qid and nuggets, each with
importance vital|okay and assignment support|partial_support|not_support|failed), or a table of
qid run nugget_id importance assignment rows (whitespace-separated text with an optional header
line, CSV with a header, or Parquet). Several files are merged; 'failed' (nuggetizer's failed LLM
call) scores as not supported, with one warning counting them.

measures (Pradeep et al., TREC 2024 RAG track, arXiv:2411.09607; `cranfield measures V_strict`):
  V_strict, V   vital nuggets supported (V: partial support counts 0.5); 0 for a topic
                without vital nuggets, as nuggetizer scores it
  A_strict, A   all nuggets supported (A: partial support counts 0.5)
  W, W_strict   weighted recall, okay nuggets weighing 0.5 (pyterrier-nuggetizer)
  'NuggetRecall(importance=vital|all|weighted|W_V:W_O,partial=C)'  the family behind them

a run without an answer to a topic another run answers scores 0 there (--missing zero) or
leaves it out of its mean (--missing skip, nuggetizer's mean); a warning counts them.
compare, discpower, correlate and report take --nuggets FILE... instead of qrels and runs.

examples (on the small file bundled with cranfield):
  N=$(python -c 'import cranfield, pathlib; print(pathlib.Path(cranfield.__file__).parent / "data")')/rag.nuggets.jsonl
  cranfield nuggets $N
  cranfield nuggets $N -m V_strict -m A -q --format trec
  cranfield nuggets $N -m W,'NuggetRecall(importance=vital,partial=1)' --format csv
  cranfield compare --nuggets $N -m V_strict -m A --test randomization
"""


def add_parser(sub: Any) -> None:
    """Add ``nuggets`` to the ``cranfield`` parser."""
    p = sub.add_parser("nuggets", help="nugget evaluation of generated (RAG) answers: V_strict, V, A, W, ...",
                       description="Score generated answers by the nuggets they support (nugget assignments "
                                   "from nuggetizer or any assessor) and print the scores.",
                       epilog=NUGGETS_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="+", metavar="FILE",
                   help="nugget assignments: nuggetizer's JSONL, or qid run nugget_id importance assignment tables")
    p.add_argument("-m", "--measure", action="append", metavar="MEASURE",
                   help=f"a nugget measure (repeatable, or comma-separated; default: "
                        f"{' '.join(DEFAULT_NUGGET_MEASURES)})")
    p.add_argument("-q", "--per-topic", action="store_true", help="also print one row per topic")
    add_format_option(p, "nuggets", note="the rows are run, topic, measure, value")
    add_missing_option(p)
    p.add_argument("--provenance", metavar="FILE", help="write the version and settings as JSON to FILE")
    add_output_option(p)
    p.set_defaults(handler=run_nuggets)


def add_missing_option(p: Any) -> None:
    """``--missing zero|skip`` of the nugget scores."""
    p.add_argument("--missing", choices=NUGGET_MISSING, default="zero",
                   help="a topic some run answers and another does not: zero (default) or skip (left out of "
                        "that run's mean, as nuggetizer averages)")


def run_nuggets(args: argparse.Namespace) -> int:
    """Score the answers and print the rows in the format asked for."""
    from cranfield.evaluation.nuggets import evaluate_nuggets
    from cranfield.render.tables import write_provenance

    check_output(args)
    measures = list(dict.fromkeys(split_measures(args.measure))) or list(DEFAULT_NUGGET_MEASURES)
    results = evaluate_nuggets(args.files, measures, missing=args.missing)
    write_result(args, results, per_topic=args.per_topic)
    if args.provenance:
        write_provenance(results, args.provenance)
    return 0
