"""A fast path for reading stochastic run files (``qid sample docno rank score tag``) with
pyarrow's multi-threaded CSV reader.

Most such files separate their columns by one space or one tab, with nothing else in between.
For those, pyarrow's C++ CSV reader (all cores) finds the fields; this module turns its table
into the very arrays the tokenizer gives (a :class:`~cranfield.io._tokens.Columns`). Plain TREC
runs are read by the tokenizer (:func:`~cranfield.io.run.run_columns`), which is about as fast for them
and spares the import of pyarrow.

It is a pure optimisation. :func:`read_run_columns` returns ``None`` — and the caller reads
the file with the tokenizer, which also produces every error message with its file and line —
whenever pyarrow is missing, the file is small (importing pyarrow would cost more than it
saves), or there is any doubt that the two readers would agree: a line with another number of
fields, an empty field (two separators in a row, a separator at the start or end of a line), a
blank line, a comment line (``#``), any other byte that the tokenizer takes for white space
(``\\x00``-``\\x20``, including a carriage return not followed by a line feed), bytes that are
not UTF-8, a score that pyarrow does not read (or reads as NaN or null), docnos of very unequal lengths (which the
tokenizer may store as an object array), or any error of pyarrow.

Scores: pyarrow parses decimal text with ``fast_float``, which rounds correctly, as the
tokenizer does (:func:`~cranfield.io._tokens.parse_decimals`, else numpy's correctly rounded
conversion); every token pyarrow accepts is one of C's ``strtod`` grammar
(:data:`~cranfield.io._tokens.FLOAT`) or NaN, refused here. tests/io/test_fastcsv.py checks
that both paths give identical arrays.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.io._tokens import CodeBook, Columns, input_size, open_binary, padded_strings, strings_and_keys

MIN_BYTES = 4 << 20  # below this, importing pyarrow (~0.1 s) costs more than the faster parse saves
MAX_BYTES = 1 << 28  # the file is held whole in memory; larger ones are read block by block
RUN_COLUMNS = 6
BLANK_CHUNK = 1 << 18  # bytes checked at a time by plain_blanks (fits a core's L2 cache)


def available() -> bool:
    """Whether pyarrow's CSV reader can be imported."""
    try:
        import pyarrow.csv  # noqa: F401
    except ImportError:
        return False
    return True


