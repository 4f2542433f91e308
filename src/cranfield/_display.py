"""Rich display in notebooks: the compact HTML table that IPython and Jupyter show for a result
object (``_repr_html_``, the IPython display protocol), built from the object's own
``to_frame()`` by pandas' ``DataFrame.to_html`` with every name escaped, the settings below it.

Results are data and ``render/`` presents them, but the layers forbid the data and study layers
from importing ``render/``; a notebook cell only needs a table, which pandas already writes.
The report's labels live here too, below the study that marks significance with them and the
writers that print them: the letter of each run (:func:`run_letter`) and the decimals of each
measure (:func:`measure_digits`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from typing import Any

MAX_ROWS = 20  # rows shown before pandas elides the middle ("...")
MAX_NAMES = 5  # names listed in a one-line repr before "..."


def number(value: Any) -> str:
    """A table cell: 4 decimals for floats (an em dash for NaN), integers and words as they are."""
    if isinstance(value, float):
        return "—" if math.isnan(value) else f"{value:.4f}"
    return str(value)


def first_names(items: list[str], limit: int = MAX_NAMES) -> str:
    """``"AP, nDCG@10, ..."``: the first ``limit`` names of a list."""
    return ", ".join(items[:limit]) + (", ..." if len(items) > limit else "")


def html_table(frame: Any, title: str, settings: Mapping[str, Any] | None = None, *,
               index: bool = True, max_rows: int = MAX_ROWS) -> str:
    """The HTML a notebook shows: ``title``, ``frame`` as a table (at most ``max_rows`` rows, the
    middle elided by pandas) and ``settings`` as ``key=value`` pairs; every name escaped."""
    import html  # only when a notebook shows a result (start-up: docs/architecture.md#start-up)

    table = frame.to_html(max_rows=max_rows, escape=True, index=index, border=0, formatters=None,
                          float_format=number, na_rep="—")
    parts = [f"<div class=\"cranfield\"><p><strong>{html.escape(title)}</strong></p>", table]
    if settings:
        text = "; ".join(f"{k}={v}" for k, v in settings.items() if v is not None and v != "")
        parts.append(f"<p><small>{html.escape(text)}</small></p>")
    return "".join(parts) + "</div>"


def settings_of(obj: Any) -> dict[str, Any]:
    """The scalar fields (words, numbers, flags) of a dataclass or named tuple: its settings."""
    if dataclasses.is_dataclass(obj):
        items = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    else:
        items = obj._asdict()
    return {k: v for k, v in items.items() if isinstance(v, (str, int, float, bool)) and not k.startswith("_")}


def result_html(obj: Any, **frame_args: Any) -> str:
    """The ``_repr_html_`` of a result object with ``to_frame(**frame_args)``: its table
    (:func:`html_table`) under the class name, its scalar settings (:func:`settings_of`) below."""
    frame = obj.to_frame(**frame_args)
    return html_table(frame, f"{type(obj).__name__}: {len(frame)} rows", settings_of(obj), index=False)


def result_repr(obj: Any, **frame_args: Any) -> str:
    """The one-line ``__repr__`` of a result object with ``to_frame(**frame_args)``: the class, the
    table's size and its first columns (``TruncationResult(12 rows × 6 columns: measure, ...)``)."""
    frame = obj.to_frame(**frame_args)
    return f"{type(obj).__name__}({len(frame)} rows × {frame.shape[1]} columns: " \
           f"{first_names([str(c) for c in frame.columns])})"


def frame_html(**frame_args: Any) -> Callable[[Any], str]:
    """:func:`result_html` as a method, for a class body: ``_repr_html_ = frame_html()``."""
    return lambda self: result_html(self, **frame_args)


def frame_repr(**frame_args: Any) -> Callable[[Any], str]:
    """:func:`result_repr` as a method, for a class body: ``__repr__ = frame_repr()``."""
    return lambda self: result_repr(self, **frame_args)


def measure_digits(values: Any) -> int:
    """Decimals shown for a measure whose run means are ``values``: 4 when every |mean| ≤ 1 (the
    [0, 1] measures), then one fewer per power of ten: 3 below 10, 2 below 100, 1 below 1,000,
    0 from 1,000 on (so every mean shows about four significant digits)."""
    top = max((abs(float(v)) for v in values if math.isfinite(float(v))), default=0.0)
    for digits, bound in ((4, 1.0), (3, 10.0), (2, 100.0), (1, 1000.0)):
        if top < bound or (digits == 4 and top <= bound):
            return digits
    return 0


def run_letter(k: int) -> str:
    """a, b, ..., z, aa, ab, ...: the label of the k-th run (from 0), as the report's significance
    marks name the runs."""
    out = ""
    k += 1
    while k:
        k, rest = divmod(k - 1, 26)
        out = chr(ord("a") + rest) + out
    return out
