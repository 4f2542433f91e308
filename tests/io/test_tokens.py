"""The vectorised tokeniser: exact number parsing and stable keys."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.io._tokens import doc_keys, parse_decimals


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
