"""Vectorised tokenising of whitespace-separated text files (plain or gzip).

The file is read in blocks of a few megabytes that end at a line break. Within a block the
token boundaries, the tokens per line and the wanted fields of each line are found with numpy
on the raw bytes, so no Python object is created per line or per token. A field comes out as
a fixed-width byte-string array (dtype ``S``), as float64 numbers (parsed exactly, see
:func:`parse_decimals`), or as 64-bit keys (:func:`doc_keys`). Memory is the compact result
plus one block.
"""

from __future__ import annotations

import gzip
import io
import os
from collections import deque
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO, Iterator, Sequence

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import InputError

BLOCK_BYTES = 1 << 22
WORKERS = max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Columns:
    """The fields of a table-like text file.

    Attributes
    ----------
    source : str
        The file name used in error messages.
    text : dict of int to ndarray
        ``text[j][i]`` is column ``j`` of row ``i`` as a byte string (dtype ``S``); ``b""``
        where row ``i`` has fewer than ``j + 1`` columns.
    number : dict of int to ndarray
        Columns read as float64.
    key : dict of int to ndarray
        Columns read as 64-bit keys (:func:`doc_keys`).
    code : dict of int to ndarray
        Columns read as int32 codes, with ``names[j]`` the values in code order.
    first, same : dict of int to bytes / bool
        For columns only checked for uniformity (a run's tag): the first value, and whether
        every row has it.
    ncols : ndarray of int, shape (n,)
        The number of columns of each row.
    line : ndarray of int32, shape (n,)
        The 1-based line number of each row (blank lines are skipped).
    """

    source: str
    ncols: np.ndarray
    line: np.ndarray
    text: dict[int, np.ndarray] = field(default_factory=dict)
    number: dict[int, np.ndarray] = field(default_factory=dict)
    key: dict[int, np.ndarray] = field(default_factory=dict)
    code: dict[int, np.ndarray] = field(default_factory=dict)
    names: dict[int, list[str]] = field(default_factory=dict)
    first: dict[int, bytes] = field(default_factory=dict)
    same: dict[int, bool] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.line.size)


def open_binary(path: str | Path) -> BinaryIO:
    """Open ``path`` for binary reading, decompressing gzip files (recognised by content)."""
    path = Path(path)
    try:
        raw = open(path, "rb")
    except OSError as exc:
        raise InputError(str(path), None, f"cannot open: {exc.strerror or exc}") from None
    magic = raw.peek(2)[:2] if isinstance(raw, io.BufferedReader) else b""
    if magic == b"\x1f\x8b":
        raw.close()
        return gzip.open(path, "rb")  # type: ignore[return-value]
    return raw


def _blocks(stream: BinaryIO, source: str) -> Iterator[bytes]:
    """Yield blocks of whole lines (the last one may lack its line break)."""
    rest = b""
    while True:
        try:
            block = stream.read(BLOCK_BYTES)
        except (OSError, EOFError) as exc:
            raise InputError(source, None, f"cannot read: {exc}") from None
        if not block:
            break
        block = rest + block
        cut = block.rfind(b"\n") + 1
        if cut == 0:
            rest = block
            continue
        rest = block[cut:]
        yield block[:cut]
    if rest:
        yield rest + b"\n"


