"""Nugget assignments of generated answers (RAG): which nuggets of a topic each run's answer supports.

A nugget is an atomic fact an answer to a topic should contain, marked ``vital`` or ``okay``; an
assessor (a person or an LLM) assigns each nugget to each answer as ``support``,
``partial_support`` or ``not_support`` (Pradeep et al., "Initial nugget evaluation results for
the TREC 2024 RAG track with the AutoNuggetizer framework", 2024; castorini/nuggetizer). Two
forms are read (docs/nuggets.md):

- nuggetizer's JSONL, one record per answer (run × topic): ``run_id`` (the answer file's stem
  when absent), ``qid`` and ``nuggets``, a list of ``{text, importance, assignment}``. A nugget's
  id is its 1-based position in the list. ``failed`` is what nuggetizer writes when its LLM call
  fails; it scores as not supported, as nuggetizer scores it, and one warning counts them.
- a table of ``qid run nugget_id importance assignment`` rows: whitespace-separated text (an
  optional header line naming the columns), CSV (with that header), Parquet, or a DataFrame.

Unknown importance or assignment values, an answer given twice and a nugget assigned twice to one
answer are errors at ``file:line``. Text is tokenised with numpy into integer codes, so no
Python object is built per nugget of a table.

:class:`NuggetAssignments` holds the codes; :meth:`NuggetAssignments.to_frame` gives the long
table ``qid, run, nugget_id, importance, label`` (one row per assignment) that compares two
assignment sets of the same answers (manual and automatic, say).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._choices import ASSIGNMENTS, IMPORTANCE
from cranfield.errors import CranfieldError, InputError, warn

FAILED = ASSIGNMENTS.index("failed")
COLUMNS = ("qid", "run", "nugget_id", "importance", "assignment")
_IMPORTANCE_CODE = {name: k for k, name in enumerate(IMPORTANCE)}
_ASSIGNMENT_CODE = {name: k for k, name in enumerate(ASSIGNMENTS)}
Lines = np.ndarray | int  # each row's line number, or the first row's when there is one row a line
# the column names of a DataFrame or Arrow table, per column of COLUMNS
ALIASES = {"qid": ("qid", "query_id"), "run": ("run", "run_id"), "nugget_id": ("nugget_id",),
           "importance": ("importance",), "assignment": ("assignment", "label")}


@dataclass(frozen=True)
class NuggetAssignments:
    """Nugget assignments of answers, as integer codes (one entry per assignment).

    Attributes
    ----------
    runs, topics : list of str
        Run names and topic ids, in order of first appearance.
    answer_run, answer_topic : ndarray of int32, shape (A,)
        The (run, topic) of each answer given (an answer may have no nugget).
    run, topic : ndarray of int32, shape (N,)
        The answer of each assignment.
    nugget : ndarray of int32, shape (N,)
        Code of each assignment's nugget id in ``nugget_ids``.
    nugget_ids : list of str
    importance : ndarray of int8, shape (N,)
        Index in :data:`IMPORTANCE` (0 vital, 1 okay).
    assignment : ndarray of int8, shape (N,)
        Index in :data:`ASSIGNMENTS` (0 support, 1 partial_support, 2 not_support, 3 failed).
    sources : tuple of str
        The files (or ``<DataFrame>``) read.
    """

    runs: list[str]
    topics: list[str]
    answer_run: np.ndarray
    answer_topic: np.ndarray
    run: np.ndarray
    topic: np.ndarray
    nugget: np.ndarray
    nugget_ids: list[str]
    importance: np.ndarray
    assignment: np.ndarray
    sources: tuple[str, ...]

    def __len__(self) -> int:
        return int(self.run.size)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """``(counts, present)``: ``counts[i, a, s, t]`` the nuggets of importance ``i`` assigned
        ``a`` in run ``s``'s answer to topic ``t`` (int64, shape (2, 4, S, T): each (i, a) plane
        contiguous), and ``present[s, t]`` whether that answer is given. One ``bincount`` over
        the assignments."""
        shape = (len(IMPORTANCE), len(ASSIGNMENTS), len(self.runs), len(self.topics))
        key = (self.importance * np.int8(shape[1]) + self.assignment).astype(np.int64)
        key *= shape[2]  # ((importance · 4 + assignment) · S + run) · T + topic, in place
        key += self.run
        key *= shape[3]
        key += self.topic
        counts = np.bincount(key, minlength=int(np.prod(shape))).reshape(shape)
        present = np.zeros(shape[2:], dtype=bool)
        present[self.answer_run, self.answer_topic] = True
        return counts, present

    def to_frame(self) -> Any:
        """The long table of assignments: one row per (qid, run, nugget_id) with its
        ``importance`` and ``label`` (the assignment: support, partial_support, not_support or
        failed), categorical columns, in the order read. Two assignment sets of the same answers
        (manual and automatic) are compared by joining their tables on qid, run and nugget_id."""
        import pandas as pd

        def cat(codes: np.ndarray, names: Sequence[str]) -> Any:
            return pd.Categorical.from_codes(codes, dtype=pd.CategoricalDtype(list(names)))

        return pd.DataFrame({
            "qid": cat(self.topic, self.topics), "run": cat(self.run, self.runs),
            "nugget_id": cat(self.nugget, self.nugget_ids), "importance": cat(self.importance, IMPORTANCE),
            "label": cat(self.assignment, ASSIGNMENTS),
        })


# --------------------------------------------------------------------------- reading
def read_nuggets(sources: Any, *, warn_failed: bool = True) -> NuggetAssignments:
    """Nugget assignments from one or more files (nuggetizer's JSONL, or tables of ``qid run
    nugget_id importance assignment`` as text, CSV or Parquet), DataFrames, or a
    :class:`NuggetAssignments` (returned as it is). Several inputs are merged; an answer (run,
    topic) given twice is an error. ``failed`` assignments are counted in one warning.

    Raises
    ------
    InputError
        ``path:line: what is wrong``: malformed JSON or records, unknown importance or assignment
        values, an answer given twice, a nugget assigned twice to one answer, an empty input.
    """
    if isinstance(sources, NuggetAssignments):
        return sources
    items = list(sources) if isinstance(sources, (list, tuple)) else [sources]
    if not items:
        raise CranfieldError("no nugget assignments given: name at least one file")
    parts = [_read_one(obj) for obj in items]
    merged = parts[0] if len(parts) == 1 else _merge(parts)
    failed = int(np.count_nonzero(merged.assignment == FAILED))
    if failed and warn_failed:
        warn(f"{failed} nugget assignment{'s' if failed > 1 else ''} marked 'failed' (the assessor's call failed) "
             f"in {', '.join(merged.sources)}: scored as not supported, as nuggetizer scores them")
    return merged


def _read_one(obj: Any) -> NuggetAssignments:
    from cranfield.io.arrow import is_arrow_table, is_parquet_path

    if hasattr(obj, "columns") and hasattr(obj, "iloc"):
        return nuggets_from_frame(obj)
    if is_arrow_table(obj):
        return nuggets_from_arrow(obj)
    if not isinstance(obj, (str, Path)):
        raise TypeError(f"Nugget assignments are read from a path, a DataFrame or NuggetAssignments. "
                        f"Got {type(obj).__name__} instead.")
    path = Path(obj)
    if not path.is_file():
        raise InputError(str(obj), None, "no such file" if not path.exists() else "not a file")
    if is_parquet_path(path):
        return _read_parquet(path)
    from cranfield.io._tokens import open_binary

    with open_binary(path) as stream:  # decompressed, without a byte-order mark
        head = stream.read(1 << 16)
    if head.lstrip().startswith(b"{"):
        return (_read_jsonl_arrow(path) if _arrow_worth_it(path) else None) or read_nuggets_jsonl(path)
    first = head.split(b"\n", 1)[0].rstrip(b"\r")
    separator = "," if b"," in first else "\t" if b"\t" in first else " "
    fields = [f.strip() for f in first.decode("utf-8", "replace").split(separator if separator != " " else None)]
    picked = [next((c for c in opts if c in fields), None) for opts in ALIASES.values()]
    header = fields if None not in picked else None
    if separator == "," and header is None:
        raise InputError(str(path), 1, f"a CSV table of nugget assignments starts with a header row naming its "
                                       f"columns {', '.join(COLUMNS)}; got {first.decode('utf-8', 'replace')!r}")
    fast = _read_text_arrow(path, separator, header) if _arrow_worth_it(path) else None
    if fast is not None:
        return fast
    return _read_csv(path) if separator == "," else _read_text(path, header)


def _arrow_worth_it(path: Path) -> bool:
    """Whether pyarrow's readers may be tried: installed, and a file big enough for their import
    (~0.1 s) to pay (:func:`cranfield.io.fastcsv.worth_it`)."""
    from cranfield.io import fastcsv

    return fastcsv.worth_it(path, min_bytes=1 << 20) and fastcsv.available()


def _read_text_arrow(path: Path, separator: str, header: list[str] | None) -> NuggetAssignments | None:
    """A table read by pyarrow's multi-threaded CSV reader, each column dictionary-encoded as it
    is parsed; None (and the caller's reader, which also writes every message) when pyarrow finds
    the file irregular: a line with another number of fields (a blank line included, so a row's
    index gives its line) or an empty field (several blanks in a row)."""
    import pyarrow as pa
    import pyarrow.csv as pc

    names = header or list(COLUMNS)
    coded = pa.dictionary(pa.int32(), pa.string())
    try:
        table = pc.read_csv(
            path, read_options=pc.ReadOptions(column_names=names, skip_rows=1 if header else 0, block_size=1 << 24),
            parse_options=pc.ParseOptions(delimiter=separator, quote_char='"' if separator == "," else False,
                                          ignore_empty_lines=False),
            convert_options=pc.ConvertOptions(column_types=dict.fromkeys(names, coded),
                                              strings_can_be_null=False, quoted_strings_can_be_null=False))
    except (pa.ArrowException, OSError, UnicodeError):
        return None
    if table.num_rows == 0:
        return None
    try:
        return nuggets_from_arrow(table, source=str(path), first_line=2 if header else 1, strict=separator != ",")
    except InputError:  # told by the caller's reader, the reference for every message
        return None


def _read_parquet(path: Path) -> NuggetAssignments:
    """A Parquet table, its string columns read dictionary-encoded."""
    from cranfield.io.arrow import require_pyarrow

    require_pyarrow()
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        schema = pq.read_schema(path)
        table = pq.read_table(path, read_dictionary=[n for n in schema.names if pa.types.is_string(
            schema.field(n).type) or pa.types.is_large_string(schema.field(n).type)])
    except (pa.ArrowException, OSError) as exc:
        raise InputError(str(path), None, f"cannot read it as Parquet: {exc}") from None
    return nuggets_from_arrow(table, source=str(path), first_line=1)


def nuggets_from_arrow(table: Any, *, source: str = "<Table>", first_line: int = 1,
                       strict: bool = False) -> NuggetAssignments | Any:
    """:class:`NuggetAssignments` from an Arrow table with the columns of :func:`nuggets_from_frame`,
    each dictionary-encoded (if it is not already) and read as codes, without a Python object
    per row. With ``strict`` (a table pyarrow read from whitespace-separated text), a value that is
    empty or holds a blank returns None, for the tokenizer to read the file instead."""
    import pyarrow as pa
    import pyarrow.compute as pcc

    if not hasattr(table, "column"):
        table = pa.table(table)
    picked = [next((c for c in opts if c in table.column_names), None) for opts in ALIASES.values()]
    if None in picked:
        _missing_columns(picked, table.column_names, source)
    if table.num_rows == 0:
        raise InputError(source, None, "no assignment (the table is empty)")
    codes, names = [], []
    for column in picked:
        values = table.column(column)
        if values.null_count:
            row = int(np.flatnonzero(values.is_null().to_numpy(zero_copy_only=False))[0])
            raise InputError(source, first_line + row, f"the {column} is missing")
        if not pa.types.is_dictionary(values.type):
            values = pcc.dictionary_encode(values.cast(pa.string()) if not pa.types.is_string(values.type)
                                           and not pa.types.is_large_string(values.type) else values)
        values = values.unify_dictionaries() if isinstance(values, pa.ChunkedArray) else values
        chunks = values.chunks if isinstance(values, pa.ChunkedArray) else [values]
        dictionary = chunks[0].dictionary.to_pylist() if chunks else []
        if strict and any(not v or len(v.split()) != 1 or v != v.strip() for v in dictionary):
            return None  # an empty field, or blanks the tokenizer would read otherwise
        indices = [c.indices.to_numpy(zero_copy_only=False) for c in chunks]
        codes.append((indices[0] if len(indices) == 1 else np.concatenate(indices)).astype(np.int32, copy=False))
        names.append([str(v) for v in dictionary])
    return _from_codes(codes, names, first_line, source)


def read_nuggets_jsonl(path: str | Path) -> NuggetAssignments:
    """nuggetizer's assignment JSONL (``assign`` output, answers mode): one JSON object per line
    with ``qid``, ``run_id`` (default: the file's stem, as nuggetizer names a run by its answer
    file) and ``nuggets``, a list of objects with ``importance`` and ``assignment``; other keys
    (``query``, ``answer_text``, ``text``, ...) are ignored. Each line is parsed once; the
    nuggets' importance and assignment are coded as each line is read (small integers, no string
    kept), so memory is a few bytes per nugget besides the line being read."""
    from array import array

    from cranfield.io._tokens import open_binary

    source = str(path)
    default_run = _run_name(path)
    runs: list[str] = []
    topics: list[str] = []
    lines: list[int] = []
    sizes: list[int] = []
    importance, assignment = array("b"), array("b")
    with open_binary(path) as stream:
        for number, raw in enumerate(stream, start=1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw)
            except ValueError as exc:
                raise InputError(source, number, f"not a JSON object: {exc}") from None
            if not isinstance(record, dict):
                raise InputError(source, number, f"not a JSON object but a {type(record).__name__}")
            qid, run, nuggets = record.get("qid"), record.get("run_id", default_run), record.get("nuggets")
            if not isinstance(qid, (str, int)) or isinstance(qid, bool):
                raise InputError(source, number, "the record has no 'qid' (a string)")
            if not isinstance(run, (str, int)) or isinstance(run, bool):
                raise InputError(source, number, f"'run_id' must be a string; got {run!r}")
            if not isinstance(nuggets, list):
                raise InputError(source, number, "the record has no 'nuggets' list")
            try:
                imp = [_IMPORTANCE_CODE.get(n["importance"], -1) for n in nuggets]
                asg = [_ASSIGNMENT_CODE.get(n["assignment"], -1) for n in nuggets]
            except (KeyError, TypeError):
                imp = asg = [-1]
            if -1 in imp or -1 in asg:
                raise InputError(source, number, _nugget_problem(nuggets))
            importance.extend(imp)
            assignment.extend(asg)
            runs.append(str(run))
            topics.append(str(qid))
            lines.append(number)
            sizes.append(len(nuggets))
    if not lines:
        raise InputError(source, None, "the file is empty")
    size = np.array(sizes, dtype=np.int64)
    answer = np.repeat(np.arange(size.size), size)
    position = (np.arange(answer.size) - np.repeat(np.cumsum(size) - size, size)).astype(np.int32)
    run_code, run_names = _factorize(np.array(runs, dtype=object))
    topic_code, topic_names = _factorize(np.array(topics, dtype=object))
    run_names, topic_names = [str(r) for r in run_names], [str(t) for t in topic_names]
    _check_answers(run_code, topic_code, np.array(lines, dtype=np.int64), run_names, topic_names, source)
    ids = [str(k) for k in range(1, int(size.max(initial=0)) + 1)]
    return NuggetAssignments(
        runs=run_names, topics=topic_names, answer_run=run_code, answer_topic=topic_code,
        run=run_code[answer], topic=topic_code[answer], nugget=position, nugget_ids=ids,
        importance=np.frombuffer(importance, dtype=np.int8), assignment=np.frombuffer(assignment, dtype=np.int8),
        sources=(source,))


def _nugget_problem(nuggets: list[Any]) -> str:
    """What is wrong with the first bad nugget of a record: not an object with both fields, or
    an unknown importance or assignment."""
    for k, n in enumerate(nuggets, 1):
        if not isinstance(n, dict) or "importance" not in n or "assignment" not in n:
            return f"nugget {k} is not an object with 'importance' and 'assignment'"
        for key, allowed in (("importance", IMPORTANCE), ("assignment", ASSIGNMENTS)):
            if not isinstance(n[key], str) or n[key] not in allowed:
                return f"unknown {key} {n[key]!r}: expected {' or '.join(repr(a) for a in allowed)}"
    raise AssertionError("no bad nugget")  # pragma: no cover


def _read_text(path: Path, header: list[str] | None) -> NuggetAssignments:
    """A whitespace-separated table, tokenised into codes (:func:`~cranfield.io._tokens.read_columns`);
    with a ``header`` line, its columns are taken by name."""
    from cranfield.io._tokens import read_columns, require_columns

    where = ([next(header.index(c) for c in opts if c in header) for opts in ALIASES.values()] if header
             else list(range(len(COLUMNS))))
    width = len(header) if header else len(COLUMNS)
    cols = read_columns(path, width, text=(), codes=where)
    require_columns(cols, (width,), " ".join(header or COLUMNS))
    codes = [cols.code[j] for j in where]
    names = [cols.names[j] for j in where]
    line = cols.line.astype(np.int64)
    if header:  # the header line's words are no value
        codes, line = [c[1:] for c in codes], line[1:]
        codes, names = map(list, zip(*(_compact(c, n) for c, n in zip(codes, names))))
    if line.size == 0:
        raise InputError(str(path), None, "the file has a header line and no assignment")
    return _from_codes(codes, names, line, str(path))


def _read_jsonl_arrow(path: Path) -> NuggetAssignments | None:
    """nuggetizer's JSONL read by pyarrow's multi-threaded JSON reader, or None whenever anything
    is unusual (a gzip file, inferred types other than strings and lists of objects, a missing
    field, an error in the data): the caller then reads the file line by line, which also names
    the line of any error."""
    import pyarrow as pa
    import pyarrow.compute as pcc
    import pyarrow.json as pj

    from cranfield.io._tokens import open_binary

    with open_binary(path) as stream, open(path, "rb") as raw:
        if stream.read(4) != raw.read(4):  # compressed
            return None
    try:
        table = pj.read_json(path, read_options=pj.ReadOptions(block_size=1 << 24))
        nuggets = table.column("nuggets").combine_chunks()
        qid = table.column("qid")
        run = table.column("run_id") if "run_id" in table.column_names else None
        items = nuggets.flatten()
        fields = [items.field("importance"), items.field("assignment")]
    except (pa.ArrowException, OSError, UnicodeError, KeyError):
        return None
    strings = [qid, *fields] + ([run] if run is not None else [])
    if not all(pa.types.is_string(c.type) and not c.null_count for c in strings) or nuggets.null_count:
        return None
    size = np.diff(nuggets.offsets.to_numpy())
    answer = np.repeat(np.arange(size.size), size)
    line = 1  # lines matter for messages only, and any error is left to the line-by-line reader
    coded = [pcc.dictionary_encode(c).combine_chunks() if isinstance(c, pa.ChunkedArray) else pcc.dictionary_encode(c)
             for c in [qid, run] if c is not None]
    topic_code = coded[0].indices.to_numpy(zero_copy_only=False).astype(np.int32)
    topic_names = [str(v) for v in coded[0].dictionary.to_pylist()]
    if run is None:
        run_code, run_names = np.zeros(size.size, dtype=np.int32), [_run_name(path)]
    else:
        run_code = coded[1].indices.to_numpy(zero_copy_only=False).astype(np.int32)
        run_names = [str(v) for v in coded[1].dictionary.to_pylist()]
    try:
        _check_answers(run_code, topic_code, line, run_names, topic_names, str(path))
        imp, asg = (_coded_labels(f.indices.to_numpy(zero_copy_only=False), f.dictionary.to_pylist(), allowed, "",
                                  str(path), line)
                    for f, allowed in zip(map(pcc.dictionary_encode, fields), (IMPORTANCE, ASSIGNMENTS)))
    except InputError:
        return None
    ids = [str(k) for k in range(1, int(size.max(initial=0)) + 1)]
    position = (np.arange(answer.size) - np.repeat(np.cumsum(size) - size, size)).astype(np.int32)
    return NuggetAssignments(
        runs=run_names, topics=topic_names, answer_run=run_code, answer_topic=topic_code, run=run_code[answer],
        topic=topic_code[answer], nugget=position, nugget_ids=ids, importance=imp, assignment=asg,
        sources=(str(path),))


def _run_name(path: str | Path) -> str:
    """nuggetizer's run name of an answer file: its name without ``.jsonl`` (and what follows)."""
    name = Path(path).name
    return name.split(".jsonl")[0] if ".jsonl" in name else Path(path).stem


