"""Pieces shared by the measure kernels: cutting at a cutoff, gains, discounts, safe division.

Arrays follow the batch layout: ``(S, T, D)`` for ranked labels, ``(T, ...)`` for per-topic
facts, broadcasting over the leading run axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..registry import Param


def cut(x: np.ndarray, k: int | None) -> np.ndarray:
    """The first ``k`` ranks (the last axis) of ``x``; all of it when ``k`` is None."""
    return x if k is None else x[..., :k]


def ranks(d: int) -> np.ndarray:
    """1, 2, ..., d as float64."""
    return np.arange(1, d + 1, dtype=np.float64)


def log2_discount(d: int) -> np.ndarray:
    """1 / log2(r + 1) for r = 1..d (trec_eval, ndeval, NTCIREVAL's default)."""
    return 1.0 / np.log2(np.arange(2, d + 2, dtype=np.float64))


def gain(grades: np.ndarray, gains: Any) -> np.ndarray:
    """Gain of each label (docs/conventions.md#gains). Labels <= 0 gain nothing.

    ``"linear"``: the label (trec_eval); ``"exp"``: 2^label - 1 (gdeval, NTCIREVAL/Sakai);
    a tuple of (label, gain) pairs: that gain, labels not listed keeping gain = label (the
    trec_eval convention for an incomplete gain map).
    """
    g = np.maximum(grades, 0).astype(np.float64)
    if gains == "linear":
        return g
    if gains == "exp":
        return np.exp2(g) - 1.0
    out = g
    for label, value in gains:
        if label > 0:
            out = np.where(g == label, value, out)
    return out


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den, 0 where den == 0 (trec_eval's convention for topics without relevant documents)."""
    num, den = np.broadcast_arrays(np.asarray(num, dtype=np.float64), np.asarray(den, dtype=np.float64))
    out = np.zeros(num.shape)
    np.divide(num, den, out=out, where=den != 0)
    return out


def within_length(length: np.ndarray, d: int) -> np.ndarray:
    """Mask (S, T, d): rank r is occupied by a document (r <= the ranking's length)."""
    return np.arange(d) < length[..., None]


def at_rank(x: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """x at a (0-based) rank of each row along the last axis; 0 where x has no ranks."""
    return np.take_along_axis(x, rank[..., None], axis=-1)[..., 0] if x.shape[-1] else np.zeros(rank.shape)


def first_true(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(index of the first True along the last axis, whether there is one)."""
    if mask.shape[-1] == 0:
        zeros = np.zeros(mask.shape[:-1], dtype=np.int64)
        return zeros, zeros.astype(bool)
    return mask.argmax(axis=-1), mask.any(axis=-1)


REL = Param("rel", "int", 1, "the lowest label counted as relevant (trec_eval -l)", low=1)
MAX_REL = Param(
    "max_rel", "int", None,
    "the label that means 'certainly satisfied' (default: the highest label in the qrels)", low=1,
)
