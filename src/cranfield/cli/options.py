"""Option groups shared by the commands: how inputs are read (``add_input_options``: runs
``add_run_options``, qrels ``add_qrels_options``), measure lists (``split_measures``), the Evaluator
they configure (``evaluator_from``), where results go (``add_output_option``, ``check_output``,
``emit``), and where the work runs (``add_cluster_options``, ``check_cluster_options``, ``cluster_from``)."""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Iterator, Sequence
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
    """How qrels and runs are read and which topics count: shared by every command that scores runs
    (:func:`add_run_options` and :func:`add_qrels_options`)."""
    add_run_options(p)
    add_qrels_options(p)


def add_run_options(p: Any) -> None:
    """How runs are read and which topics count: ``--order``, ``--missing``, ``--norel``,
    ``--on-duplicate`` and ``--strip-topic-prefix`` (:func:`run_options_from` reads them back)."""
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
    p.add_argument("--strip-topic-prefix", action="store_true",
                   help="read run topic ids such as wt09-1 as 1 (the text up to the last '-' is dropped, "
                        "as ndeval and gdeval do)")
    p.add_argument("--stochastic", action="store_true",
                   help="runs are stochastic: qid sample docno rank score tag, several sampled rankings per topic "
                        "(expeval's layout; Parquet: a sample column); every measure is the expected value over "
                        "the samples (docs/fairness.md). --order rank reproduces expeval")
    p.add_argument("--groups", metavar="FILE",
                   help="document groups for AWRF, nDCG*AWRF and group-level EE: docno group [weight] lines "
                        "(a document in k groups without weights weighs 1/k in each; docs/fairness.md)")
    p.add_argument("--target", metavar="uniform|relevant|FILE", default="uniform",
                   help="the target group distribution: uniform (default), relevant (that of the relevant "
                        "documents), or a file of group weight or qid group weight lines")


def add_qrels_options(p: Any) -> None:
    """How the qrels are read: ``--diversity``/``--adhoc``, ``--intents``, ``--intent-types`` and
    ``--empty-intents`` (:func:`qrels_options_from` reads them back)."""
    kind = p.add_mutually_exclusive_group()
    kind.add_argument("--diversity", action="store_true",
                      help="read the qrels as diversity qrels (qid intent docno rel)")
    kind.add_argument("--adhoc", action="store_true", help="read the qrels as ad hoc qrels (qid iter docno rel)")
    p.add_argument("--intents", metavar="FILE|uniform|nonuniform",
                   help="intent probabilities (and types): qid intent probability [inf|nav]; implies --diversity; "
                        "or uniform (1/n, the default) or nonuniform (Sakai, WWW 2012: the j-th of n intents "
                        "in id order gets 2^(n-j+1)/sum_k 2^k)")
    p.add_argument("--intent-types", metavar="FILE",
                   help="intent types: qid intent inf|nav lines, or a TREC Web topics XML file")
    p.add_argument("--empty-intents", choices=("drop", "keep"), default="drop",
                   help="intents without relevant documents: drop (ndeval; default) or keep")


def qrels_options_from(args: argparse.Namespace) -> dict[str, Any]:
    """The keyword arguments of :func:`add_qrels_options`' options: ``diversity``, ``intents``,
    ``intent_types`` and ``empty_intents`` (as for :class:`~cranfield.evaluation.evaluator.Evaluator`)."""
    return {"diversity": True if args.diversity else False if args.adhoc else None, "intents": args.intents,
            "intent_types": args.intent_types, "empty_intents": args.empty_intents}


def run_options_from(args: argparse.Namespace) -> dict[str, Any]:
    """``missing``, ``norel``, ``strip_topic_prefix``, ``stochastic``, ``groups`` and ``target`` of
    :func:`add_run_options`, the Evaluator's (``order``
    and ``on_duplicate`` say how a run is read)."""
    return {"missing": args.missing, "norel": args.norel, "strip_topic_prefix": args.strip_topic_prefix,
            "stochastic": args.stochastic, "groups": args.groups, "target": args.target}


def evaluator_from(args: argparse.Namespace, qrels: Any, measures: Sequence[Any], **options: Any) -> Any:
    """An :class:`~cranfield.evaluation.evaluator.Evaluator` configured by :func:`add_input_options`' arguments."""
    from cranfield.evaluation.evaluator import Evaluator

    return Evaluator(qrels, measures, **{**qrels_options_from(args), **run_options_from(args), **options})


def add_output_option(p: Any) -> None:
    """``-o/--output FILE``: shared by every command that prints results (:func:`check_output`, :func:`emit`)."""
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the results to FILE instead of stdout (checked before the work starts; written "
                        "whole or not at all)")


