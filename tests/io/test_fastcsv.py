"""Issue #18: pyarrow's CSV reader (cranfield.io.fastcsv) and the tokenizer give identical arrays.

The fast path is used only when it certainly agrees with the tokenizer; for any other file it
declines (None) and read_run's result or error message is the tokenizer's. Every case below
compares the two readers' outputs array by array (values, dtype, writability)."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

pytest.importorskip("pyarrow", reason="the fast run reader needs pyarrow (cranfield[parquet])")

from cranfield import InputError, read_run  # noqa: E402
from cranfield.io import fastcsv  # noqa: E402
from cranfield.io._tokens import Columns, read_columns  # noqa: E402

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def tokenized(path) -> Columns:
    return read_columns(path, 6, text=[2], numbers={4: "score"}, keys=[2], codes=[0], uniform=[5],
                        compact=True, ignore_extra=True)


def assert_same_columns(fast: Columns, slow: Columns) -> None:
    assert fast.source == slow.source
    for name in ("ncols", "line"):
        a, b = getattr(fast, name), getattr(slow, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    for kind in ("text", "number", "key", "code"):
        a, b = getattr(fast, kind), getattr(slow, kind)
        assert a.keys() == b.keys(), kind
        for j in a:
            assert a[j].dtype == b[j].dtype, (kind, j, a[j].dtype, b[j].dtype)
            assert a[j].flags.writeable and b[j].flags.writeable
            if a[j].dtype.kind == "f":  # bit for bit (the sign of zero, infinities)
                assert np.array_equal(a[j].view(np.uint64), b[j].view(np.uint64)), (kind, j)
            else:
                assert np.array_equal(a[j], b[j]), (kind, j)
    assert fast.names == slow.names
    assert fast.first == slow.first and fast.same == slow.same


def assert_same_run(a, b) -> None:
    assert (a.name, a.source, a.topic_ids) == (b.name, b.source, b.topic_ids)
    for name in ("offsets", "docno", "doc_key", "line"):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), name
    assert np.array_equal(a.score.view(np.uint64), b.score.view(np.uint64))


def both_ways(path, monkeypatch, **kwargs):
    """read_run with the fast path forced on, and with it off: (run or error message) of each."""
    out = []
    for min_bytes in (0, 1 << 62):
        monkeypatch.setattr(fastcsv, "MIN_BYTES", min_bytes)
        try:
            out.append(read_run(path, **kwargs))
        except InputError as exc:
            out.append(str(exc))
    return out


# --- files the fast path reads: identical to the tokenizer ----------------------------------

CLEAN = {
    "spaces": b"q1 Q0 d1 1 1.5 t\nq1 Q0 d22 2 1.25 t\nq2 Q0 d1 1 -3 t\n",
    "tabs": b"q1\tQ0\td1\t1\t1.5\tt\nq1\tQ0\td22\t2\t1.25\tt\nq2\tQ0\td1\t1\t-3\tt\n",
    "crlf": b"q1 Q0 d1 1 1.5 t\r\nq2 Q0 d2 1 2.5 t\r\n",
    "no final newline": b"q1 Q0 d1 1 1.5 t\nq2 Q0 d2 1 2.5 t",
    "bom": b"\xef\xbb\xbfq1 Q0 d1 1 1.5 t\nq2 Q0 d2 1 2.5 t\n",
    "extra columns": b"q1 Q0 d1 1 1.5 t x y\nq2 Q0 d2 1 2.5 t x z\n",
    "tags differ": b"q1 Q0 d1 1 1.5 a\nq2 Q0 d2 1 2.5 b\n",
    "numbers": b"".join(f"q1 Q0 d{i} {i} {s} t\n".encode() for i, s in enumerate(
        ["1e5", "-0", "+.5", "1.", "inf", "-Infinity", "1e400", "1e-400", "0.1000000000000000055511151231257827",
         "123456789012345678901234567890", "4.9406564584124654e-324", "00012.50"])),
    "ties and shuffled topics": b"q2 Q0 d1 1 1 t\nq1 Q0 d3 1 1 t\nq1 Q0 d2 2 1 t\nq2 Q0 d0 2 2 t\n",
    "unicode": "q\u00e9 Q0 d\u4e2d 1 1.5 t\u00fc\n".encode(),
    "docnos of a few lengths": b"q1 Q0 a 1 1 t\nq1 Q0 abcdefghijklmnop 2 0.5 t\n",
}


@pytest.mark.parametrize("gz", [False, True])
@pytest.mark.parametrize("case", list(CLEAN))
def test_fast_path_reads_plain_files_identically(tmp_path, monkeypatch, case, gz):
    data = CLEAN[case]
    path = tmp_path / ("run.txt.gz" if gz else "run.txt")
    path.write_bytes(gzip.compress(data) if gz else data)
    fast = fastcsv.read_run_columns(path, min_bytes=0)
    assert fast is not None, "the fast path should take this plain file"
    assert_same_columns(fast, tokenized(path))
    a, b = both_ways(path, monkeypatch)
    assert_same_run(a, b)


# --- files it declines: the tokenizer reads them, or names the error ------------------------

ODD = {
    "double space": b"q1 Q0  d1 1 1.5 t\n",
    "mixed separators": b"q1 Q0 d1 1 1.5 t\nq1\tQ0\td2\t2\t1.0\tt\n",
    "tab inside a space file": b"q1 Q0 d1\tx 1 1.5 t\nq1 Q0 d2 2 1.0 t\n",
    "leading space": b" q1 Q0 d1 1 1.5 t\n",
    "trailing space": b"q1 Q0 d1 1 1.5 t \n",
    "blank line": b"q1 Q0 d1 1 1.5 t\n\nq1 Q0 d2 2 1.0 t\n",
    "lone CR": b"q1 Q0 d1 1 1.5 t\rq1 Q0 d2 2 1.0 t\n",
    "NUL": b"q1 Q0 d1\x00 1 1.5 t\n",
    "vertical tab": b"q1 Q0 d1\x0b 1 1.5 t\n",
    "not UTF-8": b"q1 Q0 d\xff 1 1.5 t\n",
    "underscore number": b"q1 Q0 d1 1 1_0 t\n",
    "nan": b"q1 Q0 d1 1 nan t\n",
    "NaN": b"q1 Q0 d1 1 NaN t\n",
    "null word": b"q1 Q0 d1 1 NULL t\n",
    "five columns": b"q1 Q0 d1 1 1.5\n",
    "short line": b"q1 Q0 d1 1 1.5 t\nq1 Q0 d2 2\n",
    "quote": b'q1 Q0 "d1 x" 1 1.5 t\n',  # quotes are plain bytes to both readers
    "long docno": b"q1 Q0 d 1 1 t\n" + b"q1 Q0 " + b"x" * 500 + b" 2 0.5 t\n",
    "duplicate": b"q1 Q0 d1 1 1.5 t\nq1 Q0 d1 2 1.0 t\n",
    "topic all": b"all Q0 d1 1 1.5 t\n",
    "empty": b"",
    "hex": b"q1 Q0 d1 1 0x10 t\n",
}


@pytest.mark.parametrize("case", list(ODD))
def test_odd_files_same_result_or_same_error(tmp_path, monkeypatch, case):
    path = tmp_path / "run.txt"
    path.write_bytes(ODD[case])
    fast = fastcsv.read_run_columns(path, min_bytes=0)
    try:
        slow = tokenized(path)
    except InputError:
        assert fast is None, "the fast path read a file the tokenizer refuses"
    else:
        if fast is not None:
            assert_same_columns(fast, slow)
    a, b = both_ways(path, monkeypatch)
    if isinstance(a, str) or isinstance(b, str):
        assert a == b  # the same message, file and line
    else:
        assert_same_run(a, b)


def test_fast_path_declines_exactly_the_doubtful_files(tmp_path):
    """A few of the odd files are refused by the fast path although their layout alone would
    let pyarrow read them: it must not read them differently."""
    for case in ("double space", "tab inside a space file", "lone CR", "nan", "null word", "long docno"):
        path = tmp_path / f"{case}.txt"
        path.write_bytes(ODD[case])
        assert fastcsv.read_run_columns(path, min_bytes=0) is None, case


def test_small_files_stay_with_the_tokenizer(tmp_path):
    path = tmp_path / "run.txt"
    path.write_bytes(CLEAN["spaces"])
    assert fastcsv.read_run_columns(path) is None  # under MIN_BYTES
    assert fastcsv.read_run_columns(tmp_path / "missing.txt", min_bytes=0) is None


# --- generated files ------------------------------------------------------------------------

ids = st.text(alphabet=st.sampled_from(list("abcxyz019-_.:\u00e9")), min_size=1, max_size=12)
numbers = st.one_of(
    st.floats(allow_nan=False).map(repr),
    st.floats(allow_nan=False, width=32).map(lambda x: f"{x:.6g}"),
    st.integers(-10**25, 10**25).map(str),
    st.integers(0, 30).flatmap(lambda p: st.decimals(allow_nan=False, allow_infinity=False, places=p)).map(str),
    st.sampled_from(["1e5", "1E-5", ".5", "-.5", "1.", "+1", "inf", "-inf", "Infinity", "1e400", "0e0",
                     "1_0", "nan", "1,5", "0x1p3", "1e", "--1", "", "1.5f", "\u0661"]),
)
separators = st.sampled_from([" ", "\t", "  ", " \t"])


@st.composite
def run_files(draw) -> bytes:
    sep = draw(st.sampled_from([" ", "\t"]))
    rows = draw(st.lists(st.tuples(st.sampled_from(["q1", "q2", "301", "q\u00e9"]), ids, numbers,
                                   st.sampled_from(["tag", "tag", "other"])), min_size=1, max_size=40))
    odd_sep = draw(st.booleans())
    lines = []
    for k, (qid, doc, score, tag) in enumerate(rows):
        s = draw(separators) if odd_sep else sep
        fields = [qid, "Q0", doc, str(k + 1), score, tag] + draw(st.sampled_from([[], [], ["x"]]))
        lines.append(s.join(fields))
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from([eol, ""]))
    if draw(st.booleans()):
        text = text.replace("\n", "\n\n", 1)
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode()


@pytest.mark.slow
@SETTINGS
@given(data=run_files(), gz=st.booleans())
def test_generated_files_read_identically(tmp_path, monkeypatch, data, gz):
    path = tmp_path / ("run.txt.gz" if gz else "run.txt")
    path.write_bytes(gzip.compress(data) if gz else data)
    fast = fastcsv.read_run_columns(path, min_bytes=0)
    event("fast path" if fast is not None else "tokenizer")
    try:
        slow = tokenized(path)
    except InputError:
        assert fast is None
    else:
        if fast is not None:
            assert_same_columns(fast, slow)
    for kwargs in ({}, {"on_duplicate": "first", "score_dtype": "float64"}):
        a, b = both_ways(path, monkeypatch, **kwargs)
        if isinstance(a, str) or isinstance(b, str):
            assert a == b
        else:
            assert_same_run(a, b)


def test_generated_plain_files_take_the_fast_path(tmp_path):
    """The hypothesis test above would pass with a fast path that always declines: check that
    it really reads plain files with many rows."""
    rng = np.random.default_rng(7)
    lines = [f"{t} Q0 doc-{rng.integers(10**6):07d} {r} {rng.normal():.6f} run"
             for t in range(5) for r in range(1, 400)]
    path = tmp_path / "run.txt"
    path.write_text("\n".join(lines) + "\n")
    fast = fastcsv.read_run_columns(path, min_bytes=0)
    assert fast is not None
    assert_same_columns(fast, tokenized(path))


@pytest.mark.parametrize("case", ["spaces", "tabs", "crlf", "ties and shuffled topics", "unicode"])
def test_stochastic_run_columns_read_identically(tmp_path, case):
    """A stochastic run (column 2: the sample, read as codes) with its rank column as text
    (order="rank"): the same arrays from both readers."""
    lines = CLEAN[case].replace(b"Q0", b"s1").splitlines(keepends=True)
    data = b"".join(lines + [line.replace(b"s1", b"s0") for line in lines])
    path = tmp_path / "stochastic.run"
    path.write_bytes(data)
    fast = fastcsv.read_run_columns(path, min_bytes=0, codes=(0, 1), text=(3,))
    assert fast is not None and fast.names[1] == ["s1", "s0"]
    slow = read_columns(path, 6, text=[2, 3], numbers={4: "score"}, keys=[2], codes=[0, 1], uniform=[5],
                        compact=True, ignore_extra=True)
    assert_same_columns(fast, slow)
