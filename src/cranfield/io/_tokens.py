"""Vectorised tokenising of whitespace-separated text files (plain or gzip).

The file is read in blocks of a few megabytes that end at a line break. Within a block the
token boundaries, the tokens per line and the wanted fields of each line are found with numpy
on the raw bytes, so no Python object is created per line or per token. A field comes out as
a fixed-width byte-string array (dtype ``S``; an object array of ``bytes`` when a few fields
are much longer than the rest, see :func:`fits_width`), as float64 numbers (C's strtod grammar,
:data:`FLOAT`, parsed exactly, see :func:`parse_decimals`), or as 64-bit keys
(:func:`doc_keys`). Memory is the compact result plus a few times one block, however long a
field is.
"""

from __future__ import annotations

import atexit
import contextlib
import gzip
import io
import numbers
import os
import stat
import sys
import threading
import zlib
from collections import deque
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from itertools import islice
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

import numpy as np
from numpy.lib.stride_tricks import as_strided

from cranfield.errors import CranfieldError, InputError

BLOCK_BYTES = 1 << 20
"""The bytes read and tokenised at a time: a block's temporaries (about ten times its size) stay
in the CPU caches and a third of the memory of 4 MB blocks, at the same speed."""
MAX_FIELD = 1 << 16
"""The longest field (a docno, a topic id, a score...) read, in bytes; a longer one is an error."""
MAX_LINE = 1 << 20
"""The longest line read, in bytes (up to the next line break); a longer one is an error."""
COMMENT = ord("#")
"""Lines whose first byte is ``#`` are comments, skipped (trec_eval 10 skips them in runs and
qrels; repro_eval's ``# ir_metadata.start`` ... ``# ir_metadata.end`` header is such a block)."""
WORKERS = max(1, min(4, os.cpu_count() or 1))


@dataclass(frozen=True)
class Columns:
    """The fields of a table-like text file.

    Attributes
    ----------
    source : str
        The file name used in error messages.
    text : dict of int to ndarray
        ``text[j][i]`` is column ``j`` of row ``i`` as a byte string (dtype ``S``, or with
        ``compact`` an object array of ``bytes``); ``b""`` where row ``i`` has fewer than
        ``j + 1`` columns.
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
        The 1-based line number of each row (blank lines and comment lines are skipped).
    comments : int
        The number of comment lines skipped (:data:`COMMENT`).
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
    comments: int = 0

    def __len__(self) -> int:
        return int(self.line.size)


BOM = b"\xef\xbb\xbf"
_Bytes = TypeVar("_Bytes", bytes, bytearray)


class _GzipText(io.RawIOBase):
    """The decompressed bytes of a gzip stream, with damaged data reported as :class:`InputError`
    naming the file (not as ``zlib.error``, ``EOFError`` or ``BadGzipFile`` tracebacks). It reads
    the stream already opened (whose magic was peeked), never the path again, so a pipe works."""

    def __init__(self, raw: io.BufferedReader, source: str) -> None:
        self.source = source
        self.raw = raw
        self.inner = gzip.GzipFile(fileobj=raw, mode="rb")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            return self.inner.readinto(buffer)
        except EOFError:
            raise InputError(self.source, None, "truncated gzip file: the compressed data ends early") from None
        except (gzip.BadGzipFile, zlib.error) as exc:
            raise InputError(self.source, None, f"not a valid gzip file: {exc}") from None

    def close(self) -> None:
        self.inner.close()
        self.raw.close()
        super().close()


STDIN = "-"
"""The path that names standard input (as for trec_eval 10 and most Unix tools)."""

_SPOOLED: dict[object, Path] = {}
_SPOOL_LOCK = threading.Lock()


def check_stdin_once(paths: Sequence[object]) -> None:
    """Standard input (``-``) can be read once: refuse it named by more than one of ``paths``
    (the qrels and the runs of one evaluation; other objects are ignored)."""
    if sum(isinstance(p, (str, Path)) and str(p) == STDIN for p in paths) > 1:
        raise CranfieldError("standard input ('-') can be read only once: give it as the qrels or as one run, "
                             "and the other files by name")


def _stream_key(path: str | Path) -> object | None:
    """What identifies a stream that can be read only once (standard input, a pipe, a FIFO, a
    character device): ``-`` or its (device, inode); None for a regular file, a directory or a
    path that does not exist."""
    if str(path) == STDIN:
        return STDIN
    try:
        mode = os.stat(path)
    except OSError:
        return None
    if stat.S_ISREG(mode.st_mode) or stat.S_ISDIR(mode.st_mode):
        return None
    return (mode.st_dev, mode.st_ino)


def readable_path(path: str | Path) -> Path:
    """The file to read for ``path``, as often as needed: ``path`` itself when it is a regular
    file; standard input (``-``), a pipe, a FIFO or ``/dev/stdin`` is read once, whole, into a
    temporary file (removed at exit), and every later read of the same stream reads that copy, so
    sniffing its layout and reading it see the same bytes."""
    key = _stream_key(path)
    if key is None:
        return Path(path)
    with _SPOOL_LOCK:
        if key not in _SPOOLED:
            import shutil  # lazily (with tempfile, ~4 ms of start-up): only a stream is copied
            import tempfile

            fd, name = tempfile.mkstemp(prefix="cranfield-input-")
            atexit.register(_remove, name)
            try:
                with os.fdopen(fd, "wb") as out:
                    if key == STDIN:
                        shutil.copyfileobj(sys.stdin.buffer, out, BLOCK_BYTES)
                    else:
                        with open(path, "rb") as stream:
                            shutil.copyfileobj(stream, out, BLOCK_BYTES)
            except OSError as exc:
                raise InputError(str(path), None, f"cannot read: {exc.strerror or exc}") from None
            _SPOOLED[key] = Path(name)
        return _SPOOLED[key]


def _remove(name: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(name)


def input_size(path: str | Path) -> int:
    """The size in bytes of what :func:`open_binary` reads for ``path`` (before decompression);
    0 for a path that cannot be read."""
    try:
        return readable_path(path).stat().st_size
    except (OSError, InputError):
        return 0


def open_binary(path: str | Path) -> io.BufferedReader:
    """Open ``path`` for binary reading: gzip files (recognised by content) decompressed, a
    leading UTF-8 byte-order mark skipped; standard input, pipes and FIFOs read once
    (:func:`readable_path`). Damaged gzip data raises :class:`InputError`."""
    try:
        raw = open(readable_path(path), "rb")
    except OSError as exc:
        raise InputError(str(path), None, f"cannot open: {exc.strerror or exc}") from None
    stream: io.BufferedReader = raw
    try:
        if raw.peek(2)[:2] == b"\x1f\x8b":
            stream = io.BufferedReader(_GzipText(raw, str(path)))
        if stream.peek(len(BOM))[: len(BOM)] == BOM:
            stream.read(len(BOM))
    except Exception:
        stream.close()
        raise
    return stream


def head_tokens(path: str | Path, lines: int, max_bytes: int = 1 << 16) -> list[list[bytes]] | None:
    """The tokens of the first ``lines`` lines of a file that are neither blank nor comments
    (fewer in a short file; at most ``max_bytes`` read), with every line ending
    (:func:`_lines_of`); None if it cannot be read. For telling file layouts apart."""
    try:
        with open_binary(path) as f:
            head = f.read(max_bytes)
    except (InputError, OSError):
        return None
    rows = (line.split() for line in io.BytesIO(_lines_of(head)))  # line by line: the first few are used
    return list(islice((tokens for tokens in rows if tokens and tokens[0][0] != COMMENT), lines))


def _is_gzip(stream: BinaryIO) -> bool:
    """Whether a stream of :func:`open_binary` decompresses a gzip file."""
    return isinstance(getattr(stream, "raw", None), _GzipText)


def _lines_of(text: _Bytes) -> _Bytes:
    """``text`` with every line ending (``\\r\\n``, or a lone ``\\r`` as classic Mac OS wrote) a
    ``\\n``: one copy, and none for the usual file, which has no ``\\r``."""
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n") if b"\r" in text else text


def _blocks(stream: io.BufferedReader, source: str) -> Iterator[tuple[bytearray | bytes, int, int]]:
    """Yield blocks of whole lines, each with the number of its first line and its number of
    line feeds (the last block may lack its final line break). A line ends at ``\n``,
    ``\r\n`` or ``\r`` (every line ending of :func:`_lines_of`); a line longer than
    :data:`MAX_LINE` is an error, so memory stays bounded whatever the file (a gzip file may
    inflate to one huge line). Each block is read into a buffer of its own (never reused: a
    block may be tokenised while the next is read), after the previous block's last line."""
    rest, line = b"", 1
    while True:
        block = bytearray(len(rest) + BLOCK_BYTES)
        block[: len(rest)] = rest
        try:
            got = stream.readinto(memoryview(block)[len(rest):])
        except OSError as exc:
            raise InputError(source, None, f"cannot read: {exc}") from None
        if not got:
            break
        del block[len(rest) + got:]
        held = b"\r" if block.endswith(b"\r") else b""  # may be the first half of a CR LF
        if held:
            del block[-1:]
        block = _lines_of(block)
        cut = block.rfind(b"\n") + 1
        rest = bytes(block[cut:]) + held
        if len(rest) > MAX_LINE:
            raise InputError(source, line + block.count(b"\n", 0, cut),
                             f"a line longer than {MAX_LINE >> 20} MB: not a table of ids and numbers "
                             f"(no field may be longer than {MAX_FIELD >> 10} KB)")
        if cut:
            del block[cut:]
            feeds = _line_feeds(block)
            yield block, line, feeds
            line += feeds
    if rest:
        last = _lines_of(rest) + b"\n"
        yield last, line, _line_feeds(last)