def add_format_option(p: Any, kind: str, default: str | None = "table", note: str = "") -> None:
    """``--format``, the one declaration of every command: the choices are the formats of the
    results of ``kind`` in the output registry (:data:`cranfield.render.outputs.OUTPUTS`), each
    explained in ``--help``; not given, the format is the one ``-o FILE``'s extension names
    (``-o scores.csv``), else ``default`` (:func:`chosen_format`). ``note`` adds the command's own words."""
    from cranfield.render.outputs import FORMATS, formats_for

    choices = formats_for(kind)
    listed = "; ".join(f"{f}: {FORMATS[f].help}" for f in choices)
    p.add_argument("--format", choices=choices, default=None,
                   help=f"output format (default: {default or 'table'}, or the one -o FILE's extension names); "
                        f"{listed}{'; ' + note if note else ''}")
    p.set_defaults(output_kind=kind, default_format=default)


def chosen_format(args: argparse.Namespace) -> str:
    """The format of the results: ``--format``, else the one ``-o FILE``'s extension names in the
    output registry, else the command's default (:func:`add_format_option`)."""
    from cranfield.render.outputs import format_from_path

    return (args.format or format_from_path(args.output_kind, getattr(args, "output", None))
            or args.default_format or "table")


def render_result(args: argparse.Namespace, payload: Any, kind: str | None = None, **settings: Any) -> str:
    """``payload``, a result of ``kind`` (default: the command's), in the chosen format
    (:func:`chosen_format`), by the output registry's writer; a binary format is written to
    ``-o FILE`` and gives ``""``."""
    import cranfield.compat.formats  # noqa: F401  (registers the tool layouts and Parquet)
    import cranfield.render.writers  # noqa: F401  (registers cranfield's own formats)
    from cranfield.render.outputs import is_binary, render_output

    fmt = chosen_format(args)
    if is_binary(fmt):
        settings["path"] = args.output
    return render_output(kind or args.output_kind, fmt, payload, **settings)


def write_result(args: argparse.Namespace, payload: Any, kind: str | None = None, **settings: Any) -> int:
    """Write ``payload`` (:func:`render_result`) to ``-o FILE`` or standard output; the exit status 0."""
    from cranfield.render.outputs import is_binary

    text = render_result(args, payload, kind, **settings)
    if not is_binary(chosen_format(args)):
        emit(text, getattr(args, "output", None))
    return 0


def check_output(args: argparse.Namespace) -> None:
    """Fail now, before any work, when ``-o`` or ``--provenance`` names a file that cannot be
    written, or both name the same file (:func:`same_file`), or a binary ``--format`` (Parquet)
    has no ``-o FILE``."""
    from cranfield._output import check_writable

    if hasattr(args, "output_kind"):
        from cranfield.render.outputs import is_binary

        fmt = chosen_format(args)
        if is_binary(fmt) and not args.output:
            raise CranfieldError(f"--format {fmt} writes a binary file: give it with -o FILE")
    output, provenance = getattr(args, "output", None), getattr(args, "provenance", None)
    if output:
        check_writable(output, "output file")
    if provenance:
        check_writable(provenance, "provenance file")
        if output and same_file(output, provenance):
            raise CranfieldError(f"-o/--output and --provenance name the same file {output!r}")


