"""The vectorised tokeniser: exact number parsing and stable keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.io._tokens import CodeBook, _changes, doc_keys, padded_strings, parse_decimals, strings_and_keys


def as_matrix(texts: list[str]) -> np.ndarray:
    width = max(8, -(-max(len(t) for t in texts) // 8) * 8)
    return np.array([t.encode() for t in texts], dtype=f"S{width}").view(np.uint8).reshape(len(texts), width)


decimal = st.from_regex(r"[+-]?[0-9]{1,19}(\.[0-9]{0,24})?", fullmatch=True)


@settings(max_examples=500, deadline=None)
@given(st.lists(decimal | st.floats(allow_nan=False).map(repr), min_size=1, max_size=30))
def test_fast_path_equals_float(texts):
    values, ok = parse_decimals(as_matrix(texts))
    for text, v, good in zip(texts, values.tolist(), ok.tolist()):
        if good:
            assert v == float(text) and np.signbit(v) == np.signbit(float(text)), text


def test_fast_path_covers_ordinary_scores_and_refuses_the_rest():
    texts = ["-2.28234", "0.8571", "12", "1.", ".5", "+3.25", "1e-5", "inf", "nan", "1.2.3", "abc", "-", "0x10"]
    values, ok = parse_decimals(as_matrix(texts))
    assert ok.tolist() == [True] * 6 + [False] * 7
    assert values[:6].tolist() == [-2.28234, 0.8571, 12.0, 1.0, 0.5, 3.25]


def test_keys_do_not_depend_on_width():
    a = np.array([b"doc1", b"clueweb09-en0000-00-00000"])
    b = np.array([b"doc1", b"clueweb09-en0000-00-00000"], dtype="S64")
    assert np.array_equal(doc_keys(a), doc_keys(b))
    assert len(set(doc_keys(np.array([f"d{k}".encode() for k in range(10000)])).tolist())) == 10000


def test_keys_of_near_identical_docnos_differ():
    """Docnos that differ in the same byte of two words (TREC disks 4 and 5: ``FR940817-0-00077`` and
    ``FR940810-0-00074``) must not cancel out: a hash that only multiplies words by constants
    and adds them collided on 202 pairs of the Robust 2003 qrels."""
    from cranfield.io.qrels import read_qrels

    qrels = read_qrels(Path(__file__).parents[1] / "data" / "robust03" / "qrels.txt.gz")
    docnos = np.unique(qrels.docno)
    assert np.unique(doc_keys(docnos)).size == docnos.size
    pair = doc_keys(np.array([b"FR940817-0-00077", b"FR940810-0-00074"]))
    assert pair[0] != pair[1]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=40).filter(lambda b: 0 not in b), min_size=1, max_size=40),
       st.integers(0, 9))
def test_strings_and_keys_from_an_unpadded_buffer(values, lead):
    """Fields packed end to end (pyarrow's string buffers: the last field ends the buffer) come out
    as the byte-string array numpy makes and as :func:`doc_keys` of it, also when a field is
    too close to the end for a whole last word."""
    buf = np.frombuffer(b"x" * lead + b"".join(values), dtype=np.uint8)
    length = np.array([len(v) for v in values])
    start = lead + np.cumsum(length) - length
    strings, keys = strings_and_keys(buf, start, start + length)
    expected = np.array(values)
    assert strings.dtype == expected.dtype and np.array_equal(strings, expected)
    assert np.array_equal(padded_strings(buf, start, start + length), expected)
    assert np.array_equal(keys, doc_keys(expected))
    assert np.array_equal(keys, doc_keys(expected.astype(object)))


short_token = st.from_regex(r"[+-]?[0-9.]{0,8}", fullmatch=True).filter(lambda t: len(t) <= 8) | st.text(
    alphabet="0123456789.+-eEinfa", max_size=8)


@settings(max_examples=800, deadline=None)
@given(st.lists(short_token, min_size=1, max_size=40))
def test_eight_byte_numbers_parse_as_the_digit_loop_does(texts):
    """Numbers of at most 8 bytes take the one-word (SWAR) path of parse_decimals; padded to 16
    bytes the same texts take the digit-by-digit loop: values (bit for bit) and ok agree."""
    m8 = np.array([t.encode() for t in texts], dtype="S8").view(np.uint8).reshape(len(texts), 8)
    m16 = np.zeros((len(texts), 16), dtype=np.uint8)
    m16[:, :8] = m8
    v8, ok8 = parse_decimals(m8)
    v16, ok16 = parse_decimals(m16)
    assert ok8.tolist() == ok16.tolist()
    assert np.array_equal(v8[ok8].view(np.uint64), v16[ok16].view(np.uint64))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=20).filter(lambda b: 0 not in b), min_size=1, max_size=30),
       st.sampled_from([None, 8, 16, 24]))
def test_neighbour_changes_as_words_equal_string_comparison(values, width):
    """CodeBook's run detection compares byte strings of 8, 16, ... bytes as 64-bit words."""
    longest = max(map(len, values))
    if width is None or width < longest:
        width = longest
    arr = np.array(values, dtype=f"S{width}")
    assert np.array_equal(_changes(arr), arr[1:] != arr[:-1])
    assert np.array_equal(CodeBook().encode(arr), CodeBook().encode(arr.astype(f"S{width + 1}")))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from("0123456789-+aL "), min_size=1, max_size=20),
       st.sampled_from(["INTEGER", "LABEL", "LEVEL"]))
