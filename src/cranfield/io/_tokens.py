"""Vectorised tokenising of whitespace-separated text files (plain or gzip).

The file is read in blocks of a few megabytes that end at a line break. Within a block the
token boundaries, the tokens per line and the fields of each line are found with numpy on
the raw bytes, so no Python object is created per line or per token; the fields come out as
fixed-width byte-string arrays (dtype ``S``). Memory is the compact result plus one block.
"""

from __future__ import annotations

import gzip
import io
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterator

import numpy as np
from numpy.lib.stride_tricks import as_strided

from ..errors import InputError

BLOCK_BYTES = 1 << 22


@dataclass(frozen=True)
class Columns:
    """The fields of a table-like text file, one array per column.

    Attributes
    ----------
    source : str
        The file name used in error messages.
    fields : list of ndarray
        ``fields[j][i]`` is column ``j`` of row ``i`` as a byte string (dtype ``S``); rows
        shorter than ``j + 1`` columns hold ``b""`` there.
    ncols : ndarray of int, shape (n,)
        The number of columns of each row.
    line : ndarray of int, shape (n,)
        The 1-based line number of each row (blank lines are skipped).
    """

    source: str
    fields: list[np.ndarray]
    ncols: np.ndarray
    line: np.ndarray

    def __len__(self) -> int:
        return int(self.line.size)


def open_binary(path: str | Path) -> BinaryIO:
    """Open ``path`` for binary reading, decompressing ``.gz`` files (by name or magic bytes)."""
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
    """Copy the byte ranges ``buf[start[i]:stop[i]]`` into a fixed-width ``S`` array."""
    if start.size == 0:
        return np.zeros(0, dtype="S1")
    length = stop - start
    width = max(int(length.max()), 1)
    # Row i of the strided view starts at byte i, so fancy-indexing rows by ``start`` copies
    # ``width`` bytes per field in one C loop; bytes past the field's end are then zeroed.
    view = as_strided(buf, shape=(buf.size - width + 1, width), strides=(1, 1))
    out = view[start]
    out[np.arange(width) >= length[:, None]] = 0
    return out.view(f"S{width}").ravel()


def _check_utf8(block: bytes, source: str, first_line: int) -> None:
    try:
        block.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = first_line + block.count(b"\n", 0, exc.start)
        raise InputError(source, line, "bytes that are not UTF-8 text") from None


def _tokenise_block(
    block: bytes, max_cols: int, first_line: int, source: str
) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Split one block into fields; returns (fields, columns per line, line numbers)."""
    raw = np.frombuffer(block, dtype=np.uint8)
    if raw.size and raw.max() >= 0x80:
        _check_utf8(block, source, first_line)
    n = raw.size
    # Padding: one whitespace byte on each side for the edge detection, and room at the end
    # for the strided gather of the widest field.
    buf = np.zeros(n + 256, dtype=np.uint8)
    buf[:n] = raw
    blank = np.empty(n + 2, dtype=bool)
    blank[0] = blank[-1] = True
    np.less_equal(raw, 32, out=blank[1:-1])  # space, tab, CR, LF and other controls
    edges = np.flatnonzero(blank[1:] != blank[:-1])
    start, stop = edges[0::2], edges[1::2]
    newlines = np.flatnonzero(raw == 10)
    # first token of each line; the block always ends with a line break
    first = np.searchsorted(start, np.concatenate(([-1], newlines[:-1])))
    count = np.diff(np.concatenate((first, [start.size])))
    line = first_line + np.arange(count.size)
    keep = count > 0
    first, count, line = first[keep], count[keep], line[keep]
    fields = []
    for j in range(max_cols):
        has = count > j
        tok = np.where(has, first + j, 0)
        s = np.where(has, start[tok] if start.size else 0, 0)
        e = np.where(has, stop[tok] if stop.size else 0, 0)
        fields.append(_gather(buf, s, e))
    return fields, count, line


def read_columns(path: str | Path, max_cols: int, *, source: str | None = None) -> Columns:
    """Tokenise a whitespace-separated text file into at most ``max_cols`` columns per row.

    Rows with more than ``max_cols`` columns raise :class:`InputError` naming the line; the
    caller checks the lower bound with :func:`require_columns`. An empty file is an error.
    """
    source = source or str(path)
    fields: list[list[np.ndarray]] = [[] for _ in range(max_cols)]
    counts, lines = [], []
    next_line = 1
    with open_binary(path) as stream:
        for block in _blocks(stream, source):
            f, count, line = _tokenise_block(block, max_cols, next_line, source)
            too_many = np.flatnonzero(count > max_cols)
            if too_many.size:
                i = too_many[0]
                raise InputError(
                    source, int(line[i]),
                    f"expected at most {max_cols} columns, got {int(count[i])}",
                )
            for j in range(max_cols):
                fields[j].append(f[j])
            counts.append(count)
            lines.append(line)
            next_line += block.count(b"\n")
    if not lines or sum(x.size for x in lines) == 0:
        raise InputError(source, None, "the file is empty")
    return Columns(
        source=source,
        fields=[np.concatenate(parts) for parts in fields],
        ncols=np.concatenate(counts),
        line=np.concatenate(lines),
    )


def require_columns(cols: Columns, allowed: tuple[int, ...], layout: str) -> None:
    """Raise :class:`InputError` at the first row whose column count is not in ``allowed``."""
    bad = np.flatnonzero(~np.isin(cols.ncols, allowed))
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
    raise InputError(source, int(line[i]), f"{what} {text!r} is not a number")


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


def doc_keys(docnos: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte string, independent of the array's itemsize.

    Equal strings always get equal keys; callers verify the strings behind equal keys, so
    a collision can never change a result.
    """
    if docnos.size == 0:
        return np.zeros(0, dtype=np.uint64)
    width = docnos.dtype.itemsize
    words = -(-width // 8)
    padded = np.zeros((docnos.size, words * 8), dtype=np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(docnos.size, width)
    w = padded.view(">u8").astype(np.uint64)
    h = np.zeros(docnos.size, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words):
            # zero words (padding) contribute nothing, so the itemsize does not matter
            x = w[:, j] * np.uint64((0x9E3779B97F4A7C15 + 0xBF58476D1CE4E5B9 * j) % 2**64 | 1)
            x ^= x >> np.uint64(31)
            x *= np.uint64(0x94D049BB133111EB)
            x ^= x >> np.uint64(29)
            h += x
    return h
