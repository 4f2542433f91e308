"""The output registry: every format a command writes, declared once.

:data:`FORMATS` declares the formats (name, file extensions, text or binary, what it is);
:data:`OUTPUTS` the formats of each kind of result (a command's ``--format`` choices, its default,
and which format ``-o FILE`` picks by extension). Writers register for a (kind, format) pair with
:func:`register`; a writer for the kind ``"*"`` serves every kind that declares the format and has
rows (:func:`register_rows`: the rows of ``--format json``). :func:`render_output` dispatches.

This module imports no numpy: ``cranfield --help`` lists every command's choices from it without
loading the numerical stack; the writers (``cranfield.render.writers`` and the tool layouts of
``cranfield.compat.formats``) register when the command that writes is run.

Adding a format is a :class:`OutputFormat` here, the kinds that offer it, and its writer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from cranfield.errors import CranfieldError

__all__ = ["OutputFormat", "FORMATS", "OUTPUTS", "formats_for", "format_from_path", "register", "register_rows",
           "render_output", "rows_of", "is_binary"]


@dataclass(frozen=True)
class OutputFormat:
    """One output format: its ``--format`` name, the file extensions ``-o`` recognises it by (the
    first is the one written by ``save``), whether it is binary (needs ``-o FILE``), and what it is."""

    name: str
    extensions: tuple[str, ...]
    help: str
    binary: bool = False


FORMATS: dict[str, OutputFormat] = {f.name: f for f in (
    OutputFormat("table", (), "an aligned text table after a # line of settings"),
    OutputFormat("trec", (".trec",), "trec_eval's layout and order (measure, topic, value)"),
    OutputFormat("csv", (".csv",), "CSV that pandas reads as is: a header row and data rows"),
    OutputFormat("json", (".json",), "a JSON array of objects (the rows)"),
    OutputFormat("jsonl", (".jsonl", ".ndjson"), "JSON Lines: one object per line, the rows of json"),
    OutputFormat("parquet", (".parquet",), "a Parquet file of the rows (needs -o FILE and pyarrow)", binary=True),
    OutputFormat("latex", (".tex",), "a booktabs table with significance marks"),
    OutputFormat("markdown", (".md",), "a Markdown table with significance marks"),
    OutputFormat("html", (".html", ".htm"), "a self-contained HTML page"),
    OutputFormat("ndeval", (), "ndeval's CSV and measures"),
    OutputFormat("gdeval", (), "gdeval.pl's CSV"),
    OutputFormat("ntcireval", (), "NTCIREVAL compute's lines"),
)}

_ROWS = ("table", "csv", "json")
# kind -> its formats, the first the default; one kind per command (a command with several
# outputs, e.g. similarity and repro, has one kind for each)
OUTPUTS: dict[str, tuple[str, ...]] = {
    "eval": ("table", "trec", "csv", "json", "ndeval", "gdeval", "ntcireval", "parquet"),
    "nuggets": ("table", "trec", "csv", "json", "parquet"),
    "aspects": ("table", "trec", "csv", "json"),
    "measures": ("table", "json"),
    "compare": ("table", "latex", "markdown", "html", "csv", "json"),
    "discpower": _ROWS,
    "correlate": _ROWS,
    "intuitiveness": _ROWS,
    "coverage": _ROWS,
    "topicsize": _ROWS,
    "axioms": ("table", "json"),
    "collection": ("table", "json", "csv"),
    "collection-permuted": ("table", "json", "csv"),
    "collection-runs": ("table", "json", "csv"),
    "dss": ("table", "json", "csv"),
    "truncation": ("table", "json", "csv"),
    "judges": ("table", "csv", "json", "parquet"),
    "similarity": ("table", "csv", "json", "parquet"),
    "repro": ("table", "csv", "json", "parquet", "html"),
}

Writer = Callable[..., str]
_WRITERS: dict[tuple[str, str], Writer] = {}
_ROW_MAKERS: dict[str, Callable[..., list[dict[str, Any]]]] = {}


def formats_for(kind: str) -> tuple[str, ...]:
    """The formats of ``kind`` (:data:`OUTPUTS`), its default first; every kind with json has jsonl."""
    declared = OUTPUTS[kind]
    return (*declared, "jsonl") if "json" in declared else declared


def is_binary(fmt: str) -> bool:
    """Whether ``fmt`` is written only to a file (``-o FILE``)."""
    return FORMATS[fmt].binary


def format_from_path(kind: str, path: str | None) -> str | None:
    """The format of ``kind`` that ``path``'s extension names (``scores.csv`` is csv), or None."""
    if not path:
        return None
    suffix = PurePath(path).suffix.lower()
    return next((f for f in formats_for(kind) if suffix and suffix in FORMATS[f].extensions), None)


def register(kinds: str | tuple[str, ...], *fmts: str) -> Callable[[Writer], Writer]:
    """Register the decorated function as the writer of each of ``kinds`` (``"*"``: every kind with
    rows) in each of ``fmts``: ``writer(payload, fmt=..., **settings) -> str``."""
    def add(writer: Writer) -> Writer:
        for kind in (kinds,) if isinstance(kinds, str) else kinds:
            for fmt in fmts:
                _WRITERS[kind, fmt] = writer
        return writer
    return add


def register_rows(*kinds: str) -> Callable[[Callable[..., list[dict[str, Any]]]], Callable[..., list[dict[str, Any]]]]:
    """Register the decorated function as the rows of ``kinds``' results: ``rows(payload, **settings)``,
    a list of flat dicts (what ``--format json`` prints, and the generic formats are made of)."""
    def add(rows: Callable[..., list[dict[str, Any]]]) -> Callable[..., list[dict[str, Any]]]:
        for kind in kinds:
            _ROW_MAKERS[kind] = rows
        return rows
    return add


def rows_of(kind: str, payload: Any, settings: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The rows of a ``kind`` result (:func:`register_rows`)."""
    return _ROW_MAKERS[kind](payload, **settings)


def render_output(kind: str, fmt: str, payload: Any, **settings: Any) -> str:
    """``payload`` (a result of ``kind``) in format ``fmt``: by the writer registered for (kind,
    fmt), else by the generic writer of ``fmt`` over the kind's rows. A binary format's writer
    writes the file ``settings["path"]`` whole (or not at all) and returns ``""``."""
    if fmt not in formats_for(kind):
        raise CranfieldError(f"the {kind} results have no format {fmt!r}; they have {', '.join(formats_for(kind))}")
    writer = _WRITERS.get((kind, fmt))
    if writer is not None:
        return writer(payload, fmt=fmt, **settings)
    if kind in _ROW_MAKERS and ("*", fmt) in _WRITERS:
        return _WRITERS["*", fmt](rows_of(kind, payload, settings), fmt=fmt, **settings)
    raise CranfieldError(f"no writer is registered for the {kind} results in {fmt} (import cranfield.render.writers)")
