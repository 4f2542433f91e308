"""Numeric conventions shared by every layer: the equality tolerance, safe division, the
geometric-mean floor and the memory budgets of blocked computations.

The equality rule ``|a − b| ≤ 1e-12 · max(1, |a|, |b|)`` decides ties wherever cranfield
compares scores (system rankings, significance, axioms, truncation); see
docs/conventions.md#equality.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "RELATIVE_TOLERANCE", "equal", "safe_div", "GEOM_EPSILON", "EVAL_CELL_BUDGET", "DSS_CELL_BUDGET",
    "CHUNK_CELLS", "distinct", "ordered_sum", "ordered_dot", "ordered_matmul",
]

RELATIVE_TOLERANCE = 1e-12
GEOM_EPSILON = 1e-5  # floor of a topic score in the geometric mean (Robertson, 2006; trec_eval's gm_map)
EVAL_CELL_BUDGET = 1 << 23  # labels per evaluation block (runs × topics × depth × intents)
DSS_CELL_BUDGET = 1 << 21  # labels per document-selection-sensitivity block (N × topics × k × intents)
CHUNK_CELLS = 1 << 19  # elements per intermediate array of the meta-evaluation (float64: 4 MB)


def equal(a: Any, b: Any) -> np.ndarray:
    """Elementwise equality of scores: ``|a - b| <= 1e-12 * max(1, |a|, |b|)``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    with np.errstate(invalid="ignore"):
        scale = np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))
        return np.abs(a - b) <= RELATIVE_TOLERANCE * scale


def safe_div(num: Any, den: Any) -> np.ndarray:
    """num / den, 0 where den == 0 (trec_eval's convention for topics without relevant documents)."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def ordered_sum(x: Any, axis: int = -1) -> np.ndarray:
    """The sum of ``x`` along ``axis`` taken in index order, ((x₀ + x₁) + x₂) + …, as trec_eval's C
    loops add: the one order of a printed sum, whatever the CPU, BLAS kernel or thread count
    (a matmul's order is the BLAS kernel's; docs/conventions.md#fixed-order)."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape[axis] == 0:
        return np.zeros(np.delete(x.shape, axis))
    # the last partial sums by a strided copy (np.take along an inner axis copies item by item, ~100 ns each)
    return np.add.accumulate(x, axis=axis)[(slice(None),) * (axis % x.ndim) + (-1,)].copy()


def ordered_dot(a: Any, w: Any) -> np.ndarray:
    """Σ_r a[..., r]·w[r] over the last axis: ``a @ w`` without BLAS, the products added by numpy's
    pairwise summation over a contiguous last axis, one fixed order on every CPU (several times
    faster than :func:`ordered_sum`'s sequential order, for the sums over ranks of a kernel)."""
    return np.add.reduce(np.ascontiguousarray(np.multiply(a, w, dtype=np.float64)), axis=-1)


def ordered_matmul(a: Any, b: Any) -> np.ndarray:
    """``a @ b`` for a (M, K) and b (K, N), each entry summed over k in index order
    (:func:`ordered_sum`): K vectorised steps over (M, N), so for a short inner axis (topics)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    out = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):
        out += a[:, k, None] * b[k]
    return out


def nan_div(num: Any, den: Any) -> np.ndarray:
    """num / den, NaN where den == 0 (an undefined statistic: a correlation of a constant, a κ
    without expected disagreement)."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=den != 0)
    return out


def distinct(values: np.ndarray) -> np.ndarray:
    """The sorted distinct values of an array (flattened, without NaN), as ``np.unique`` gives them: written
    out because ``np.unique`` without its ``return_*`` options imports ``numpy.ma`` on its first
    call (~10 ms of a command's start-up)."""
    ordered = np.sort(np.ravel(values))
    if ordered.size < 2:
        return ordered
    keep = np.empty(ordered.size, dtype=bool)
    keep[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=keep[1:])
    return ordered[keep]