def _gather(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> np.ndarray:
    """Copy the byte ranges ``buf[start[i]:stop[i]]`` into an (n, W) zero-padded uint8 matrix,
    W a multiple of 8 (so rows can be read as 64-bit words)."""
    length = stop - start
    width = max(-(-int(length.max(initial=0)) // 8) * 8, 8)
    # Row i of the strided view starts at byte i, so fancy-indexing rows by ``start`` copies
    # ``width`` bytes per field in one C loop; bytes past the field's end are then zeroed.
    view = as_strided(buf, shape=(buf.size - width + 1, width), strides=(1, 1))
    out = view[start]
    out *= np.arange(width, dtype=np.int32) < length[:, None]
    return out


def _check_utf8(block: bytes, source: str, first_line: int) -> None:
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        raise InputError(source, line, "bytes that are not UTF-8 text") from None


class CodeBook:
    """Integer codes for byte strings in order of first appearance, shared across blocks.

    Consecutive equal values are collapsed first, so the usual file with each topic's lines
    together costs one comparison per line and one dictionary look-up per topic.
    """

    def __init__(self) -> None:
        self.table: dict[bytes, int] = {}

    def encode(self, values: np.ndarray) -> np.ndarray:
        n = values.size
        if n == 0:
            return np.zeros(0, dtype=np.int32)
        heads = np.concatenate(([0], np.flatnonzero(values[1:] != values[:-1]) + 1))
        if heads.size > 10_000:  # shuffled lines: one dictionary look-up per distinct value
            uniq, inverse = np.unique(values, return_inverse=True)
            first = np.zeros(uniq.size, dtype=np.int64)
            first[inverse[::-1]] = np.arange(n)[::-1]  # first occurrence of each value
            order = np.argsort(first, kind="stable")
            mapped = np.empty(uniq.size, dtype=np.int32)
            mapped[order] = [self.table.setdefault(v, len(self.table)) for v in uniq[order].tolist()]
            return mapped[inverse.ravel()]
        head_codes = np.fromiter(
            (self.table.setdefault(v, len(self.table)) for v in values[heads].tolist()),
            dtype=np.int32, count=heads.size,
        )
        return np.repeat(head_codes, np.diff(np.concatenate((heads, [n]))))

    @property
    def names(self) -> list[str]:
        return [v.decode() for v in self.table]


_MIX = np.array([(0x9E3779B97F4A7C15 + 0xBF58476D1CE4E5B9 * j) % 2**64 | 1 for j in range(64)], dtype=np.uint64)


def _hash_words(words: np.ndarray) -> np.ndarray:
    """Hash rows of big-endian 64-bit words; all-zero words (padding) contribute nothing."""
    h = np.zeros(words.shape[0], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):
            x = words[:, j] * _MIX[j % 64]
            x ^= x >> np.uint64(31)
            x *= np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(29)
            h += x
    return h


def doc_keys(docnos: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte string, independent of the array's itemsize.

    Equal strings always get equal keys; callers verify the strings behind equal keys, so
    a collision can never change a result.
    """
    if docnos.size == 0:
        return np.zeros(0, dtype=np.uint64)
    width = docnos.dtype.itemsize
    padded = np.zeros((docnos.size, -(-width // 8) * 8), dtype=np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(docnos.size, width)
    return _hash_words(padded.view(">u8"))


_POW10 = 10.0 ** np.arange(23)


def parse_decimals(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parse an (n, W) matrix of zero-padded ASCII numbers ``[+-]digits[.digits]``.

    Returns (values, ok). Where ``ok``, the value is the mantissa (at most 2^53) divided by a
    power of ten up to 10^22: both exact doubles, so the one IEEE division gives the correctly
    rounded result, exactly what ``float()`` gives (Clinger's fast path). Other rows (an
    exponent, ``inf``, too many digits, garbage) are left to the caller.
    """
    n, width = m.shape
    neg = m[:, 0] == 45
    signed = neg | (m[:, 0] == 43)
    mantissa = np.zeros(n, dtype=np.int64)
    digits = np.zeros(n, dtype=np.int64)
    frac = np.zeros(n, dtype=np.int64)
    dots = np.zeros(n, dtype=np.int64)
    ok = np.ones(n, dtype=bool)
    for j in range(width):
        c = m[:, j]
        if j == 0:
            body = ~signed
        else:
            body = c != 0
        d = c.astype(np.int64) - 48
        is_digit = body & (d >= 0) & (d <= 9)
        is_dot = body & (c == 46)
        ok &= ~body | is_digit | is_dot
        mantissa = np.where(is_digit, mantissa * 10 + np.where(is_digit, d, 0), mantissa)
        digits += is_digit
        frac += is_digit & (dots > 0)
        dots += is_dot
        if not ok.any():
            break
    ok &= (digits > 0) & (digits <= 18) & (mantissa <= 2**53) & (dots <= 1) & (frac <= 22)
    values = mantissa.astype(np.float64) / _POW10[np.minimum(frac, 22)]
    return np.where(neg, -values, values), ok


def _numbers(m: np.ndarray, has: np.ndarray, source: str, line: np.ndarray, what: str) -> np.ndarray:
    """Numbers of the rows that have the column (0 elsewhere: their column count is checked later)."""
    values, ok = parse_decimals(m)
    ok |= ~has
    values[~has] = 0.0
    if not ok.all():
        rest = np.flatnonzero(~ok)
        values[rest] = parse_floats(m[rest].view(f"S{m.shape[1]}").ravel(), source, line[rest], what)
    return values


@dataclass
class _Wanted:
    """What to make of each column, and the state carried from block to block."""

    text: Sequence[int]
    numbers: dict[int, str]
    keys: Sequence[int]
    codes: dict[int, CodeBook]
    uniform: Sequence[int]
    min_cols: int
    first: dict[int, bytes] = field(default_factory=dict)
    same: dict[int, bool] = field(default_factory=dict)

    @property
    def copied(self) -> set[int]:
        """Columns whose values are copied out of the text."""
        return set(self.text) | set(self.numbers) | set(self.keys) | set(self.codes)

    @property
    def columns(self) -> list[int]:
        return sorted(self.copied | set(self.uniform))


def _uniform(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> tuple[bytes, bool] | None:
    """(first field, whether every field equals it) compared in place; None when the fields
    differ in length (the caller then copies them out)."""
    length = int(stop[0] - start[0])
    if not bool((stop - start == length).all()):
        return None
    first = buf[start[0]:stop[0]].tobytes()
    view = as_strided(buf, shape=(buf.size - length + 1, length), strides=(1, 1))
    return first, bool((view[start] == np.frombuffer(first, dtype=np.uint8)).all())


def _trim(m: np.ndarray) -> np.ndarray:
    """The gathered matrix as byte strings no wider than its longest value."""
    width = max(int((m != 0).sum(axis=1).max(initial=0)), 1)
    return np.ascontiguousarray(m[:, :width]).view(f"S{width}").ravel()


def _tokenise_block(
    block: bytes, max_cols: int, first_line: int, source: str, want: _Wanted,
) -> tuple[dict, np.ndarray, np.ndarray]:
    """Split one block into the wanted fields: ({kind: {column: array}}, columns per line,
    line numbers). Pure, so blocks can be tokenised in parallel; code columns come back as
    byte strings and uniform columns as (first value, all equal), for :func:`_merge`."""
    raw = np.frombuffer(block, dtype=np.uint8)
    if raw.size and raw.max() >= 0x80:
        _check_utf8(block, source, first_line)
    n = raw.size
    # Padding: one whitespace byte on each side for the edge detection, and room at the end
    # for the strided gather of the widest field.
    longest = 0
    blank = np.empty(n + 2, dtype=bool)
    blank[0] = blank[-1] = True
    np.less_equal(raw, 32, out=blank[1:-1])  # space, tab, CR, LF and other controls
    edges = np.flatnonzero(blank[1:] != blank[:-1])
    start, stop = edges[0::2], edges[1::2]
    if start.size:
        longest = int((stop - start).max())
    buf = np.zeros(n + longest + 16, dtype=np.uint8)
    buf[:n] = raw
    newlines = np.flatnonzero(raw == 10)
    # first token of each line; the block always ends with a line break
    first = np.searchsorted(start, np.concatenate(([-1], newlines[:-1])))
    count = np.diff(np.concatenate((first, [start.size]))).astype(np.int32)
    line = (first_line + np.arange(count.size)).astype(np.int32)
    used = count > 0
    first, count, line = first[used], count[used], line[used]
    if (count > max_cols).any():
        i = int(np.flatnonzero(count > max_cols)[0])
        raise InputError(source, int(line[i]), f"expected at most {max_cols} columns, got {int(count[i])}")
    out: dict[str, dict[int, Any]] = {"text": {}, "number": {}, "key": {}, "code": {}, "uniform": {}}
    regular = bool((count == max_cols).all())  # the usual file: every line complete
    for j in want.columns:
        if regular:
            has = np.ones(count.size, dtype=bool)
            s, e = start[j::max_cols], stop[j::max_cols]
        else:
            has = count > j
            tok = np.where(has, first + j, 0)
            s = np.where(has, start[tok] if start.size else 0, 0)
            e = np.where(has, stop[tok] if stop.size else 0, 0)
        if j in want.uniform and s.size and (same := _uniform(buf, s, e)) is not None:
            out["uniform"][j] = same  # the usual tag column: checked without copying it out
            if j not in want.copied:
                continue
        m = _gather(buf, s, e)
        if j in want.text:
            out["text"][j] = _trim(m)
        if j in want.keys:
            out["key"][j] = _hash_words(m.view(">u8"))
        if j in want.codes:
            out["code"][j] = m.view(f"S{m.shape[1]}").ravel()
        if j in want.numbers:
            complete = count >= want.min_cols  # short rows fail the column count check instead
            out["number"][j] = (_numbers(m, has & complete, source, line, want.numbers[j])
                                if m.shape[0] else np.zeros(0))
        if j in want.uniform and m.shape[0] and j not in out["uniform"]:
            values = m.view(f"S{m.shape[1]}").ravel()
            out["uniform"][j] = (bytes(values[0]), bool((values == values[0]).all()))
    return out, count, line


def _merge(got: dict, want: _Wanted) -> dict:
    """The order-dependent part of a tokenised block: codes and the uniform-column check."""
    for j, values in got.pop("code").items():
        got.setdefault("code", {})[j] = want.codes[j].encode(values)
    got.setdefault("code", {})
    for j, (first, same) in got.pop("uniform").items():
        known = want.first.setdefault(j, first)
        want.same[j] = want.same.get(j, True) and same and known == first
    return got


class _Sink:
    """A column filled block by block into one array sized from an estimate of the row count
    (grown by half when short), so the blocks are never held twice."""

    def __init__(self, estimate: int) -> None:
        self.estimate = estimate
        self.data: np.ndarray | None = None
        self.size = 0

    def add(self, part: np.ndarray) -> None:
        if self.data is None:
            self.data = np.empty(max(self.estimate, part.size), dtype=part.dtype)
        if part.dtype.kind == "S" and part.dtype.itemsize > self.data.dtype.itemsize:
            self.data = self.data.astype(part.dtype)  # a wider string than seen so far (rare)
        end = self.size + part.size
        if end > self.data.size:
            grown = np.empty(max(end, self.data.size * 3 // 2), dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size:end] = part
        self.size = end

    def result(self) -> np.ndarray:
        assert self.data is not None
        out = self.data[: self.size]
        return out.copy() if self.size < 0.9 * self.data.size else out


def read_columns(
    path: str | Path, max_cols: int, *, text: Sequence[int] | None = None,
    numbers: dict[int, str] | None = None, keys: Sequence[int] = (), codes: Sequence[int] = (),
    uniform: Sequence[int] = (), min_cols: int | None = None, source: str | None = None,
) -> Columns:
    """Tokenise a whitespace-separated text file of at most ``max_cols`` columns per row.

    Parameters
    ----------
    text : columns to return as byte strings (default: all)
    numbers : columns to return as float64, with the word for error messages (``{4: "score"}``)
    keys : columns to return as 64-bit keys
    codes : columns to return as int32 codes in order of first appearance
    uniform : columns only checked for having one value throughout
    min_cols : numbers are parsed on rows with at least this many columns (default max_cols)

    Rows with more than ``max_cols`` columns, numbers that are not numbers (or NaN) and
    undecodable bytes raise :class:`InputError` naming the line; the caller checks the lower
    bound of columns with :func:`require_columns`. An empty file is an error.
    """
    source = source or str(path)
    want = _Wanted(
        text=list(range(max_cols)) if text is None else list(text), numbers=numbers or {},
        keys=list(keys), codes={j: CodeBook() for j in codes}, uniform=list(uniform),
        min_cols=min_cols or max_cols,
    )
    sinks: dict[str, dict[int, _Sink]] = {"text": {}, "number": {}, "key": {}, "code": {}, "meta": {}}
    estimate, seen = 0, 0

    def collect(job: Future, size: int) -> None:
        nonlocal estimate, seen
        got, count, line = job.result()
        got = _merge(got, want)
        if not estimate and count.size:  # rows per byte of the first block × the file's size
            estimate = int(count.size * max(total, size) / size * 1.02) + 16
        got["meta"] = {0: count, 1: line}
        for kind, columns in got.items():
            for j, arr in columns.items():
                sinks[kind].setdefault(j, _Sink(estimate)).add(arr)
        seen += count.size

    next_line = 1
    # numpy releases the GIL, so blocks are tokenised on all cores; results are merged in order
    with open_binary(path) as stream, ThreadPoolExecutor(WORKERS) as pool:
        total = _size_hint(path, stream)
        pending: deque[tuple[Future, int]] = deque()
        for block in _blocks(stream, source):
            pending.append((pool.submit(_tokenise_block, block, max_cols, next_line, source, want), len(block)))
            next_line += block.count(10)
            if len(pending) > 2 * WORKERS:
                collect(*pending.popleft())
        while pending:
            collect(*pending.popleft())
    if seen == 0:
        raise InputError(source, None, "the file is empty")
    joined = {kind: {j: sink.result() for j, sink in columns.items()} for kind, columns in sinks.items()}
    meta = joined.pop("meta")
    return Columns(
        source=source, ncols=meta[0], line=meta[1], **joined,
        names={j: book.names for j, book in want.codes.items()}, first=want.first, same=want.same,
    )


def _size_hint(path: str | Path, stream: BinaryIO) -> int:
    """Bytes of text to expect: the file size, or four times it when compressed."""
    size = Path(path).stat().st_size
    return size * 4 if isinstance(stream, gzip.GzipFile) else size


def require_columns(cols: Columns, allowed: tuple[int, ...], layout: str) -> None:
    """Raise :class:`InputError` at the first row whose column count is not in ``allowed``."""
    ok = np.zeros(cols.ncols.size, dtype=bool)
    for a in allowed:
        ok |= cols.ncols == a
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = bad[0]
        want = " or ".join(str(a) for a in allowed)
        raise InputError(
            cols.source, int(cols.line[i]),
            f"expected {want} columns ({layout}), got {int(cols.ncols[i])}",
        )


def parse_floats(values: np.ndarray, source: str, line: np.ndarray, what: str) -> np.ndarray:
    """Convert byte strings to float64; a non-number or NaN is an error naming its line."""
    try:
        out = values.astype(np.float64)
    except ValueError:
        out = None
    if out is not None:
        bad = np.flatnonzero(np.isnan(out))
        if not bad.size:
            return out
        i = int(bad[0])
    else:
        i = next(k for k, v in enumerate(values.tolist()) if not _is_float(v))
    text = values[i].decode("utf-8", "replace")
    shown = f"{what} {text!r} is not a number" if text else f"no {what}"
    raise InputError(source, int(line[i]), shown)


def _is_float(v: bytes) -> bool:
    try:
        return v.lower() != b"nan" and float(v) == float(v)
    except ValueError:
        return False


def parse_ints(values: np.ndarray, source: str, line: np.ndarray, what: str) -> np.ndarray:
    """Convert byte strings to int64; anything but an integer is an error naming its line."""
    try:
        return values.astype(np.int64)
    except (ValueError, OverflowError):
        pass
    for k, v in enumerate(values.tolist()):
        try:
            int(v)
        except ValueError:
            text = v.decode("utf-8", "replace")
            raise InputError(source, int(line[k]), f"{what} {text!r} is not an integer") from None
    raise AssertionError("unreachable")  # pragma: no cover
