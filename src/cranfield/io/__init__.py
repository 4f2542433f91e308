"""Input formats to arrays: TREC runs, qrels, diversity qrels and intent files, plain or gzip,
NTCIREVAL's per-topic ``.rel``/``.res`` files, plus pytrec_eval-style dicts and pandas
DataFrames (docs/conventions.md#files)."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cranfield.errors import warn
from cranfield.io._tokens import STDIN, check_stdin_once
from cranfield.io.arrow import is_arrow_table, is_parquet_path, read_parquet, table_to_frame
from cranfield.io.irds import intent_types_for, is_irds, read_irds_intent_types, read_irds_qrels, refuse_run
from cranfield.io.ntcir import (
    looks_like_ntcir_rel,
    looks_like_ntcir_res,
    read_ntcir_rel,
    read_ntcir_res,
)
from cranfield.io.qrels import (
    Intents,
    Qrels,
    qrels_from_dict,
    qrels_from_frame,
    read_intent_types,
    read_intents,
    read_qrels,
)
from cranfield.io.run import Order, Run, frame_run_name, read_run, run_from_dict, run_from_frame

__all__ = [
    "STDIN",
    "check_stdin_once",
    "Intents",
    "Order",
    "Qrels",
    "Run",
    "as_intent_types",
    "as_qrels",
    "as_run",
    "frame_run_name",
    "needs_run_name",
    "looks_like_ntcir_rel",
    "looks_like_ntcir_res",
    "qrels_from_dict",
    "qrels_from_frame",
    "read_intent_types",
    "read_irds_intent_types",
    "read_irds_qrels",
    "read_intents",
    "read_ntcir_rel",
    "read_ntcir_res",
    "read_qrels",
    "read_run",
    "run_from_dict",
    "run_from_frame",
]


def as_intent_types(obj: Any, qrels: Qrels | None = None) -> Any:
    """Intent types from a path (:func:`read_intent_types`), ``irds:<dataset-id>`` (its topics'
    subtopic types) or a dict (as it is); when none are given, those of diversity qrels read from
    ir_datasets (None for other qrels)."""
    if obj is None:
        return intent_types_for(qrels) if qrels is not None else None
    if is_irds(obj):
        return read_irds_intent_types(obj)
    if isinstance(obj, (str, Path)):
        return read_intent_types(obj)
    return obj


def _is_frame(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "to_numpy")


def as_qrels(obj: Any, *, diversity: bool | None = None, on_duplicate: str = "error") -> Qrels:
    """Accept a :class:`Qrels`, a path, ``irds:<dataset-id>`` (an ir_datasets dataset's qrels,
    :func:`~cranfield.io.irds.read_irds_qrels`), a ``{qid: {docno: rel}}`` dict or a DataFrame.

    A directory, or a file that :func:`looks_like_ntcir_rel`, is read as NTCIREVAL ``.rel``
    files (ad hoc; ``diversity`` does not apply); any other path as TREC qrels. A document
    judged twice is an error, or (``on_duplicate="max"``) keeps the larger label.
    """
    if isinstance(obj, Qrels):
        return obj
    if is_irds(obj):  # irds:<dataset-id>: an ir_datasets dataset's qrels (docs/datasets.md)
        return read_irds_qrels(obj, diversity=diversity, on_duplicate=on_duplicate)
    if isinstance(obj, (str, Path)):
        if is_parquet_path(obj):  # a Parquet table (docs/parquet.md)
            return qrels_from_frame(read_parquet(obj), diversity=diversity, on_duplicate=on_duplicate,
                                    source=str(obj))
        if Path(obj).is_dir() or looks_like_ntcir_rel(obj):
            return read_ntcir_rel(obj, on_duplicate=on_duplicate)
        return read_qrels(obj, diversity=diversity, on_duplicate=on_duplicate)
    if isinstance(obj, Mapping):
        return qrels_from_dict(obj, diversity=diversity)
    if is_arrow_table(obj):
        return qrels_from_frame(table_to_frame(obj), diversity=diversity, on_duplicate=on_duplicate, source="<Table>")
    if _is_frame(obj):
        return qrels_from_frame(obj, diversity=diversity, on_duplicate=on_duplicate)
    raise TypeError(f"qrels must be a path, a dict, a DataFrame or a Qrels, not {type(obj).__name__}")


def as_run(obj: Any, *, order: Order = "score", on_duplicate: str = "error", name: str | None = None,
           score_dtype: str = "float32", columns: Any = None) -> Run:
    """Accept a :class:`Run`, a path, a ``{qid: {docno: score}}`` dict or a DataFrame.

    A path (a file, a pipe, ``-`` for standard input) is read as a TREC Dynamic Domain run when
    its shape says so (:func:`~cranfield.io.dd.dd_run_evidence`; a warning says why unless every
    line is as the DD jig writes it), else as NTCIREVAL
    ``.res`` ranked lists when it is a directory or :func:`looks_like_ntcir_res` (ranked in
    file order whatever ``order`` says), else as a TREC run (:func:`read_run`; ``columns``: what
    a read-ahead thread read of the file, its columns or the run itself, :func:`~cranfield.io.run.read_run_ahead`).
    """
    if isinstance(obj, Run):
        return obj
    if is_irds(obj):
        raise refuse_run(obj)
    if isinstance(obj, (str, Path)):
        from cranfield.io.dd import JIG_OUTPUT, dd_run_evidence, read_dd_run

        if is_parquet_path(obj):  # a Parquet table, named by its run/tag/name column or file (docs/parquet.md)
            frame = read_parquet(obj)
            return run_from_frame(frame, order=order, on_duplicate=on_duplicate,  # type: ignore[arg-type]
                                  name=name or frame_run_name(frame) or Path(obj).name, source=str(obj))
        evidence = None if Path(obj).is_dir() else dd_run_evidence(obj)
        if evidence is not None and evidence != JIG_OUTPUT:  # inferred from the shape alone: say so
            warn(f"{obj}: read as a TREC Dynamic Domain run (topic iteration docno score on_topic ...) because "
                 f"{evidence}")
        if evidence is not None:
            return read_dd_run(obj, name=name)
        if Path(obj).is_dir() or looks_like_ntcir_res(obj):
            return read_ntcir_res(obj, name=name, on_duplicate=on_duplicate)  # type: ignore[arg-type]
        if isinstance(columns, Run):  # read ahead in full (run.read_run_ahead)
            return columns if name is None else dataclasses.replace(columns, name=name)
        return read_run(obj, order=order, on_duplicate=on_duplicate, name=name,  # type: ignore[arg-type]
                        score_dtype=score_dtype, columns=columns)
    if isinstance(obj, Mapping):
        return run_from_dict(obj, order=order, name=name or "run")
    if is_arrow_table(obj):
        return run_from_frame(table_to_frame(obj), order=order, name=name, source="<Table>",
                              on_duplicate=on_duplicate)  # type: ignore[arg-type]
    if _is_frame(obj):
        return run_from_frame(obj, order=order, name=name, on_duplicate=on_duplicate)  # type: ignore[arg-type]
    raise TypeError(f"a run must be a path, a dict, a DataFrame or a Run, not {type(obj).__name__}")


def needs_run_name(obj: Any) -> bool:
    """Whether an in-memory run has no name of its own: a dict, or a DataFrame or Arrow table
    without a single-valued ``run``/``tag``/``name`` column (:func:`frame_run_name`). Files and
    :class:`Run` objects carry their names (docs/parquet.md#names)."""
    if isinstance(obj, (str, Path, Run)):
        return False
    if isinstance(obj, Mapping):
        return True
    if is_arrow_table(obj) or _is_frame(obj):
        return frame_run_name(obj) is None
    return False