def worth_it(path: str | Path, min_bytes: int = MIN_BYTES) -> bool:
    """Whether a file has at least ``min_bytes`` (a 64th of them when pyarrow is imported already)."""
    size = input_size(path)
    return size >= min_bytes or ("pyarrow.csv" in sys.modules and size >= min_bytes // 64)


def read_run_columns(path: str | Path, *, min_bytes: int = MIN_BYTES, threads: bool = True,
                     codes: tuple[int, ...] = (0,), text: tuple[int, ...] = ()) -> Columns | None:
    """The columns :func:`~cranfield.io.run.run_columns` reads of a run file (``qid`` as codes,
    ``docno`` as byte strings and keys, ``score`` as float64, ``tag`` checked for one value), as
    :func:`~cranfield.io._tokens.read_columns` gives them, or ``None`` when the fast path does
    not apply (see the module's docstring) or the file has fewer than ``min_bytes``; never
    raises for a bad file. ``threads=False`` parses on this thread only, in one block (for
    callers that read several files at once, one per thread). ``codes``: the columns read as
    codes (a stochastic run's sample column 1 besides the qid); ``text``: more columns read as
    byte strings (the rank column 3, for ``order="rank"``)."""
    if not worth_it(path, min_bytes) or not available():
        return None
    try:
        with open_binary(path) as stream:
            data = stream.read(MAX_BYTES + 1)
    except Exception:  # damaged gzip, unreadable file: the tokenizer says what is wrong
        return None
    if not data or len(data) > MAX_BYTES:
        return None
    try:
        return _columns(data, str(path), threads, codes, text)
    except Exception:  # any complaint of pyarrow: the tokenizer reads (or refuses) the file
        return None


def separator(data: bytes) -> bytes | None:
    """The one separator of the first line (a space or a tab), or None when it has both or none."""
    end = data.find(b"\n")
    first = data[: end if end >= 0 else len(data)]
    space, tab = b" " in first, b"\t" in first
    if space == tab:
        return None
    return b" " if space else b"\t"


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8 text (checked by decoding only when a byte is not ASCII)."""
    if data.isascii():
        return True
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def plain_blanks(data: bytes, rows: int, ncols: int) -> bool:
    """Whether a file that a CSV reader split into ``rows`` rows of ``ncols`` fields separated by
    one byte has no empty field (no two white-space bytes in a row but CR LF, none first, none
    last but a line feed) and no other byte the tokenizer takes for white space (``<= 0x20``:
    NUL, controls, the other separator) than those separators, line feeds and carriage returns
    right before one: then the tokenizer's fields are exactly the reader's."""
    cr = 0
    if b"\r" in data:
        cr = data.count(b"\r")
        if data.count(b"\r\n") != cr:  # a CSV reader ends a line at a lone CR; the tokenizer does not
            return False
    lf = rows - (not data.endswith(b"\n"))
    raw = np.frombuffer(data, dtype=np.uint8)
    if raw[0] <= 32 or (raw[-1] <= 32 and not data.endswith(b"\n")):
        return False  # a line that starts with a separator, or a last field that is empty
    blanks = pairs = 0
    # in cache-sized chunks, into two reused buffers: no temporary as large as the file
    blank, both = np.empty(BLANK_CHUNK + 1, dtype=bool), np.empty(BLANK_CHUNK, dtype=bool)
    for a in range(0, raw.size, BLANK_CHUNK):
        part = raw[a: a + BLANK_CHUNK + 1]  # one byte more: the pair across the chunks' border
        b = np.less_equal(part, 32, out=blank[: part.size])
        blanks += int(np.count_nonzero(b[: BLANK_CHUNK]))
        pairs += int(np.count_nonzero(np.logical_and(b[1:], b[:-1], out=both[: part.size - 1])))
    # two separators in a row, a separator at a line's end or start, a blank line; then no other blank byte
    return pairs == cr and blanks == rows * (ncols - 1) + lf + cr


def _one_array(column: Any) -> Any:
    """A pyarrow column as one array: its only chunk as it is (no copy), or the chunks joined."""
    return column.chunk(0) if column.num_chunks == 1 else column.combine_chunks()


def _offsets(column: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(data bytes, start, stop) of the strings of a pyarrow string column."""
    arr = _one_array(column)
    offsets = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset: arr.offset + len(arr) + 1]
    data = arr.buffers()[2]
    buf = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return buf, offsets[:-1], offsets[1:]


def _numbers(column: Any, dtype: type) -> np.ndarray:
    """The values of a pyarrow column of fixed-width numbers without nulls, read from its data
    buffer (``to_numpy`` would import pandas, ~0.2 s of every command's start-up)."""
    arr = _one_array(column)
    size = np.dtype(dtype).itemsize
    return np.frombuffer(arr.buffers()[1], dtype=dtype, count=len(arr), offset=arr.offset * size)


