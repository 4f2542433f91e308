"""TREC run files (``qid Q0 docno rank score tag``), dicts and DataFrames as ranked lists.

Ordering, duplicate and tie rules (docs/conventions.md#order, docs/conventions.md#duplicates)
are applied once, here, at load time:
``order="score"`` sorts by score descending with scores compared as C ``float`` (trec_eval
stores them so) and ties broken by docno descending in byte order; ``order="rank"`` uses the
rank column; ``order="file"`` keeps the file's order.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, cast

import numpy as np

from cranfield._choices import ON_DUPLICATE, ORDERS, SCORE_DTYPES
from cranfield._numeric import distinct
from cranfield.errors import InputError, check_choice, warn
from cranfield.io._tokens import (
    FLOAT,
    INTEGER,
    CodeBook,
    Columns,
    Grammar,
    compact_strings,
    doc_keys,
    parse_ints,
    python_numbers,
    read_columns,
    require_columns,
    shown,
)

Order = Literal["score", "rank", "file"]
OnDuplicate = Literal["error", "first"]
MEAN_TOPIC = "all"  # the topic column's name for the mean over topics in every output


@dataclass(frozen=True, eq=False)
class Run:
    """One system's ranked lists, grouped by topic, each already in ranked order.

    Attributes
    ----------
    name : str
        The run's tag (its file name when the tags in the file disagree).
    source : str
        The file it came from, or a description such as ``"<dict>"``.
    topic_ids : tuple of str
        The topics of the run, one per group.
    offsets : ndarray of int64, shape (T + 1,)
        Rows ``offsets[t]:offsets[t + 1]`` are the ranked list of ``topic_ids[t]``.
    docno : ndarray of bytes (dtype ``S``), shape (n,)
        An object array of ``bytes`` instead when a few docnos are much longer than the rest
        (:func:`~cranfield.io._tokens.fits_width`), so memory follows the bytes read.
    score : ndarray of float64, shape (n,)
    line : ndarray of int, shape (n,), or None
        Line numbers in ``source`` (None for in-memory input).
    doc_key : ndarray of uint64, shape (n,)
        64-bit keys of the docnos, for joining with the qrels (computed when not given).
    iteration : ndarray of int, shape (n,), or None
        The search iteration of each document (TREC Dynamic Domain runs; 0-based).
    comments : int
        The comment lines (``#``) skipped in ``source``, recorded in the provenance.
    """

    name: str
    source: str
    topic_ids: tuple[str, ...]
    offsets: np.ndarray
    docno: np.ndarray
    score: np.ndarray
    line: np.ndarray | None = field(default=None)
    doc_key: np.ndarray = field(default=cast(np.ndarray, None), repr=False)  # None until __post_init__ fills it
    iteration: np.ndarray | None = field(default=None, repr=False)
    comments: int = 0

    def __post_init__(self) -> None:
        if self.doc_key is None:  # 64-bit keys of the docnos (:func:`cranfield.io._tokens.doc_keys`)
            object.__setattr__(self, "doc_key", doc_keys(self.docno))

    @property
    def lengths(self) -> np.ndarray:
        """The length of each topic's ranked list, shape (T,)."""
        return np.diff(self.offsets)

    def select(self, keep: np.ndarray) -> Run:
        """The run with only the rows where ``keep`` is True, in the same order (condensed lists)."""
        if bool(keep.all()):
            return self
        counts = np.add.reduceat(keep.astype(np.int64), self.offsets[:-1]) if keep.size else np.zeros(0, np.int64)
        counts = np.where(np.diff(self.offsets) > 0, counts, 0)
        offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        take = np.flatnonzero(keep)
        return Run(self.name, self.source, self.topic_ids, offsets, self.docno[take], self.score[take],
                   None if self.line is None else self.line[take], self.doc_key[take],
                   None if self.iteration is None else self.iteration[take], self.comments)

    def head(self, depth: int) -> Run:
        """Only the first ``depth`` documents of each ranking (trec_eval -M)."""
        rank = np.arange(self.docno.size) - np.repeat(self.offsets[:-1], self.lengths)
        return self.select(rank < depth)

    def ranking(self, topic: str) -> list[str]:
        """The ranked docnos of one topic (a convenience for inspection and tests)."""
        t = self.topic_ids.index(topic)
        return [d.decode() for d in self.docno[self.offsets[t]:self.offsets[t + 1]].tolist()]

    def __repr__(self) -> str:
        return (
            f"Run(name={self.name!r}, topics={len(self.topic_ids)}, "
            f"documents={self.docno.size}, source={self.source!r})"
        )


def group_codes(values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """Integer codes for byte strings in order of first appearance, and the decoded values."""
    book = CodeBook()
    codes = book.encode(values)
    return book.names, codes


def check_topic_ids(topic_ids: Sequence[str], topic: np.ndarray, line: np.ndarray | None, source: str) -> None:
    """Refuse a topic named ``all`` (:data:`MEAN_TOPIC`), at its first row: it would be
    confused with the mean over topics in every output."""
    if MEAN_TOPIC in topic_ids:
        i = int(np.argmax(topic == list(topic_ids).index(MEAN_TOPIC)))
        raise InputError(source, None if line is None else int(line[i]),
                         f"topic id {MEAN_TOPIC!r} is reserved for the mean over topics; rename the topic")


_TOPIC_MIX = np.uint64(0xD6E8FEB86659FD93)


def topic_doc_keys(topic: np.ndarray, doc_key: np.ndarray) -> np.ndarray:
    """One 64-bit key per (topic code, docno key)."""
    with np.errstate(over="ignore"):
        return doc_key ^ ((topic.astype(np.uint64) + np.uint64(1)) * _TOPIC_MIX)


def has_equal_keys(topic: np.ndarray, keys: np.ndarray) -> bool:
    """Whether two rows of one group (``topic``: integer codes of topics, or of any grouping
    such as (topic, intent) pairs) share a key (a possible duplicate document).

    Files list each topic's lines together, so the keys are sorted topic by topic (rows of a
    padded matrix, n·log(topic size) work) rather than all at once.
    """
    n = topic.size
    if n < 2:
        return False
    starts = np.concatenate(([0], np.flatnonzero(topic[1:] != topic[:-1]) + 1))
    counts = np.diff(np.concatenate((starts, [n])))
    if distinct(topic[starts]).size == starts.size and bool((counts == counts[0]).all()):
        rows = np.sort(keys.reshape(starts.size, int(counts[0])), axis=1)  # topics of equal length
        return bool((rows[:, 1:] == rows[:, :-1]).any())
    if distinct(topic[starts]).size == starts.size and counts.max() * starts.size <= 2 * n:
        width = int(counts.max())
        # padding with distinct values larger than any row's keys never creates an equality
        padded = np.full((starts.size, width), np.iinfo(np.uint64).max, dtype=np.uint64)
        padded -= np.arange(width, dtype=np.uint64)
        row = np.repeat(np.arange(starts.size), counts)
        padded[row, np.arange(n) - np.repeat(starts, counts)] = keys
        padded.sort(axis=1)
        return bool((padded[:, 1:] == padded[:, :-1]).any())
    combined = np.sort(topic_doc_keys(topic, keys))
    return bool((combined[1:] == combined[:-1]).any())


def _check_duplicates(
    topic: np.ndarray, docno: np.ndarray, keys: np.ndarray, line: np.ndarray | None, source: str,
    topic_ids: list[str], on_duplicate: OnDuplicate,
) -> np.ndarray | None:
    """Find repeated (topic, docno) rows; raise, or return the rows to keep (the first seen)."""
    if not has_equal_keys(topic, keys):
        return None  # no equal keys, so certainly no duplicate (the common case)
    by_key = np.lexsort((keys, topic))
    same = (topic[by_key[1:]] == topic[by_key[:-1]]) & (keys[by_key[1:]] == keys[by_key[:-1]])
    pairs = np.flatnonzero(same)
    # verify the strings: equal keys of different docnos are a hash collision, not a duplicate
    a, b = by_key[pairs], by_key[pairs + 1]
    real = docno[a] == docno[b]
    a, b = a[real], b[real]
    if a.size == 0:
        return None
    if on_duplicate == "error":
        i, j = sorted((int(a[0]), int(b[0])))
        where = f"lines {int(line[i])} and {int(line[j])}" if line is not None else "twice"
        raise InputError(
            source, int(line[j]) if line is not None else None,
            f"document {shown(docno[i])} appears {where} for topic {topic_ids[topic[i]]!r} "
            "(use on_duplicate='first' / --on-duplicate first to keep the first)",
        )
    drop = np.zeros(topic.size, dtype=bool)
    drop[np.maximum(a, b)] = True  # rows are in file order, so the larger index is the later one
    return np.flatnonzero(~drop)


def _ranked_order(
    topic: np.ndarray, score: np.ndarray, docno: np.ndarray, rank: np.ndarray | None,
    order: Order, line: np.ndarray | None, source: str, topic_ids: list[str], score_dtype: str = "float32",
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """The permutation that groups rows by topic (first-appearance order) and ranks them, and
    the rows it moves (None: possibly all). (None, None) when the rows already are in order;
    a file ranked by score but for its ties moves only the tied rows."""
    perm: np.ndarray | None
    if order == "file":
        return np.argsort(topic, kind="stable"), None
    if order == "rank":
        assert rank is not None
        perm = np.lexsort((rank, topic))
        dup = np.flatnonzero((topic[perm[1:]] == topic[perm[:-1]]) & (rank[perm[1:]] == rank[perm[:-1]]))
        if dup.size:
            i, j = sorted((int(perm[dup[0]]), int(perm[dup[0] + 1])))
            where = f"lines {int(line[i])} and {int(line[j])}" if line is not None else "twice"
            raise InputError(
                source, int(line[j]) if line is not None else None,
                f"rank {int(rank[i])} appears {where} for topic {topic_ids[topic[i]]!r} "
                "(order='rank' needs distinct ranks)",
            )
        return perm, None
    sim = as_c_floats(score, line, source) if score_dtype == "float32" else score
    same_topic = topic[1:] == topic[:-1]
    touched: np.ndarray | None = None
    if bool(np.all((topic[1:] > topic[:-1]) | (same_topic & (sim[1:] <= sim[:-1])))):
        perm, t, s = None, topic, sim
    else:
        perm = np.lexsort((-sim.astype(np.float64), topic))
        t, s = topic[perm], sim[perm]
        same_topic = t[1:] == t[:-1]
    # Ties on (topic, float32 score) are broken by docno descending, trec_eval's rule.
    tied = same_topic & (s[1:] == s[:-1])
    if tied.any():
        in_group = np.zeros(t.size, dtype=bool)
        in_group[1:] |= tied
        in_group[:-1] |= tied
        idx = np.flatnonzero(in_group)
        group = np.cumsum(~np.concatenate(([False], tied)))[idx]
        if perm is None:
            perm, touched = np.arange(t.size), idx
        sub = perm[idx]
        perm[idx] = sub[_docno_descending(docno[sub], group)]
    return perm, touched


FLOAT32_MAX = float(np.finfo(np.float32).max)


def as_c_floats(score: np.ndarray, line: np.ndarray | None, source: str) -> np.ndarray:
    """Scores as trec_eval 9 compares them, stored as C ``float``: rounded to float32, where a
    finite score beyond ±3.4e38 becomes ±inf, so such scores tie and are ranked by docno. That
    changes a ranking, so it is said once per run, at the first such line, in a warning."""
    i = first_beyond_c_float(score)
    if i is not None:
        where = source if line is None else f"{source}:{int(line[i])}"
        warn(f"{where}: score {float(score[i]):g} is beyond the range of a C float (3.4e38): scores are compared as "
             "float32, as trec_eval 9 stores them, so such scores tie as infinite and are ranked by docno; "
             "--score-dtype float64 compares them as doubles")
    with np.errstate(over="ignore"):
        return score.astype(np.float32)


def first_beyond_c_float(score: np.ndarray) -> int | None:
    """The row of the first finite score beyond ±3.4e38, which :func:`as_c_floats` rounds to
    ±inf (and says so), or None."""
    over = np.abs(score) > FLOAT32_MAX
    if not (bool(over.any()) and bool(np.isfinite(score[over]).any())):
        return None
    return int(np.flatnonzero(over & np.isfinite(score))[0])


def _docno_descending(docno: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The order that sorts each group of consecutive rows (``group`` ids, ascending) by docno
    descending and keeps the groups where they are. Most groups of tied scores are pairs:
    one vectorised comparison orders them all; the larger groups are sorted together."""
    order = np.arange(group.size)
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    sizes = np.diff(np.append(starts, group.size))
    pairs = starts[sizes == 2]
    swap = pairs[docno[pairs] < docno[pairs + 1]]
    order[swap], order[swap + 1] = swap + 1, swap
    if bool((sizes > 2).any()):
        rows = np.flatnonzero(np.repeat(sizes > 2, sizes))
        # ascending by (-group, docno), reversed: group ascending, docno descending
        order[rows] = rows[np.lexsort((docno[rows], -group[rows]))[::-1]]
    return order


def build_run(
    topic: np.ndarray, topic_ids: list[str], docno: np.ndarray, score: np.ndarray, *,
    name: str, source: str, line: np.ndarray | None = None, rank: np.ndarray | None = None,
    order: Order = "score", on_duplicate: OnDuplicate = "error", doc_key: np.ndarray | None = None,
    score_dtype: str = "float32",
) -> Run:
    """Assemble a :class:`Run` from parallel row arrays (``topic`` codes into ``topic_ids``),
    applying the duplicate and order rules; ``score_dtype="float64"`` compares scores as doubles
    (gdeval) instead of C floats (trec_eval)."""
    check_choice(score_dtype, "score_dtype option", SCORE_DTYPES)
    check_choice(order, "order option", ORDERS)
    check_choice(on_duplicate, "on_duplicate option", ON_DUPLICATE)
    check_topic_ids(topic_ids, topic, line, source)
    keys = doc_keys(docno) if doc_key is None else doc_key
    keep = _check_duplicates(topic, docno, keys, line, source, topic_ids, on_duplicate)
    if keep is not None:
        topic, docno, score, keys = topic[keep], docno[keep], score[keep], keys[keep]
        line = line[keep] if line is not None else None
        rank = rank[keep] if rank is not None else None
    perm, touched = _ranked_order(topic, score, docno, rank, order, line, source, topic_ids, score_dtype)
    if perm is not None and touched is None:
        topic, docno, score, keys = topic[perm], docno[perm], score[perm], keys[perm]
        line = line[perm] if line is not None else None
    elif perm is not None:  # only tied rows move: permute them in place
        source_rows = perm[touched]
        for arr in (topic, docno, score, keys) + ((line,) if line is not None else ()):
            arr[touched] = arr[source_rows]
    counts = np.bincount(topic, minlength=len(topic_ids))
    # groups are laid out by topic code, which is first-appearance order
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Run(name, source, tuple(topic_ids), offsets, docno, score, line, keys)


def run_columns(path: str | Path, order: Order = "score", threads: bool = True) -> Columns:
    """The columns of a TREC run file that :func:`read_run` uses (``qid`` as codes, ``docno`` as
    byte strings and keys, ``score`` as numbers, ``rank`` as text under ``order="rank"``, ``tag``
    checked for one value), tokenised by :func:`~cranfield.io._tokens.read_columns` (``threads``:
    its blocks on several threads); every error names the file and line."""
    return read_columns(path, 6, text=[2, 3] if order == "rank" else [2], numbers={4: "score"}, keys=[2],
                        codes=[0], uniform=[5], compact=True, ignore_extra=True, threads=threads)


def read_run_ahead(path: str | Path, order: Order, on_duplicate: OnDuplicate, score_dtype: str) -> Run | Columns | None:
    """A TREC run file read on a read-ahead thread (:mod:`cranfield.evaluation.scheduling`) as far
    as it can be without a word: the :class:`Run` that :func:`read_run` reads (name None); only
    its columns when making the run of them raises or warns (the one warning: a score beyond the
    range of a C float), so that the thread that scores it reads them and says so, in run order;
    None when the file is not tokenised as a TREC run (a damaged file, another layout), to be
    read again there."""
    try:
        cols = run_columns(path, order, threads=False)  # the files are the parallel units
    except Exception:  # said (or read otherwise) when the scoring thread reads the file again
        return None
    try:
        if score_dtype == "float32" and first_beyond_c_float(cols.number[4]) is not None:
            return cols
        return read_run(path, order=order, on_duplicate=on_duplicate, score_dtype=score_dtype, columns=cols)
    except Exception:  # raised again when the scoring thread makes the run of these columns
        return cols


def read_run(
    path: str | Path, *, order: Order = "score", on_duplicate: OnDuplicate = "error",
    name: str | None = None, score_dtype: str = "float32", columns: Columns | None = None,
) -> Run:
    """Read a TREC run file ``qid Q0 docno rank score tag`` (plain or gzip).

    Parameters
    ----------
    path : str or Path
    order : {"score", "rank", "file"}
        How each topic's lines are ranked (docs/conventions.md#order): ``"score"`` is trec_eval's rule (score
        descending, compared as float32, ties by docno descending); ``"rank"`` uses the rank
        column (plain ndeval); ``"file"`` keeps the lines' order.
    on_duplicate : {"error", "first"}
        A docno twice within a topic is an error naming both lines, or keeps the first line.
    name : str, optional
        The run's name; default the tag column (the file name when the tags disagree).
    score_dtype : {"float32", "float64"}
        Compare scores as C floats (trec_eval; default) or as doubles (gdeval, ndeval).
    columns : Columns, optional
        The file's columns as :func:`run_columns` read them already (on a read-ahead thread);
        None reads the file here.

    Notes
    -----
    Fields after the tag are ignored, as trec_eval ignores them. Scores are read as C's
    ``atof`` reads a complete number (:data:`~cranfield.io._tokens.FLOAT`).

    Raises
    ------
    InputError
        For a missing, empty or damaged (gzip) file, a line with fewer than six columns, a
        score that is not a number (or NaN), a rank that is not an integer under
        ``order="rank"``, a topic named ``all``, NUL or undecodable bytes, or a duplicate
        document; the message names file and line.
    """
    source = str(path)
    cols = columns if columns is not None else run_columns(path, order)
    require_columns(cols, (6,), "qid Q0 docno rank score tag")
    rank = parse_ints(cols.text[3], source, cols.line, "rank", column=4) if order == "rank" else None
    if name is None:
        name = cols.first[5].decode() if cols.same[5] else Path(path).name
    run = build_run(
        cols.code[0], cols.names[0], cols.text[2], cols.number[4], name=name, source=source, line=cols.line,
        rank=rank, order=order, on_duplicate=on_duplicate, doc_key=cols.key[2], score_dtype=score_dtype,
    )
    return dataclasses.replace(run, comments=cols.comments) if cols.comments else run


def as_bytes(values: Iterable[Any]) -> np.ndarray:
    out = np.array([str(v).encode() for v in values], dtype="S")
    return out if out.size else np.zeros(0, dtype="S1")


def python_ids(source: str, ids: dict[str, Iterable[Any]]) -> dict[str, np.ndarray]:
    """Id columns of Python input (``{"topic": qids, "document": docnos}``) as byte strings
    (``bytes`` as they are, anything else the UTF-8 of its ``str``;
    :func:`~cranfield.io._tokens.compact_strings`). An id that is not UTF-8 text or holds a NUL
    byte is an error naming the row's ids: fixed-width byte strings drop trailing NULs, so
    ``"d1\\x00"`` would be taken for ``"d1"``."""
    columns = {name: list(values) for name, values in ids.items()}
    for name, raw in columns.items():  # None / NaN / pandas NA: str() would make an id of them
        i = next((k for k, v in enumerate(raw) if v is None or _is_missing(v)), None)
        if i is not None:
            raise InputError(source, None, f"row {i + 1}: the {name} id is missing ({raw[i]!r})")
        i = next((k for k, v in enumerate(raw) if not _is_id(v)), None)
        if i is not None:  # a list, a dict, an array, a float: its text would match nothing
            raise InputError(source, None, f"row {i + 1}: the {name} id {raw[i]!r} is a {type(raw[i]).__name__}; "
                                           "ids are text or integers")
    encoded = {name: [v if isinstance(v, bytes) else str(v).encode() for v in values]
               for name, values in columns.items()}
    for values in encoded.values():
        joined = b"\n".join(values)
        if b"\0" in joined or not _is_utf8(joined):
            i = next(k for k, v in enumerate(values) if b"\0" in v or not _is_utf8(v))
            row = ", ".join(f"{name} {shown(column[i])}" for name, column in encoded.items())
            raise InputError(source, None, f"{row}: ids must be UTF-8 text without NUL bytes (\\x00)")
    out = {}
    for name, values in encoded.items():
        column = np.empty(len(values), dtype=object)
        column[:] = values
        out[name] = compact_strings(column)
    return out


def _is_id(value: Any) -> bool:
    """Whether a Python value may be an id: text, bytes or an integer (not a bool)."""
    return isinstance(value, (str, bytes)) or (isinstance(value, numbers.Integral) and not isinstance(value, bool))


def _is_missing(value: Any) -> bool:
    """Whether an id is a missing value: a float NaN or pandas' ``NA``/``NaT``."""
    if isinstance(value, (str, bytes, int)):
        return False
    try:
        return bool(value != value)
    except (TypeError, ValueError):  # pandas.NA compares to NA, whose truth value is ambiguous
        return True


def _is_utf8(text: bytes) -> bool:
    """Whether bytes are UTF-8 text."""
    try:
        text.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def python_values(source: str, values: Any, grammar: Grammar, what: str, topic: np.ndarray, docno: np.ndarray,
                  column: str | None = None) -> np.ndarray:
    """Scores or labels of Python input (:func:`~cranfield.io._tokens.python_numbers`); a value
    that is not one is an error naming its topic and document (and DataFrame ``column``)."""
    numbers, bad = python_numbers(values, grammar)
    if bad is not None:
        value = values[bad]
        value = value.item() if isinstance(value, np.generic) else value  # 1.5, not np.float64(1.5)
        where = "" if column is None else f" in column {column!r}"
        nan = " (NaN)" if isinstance(value, float) and math.isnan(value) else ""
        raise InputError(source, None, f"topic {shown(topic[bad])}, document {shown(docno[bad])}: "
                                       f"{what} {value!r}{where} is not {grammar.name}{nan}")
    return numbers


def run_from_dict(
    run: Mapping[str, Mapping[str, float]], *, name: str = "run", order: Order = "score",
) -> Run:
    """A :class:`Run` from a pytrec_eval-style dict ``{qid: {docno: score}}``.

    ``order="file"`` keeps each topic's insertion order; ``"rank"`` is not available.
    """
    if order == "rank":
        raise InputError("<dict>", None, "order='rank' needs a rank column; use a DataFrame")
    qids: list[str] = []
    docs: list[str] = []
    scores: list[float] = []
    for qid, ranking in run.items():
        if not isinstance(ranking, Mapping):
            raise InputError("<dict>", None, f"topic {qid!r}: expected a dict of docno -> score")
        qids.extend([qid] * len(ranking))
        docs.extend(ranking.keys())
        scores.extend(ranking.values())
    ids = python_ids("<dict>", {"topic": qids, "document": docs})
    score = python_values("<dict>", scores, FLOAT, "score", ids["topic"], ids["document"])
    topic_ids, topic = group_codes(ids["topic"])
    return build_run(topic, topic_ids, ids["document"], score, name=name, source="<dict>", order=order)


RUN_COLUMNS = {
    "qid": ("qid", "query_id", "topic", "query"),
    "docno": ("docno", "doc_id", "docid", "doc"),
    "score": ("score", "sim"),
    "rank": ("rank",),
}


NAME_COLUMNS = ("run", "tag", "name")  # a frame's own run name, when the column holds one value


def frame_run_name(df: Any) -> str | None:
    """The run name a DataFrame or Arrow table gives itself: the one value of its first ``run``,
    ``tag`` or ``name`` column (:data:`NAME_COLUMNS`) that holds exactly one distinct value;
    None when there is none (docs/parquet.md#names)."""
    columns = list(getattr(df, "column_names", None) or df.columns)
    for column in NAME_COLUMNS:
        if column in columns:
            values = df[column].unique()
            if len(values) == 1:
                value = values[0]
                value = value.as_py() if hasattr(value, "as_py") else value
                return None if value is None or _is_missing(value) else str(value)
    return None


def pick_column(columns: Iterable[str], options: tuple[str, ...]) -> str | None:
    """The first of ``options`` present in ``columns`` (None if absent)."""
    names = set(columns)
    return next((c for c in options if c in names), None)


def run_from_frame(
    df: Any, *, name: str | None = None, order: Order = "score",
    on_duplicate: OnDuplicate = "error", source: str = "<DataFrame>",
) -> Run:
    """A :class:`Run` from a DataFrame with columns ``qid``/``query_id``, ``docno``/``doc_id``,
    ``score`` and optionally ``rank`` and ``run``/``tag``/``name`` (ir_measures, PyTerrier and
    trec_eval spellings); ``source`` names the input in messages (a Parquet file's path)."""
    cols = {role: pick_column(df.columns, opts) for role, opts in RUN_COLUMNS.items()}
    for role in ("qid", "docno", "score"):
        if cols[role] is None:
            raise InputError(
                source, None,
                f"no {role} column: expected one of {RUN_COLUMNS[role]}, found {list(df.columns)}",
            )
    if order == "rank" and cols["rank"] is None:
        raise InputError(source, None, "order='rank' needs a rank column")
    ids = python_ids(source, {"topic": df[cols["qid"]], "document": df[cols["docno"]]})
    score = python_values(source, df[cols["score"]].to_numpy(), FLOAT, "score", ids["topic"], ids["document"],
                          cols["score"])
    rank = (python_values(source, df[cols["rank"]].to_numpy(), INTEGER, "rank", ids["topic"], ids["document"],
                          cols["rank"]) if order == "rank" else None)
    if name is None:
        name = frame_run_name(df) or "run"
    topic_ids, topic = group_codes(ids["topic"])
    return build_run(
        topic, topic_ids, ids["document"], score,
        name=name, source=source, rank=rank, order=order, on_duplicate=on_duplicate,
    )