def same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same resolved path (symbolic links,
    ``./x`` and ``x``), or, both existing, the same file (:func:`os.path.samefile`: hard links)."""
    from pathlib import Path

    if Path(a).resolve() == Path(b).resolve():
        return True
    return os.path.exists(a) and os.path.exists(b) and os.path.samefile(a, b)


OUTPUT_OPTIONS = {"output": "-o/--output", "provenance": "--provenance", "plot": "--plot"}


def check_inputs_kept(args: argparse.Namespace) -> None:
    """Fail now, before any work, when an output option (:data:`OUTPUT_OPTIONS`) names one of the
    command's input files: any other argument naming an existing file (``NAME=FILE`` values
    too), compared as files by :func:`same_file`. Outputs replace their files; inputs are never
    replaced."""
    values = vars(args)
    outputs = {dest: values[dest] for dest in OUTPUT_OPTIONS if isinstance(values.get(dest), str)}
    written = {dest: path for dest, path in outputs.items() if os.path.isfile(path)}
    if not written:
        return
    inputs = [v for dest, value in values.items() if dest not in outputs
              for v in (value if isinstance(value, (list, tuple)) else [value]) if isinstance(v, str)]
    inputs += [v.partition("=")[2] for v in inputs if "=" in v]
    for dest, path in written.items():
        for given in inputs:
            if os.path.isfile(given) and same_file(path, given):
                raise CranfieldError(f"{OUTPUT_OPTIONS[dest]} names the input file {given!r}: cranfield never "
                                     "replaces its inputs; write the output to another file")


def emit(text: str, path: str | None) -> None:
    """The results: to ``path`` (``-o``), complete or not at all, or else to standard output."""
    from cranfield._output import write_text

    if path:
        write_text(path, text, "output file")
    else:
        write_stdout(text)


def write_stdout(text: str) -> None:
    """Write ``text`` to standard output now; a failure (a closed standard output, a full disk)
    is one error line. Characters that its encoding cannot hold (a run tag ``café`` under
    ``LC_ALL=C``) are written as backslash escapes (``caf\\xe9``), with one warning."""
    from cranfield._output import check_interrupted

    check_interrupted()
    if sys.stdout is None:  # started with standard output closed (>&-)
        raise CranfieldError("cannot write the results to standard output: it is closed (give -o FILE)")
    try:
        try:
            sys.stdout.write(text)
        except UnicodeEncodeError as exc:  # nothing was written: the text is encoded as a whole first
            from cranfield.errors import warn

            warn(f"standard output's encoding {exc.encoding} cannot write {exc.object[exc.start:exc.end]!r}: "
                 "such characters are written as backslash escapes (-o FILE writes UTF-8; or set "
                 "PYTHONIOENCODING=utf-8)")
            sys.stdout.write(text.encode(exc.encoding, "backslashreplace").decode(exc.encoding))
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


DASK_SCHEMES = ("tcp", "tls", "ucx", "inproc", "ws", "wss")
_ADDRESS = re.compile(r"^(?:(?P<scheme>[a-z]+)://)?(?P<host>[^\s:/]+|\[[0-9a-fA-F:]+\])(?::(?P<port>\d{1,5}))?$")


def add_cluster_options(p: Any) -> None:
    """``--dask ADDRESS`` (a running Dask scheduler) or ``--workers N`` (a local cluster of N
    worker processes), mutually exclusive (docs/scaling.md); :func:`cluster_from` opens it."""
    where = p.add_mutually_exclusive_group()
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run the work on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786); "
                            "run files are read by the workers, so their paths must be readable there "
                            "(docs/scaling.md; needs pip install 'cranfield[dask]')")
    where.add_argument("--workers", metavar="N",
                       help="run the work on a local Dask cluster of N worker processes (same results as without)")


def check_cluster_options(args: argparse.Namespace) -> None:
    """Fail now, before any work, on a malformed ``--dask`` address or ``--workers`` count, or
    when either is given and dask.distributed is not installed."""
    from cranfield._parallel import DASK_HINT
    from cranfield.errors import check_int

    address, workers = getattr(args, "dask", None), getattr(args, "workers", None)
    if address is not None:
        match = _ADDRESS.match(address.strip())
        if not match or (match["scheme"] is not None and match["scheme"] not in DASK_SCHEMES) or (
                match["port"] is not None and not 0 < int(match["port"]) < 65536):
            raise invalid("Dask scheduler address (--dask)", "an address such as tcp://host:8786 or host:8786",
                          address)
    if workers is not None:
        args.workers = check_int(workers, "number of workers (--workers)", low=1)
    if address is not None or workers is not None:
        try:
            import distributed  # noqa: F401
        except ImportError:
            raise CranfieldError(DASK_HINT) from None


@contextlib.contextmanager
def cluster_from(args: argparse.Namespace, timeout: float = 10.0) -> Iterator[Any]:
    """The ``dask.distributed.Client`` that :func:`add_cluster_options`' arguments ask for, or
    None to run in this process; a local cluster is stopped at exit. An unreachable scheduler
    (``timeout`` seconds) or a missing dask is one :class:`CranfieldError` line."""
    from cranfield._parallel import connect

    check_cluster_options(args)
    address, workers = getattr(args, "dask", None), getattr(args, "workers", None)
    if address is None and workers is None:
        yield None
        return
    client = connect(address.strip() if address else None, workers, timeout=timeout)
    try:
        yield client
    finally:
        if address:
            client.close()
        else:  # a worker still busy when a task failed is stopped by force: not news for the user
            import logging

            log = logging.getLogger("distributed")
            level = log.level
            log.setLevel(logging.CRITICAL)
            try:
                cluster = client.cluster
                client.close()
                cluster.close()
            finally:
                log.setLevel(level)


def add_nuggets_option(p: Any) -> None:
    """``--nuggets FILE...``: nugget assignments scored instead of runs against qrels
    (:func:`check_scoring_inputs`, :func:`nugget_results`; docs/nuggets.md)."""
    p.add_argument("--nuggets", nargs="+", metavar="FILE",
                   help="score generated answers by nugget assignments (nuggetizer's JSONL or qid run nugget_id "
                        "importance assignment tables) instead of runs against qrels; -m takes nugget measures "
                        "(V_strict, V, A_strict, A, W, W_strict; docs/nuggets.md)")


def check_scoring_inputs(args: argparse.Namespace) -> None:
    """Either ``--nuggets FILE...`` or the qrels and at least one run, not both."""
    if getattr(args, "nuggets", None):
        if args.qrels is not None or args.runs:
            raise CranfieldError("give either the qrels and runs or --nuggets FILE..., not both "
                                 f"(got {' '.join([args.qrels, *args.runs])!r} besides --nuggets)")
    elif args.qrels is None or not args.runs:
        raise CranfieldError("give the qrels and the run files (or --nuggets FILE... for nugget assignments)")


def nugget_results(args: argparse.Namespace, measures: Sequence[Any]) -> Any:
    """The :class:`~cranfield.Results` of ``--nuggets`` on ``measures`` (``--missing skip`` leaves
    missing answers out, any other value scores them 0), or None without ``--nuggets``."""
    if not getattr(args, "nuggets", None):
        return None
    from cranfield.evaluation.nuggets import evaluate_nuggets

    return evaluate_nuggets(args.nuggets, measures, missing="skip" if args.missing == "skip" else "zero")
