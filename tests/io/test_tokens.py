"""The vectorised tokeniser: exact number parsing and stable keys."""

from __future__ import annotations

from pathlib import Path

import numpy as np
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
    from cranfield import InputError
    from cranfield.io import _tokens

    grammar = getattr(_tokens, grammar_name)
    one = np.array([c.encode() for c in chars], dtype="S1")
    line = np.arange(1, one.size + 1)

    def outcome(values):
        try:
            return _tokens.parse_ints(values, "f", line, "label", grammar=grammar).tolist()
        except InputError as exc:
            return str(exc)

    assert outcome(one) == outcome(one.astype("S2"))