def _read_csv(path: Path) -> NuggetAssignments:
    """A CSV table with a header row naming :data:`COLUMNS` (other columns ignored)."""
    import pandas as pd

    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skip_blank_lines=False)
    except (ValueError, pd.errors.ParserError) as exc:
        raise InputError(str(path), None, f"cannot read it as CSV: {exc}") from None
    return nuggets_from_frame(frame, source=str(path), first_line=2)


def nuggets_from_frame(frame: Any, *, source: str = "<DataFrame>", first_line: int = 1) -> NuggetAssignments:
    """:class:`NuggetAssignments` from a DataFrame with columns ``qid`` (or ``query_id``), ``run``
    (or ``run_id``), ``nugget_id``, ``importance`` and ``assignment`` (or ``label``). Row ``i``
    is line ``first_line + i`` in messages (2 for a CSV file's first data row)."""
    import pandas as pd

    picked = [next((c for c in opts if c in frame.columns), None) for opts in ALIASES.values()]
    if None in picked:
        _missing_columns(picked, frame.columns, source)
    if len(frame) == 0:
        raise InputError(source, None, "no assignment (the table is empty)")
    codes, names = [], []
    for column in picked:
        values = frame[column]
        if values.isna().any():
            row = int(np.flatnonzero(values.isna().to_numpy())[0])
            raise InputError(source, first_line + row, f"the {column} is missing")
        code, uniques = pd.factorize(values, sort=False)
        codes.append(code.astype(np.int32))
        names.append([str(u) for u in uniques])
    return _from_codes(codes, names, first_line, source)