def test_one_digit_labels_parse_as_the_grammar_says(chars, grammar_name):
    """Labels of one byte each take a shortcut; it gives what the grammar and _integers give
    (the same values, or the same error), also for a grammar that refuses a bare digit."""
    one = np.array([c.encode() for c in chars], dtype="S1")
    assert ints_or_error(one, grammar_name) == ints_or_error(one.astype("S2"), grammar_name)


def ints_or_error(values: np.ndarray, grammar_name: str) -> list[int] | str:
    """parse_ints of byte strings on lines 1, 2, ... of file ``f``, or its error message."""
    from cranfield import InputError
    from cranfield.io import _tokens

    try:
        line = np.arange(1, values.size + 1)
        return _tokens.parse_ints(values, "f", line, "value", grammar=getattr(_tokens, grammar_name)).tolist()
    except InputError as exc:
        return str(exc)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet="0123456789", min_size=1, max_size=20) | st.sampled_from(["+7", "-12", "L3", "1a"]),
                min_size=1, max_size=30),
       st.sampled_from(["INTEGER", "LABEL", "LEVEL"]), st.integers(0, 3))
def test_runs_of_digits_parse_as_the_grammar_says(texts, grammar_name, pad):
    """Byte strings of plain digits (ranks) take a column-at-a-time shortcut; it gives what the
    grammar and _integers give (the same int64 values, or the same error naming the line), also
    with a sign, an L or a letter among them (the shortcut steps aside) and however wide."""
    from cranfield.io import _tokens

    values = np.array([t.encode() for t in texts], dtype=f"S{max(map(len, texts)) + pad}")
    got = ints_or_error(values, grammar_name)
    assert got == ints_or_error(values.astype(object), grammar_name)  # object arrays take the general path
    ragged = _tokens.Ragged.of(values)
    value, over = _tokens._integers(ragged)
    if getattr(_tokens, grammar_name).matches(ragged).all() and not over.any():
        assert got == value.tolist()
    else:
        assert isinstance(got, str) and got.startswith("f:")


def test_a_nul_byte_inside_digits_is_no_number():
    from cranfield import InputError
    from cranfield.io._tokens import parse_ints

    with pytest.raises(InputError, match=r"f:2: rank '1\\x002' is not an integer"):
        parse_ints(np.array([b"12", b"1\x002"]), "f", np.array([1, 2]), "rank")
    assert parse_ints(np.array([b"007", b"1", b"123456789012345678"]), "f", np.array([1, 2, 3]), "rank").tolist() == [
        7, 1, 123456789012345678]


run_line = st.tuples(st.sampled_from(["1", "22", "301"]), st.sampled_from(["Q0", "0"]),
                     st.text(alphabet="abcdefghij-0123456789", min_size=1, max_size=30),
                     st.integers(1, 1000).map(str), st.sampled_from(["1.5", "-0.25", "7", "1e3", ".5", "12345678.9"]),
                     st.sampled_from(["tag", "tag2"]))


@settings(max_examples=150, deadline=None)
@given(st.lists(run_line, min_size=1, max_size=60), st.integers(0, 59), st.sampled_from(["  ", "\t", " \t"]),
       st.sampled_from([64, 256, 1 << 20]))
def test_the_usual_layout_reads_as_any_other_spacing(tmp_path_factory, lines, at, blank, block):
    """Lines with one space after each token take the usual layout's shortcut; with other
    blanks somewhere (two spaces, a tab) the general path: both give the same columns, in
    blocks of any size."""
    from cranfield.io import _tokens

    folder = tmp_path_factory.mktemp("layout")
    plain = "".join(" ".join(f) + "\n" for f in lines)
    other = "".join((blank if k == min(at, len(lines) - 1) else " ").join(f) + "\n" for k, f in enumerate(lines))
    (folder / "plain").write_text(plain)
    (folder / "other").write_text(other)
    saved = _tokens.BLOCK_BYTES
    _tokens.BLOCK_BYTES = block
    try:
        got = [_tokens.read_columns(folder / name, 6, text=[2, 3], numbers={4: "score"}, keys=[2], codes=[0],
                                    uniform=[5], compact=True, threads=False) for name in ("plain", "other")]
    finally:
        _tokens.BLOCK_BYTES = saved
    a, b = got
    assert a.ncols.tolist() == b.ncols.tolist() and a.line.tolist() == b.line.tolist()
    assert a.text[2].tolist() == b.text[2].tolist() and a.text[3].tolist() == b.text[3].tolist()
    assert a.number[4].view(np.uint64).tolist() == b.number[4].view(np.uint64).tolist()
    assert a.key[2].tolist() == b.key[2].tolist() and a.code[0].tolist() == b.code[0].tolist()
    assert (a.first, a.same, a.names) == (b.first, b.same, b.names)
    assert a.number[4].tolist() == [float(f[4]) for f in lines]


@pytest.mark.parametrize("odd", [None, 0, 5, 9])
def test_one_tag_differing_anywhere_is_seen(tmp_path, odd):
    """A run's tag column is checked for one value eight bytes at a time; a tag of the same
    length that differs is seen on any line, the last one (at the very end of the block) too."""
    from cranfield.io.run import run_columns

    lines = [f"1 Q0 d{k} {k + 1} {10 - k} {'rux' if k == odd else 'run'}\n" for k in range(10)]
    (tmp_path / "run").write_text("".join(lines))
    cols = run_columns(tmp_path / "run", threads=False)
    assert (cols.first[5], cols.same[5]) == (b"rux" if odd == 0 else b"run", odd is None)