def _first_and_same(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> tuple[bytes, bool]:
    """The first of the byte ranges ``buf[start[i]:stop[i]]`` (consecutive in ``buf``), and whether
    all are equal to it."""
    width = int(stop[0] - start[0])
    first = bytes(buf[int(start[0]): int(stop[0])])
    if not bool((stop - start == width).all()):
        return first, False
    return first, buf[int(start[0]): int(start[0]) + width * start.size].tobytes() == first * start.size


def same_width(length: np.ndarray) -> bool:
    """Whether strings of these lengths come out of the tokenizer as one byte-string array
    (dtype ``S``) in every block, whatever the blocks: the longest, rounded up to 8 bytes, is at
    most 16 + twice the shortest (:func:`~cranfield.io._tokens.fits_width`)."""
    return -(-int(length.max()) // 8) * 8 <= 16 + 2 * int(length.min())


def _columns(data: bytes, source: str, threads: bool = True, codes: tuple[int, ...] = (0,),
             text: tuple[int, ...] = ()) -> Columns | None:
    import pyarrow as pa
    import pyarrow.csv as csv

    header, data = leading_comments(data)
    sep = separator(data)
    if sep is None or (b"#" in data and (data.startswith(b"#") or b"\n#" in data)):  # "#" alone: one memchr
        return None  # comment lines below the data (a comment starting with blanks fails plain_blanks)
    end = data.find(b"\n")
    ncols = (data[:end] if end >= 0 else data).rstrip(b"\r").count(sep) + 1
    if ncols < RUN_COLUMNS:
        return None
    if not is_utf8(data):
        return None
    names = [f"f{j}" for j in range(ncols)]
    used = {0: pa.string(), 2: pa.string(), 4: pa.float64(), 5: pa.string()}  # topic, docno, score, tag
    used.update({j: pa.string() for j in codes + text})
    table = csv.read_csv(  # every row is split into its ncols fields; only the columns used are converted
        pa.py_buffer(data),
        read_options=csv.ReadOptions(column_names=names, use_threads=threads,
                                     **({} if threads else {"block_size": len(data) + 1})),
        parse_options=csv.ParseOptions(delimiter=sep.decode(), quote_char=False, escape_char=False,
                                       double_quote=False, newlines_in_values=False, ignore_empty_lines=False),
        convert_options=csv.ConvertOptions(
            include_columns=[names[j] for j in used], column_types={names[j]: t for j, t in used.items()},
            null_values=[], strings_can_be_null=False, quoted_strings_can_be_null=False, check_utf8=False,
        ),
    )
    rows = table.num_rows
    if not rows or any(table.column(names[j]).null_count for j in used):
        return None
    if not plain_blanks(data, rows, ncols):
        return None  # an empty field, or white space the tokenizer would split at
    fields = {j: _offsets(table.column(names[j])) for j in used if j != 4}  # the text columns used
    score = _numbers(table.column(names[4]), np.float64)  # read as float64 (column_types)
    if bool(np.isnan(score).any()):
        return None
    buf, start, stop = fields[2]
    if not same_width(stop - start):
        return None
    docno, keys = strings_and_keys(buf, start, stop)
    if not all(same_width(fields[j][2] - fields[j][1]) for j in codes + text):
        return None  # an id far longer than the others: the tokenizer stores it apart
    books = {j: CodeBook() for j in codes}  # codes in order of first appearance, as the tokenizer gives them
    code = {j: book.encode(padded_strings(*fields[j], trim=False)) for j, book in books.items()}
    first, same = _first_and_same(*fields[5])
    return Columns(
        source=source, ncols=np.full(rows, RUN_COLUMNS, dtype=np.int32),
        line=np.arange(header + 1, header + rows + 1, dtype=np.int32),
        text={2: docno, **{j: padded_strings(*fields[j]) for j in text}}, number={4: np.array(score, dtype=np.float64)},
        key={2: keys}, code=code, names={j: book.names for j, book in books.items()}, first={5: first}, same={5: same},
        comments=header,
    )


def leading_comments(data: bytes) -> tuple[int, bytes]:
    """(the number of comment lines at the top, the data below them): a header such as
    repro_eval's ``# ir_metadata.start`` ... ``# ir_metadata.end`` block, which the tokenizer
    skips too (:data:`~cranfield.io._tokens.COMMENT`)."""
    count, at = 0, 0
    while data.startswith(b"#", at):
        end = data.find(b"\n", at)
        if end < 0:
            return count + 1, b""
        count, at = count + 1, end + 1
    return count, data[at:] if at else data