def _missing_columns(picked: list[Any], found: Iterable[Any], source: str) -> None:
    """The error naming the columns of :data:`ALIASES` not found."""
    missing = [role for role, c in zip(ALIASES, picked) if c is None]
    raise InputError(source, None, f"no {', '.join(missing)} column: the columns are {', '.join(COLUMNS)}; "
                                   f"found {', '.join(map(str, found))}")


def _from_codes(codes: list[np.ndarray], names: list[list[str]], line: Lines, source: str) -> NuggetAssignments:
    """Assignments from the codes of the five columns (order of :data:`COLUMNS`)."""
    topic, run, nugget = codes[0], codes[1], codes[2]
    imp = _coded_labels(codes[3], names[3], IMPORTANCE, "importance", source, line)
    asg = _coded_labels(codes[4], names[4], ASSIGNMENTS, "assignment", source, line)
    key = run.astype(np.int64)  # the answer (run · T + topic), then the assignment (answer · K + nugget)
    key *= len(names[0])
    key += topic
    present = np.zeros(len(names[1]) * len(names[0]), dtype=bool)
    present[key] = True
    key *= max(len(names[2]), 1)
    key += nugget
    _check_unique(key, line, source, lambda k: (f"nugget {names[2][nugget[k]]!r} is assigned twice to the answer "
                                                 f"of run {names[1][run[k]]!r} to topic {names[0][topic[k]]!r}"))
    given = np.flatnonzero(present)
    return NuggetAssignments(
        runs=names[1], topics=names[0], answer_run=(given // len(names[0])).astype(np.int32),
        answer_topic=(given % len(names[0])).astype(np.int32), run=run, topic=topic, nugget=nugget,
        nugget_ids=names[2], importance=imp, assignment=asg, sources=(source,))


def _line_at(line: Lines, rows: Any) -> Any:
    """The line numbers of rows: ``line`` is each row's line, or the first row's (one row a line)."""
    return line + rows if isinstance(line, int) else line[rows]


def _check_unique(key: np.ndarray, line: Lines, source: str, what: Any) -> None:
    """An :class:`InputError` at the second line of the first key seen twice (``what(row)`` says
    what); a check in one pass when the keys increase, as in a sorted file."""
    if key.size < 2 or bool(np.all(key[1:] > key[:-1])):
        return
    order = np.argsort(key, kind="stable")
    same = key[order[1:]] == key[order[:-1]]
    if not same.any():
        return
    rows = order[1:][same]
    row = int(rows[np.argmin(_line_at(line, rows))])
    raise InputError(source, int(_line_at(line, row)), what(row))


def _check_answers(run: np.ndarray, topic: np.ndarray, line: Lines, runs: list[str], topics: list[str],
                   source: str) -> None:
    """An answer (run, topic) given by two records is an error at the second."""
    key = run.astype(np.int64) * max(len(topics), 1) + topic
    _check_unique(key, line, source, lambda k: f"a second answer of run {runs[run[k]]!r} to topic "
                                               f"{topics[topic[k]]!r} (each answer is one record)")


def _factorize(values: np.ndarray) -> tuple[np.ndarray, list[Any]]:
    """Codes in order of first appearance and the distinct values."""
    import pandas as pd

    code, uniques = pd.factorize(values, sort=False)
    return code.astype(np.int32), list(uniques)


def _coded_labels(code: np.ndarray, names: Sequence[Any], allowed: tuple[str, ...], what: str, source: str,
                  line: Lines) -> np.ndarray:
    """Map the codes of a column whose distinct values are ``names`` to indices in ``allowed``."""
    table = np.array([allowed.index(n) if isinstance(n, str) and n in allowed else -1 for n in names],
                     dtype=np.int8)
    out = table[code] if table.size else np.zeros(0, dtype=np.int8)
    if (table < 0).any():
        row = int(np.flatnonzero(out < 0)[0])
        raise InputError(source, int(_line_at(line, row)), f"unknown {what} {names[code[row]]!r}: expected "
                                                 f"{' or '.join(repr(a) for a in allowed)}")
    return out


def _compact(code: np.ndarray, names: list[str]) -> tuple[np.ndarray, list[str]]:
    """Codes renumbered over the values still used (a header line's words dropped)."""
    used = np.bincount(code, minlength=len(names)) > 0
    if used.all():
        return code, names
    new = (np.cumsum(used) - 1).astype(np.int32)
    return new[code], [n for n, u in zip(names, used) if u]


def _merge(parts: Iterable[NuggetAssignments]) -> NuggetAssignments:
    """Several inputs as one: runs, topics and nugget ids recoded; an answer given in two inputs
    is an error naming both."""
    parts = list(parts)
    runs: dict[str, int] = {}
    topics: dict[str, int] = {}
    ids: dict[str, int] = {}

    def recode(names: list[str], book: dict[str, int]) -> np.ndarray:
        return np.array([book.setdefault(n, len(book)) for n in names], dtype=np.int32)

    maps = [(recode(p.runs, runs), recode(p.topics, topics), recode(p.nugget_ids, ids))
            for p in parts]
    answer_run = np.concatenate([r[p.answer_run] for p, (r, _, _) in zip(parts, maps)])
    answer_topic = np.concatenate([t[p.answer_topic] for p, (_, t, _) in zip(parts, maps)])
    key = answer_run.astype(np.int64) * len(topics) + answer_topic
    unique, first = np.unique(key, return_index=True)
    if unique.size < key.size:
        part_of = np.repeat(np.arange(len(parts)), [p.answer_run.size for p in parts])
        dup = np.setdiff1d(np.arange(key.size), first)[0]
        earlier = int(np.flatnonzero(key == key[dup])[0])
        run_names, topic_names = list(runs), list(topics)
        raise InputError(parts[part_of[dup]].sources[0], None,
                         f"the answer of run {run_names[answer_run[dup]]!r} to topic "
                         f"{topic_names[answer_topic[dup]]!r} is given in {parts[part_of[earlier]].sources[0]} too")
    return NuggetAssignments(
        runs=list(runs), topics=list(topics), answer_run=answer_run, answer_topic=answer_topic,
        run=np.concatenate([r[p.run] for p, (r, _, _) in zip(parts, maps)]),
        topic=np.concatenate([t[p.topic] for p, (_, t, _) in zip(parts, maps)]),
        nugget=np.concatenate([n[p.nugget] for p, (_, _, n) in zip(parts, maps)]),
        nugget_ids=list(ids), importance=np.concatenate([p.importance for p in parts]),
        assignment=np.concatenate([p.assignment for p in parts]),
        sources=tuple(s for p in parts for s in p.sources))