def _line_feeds(block: bytes | bytearray) -> int:
    """The line feeds in ``block``, counted by numpy (several times faster than ``bytes.count``)."""
    return int(np.count_nonzero(np.frombuffer(block, dtype=np.uint8) == 10))


MASK_TABLE_WORDS = 64
"""The widest gathered field (in 64-bit words) whose byte masks come from a table by length."""
_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [2**64 - 1], dtype=np.uint64)
"""``_LOW_BYTES[k]``: the mask keeping the first ``k`` bytes (in memory order) of a little-endian 64-bit word."""


def _gather(buf: np.ndarray, start: np.ndarray, stop: np.ndarray, length: np.ndarray | None = None) -> np.ndarray:
    """Copy the byte ranges ``buf[start[i]:stop[i]]`` into an (n, W) zero-padded uint8 matrix,
    W a multiple of 8 (so rows can be read as 64-bit words); ``length``: ``stop - start`` if known."""
    length = stop - start if length is None else length
    shortest, longest = (int(length.min()), int(length.max())) if length.size else (0, 0)
    words = max(-(-longest // 8), 1)
    # Row i of a strided view of 8W-byte records starts at byte i, so fancy-indexing rows by
    # ``start`` copies each field as one record (a memcpy); rows too close to the end of
    # ``buf`` for a whole record are copied again from a zero-padded copy of that end.
    record = np.dtype("<u8") if words == 1 else np.dtype(f"V{8 * words}")
    last = buf.size - 8 * words
    if last < 0:
        buf, last = np.concatenate((buf, np.zeros(-last, dtype=np.uint8))), 0
    rows = np.ndarray((last + 1,), dtype=record, buffer=buf, strides=(1,))
    if int(start.max(initial=0)) <= last:  # the usual block: no field near its end
        out = rows[start]
    else:
        out = rows[np.minimum(start, last)]
        tail = np.flatnonzero(start > last)
        t0 = int(start[tail].min())
        end = np.zeros(buf.size - t0 + 8 * words, dtype=np.uint8)
        end[: buf.size - t0] = buf[t0:]
        out[tail] = np.ndarray((end.size - 8 * words + 1,), dtype=record, buffer=end, strides=(1,))[start[tail] - t0]
    out = out.view("<u8").reshape(length.size, words)
    # the bytes past each field's end, in the words that hold them (from the shortest field's
    # last word on): a word at a time for the usual fields of (nearly) equal lengths, else for
    # the usual short fields a table of word masks indexed by the field's length (fast, but
    # (8W + 1) × W words), else each row's masks (n × W, as out)
    ragged = range(shortest // 8, words)
    if len(ragged) <= 2:
        for j in ragged:  # one word: every field ends in it, so 0 <= length - 8j <= 8
            out[:, j] &= _LOW_BYTES.take(length - 8 * j if len(ragged) == 1 else np.clip(length - 8 * j, 0, 8))
    elif words <= MASK_TABLE_WORDS:
        out &= _LOW_BYTES[np.clip(np.arange(8 * words + 1)[:, None] - 8 * np.arange(words), 0, 8)].take(length, axis=0)
    else:
        out &= _LOW_BYTES[np.clip(length[:, None] - 8 * np.arange(words), 0, 8)]
    return out.view(np.uint8)


def padded_strings(buf: np.ndarray, start: np.ndarray, stop: np.ndarray, trim: bool = True) -> np.ndarray:
    """The byte ranges ``buf[start[i]:stop[i]]`` (none empty, none holding a NUL byte) as one
    byte-string array (dtype ``S``) as wide as the longest, as the tokenizer stores a column
    (``trim=False``: as wide as the longest rounded up to 8 bytes, without a copy; equal as
    values)."""
    matrix = _gather(buf, start, stop)
    if not trim:
        return matrix.view(f"S{matrix.shape[1]}").ravel()
    return _trim(matrix, int((stop - start).max(initial=0)))


def strings_and_keys(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`padded_strings` of the byte ranges and their :func:`doc_keys`, gathered once."""
    matrix = _gather(buf, start, stop)
    return _trim(matrix, int((stop - start).max(initial=0))), _hash_words(matrix.view("<u8"))


def _check_text(raw: np.ndarray, block: bytes | bytearray, source: str, first_line: int) -> None:
    """Raise :class:`InputError` at the first line holding a NUL byte or bytes that are not UTF-8."""
    if raw.size and raw.min() == 0:
        line = first_line + block.count(b"\n", 0, int(np.argmin(raw)))
        raise InputError(source, line, "a NUL byte (\\x00), which no field may contain")
    if raw.size and raw.max() >= 0x80:
        try:
            block.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = first_line + block.count(b"\n", 0, exc.start)
            raise InputError(source, line, "bytes that are not UTF-8 text") from None


def _changes(values: np.ndarray) -> np.ndarray:
    """``values[1:] != values[:-1]``; byte strings of a multiple of 8 bytes are compared as
    64-bit words (a 30th of the time of numpy's string comparison)."""
    size = values.dtype.itemsize
    if values.dtype.kind != "S" or size % 8 or not values.flags.c_contiguous:
        return values[1:] != values[:-1]
    words = values.view("<u8").reshape(values.size, size // 8)
    differ = words[1:, 0] != words[:-1, 0]
    for j in range(1, size // 8):
        differ |= words[1:, j] != words[:-1, j]
    return differ


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
        heads = np.concatenate(([0], np.flatnonzero(_changes(values)) + 1))
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


def _mix(words: np.ndarray, position: int | np.ndarray) -> np.ndarray:
    """The hash contribution of 64-bit words at word ``position`` within their string (0 for a
    zero word, so zero padding never changes a hash): a multiply by an odd constant of the
    position, then xor-shift, multiply, xor-shift as in SplitMix64's finaliser (Steele, Lea and
    Flood, OOPSLA 2014), so every bit of a word reaches every bit of its contribution."""
    with np.errstate(over="ignore"):
        x = words * _MIX[np.asarray(position) % 64]
        x ^= x >> np.uint64(31)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(29)
    return x


def _hash_words(words: np.ndarray) -> np.ndarray:
    """Hash rows of little-endian 64-bit words; all-zero words (padding) contribute nothing."""
    h = np.zeros(words.shape[0], dtype=np.uint64)
    for j in range(words.shape[1]):
        h += _mix(words[:, j], j)
    return h


@dataclass(frozen=True)
class Ragged:
    """Byte strings of any lengths in one buffer: string ``i`` is
    ``buf[start[i]:start[i] + length[i]]``. Memory is their bytes, not count × the longest."""

    buf: np.ndarray
    start: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray) -> Ragged:
        """The strings of a byte-string array (dtype ``S``, without NUL bytes) or an object
        array of ``bytes``."""
        n = values.size
        if values.dtype.kind == "O":
            items = values.tolist()
            length = np.fromiter(map(len, items), dtype=np.int64, count=n)
            return cls(np.frombuffer(b"".join(items), dtype=np.uint8), np.cumsum(length) - length, length)
        width = values.dtype.itemsize
        m = np.ascontiguousarray(values).view(np.uint8).reshape(n, width)
        return cls(m.ravel(), np.arange(n, dtype=np.int64) * width, np.count_nonzero(m, axis=1).astype(np.int64))

    def hash(self) -> np.ndarray:
        """:func:`doc_keys` of the strings, computed word by word in place (memory a few times
        their bytes, whatever their lengths)."""
        n = self.length.size
        words = -(-self.length // 8)
        first = np.cumsum(words) - words
        token = np.repeat(np.arange(n), words)
        k = np.arange(int(words.sum())) - first[token]  # each word's position in its string
        at = self.start[token] + 8 * k
        need = int(at.max(initial=0)) + 8
        buf = self.buf
        if buf.size < need:  # room to read the last word whole
            buf = np.concatenate((buf, np.zeros(need - buf.size, np.uint8)))
        word = as_strided(buf, shape=(buf.size - 7, 8), strides=(1, 1))[at]
        word[np.arange(8) >= (self.length[token] - 8 * k)[:, None]] = 0  # bytes past the string's end
        mixed = _mix(word.view("<u8").ravel(), k)
        keys = np.zeros(n, dtype=np.uint64)
        some = words > 0
        if some.any():
            keys[some] = np.add.reduceat(mixed, first[some])
        return keys


def doc_keys(docnos: np.ndarray) -> np.ndarray:
    """A 64-bit hash of each byte string, independent of the array's itemsize (an object array
    of ``bytes`` gives the same keys as a byte-string array).

    Equal strings always get equal keys; callers verify the strings behind equal keys, so
    a collision can never change a result.
    """
    if docnos.size == 0:
        return np.zeros(0, dtype=np.uint64)
    if docnos.dtype.kind == "O":
        return Ragged.of(docnos).hash()
    width = docnos.dtype.itemsize
    padded = np.zeros((docnos.size, -(-width // 8) * 8), dtype=np.uint8)
    padded[:, :width] = docnos.view(np.uint8).reshape(docnos.size, width)
    return _hash_words(padded.view("<u8"))


_POW10 = 10.0 ** np.arange(23)


def parse_decimals(m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Parse an (n, W) matrix of zero-padded ASCII numbers ``[+-]digits[.digits]``.

    Returns (values, ok). Where ``ok``, the value is the mantissa (at most 2^53) divided by a
    power of ten up to 10^22: both exact doubles, so the one IEEE division gives the correctly
    rounded result, exactly what ``float()`` gives (Clinger's fast path). Other rows (an
    exponent, ``inf``, too many digits, garbage) are left to the caller.
    """
    n, width = m.shape
    if width == 8:  # the usual score: one 64-bit word per number
        return _short_decimals(np.ascontiguousarray(m).view("<u8").ravel())
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


_BYTES = {name: np.uint64(int(byte, 16) * 0x0101010101010101) for name, byte in
          (("high", "80"), ("low7", "7F"), ("ones", "01"), ("dot", "2E"), ("zero", "30"), ("over9", "76"))}


def _nonzero_bytes(x: np.ndarray) -> np.ndarray:
    """0x80 in every byte of the 64-bit words ``x`` that is not zero, 0 in the others (no carry
    crosses a byte: Warren, *Hacker's Delight*, 2nd ed. 2012, section 6-1)."""
    return (((x & _BYTES["low7"]) + _BYTES["low7"]) | x) & _BYTES["high"]


def _short_decimals(words: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`parse_decimals` of numbers of at most 8 bytes, one little-endian 64-bit word each
    (zero-padded), by SWAR arithmetic on the words (Warren, *Hacker's Delight*, 2nd ed. 2012,
    section 6-1): strip the sign, check that every byte is a digit but at most one dot, take the
    first other byte (the dot, or the first byte of padding) out, and combine the digits
    pairwise in three multiplications (Lemire, 2022, "Parsing eight digits"). The digits stay
    left-aligned, so that gives the mantissa times 10^(8 - digits); divided by 10^(8 - the
    dot's position) that is Clinger's exact fast path, both numbers exact doubles."""
    u64 = np.uint64
    ones, high, low7 = _BYTES["ones"], _BYTES["high"], _BYTES["low7"]
    with np.errstate(over="ignore"):
        first = words.view(np.uint8)[::8]  # each number's first byte
        neg = first == 45
        signed = neg | (first == 43)
        w = np.where(signed, words >> u64(8), words) if signed.any() else words
        inside = _nonzero_bytes(w)  # 0x80 in each byte of the number (tokens hold no NUL byte)
        dot = ~_nonzero_bytes(w ^ _BYTES["dot"]) & high
        v = w ^ _BYTES["zero"]  # digits become their values 0..9
        other = (((v & low7) + _BYTES["over9"]) | v) & high  # 0x80 in each byte that is not a digit
        ok = ((other & inside) == dot) & ((dot & (dot - u64(1))) == 0) & (inside != dot)
        # q: the first byte that is not a digit (8 for none); the bits below its 0x80 count the bytes before it
        q = (((((other - u64(1)) & ~other) >> u64(7)) & ones) * ones) >> u64(56)
        v &= ~((other >> u64(7)) * u64(0xFF))  # the dot and the padding become 0
        shift = np.minimum(q, u64(7)) << u64(3)
        v = (v & _LOW_BYTES[q]) | (((v >> shift) >> u64(8)) << shift)  # byte q taken out
        v = (v * u64(10) + (v >> u64(8))) & u64(0x00FF00FF00FF00FF)
        v = (v * u64(100) + (v >> u64(16))) & u64(0x0000FFFF0000FFFF)
        v = (v * u64(10000) + (v >> u64(32))) & u64(0xFFFFFFFF)
        values = v.astype(np.float64) / _POW10[u64(8) - q]
    np.negative(values, out=values, where=neg)
    return values, ok


def _numbers(m: np.ndarray, has: np.ndarray | None, source: str, line: np.ndarray, what: str,
             column: int) -> np.ndarray:
    """Numbers of the rows that have the column (0 elsewhere: their column count is checked
    later; ``has`` None: every row)."""
    values, ok = parse_decimals(m)
    if has is not None:
        ok |= ~has
        values[~has] = 0.0
    if not ok.all():
        rest = np.flatnonzero(~ok)
        values[rest] = parse_floats(m[rest].view(f"S{m.shape[1]}").ravel(), source, line[rest], what, column=column)
    return values


def fits_width(n: int, width: int, chars: int) -> bool:
    """Whether ``n`` strings holding ``chars`` bytes in all may be padded to ``width`` bytes
    each: padding may cost up to twice their bytes plus 16 per string (about what the same
    strings cost as Python objects), so memory stays a small multiple of the bytes read."""
    return n * width <= 2 * chars + 16 * n


def compact_strings(values: np.ndarray) -> np.ndarray:
    """An object array of ``bytes`` as a byte-string array (dtype ``S``) when :func:`fits_width`
    allows padding every value to the longest, else unchanged."""
    if values.size == 0:
        return np.zeros(0, dtype="S1")
    length = np.fromiter(map(len, values.tolist()), dtype=np.int64, count=values.size)
    width = max(int(length.max()), 1)
    return values.astype(f"S{width}") if fits_width(values.size, width, int(length.sum())) else values


@dataclass
class _Field:
    """One column of a block, gathered for the vectorised conversions.

    The fields are copied into a zero-padded (rows, W) matrix. When a few fields are much
    longer than the rest, padding every row to them would cost rows × the longest field, so
    only the rows of at most ``W`` bytes (:func:`fits_width`) go into the matrix and the
    ``long`` rest stays where it is in the block (``spans``).
    """

    matrix: np.ndarray
    width: int  # the longest field in the matrix
    short: np.ndarray | None
    long: np.ndarray
    spans: Ragged

    @classmethod
    def gather(cls, buf: np.ndarray, start: np.ndarray, stop: np.ndarray, source: str, line: np.ndarray,
               column: int) -> _Field:
        """The fields ``buf[start[i]:stop[i]]`` (of rows at ``line``, in 1-based ``column``); one
        longer than :data:`MAX_FIELD` is an error naming its line."""
        length = stop - start
        longest = int(length.max(initial=0))
        if longest > MAX_FIELD:
            i = int(np.argmax(length > MAX_FIELD))
            raise InputError(source, int(line[i]), f"a field of {int(length[i]):,} bytes (column {column}); no id "
                                                   f"or number may be longer than {MAX_FIELD >> 10} KB")
        if fits_width(length.size, -(-longest // 8) * 8, int(length.sum())):
            return cls(_gather(buf, start, stop, length), longest, None, np.zeros(0, dtype=np.intp),
                       Ragged(buf, start[:0], length[:0]))
        width = max((2 * int(length.sum()) + 16 * length.size) // length.size // 8 * 8, 8)
        short, long = np.flatnonzero(length <= width), np.flatnonzero(length > width)
        return cls(_gather(buf, start[short], stop[short]), int(length[short].max(initial=0)), short, long,
                   Ragged(buf, start[long], length[long]))

    @property
    def rows(self) -> int:
        return self.matrix.shape[0] + self.long.size

    @cached_property
    def long_strings(self) -> np.ndarray:
        """The long fields as an object array of ``bytes``: the block with every other byte
        blanked, split at the blanks (fields never contain blank bytes)."""
        inside = np.zeros(self.spans.buf.size + 1, dtype=np.int8)
        inside[self.spans.start] = 1
        inside[self.spans.start + self.spans.length] = -1
        kept = np.where(np.cumsum(inside[:-1], dtype=np.int8) > 0, self.spans.buf, 32).tobytes().split()
        out = np.empty(len(kept), dtype=object)
        out[:] = kept
        return out

    def combine(self, short: np.ndarray, long: np.ndarray) -> np.ndarray:
        """One array of all rows from the values of the matrix rows and of the long rows."""
        if self.short is None:
            return short
        dtype = np.dtype(object) if short.dtype.kind == "S" else short.dtype
        out = np.empty(self.rows, dtype=dtype)
        out[self.short] = short
        out[self.long] = long
        return out

    def strings(self, compact: bool) -> np.ndarray:
        """The fields as byte strings: dtype ``S`` when no field is long, else an object array
        of ``bytes`` (``compact``) or dtype ``S`` as wide as the longest."""
        values = self.combine(_trim(self.matrix, self.width), self.long_strings if self.long.size else self.long)
        return values if compact or values.dtype.kind == "S" else values.astype("S")

    def padded(self) -> np.ndarray:
        """:meth:`strings` (``compact``) as wide as the matrix, a multiple of 8 bytes: equal as
        values, without a copy, and compared word by word (:func:`_changes`)."""
        return self.combine(self.matrix.view(f"S{self.matrix.shape[1]}").ravel(),
                            self.long_strings if self.long.size else self.long)

    def keys(self) -> np.ndarray:
        short = _hash_words(self.matrix.view("<u8"))
        return short if self.short is None else self.combine(short, self.spans.hash())

    def numbers(self, has: np.ndarray | None, source: str, line: np.ndarray, what: str, column: int) -> np.ndarray:
        """Numbers of the rows where ``has`` (0 elsewhere; None: every row)."""
        if self.short is None:
            return _numbers(self.matrix, has, source, line, what, column)
        long = np.zeros(self.long.size)
        read = np.flatnonzero(has[self.long]) if has is not None else np.arange(self.long.size)
        long[read] = parse_floats(self.long_strings[read], source, line[self.long[read]], what, column=column)
        short = _numbers(self.matrix, None if has is None else has[self.short], source, line[self.short], what, column)
        return self.combine(short, long)


@dataclass
class _Wanted:
    """What to make of each column, and the state carried from block to block."""

    text: Sequence[int]
    numbers: dict[int, str]
    keys: Sequence[int]
    codes: dict[int, CodeBook]
    uniform: Sequence[int]
    min_cols: int
    compact: bool = False
    ignore_extra: bool = False
    first_line_hints: dict[int, str] = field(default_factory=dict)
    first: dict[int, bytes] = field(default_factory=dict)
    same: dict[int, bool] = field(default_factory=dict)

    @property
    def copied(self) -> set[int]:
        """Columns whose values are copied out of the text."""
        return set(self.text) | set(self.numbers) | set(self.keys) | set(self.codes)

    @property
    def columns(self) -> list[int]:
        return sorted(self.copied | set(self.uniform))


def _uniform(buf: np.ndarray, start: np.ndarray, stop: np.ndarray) -> tuple[bytes, bool]:
    """(first field, whether every field equals it), compared eight bytes at a time."""
    first = buf[start[0]:stop[0]].tobytes()
    if not bool((stop - start == len(first)).all()):
        return first, False
    if len(first) <= 8 and buf.size >= 8:  # the usual tag: one word each, masked alike
        near_end = start > buf.size - 8  # the last line's, say: compared as bytes
        ends = [buf[a:a + len(first)].tobytes() for a in start[near_end].tolist()]
        words = np.ndarray((buf.size - 7,), dtype="<u8", buffer=buf, strides=(1,))[start[~near_end]]
        same = not bool(((words ^ _word(first)) & _LOW_BYTES[len(first)]).any())
        return first, same and all(end == first for end in ends)
    words = _gather(buf, start, stop).view("<u8")  # compared eight bytes at a time
    return first, bool((words == words[0]).all())


def _word(text: bytes) -> np.uint64:
    """The little-endian 64-bit word of up to 8 bytes (zero-padded)."""
    return np.frombuffer(text.ljust(8, b"\0"), dtype="<u8")[0]


def _trim(m: np.ndarray, width: int) -> np.ndarray:
    """The gathered matrix as byte strings ``width`` bytes wide (its longest value's length):
    each row cast whole (a copy of the first ``width`` bytes, faster than a 2-D slice's)."""
    return m.view(f"S{m.shape[1]}").ravel().astype(f"S{max(width, 1)}")


def _plain_width(raw: np.ndarray, blank: np.ndarray, lines: int) -> int:
    """The tokens per line when each of the ``lines`` lines of a block (ending with a line
    break) has that many with one blank byte after each, no blank line, no leading blank and
    no comment line (the usual file), else 0. ``blank``: the positions of the bytes up to 0x20
    (space, tab, CR, LF, the other controls), which then are the tokens' ends, every width-th
    one a line feed (and no other, as there are ``lines`` line feeds)."""
    if not blank.size or blank[0] == 0 or blank.size % lines:
        return 0
    width = blank.size // lines
    feeds = blank[width - 1::width]
    if not bool((raw[feeds] == 10).all()) or not bool((blank[1:] - blank[:-1] > 1).all()):
        return 0
    return 0 if raw[0] == COMMENT or bool((raw[feeds[:-1] + 1] == COMMENT).any()) else width


def _plain_column(blank: np.ndarray, width: int, j: int) -> tuple[np.ndarray, np.ndarray]:
    """(start, stop) of column ``j`` of every line of a block of :func:`_plain_width` ``width``."""
    if j:
        return blank[j - 1::width] + 1, blank[j::width].copy()
    start = np.empty(blank.size // width, dtype=blank.dtype)
    start[0] = 0
    np.add(blank[width - 1:-1:width], 1, out=start[1:])
    return start, blank[::width].copy()


def _token_bounds(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(start, stop) of every token of a block ending with a line break, and (first token,
    number of tokens) of every line. A token is a run of bytes above 0x20; every other byte
    (space, tab, line feed, the other controls) separates tokens, and a line feed ends a line."""
    # Padding: one whitespace byte on each side for the edge detection.
    blank = np.empty(raw.size + 2, dtype=bool)
    blank[0] = blank[-1] = True
    np.less_equal(raw, 32, out=blank[1:-1])
    edges = np.flatnonzero(blank[1:] != blank[:-1])
    start, stop = edges[0::2], edges[1::2]
    newlines = np.flatnonzero(raw == 10)
    # first token of each line; the block always ends with a line break
    first = np.searchsorted(start, np.concatenate(([-1], newlines[:-1])))
    count = np.diff(np.concatenate((first, [start.size]))).astype(np.int32)
    return start, stop, first, count


def _tokenise_block(
    block: bytes | bytearray, lines: int, max_cols: int, first_line: int, source: str, want: _Wanted,
) -> tuple[dict, np.ndarray, np.ndarray, int]:
    """Split one block of ``lines`` lines into the wanted fields: ({kind: {column: array}},
    columns per line, line numbers, comment lines skipped). Pure, so blocks can be tokenised in
    parallel; code columns come back as byte strings and uniform columns as (first value, all
    equal), for :func:`_merge`."""
    raw = np.frombuffer(block, dtype=np.uint8)
    _check_text(raw, block, source, first_line)
    buf = raw
    blank = np.flatnonzero(np.less_equal(raw, 32))  # space, tab, CR, LF and other controls
    width = _plain_width(raw, blank, lines)
    if width:  # the usual file: its columns straight from the blanks
        count = np.full(blank.size // width, width, dtype=np.int32)
        line = (first_line + np.arange(count.size)).astype(np.int32)
        skipped = 0
    else:
        start, stop, first, count = _token_bounds(raw)
        line = (first_line + np.arange(count.size)).astype(np.int32)
        used = count > 0
        # a comment line's first token starts with '#' (trec_eval 10's rule: after leading blanks)
        comment = used & (buf[start[np.minimum(first, max(start.size - 1, 0))]] == COMMENT) if start.size else used
        skipped = int(np.count_nonzero(comment))
        if skipped:
            used &= ~comment
        first, count, line = first[used], count[used], line[used]
    if (count > max_cols).any() and not want.ignore_extra:
        i = int(np.flatnonzero(count > max_cols)[0])
        hint = want.first_line_hints.get(int(count[i]), "") if i == 0 and first_line == 1 else ""
        raise InputError(source, int(line[i]), f"expected at most {max_cols} columns, got {int(count[i])}"
                         + (f" ({hint})" if hint else ""))
    out: dict[str, dict[int, Any]] = {"text": {}, "number": {}, "key": {}, "code": {}, "uniform": {}}
    # every line has the same number of tokens (one blank between them or not), no comment line
    uniform = width or (int(count[0]) if count.size and not skipped and bool((count == count[0]).all()) else 0)
    count = np.minimum(count, max_cols)  # columns after the last are ignored (``ignore_extra``)
    for j in want.columns:
        has: np.ndarray | None = None  # None: every row has column j
        if j < uniform:  # contiguous copies: every later pass over them is faster
            s, e = (_plain_column(blank, width, j) if width
                    else (np.ascontiguousarray(start[j::uniform]), np.ascontiguousarray(stop[j::uniform])))
        elif width:  # no line has column j
            has = np.zeros(count.size, dtype=bool)
            s = e = np.zeros(count.size, dtype=np.intp)
        else:
            has = count > j
            tok = np.where(has, first + j, 0)
            s = np.where(has, start[tok] if start.size else 0, 0)
            e = np.where(has, stop[tok] if stop.size else 0, 0)
        if j in want.uniform and s.size:
            out["uniform"][j] = _uniform(buf, s, e)  # the usual tag column: checked without copying it out
        if j not in want.copied or not s.size:
            continue
        values = _Field.gather(buf, s, e, source, line, j + 1)
        if j in want.text:
            out["text"][j] = values.strings(want.compact)
        if j in want.keys:
            out["key"][j] = values.keys()
        if j in want.codes:
            out["code"][j] = values.padded()
        if j in want.numbers:
            # the rows with column j and at least min_cols (short rows fail the column count check instead)
            complete = has is None and min(uniform, max_cols) >= want.min_cols
            read = None if complete else count >= max(want.min_cols, j + 1)
            out["number"][j] = values.numbers(read, source, line, want.numbers[j], j + 1)
    return out, count, line, skipped


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
    (grown by half when short), so the blocks are never held twice.

    A byte-string column widens to its widest string; a ``compact`` one becomes an object array
    of ``bytes`` instead when that width would not :func:`fits_width` the bytes it holds.
    """

    def __init__(self, estimate: int, compact: bool = False) -> None:
        self.estimate = estimate
        self.compact = compact
        self.data: np.ndarray | None = None
        self.size = 0
        self.chars = 0  # the bytes of the strings of data[:counted] (counted when first needed)
        self.counted = 0

    def add(self, part: np.ndarray) -> None:
        if self.data is None:
            self.data = np.empty(max(self.estimate, part.size), dtype=part.dtype)
        end = self.size + part.size
        dtype = self._dtype(part, end)
        if dtype != self.data.dtype or end > self.data.size:
            grown = np.empty(max(end, self.data.size * 3 // 2) if end > self.data.size else self.data.size, dtype=dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size:end] = part
        self.size = end

    def _dtype(self, part: np.ndarray, rows: int) -> np.dtype:
        """The column's dtype once ``part`` is added (``rows`` rows in all)."""
        assert self.data is not None
        old = self.data.dtype
        if part.dtype.kind == "O" or old.kind != "S" or part.dtype.itemsize <= old.itemsize:
            return part.dtype if part.dtype.kind == "O" else old
        wide = part.dtype.itemsize
        return part.dtype if not self.compact or fits_width(rows, wide, self._chars(part)) else np.dtype(object)

    def _chars(self, part: np.ndarray) -> int:
        """The bytes of the strings held and of ``part`` (byte strings), each row counted once."""
        assert self.data is not None
        self.chars += int(np.count_nonzero(self.data[self.counted: self.size].view(np.uint8)))
        self.counted = self.size
        return self.chars + int(np.count_nonzero(part.view(np.uint8)))

    def result(self) -> np.ndarray:
        assert self.data is not None
        out = self.data[: self.size]
        return out.copy() if self.size < 0.9 * self.data.size else out


def read_columns(
    path: str | Path, max_cols: int, *, text: Sequence[int] | None = None,
    numbers: dict[int, str] | None = None, keys: Sequence[int] = (), codes: Sequence[int] = (),
    uniform: Sequence[int] = (), min_cols: int | None = None, source: str | None = None,
    compact: bool = False, ignore_extra: bool = False, first_line_hints: dict[int, str] | None = None,
    threads: bool = True,
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
    compact : text columns may come back as object arrays of ``bytes`` (rather than as wide as
        their longest value) when a few values are much longer than the rest, so memory stays
        a small multiple of the bytes read
    ignore_extra : columns after the first ``max_cols`` are ignored (trec_eval's run reader)
        rather than an error
    first_line_hints : what a first line of that many columns (more than ``max_cols``) suggests,
        added to its error (``{6: "did you swap the qrels and the run?"}``)
    threads : tokenise blocks on :data:`WORKERS` threads (default), or one block at a time on
        this thread (for callers that read several files at once, one per thread: less memory)

    Rows with more than ``max_cols`` columns, numbers that are not C decimal numbers
    (:data:`FLOAT`), NUL bytes and undecodable bytes raise :class:`InputError` naming the line;
    the caller checks the lower bound of columns with :func:`require_columns`. An empty file
    is an error.
    """
    source = source or str(path)
    want = _Wanted(
        text=list(range(max_cols)) if text is None else list(text), numbers=numbers or {},
        keys=list(keys), codes={j: CodeBook() for j in codes}, uniform=list(uniform),
        min_cols=min_cols or max_cols, compact=compact, ignore_extra=ignore_extra,
        first_line_hints=first_line_hints or {},
    )
    sinks: dict[str, dict[int, _Sink]] = {"text": {}, "number": {}, "key": {}, "code": {}, "meta": {}}
    estimate, seen, comments = 0, 0, 0

    def collect(tokenised: tuple[dict, np.ndarray, np.ndarray, int], size: int) -> None:
        nonlocal estimate, seen, comments
        got, count, line, skipped = tokenised
        comments += skipped
        got = _merge(got, want)
        if not estimate and count.size:  # rows per byte of the first block × the file's size
            estimate = int(count.size * max(total, size) / size * 1.02) + 16
        got["meta"] = {0: count, 1: line}
        for kind, columns in got.items():
            for j, arr in columns.items():
                sinks[kind].setdefault(j, _Sink(estimate, compact and kind == "text")).add(arr)
        seen += count.size

    # numpy releases the GIL, so blocks are tokenised on all cores; results are merged in order
    with open_binary(path) as stream, (ThreadPoolExecutor(WORKERS) if threads else contextlib.nullcontext()) as pool:
        total = _size_hint(path, stream)
        pending: deque[tuple[Future, int]] = deque()
        for block, first_line, lines in _blocks(stream, source):
            if pool is None:  # one block at a time, on this thread
                collect(_tokenise_block(block, lines, max_cols, first_line, source, want), len(block))
                continue
            pending.append((pool.submit(_tokenise_block, block, lines, max_cols, first_line, source, want),
                            len(block)))
            if len(pending) > 2 * WORKERS:
                job, size = pending.popleft()
                collect(job.result(), size)
        while pending:
            job, size = pending.popleft()
            collect(job.result(), size)
    if seen == 0:
        but = f" but for {comments} comment lines (#)" if comments else ""
        raise InputError(source, None, f"the file is empty{but}")
    joined = {kind: {j: sink.result() for j, sink in columns.items()} for kind, columns in sinks.items()}
    meta = joined.pop("meta")
    return Columns(
        source=source, ncols=meta[0], line=meta[1], **joined,
        names={j: book.names for j, book in want.codes.items()}, first=want.first, same=want.same,
        comments=comments,
    )


def _size_hint(path: str | Path, stream: BinaryIO) -> int:
    """Bytes of text to expect: the file size, or four times it when compressed."""
    size = input_size(path)
    return size * 4 if _is_gzip(stream) else size


def require_columns(cols: Columns, allowed: tuple[int, ...], layout: str) -> None:
    """Raise :class:`InputError` at the first row whose column count is not in ``allowed`` (on
    the first row, suggesting it may be a header line, which these files never have)."""
    ok = np.zeros(cols.ncols.size, dtype=bool)
    for a in allowed:
        ok |= cols.ncols == a
    bad = np.flatnonzero(~ok)
    if bad.size:
        i = bad[0]
        want = " or ".join(str(a) for a in allowed)
        header = " (a header line? these files have none)" if i == 0 else ""
        raise InputError(
            cols.source, int(cols.line[i]),
            f"expected {want} columns ({layout}), got {int(cols.ncols[i])}{header}",
        )


# ------------------------------------------------------------------ numbers as C reads them

_CLASSES = {"0123456789": "digit", "+-": "sign", ".": "dot", "eE": "e", "L": "L",
            "iI": "i", "nN": "n", "fF": "f", "tT": "t", "yY": "y"}
_CLASS_NAMES = ["other", *_CLASSES.values()]


def _byte_classes() -> np.ndarray:
    """The class (an index into ``_CLASS_NAMES``) of each byte value."""
    table = np.zeros(256, dtype=np.intp)
    for chars, name in _CLASSES.items():
        table[list(chars.encode())] = _CLASS_NAMES.index(name)
    return table


_CLASS = _byte_classes()


@dataclass(frozen=True)
class Grammar:
    """The tokens a column accepts, as a deterministic automaton over byte classes.

    Attributes
    ----------
    name : str
        What a valid token is, for messages (``"a number"``).
    table : ndarray, shape (states, classes)
        The next state; state 0 is the start, the last state the dead one.
    accept : ndarray of bool, shape (states,)
    """

    name: str
    table: np.ndarray
    accept: np.ndarray

    @classmethod
    def of(cls, name: str, rules: dict[str, dict[str, str]], accept: set[str]) -> Grammar:
        """A grammar from ``{state: {byte class: next state}}``; the first state is the start and
        every transition not listed leads to the dead state."""
        states = [*rules, "dead"]
        table = np.full((len(states), len(_CLASS_NAMES)), len(states) - 1, dtype=np.intp)
        for state, moves in rules.items():
            for kind, target in moves.items():
                table[states.index(state), _CLASS_NAMES.index(kind)] = states.index(target)
        return cls(name, table, np.array([s in accept for s in states]))

    @property
    def takes_one_digit(self) -> bool:
        """Whether a single digit is a valid token."""
        return bool(self.accept[self.table[0, _CLASS_NAMES.index("digit")]])

    @property
    def takes_digits(self) -> bool:
        """Whether every run of digits is a valid token."""
        digit = _CLASS_NAMES.index("digit")
        after = self.table[0, digit]
        return bool(self.accept[after]) and self.table[after, digit] == after

    def matches(self, text: Ragged) -> np.ndarray:
        """Whether each string is a complete token of the grammar (one step per byte position,
        vectorised over the strings still being read)."""
        state = np.zeros(text.length.size, dtype=np.intp)
        rows = np.arange(text.length.size)
        dead = self.table.shape[0] - 1
        for k in range(int(text.length.max(initial=0))):
            rows = rows[(text.length[rows] > k) & (state[rows] != dead)]
            if not rows.size:
                break
            state[rows] = self.table[state[rows], _CLASS[text.buf[text.start[rows] + k]]]
        return self.accept[state]

    def accepts(self, tokens: Sequence[bytes]) -> np.ndarray:
        """Whether each of some Python byte strings is a token of the grammar."""
        values = np.empty(len(tokens), dtype=object)
        values[:] = list(tokens)
        return self.matches(Ragged.of(values))


_DIGITS = {"digit": "int"}
# C's strtod (trec_eval reads scores with atof): [sign] digits [. [digits]] | [sign] . digits,
# then an optional exponent e[sign]digits; or inf / infinity in any case. NaN is refused.
FLOAT = Grammar.of("a number", {
    "start": {"digit": "int", "sign": "signed", "dot": "dot", "i": "i"},
    "signed": {"digit": "int", "dot": "dot", "i": "i"},
    "int": {"digit": "int", "dot": "point", "e": "e"},
    "point": {"digit": "frac", "e": "e"},
    "dot": {"digit": "frac"},
    "frac": {"digit": "frac", "e": "e"},
    "e": {"digit": "exp", "sign": "exp_sign"},
    "exp_sign": {"digit": "exp"},
    "exp": {"digit": "exp"},
    "i": {"n": "in"}, "in": {"f": "inf"}, "inf": {"i": "infi"}, "infi": {"n": "infin"},
    "infin": {"i": "infini"}, "infini": {"t": "infinit"}, "infinit": {"y": "infinity"}, "infinity": {},
}, accept={"int", "point", "frac", "exp", "inf", "infinity"})
INTEGER = Grammar.of("an integer", {"start": {**_DIGITS, "sign": "signed"}, "signed": _DIGITS, "int": _DIGITS},
                     accept={"int"})
# qrels labels: an integer or NTCIR's L<digits>
LABEL = Grammar.of("an integer (labels are integers or L<d>)",
                   {"start": {**_DIGITS, "sign": "signed", "L": "signed"}, "signed": _DIGITS, "int": _DIGITS},
                   accept={"int"})
LEVEL = Grammar.of("L<digits> (L0 = judged non-relevant)", {"start": {"L": "L"}, "L": _DIGITS, "int": _DIGITS},
                   accept={"int"})


def shown(value: bytes, limit: int = 60) -> str:
    """A field for a message: decoded, and cut short when long."""
    text = value.decode("utf-8", "replace")
    return repr(text) if len(text) <= limit else f"{text[:limit] + '...'!r} ({len(text)} characters)"


def bad_value(what: str, value: bytes, problem: str, column: int | str | None = None) -> str:
    """``score '1_0' in column 5 is not a number``: what is wrong with one field."""
    where = "" if column is None else f" in column {column}"
    return f"{what} {shown(value)}{where} {problem}" if value else f"no {what}{where}"


def require_tokens(values: np.ndarray, grammar: Grammar, source: str, line: np.ndarray, what: str,
                   column: int | None = None) -> Ragged:
    """Raise :class:`InputError` at the first value (dtype ``S`` or object array of ``bytes``)
    that is not a token of ``grammar``, naming line and column; the values as :class:`Ragged`."""
    text = Ragged.of(values)
    bad = np.flatnonzero(~grammar.matches(text))
    if bad.size:
        i = int(bad[0])
        raise InputError(source, int(line[i]), bad_value(what, values[i], f"is not {grammar.name}", column))
    return text


def parse_floats(values: np.ndarray, source: str, line: np.ndarray, what: str, *,
                 column: int | None = None) -> np.ndarray:
    """float64 of byte strings that are complete C decimal numbers (:data:`FLOAT`, the grammar of
    strtod, which trec_eval reads them with); anything else, NaN included, is an error naming
    its line and column. Beyond the double range a number is ±inf, as strtod gives."""
    require_tokens(values, FLOAT, source, line, what, column)
    return _as_doubles(values)


def _as_doubles(values: np.ndarray) -> np.ndarray:
    """float64 of valid number tokens; beyond the double range they are ±inf, as from strtod."""
    with np.errstate(over="ignore"):
        return values.astype(np.float64)


def _integers(text: Ragged) -> tuple[np.ndarray, np.ndarray]:
    """(int64 value, out of range) of validated integer tokens (an ``L`` or sign first allowed),
    accumulated digit by digit with exact overflow detection."""
    n = text.length.size
    first = text.buf[text.start]
    neg = first == ord("-")
    skip = (neg | (first == ord("+")) | (first == ord("L"))).astype(np.int64)
    at, digits = text.start + skip, text.length - skip
    limit = np.where(neg, np.uint64(2**63), np.uint64(2**63 - 1))
    magnitude = np.zeros(n, dtype=np.uint64)
    over = np.zeros(n, dtype=bool)
    rows = np.arange(n)
    with np.errstate(over="ignore"):
        for k in range(int(digits.max(initial=0))):
            rows = rows[digits[rows] > k]
            d = (text.buf[at[rows] + k] - ord("0")).astype(np.uint64)
            m = magnitude[rows]
            over[rows] |= m > (limit[rows] - d) // np.uint64(10)
            magnitude[rows] = m * np.uint64(10) + d
        value = np.where(neg, ~magnitude + np.uint64(1), magnitude).view(np.int64)
    return value, over


def _plain_integers(values: np.ndarray) -> np.ndarray | None:
    """int64 of byte strings (dtype ``S``) that are all runs of at most 18 digits (no sign, so
    no overflow), accumulated a column of digits at a time in the narrowest integers that hold
    them; None when one is anything else (the general path reads them, and says what is wrong)."""
    n, width = values.size, values.dtype.itemsize
    if width > 18:
        return None
    m = np.ascontiguousarray(values).view(np.uint8).reshape(n, width)
    digit = m - np.uint8(48)  # a digit's value; 10 to 255 for any other byte (wrapped around)
    used = m != 0
    if not bool((digit[:, 0] <= 9).all()) or bool(((digit > 9) & used).any()):
        return None
    if width > 1 and bool((used[:, 1:] & ~used[:, :-1]).any()):  # a NUL byte before a digit
        return None
    value = digit[:, 0].astype(np.uint16 if width <= 4 else np.uint32 if width <= 9 else np.int64)
    for k in range(1, width):
        value = np.where(used[:, k], value * 10 + digit[:, k], value)
    return value.astype(np.int64)


def parse_ints(values: np.ndarray, source: str, line: np.ndarray, what: str, *,
               column: int | None = None, grammar: Grammar = INTEGER) -> np.ndarray:
    """int64 of byte strings that are integers (``[+-]digits``, or another integer ``grammar``);
    anything else, or a value beyond 64 bits, is an error naming its line and column."""
    if values.dtype == np.dtype("S1") and grammar.takes_one_digit:  # the usual labels: one digit each
        digit = values.view(np.uint8).astype(np.int64) - 48
        if bool(((digit >= 0) & (digit <= 9)).all()):
            return digit
    if values.dtype.kind == "S" and values.size and grammar.takes_digits:  # ranks, ids: plain digits
        plain = _plain_integers(values)
        if plain is not None:
            return plain
    value, over = _integers(require_tokens(values, grammar, source, line, what, column))
    if over.any():
        i = int(np.flatnonzero(over)[0])
        raise InputError(source, int(line[i]), bad_value(what, values[i], "is out of range (beyond 64-bit integers)",
                                                         column))
    return value


def _token(value: Any, integer: bool) -> bytes | None:
    """The text a Python value is read as: text itself, a number as the digits that give it
    exactly (an integral float as an integer for an integer grammar); None for anything else."""
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes):
        return value
    if not isinstance(value, numbers.Real):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value)).encode()
    number = float(value)
    return str(int(number)).encode() if integer and number.is_integer() else repr(number).encode()


def _numeric(arr: np.ndarray, integer: bool) -> tuple[np.ndarray, np.ndarray]:
    """(float64 or int64 values, which are not numbers) of a numeric array: NaN is not a
    number, nor, as an integer, a fraction or a value beyond 64 bits."""
    if not integer:
        out = arr.astype(np.float64)
        return out, np.isnan(out)
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.floor(arr)) | (arr >= 2.0**63) | (arr < -(2.0**63))
    elif arr.dtype.kind == "u":
        bad = arr > np.iinfo(np.int64).max
    else:
        bad = np.zeros(arr.shape, dtype=bool)
    return np.where(bad, 0, arr).astype(np.int64), bad


def python_numbers(values: Any, grammar: Grammar) -> tuple[np.ndarray, int | None]:
    """Numbers of Python input (a dict's values, a DataFrame column) by the rules of the files:
    numeric arrays as they are, other values read as text with ``grammar`` (:data:`FLOAT` gives
    float64, an integer grammar int64, range-checked). Returns the numbers and the index of the
    first value that is not one (NaN included), or None."""
    integer = grammar is not FLOAT
    try:
        arr = np.asarray(values)
    except ValueError:  # nested sequences of different lengths
        arr = np.zeros(0, dtype=object)
    if arr.ndim == 1 and arr.size == len(values) and arr.dtype.kind in "biuf":
        out, bad = _numeric(arr, integer)
    else:
        tokens = [_token(v, integer) for v in values]
        known = np.array([t is not None for t in tokens], dtype=bool)
        text = np.empty(len(tokens), dtype=object)
        text[:] = [b"" if t is None else t for t in tokens]
        ragged = Ragged.of(text)
        ok = known & grammar.matches(ragged)
        if integer:
            out, over = _integers(ragged)
            ok &= ~over
        else:
            out = np.zeros(len(tokens))
            out[ok] = _as_doubles(text[ok])
        bad = ~ok
    first = np.flatnonzero(bad)
    return out, (int(first[0]) if first.size else None)
