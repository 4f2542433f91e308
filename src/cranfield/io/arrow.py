"""Parquet files and Apache Arrow tables: runs and qrels in, tidy results out (docs/parquet.md).

A run or qrels table uses the column names of ir_measures (``query_id``, ``doc_id``, ``score``,
``relevance``, ``iteration``) or PyTerrier (``qid``, ``docno``, ``score``, ``label``, ``rank``);
a Parquet file is read into a table, and a table goes through the DataFrame readers
(:func:`cranfield.io.run.run_from_frame`, :func:`cranfield.io.qrels.qrels_from_frame`), so the
same validation applies and a bad value names its topic and document; a missing (null) id names
its row. Results are written as one table ``run, topic, measure, value`` (value float64, null
where undefined), atomically (:func:`cranfield._output.atomic_write`).

pyarrow is optional (``pip install 'cranfield[parquet]'``) and imported only when a Parquet file or
an Arrow table is met. The formats are those of the Apache Parquet file format specification
(parquet-format 2.x) and the Apache Arrow columnar format specification (Arrow 1.0 and later).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from cranfield._output import atomic_write
from cranfield.errors import CranfieldError, InputError

PARQUET_SUFFIXES = (".parquet", ".pq")
RESULT_COLUMNS = ("run", "topic", "measure", "value")
PROVENANCE_KEY = b"cranfield.provenance"

__all__ = [
    "PARQUET_SUFFIXES",
    "RESULT_COLUMNS",
    "is_arrow_table",
    "is_parquet_path",
    "read_parquet",
    "require_pyarrow",
    "table_to_frame",
    "write_results_parquet",
]


def require_pyarrow(what: str = "Parquet files and Arrow tables") -> Any:
    """The ``pyarrow`` module, or one clear error naming the extra that installs it."""
    try:
        import pyarrow
    except ImportError:
        raise CranfieldError(f"{what} need pyarrow, which is not installed: pip install 'cranfield[parquet]'") from None
    return pyarrow


def is_parquet_path(path: str | os.PathLike[str]) -> bool:
    """Whether a path names a Parquet file, by its extension (``.parquet`` or ``.pq``, any case)."""
    return Path(path).suffix.lower() in PARQUET_SUFFIXES


def is_arrow_table(obj: Any) -> bool:
    """Whether ``obj`` is a ``pyarrow.Table`` (or RecordBatch), told without importing pyarrow."""
    return type(obj).__module__.startswith("pyarrow") and hasattr(obj, "column_names") and hasattr(obj, "to_pandas")


def read_parquet(path: str | os.PathLike[str]) -> Any:
    """A Parquet file as a DataFrame, via :func:`table_to_frame` (the file names the messages).

    Raises
    ------
    InputError
        For a missing file, a file that is not Parquet, or a null id.
    CranfieldError
        When pyarrow is not installed.
    """
    require_pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    source = str(path)
    if not Path(path).is_file():
        raise InputError(source, None, "no such file" if not Path(path).exists() else "not a file")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputError(source, None, f"cannot read it as Parquet: {exc}") from None
    return table_to_frame(table, source)


def table_to_frame(table: Any, source: str = "<Table>") -> Any:
    """An Arrow table as a pandas DataFrame for the frame readers.

    A null in an id column (topic, document, intent, run name) would read as the text ``None``, so
    it is refused here, naming the row (1-based) and column; nulls in scores and labels are left
    to the frame readers, which name the topic and document.
    """
    require_pyarrow()
    from cranfield.io.qrels import QRELS_COLUMNS
    from cranfield.io.run import NAME_COLUMNS, RUN_COLUMNS

    if not hasattr(table, "column"):  # a RecordBatch or an object with the Table protocol
        import pyarrow as pa

        table = pa.table(table)
    ids = {*RUN_COLUMNS["qid"], *RUN_COLUMNS["docno"], *QRELS_COLUMNS["intent"], *NAME_COLUMNS}
    for name in table.column_names:
        column = table.column(name)
        if name in ids and not _is_id_type(column.type):
            raise InputError(source, None, f"column {name!r} is of type {column.type}; ids are text or integers")
        if name in ids and column.null_count:
            row = _first_null(column)
            raise InputError(source, None, f"row {row + 1}: column {name!r} is null; ids must be given")
    return table.to_pandas()


def _is_id_type(kind: Any) -> bool:
    """Whether an Arrow type holds ids: text (UTF-8 or binary strings) or integers, or a
    dictionary of them; never a list, a struct, a float or a date, whose text matches nothing."""
    import pyarrow as pa

    if pa.types.is_dictionary(kind):
        return _is_id_type(kind.value_type)
    return bool(pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
                or pa.types.is_large_binary(kind) or pa.types.is_integer(kind)
                or getattr(pa.types, "is_string_view", lambda _: False)(kind))


def _first_null(column: Any) -> int:
    """The index of the first null of a chunked array."""
    offset = 0
    for chunk in column.chunks:
        if chunk.null_count:
            return offset + next(i for i, valid in enumerate(chunk.is_valid().to_pylist()) if not valid)
        offset += len(chunk)
    return 0


def write_results_parquet(path: str | os.PathLike[str], rows: Iterable[tuple[str, str, str, float]],
                          provenance: Mapping[str, Any] | None = None) -> None:
    """Write ``(run, topic, measure, value)`` rows as a Parquet file, complete or not at all.

    Columns ``run``, ``topic``, ``measure`` (string) and ``value`` (float64; NaN written as null).
    ``provenance`` is kept as JSON in the schema metadata under ``cranfield.provenance``.
    """
    require_pyarrow("writing Parquet")
    import math

    import pyarrow as pa
    import pyarrow.parquet as pq

    runs: list[str] = []
    topics: list[str] = []
    measures: list[str] = []
    values: list[float | None] = []
    for run, topic, measure, value in rows:
        runs.append(run)
        topics.append(topic)
        measures.append(measure)
        values.append(None if value is None or math.isnan(value) else float(value))
    schema = pa.schema([(name, pa.string()) for name in RESULT_COLUMNS[:3]] + [("value", pa.float64())])
    if provenance is not None:
        import json

        schema = schema.with_metadata({PROVENANCE_KEY: json.dumps(dict(provenance), default=str).encode()})
    table = pa.Table.from_arrays(
        [pa.array(runs, pa.string()), pa.array(topics, pa.string()), pa.array(measures, pa.string()),
         pa.array(values, pa.float64())], schema=schema)
    with atomic_write(path, "wb") as f:
        pq.write_table(table, f)


def write_rows_parquet(path: str | os.PathLike[str], columns: Iterable[tuple[str, str]],
                       rows: Iterable[Iterable[Any]], provenance: Mapping[str, Any] | None = None) -> None:
    """Write tidy rows as a Parquet file, complete or not at all: ``columns`` are (name, type)
    with type ``"string"``, ``"int64"`` or ``"float64"``; None (and NaN) are nulls. ``provenance``
    is kept as JSON in the schema metadata, as :func:`write_results_parquet` keeps it."""
    require_pyarrow("writing Parquet")
    import math

    import pyarrow as pa
    import pyarrow.parquet as pq

    spec = list(columns)
    data: list[list[Any]] = [[] for _ in spec]
    for row in rows:
        for k, value in enumerate(row):
            data[k].append(None if value is None or (isinstance(value, float) and math.isnan(value)) else value)
    types = {"string": pa.string(), "int64": pa.int64(), "float64": pa.float64()}
    schema = pa.schema([(name, types[kind]) for name, kind in spec])
    if provenance is not None:
        import json

        schema = schema.with_metadata({PROVENANCE_KEY: json.dumps(dict(provenance), default=str).encode()})
    table = pa.Table.from_arrays([pa.array(values, types[kind]) for values, (_, kind) in zip(data, spec)],
                                 schema=schema)
    with atomic_write(path, "wb") as f:
        pq.write_table(table, f)
