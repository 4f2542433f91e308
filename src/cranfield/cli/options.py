"""Option groups shared by the commands: how inputs are read (``add_input_options``), measure
lists (``split_measures``), and the Evaluator they configure (``evaluator_from``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from cranfield.errors import CranfieldError, invalid


def split_measures(values: list[str] | None) -> list[str]:
    """Measures from ``-m`` values, split at commas outside parentheses; a bare number after a
    trec_eval name continues its cutoff list (``P.5,10``)."""
    from cranfield.compat.presets import TREC_EVAL
    from cranfield.measures.registry import split_top

    out: list[str] = []
    for value in values or []:
        parts = [p.strip() for p in split_top(value)]
        if not all(parts):
            raise invalid("value of -m/--measure", "a measure name, or names separated by commas (-m AP,P@10)", value)
        for part in parts:
            if out and _continues(part) and out[-1].partition(".")[0] in TREC_EVAL and "." in out[-1]:
                out[-1] += "," + part
            else:
                out.append(part)
    return out


def _continues(part: str) -> bool:
    """A bare cutoff (``10``) or gain pair (``2=7``) continuing a trec_eval parameter list."""
    level, eq, value = part.partition("=")
    number = value if eq else level
    return (not eq or level.isdigit()) and number.lstrip("-").replace(".", "", 1).isdigit()


def add_input_options(p: Any) -> None:
    """How qrels and runs are read and which topics count: shared by every command that scores runs."""
    p.add_argument("--order", choices=("score", "rank", "file"), default="score",
                   help="how run lines are ranked: score (trec_eval, ndeval -traditional; default), rank column "
                        "(ndeval's own default), or file order")
    p.add_argument("--missing", choices=("auto", "zero", "empty", "skip"), default="auto",
                   help="qrels topics absent from a run: auto (default: 0, or the empty ranking for "
                        "truncation-aware measures), zero, empty, or skip (trec_eval without -c)")
    p.add_argument("--norel", choices=("include", "exclude"), default="include",
                   help="topics without relevant documents: include (trec_eval; default) or exclude (gdeval)")
    p.add_argument("--on-duplicate", choices=("error", "first"), default="error",
                   help="a document twice in a topic of a run: error (default) or keep the first line")
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--diversity", action="store_true",
                      help="read the qrels as diversity qrels (qid intent docno rel)")
    kind.add_argument("--adhoc", action="store_true", help="read the qrels as ad hoc qrels (qid iter docno rel)")
    p.add_argument("--intents", metavar="FILE",
                   help="intent probabilities (and types): qid intent probability [inf|nav]; implies --diversity")
    p.add_argument("--intent-types", metavar="FILE",
                   help="intent types: qid intent inf|nav lines, or a TREC Web topics XML file")
    p.add_argument("--empty-intents", choices=("drop", "keep"), default="drop",
                   help="intents without relevant documents: drop (ndeval; default) or keep")
    p.add_argument("--strip-topic-prefix", action="store_true",
                   help="read run topic ids such as wt09-1 as 1 (the text up to the last '-' is dropped, "
                        "as ndeval and gdeval do)")


def evaluator_from(args: argparse.Namespace, qrels: Any, measures: Sequence[Any], **options: Any) -> Any:
    """An :class:`~cranfield.evaluation.evaluator.Evaluator` configured by :func:`add_input_options`' arguments."""
    from cranfield.evaluation.evaluator import Evaluator

    diversity = True if args.diversity else False if args.adhoc else None
    options.setdefault("missing", args.missing)
    options.setdefault("norel", args.norel)
    options.setdefault("strip_topic_prefix", args.strip_topic_prefix)
    return Evaluator(qrels, measures, diversity=diversity, intents=args.intents, intent_types=args.intent_types,
                     empty_intents=args.empty_intents, **options)


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output now; a failure (a full disk) is one error line."""
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as exc:
        silence_stdout()
        raise CranfieldError(f"cannot write the results to standard output: {exc.strerror or exc}") from None


def silence_stdout() -> None:
    """Point standard output at the null device, so that the flush at exit after a failed write
    (a closed pipe, a full disk) prints no second error."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError):  # no file descriptor (captured output)
        pass
