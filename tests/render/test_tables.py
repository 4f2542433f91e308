"""render.tables: the column formatter and the aligner give what the one-cell rules give."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.render.tables import _value, aligned, format_column

cells = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**7, 10**7).map(float),
                  st.sampled_from([0.0, -0.0, 1e4, -1e4, 12345.0, 9999.0, 0.12345, 2.5]))


@settings(max_examples=300, deadline=None)
@given(st.lists(cells, max_size=30), st.sampled_from(["mean", "sum"]))
def test_format_column_is_value_cell_by_cell(values, how):
    assert format_column(np.array(values, dtype=float), how) == [_value(v, how) for v in values]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(st.text("ab 1", max_size=6), min_size=3, max_size=3), max_size=8),
       st.lists(st.booleans(), min_size=3, max_size=3))
def test_aligned_pads_each_column_to_its_widest_cell(body, left):
    head = ["run", "topic", "P@10"]
    lines = aligned(head, body, left)
    widths = [max(len(r[c]) for r in [head, *body]) for c in range(3)]
    expected = ["  ".join(cell.ljust(w) if left[c] else cell.rjust(w) for c, (cell, w) in enumerate(zip(row, widths)))
                .rstrip() for row in [head, *body]]
    assert lines == expected
