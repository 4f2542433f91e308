"""Pieces shared by the measure kernels: cutting at a cutoff, gains, discounts, safe division.

Arrays follow the batch layout: ``(S, T, D)`` for ranked labels, ``(T, ...)`` for per-topic
facts, broadcasting over the leading run axis.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.measures.registry import Param


def cut(x: np.ndarray, k: int | None) -> np.ndarray:
    """The first ``k`` ranks (the last axis) of ``x``; all of it when ``k`` is None."""
    return x if k is None else x[..., :k]


def ranks(d: int) -> np.ndarray:
    """1, 2, ..., d as float64."""
    return np.arange(1, d + 1, dtype=np.float64)


def log2_discount(d: int) -> np.ndarray:
    """1 / log2(r + 1) for r = 1..d (trec_eval, ndeval, NTCIREVAL's default)."""
    return 1.0 / np.log2(np.arange(2, d + 2, dtype=np.float64))


GAIN_HEADROOM = 512
"""log2 of the largest exponential gain computed at its own scale; beyond it gains are scaled down."""


def label_top(batch: Batch) -> np.ndarray:
    """The highest label of each topic, in its judgments or its rankings (at least 0), shape (T,)."""
    return np.maximum(batch.topics.ideal.max(axis=1, initial=0), batch.grades.max(axis=(0, 2), initial=0))


def gain_shift(batch: Batch, gains: Any, *levels: int, clip: int | None = None) -> np.ndarray:
    """s_t, the base-2 logarithm of the scale each topic's gains are divided by, shape (T,).

    Exponential gains 2^label − 1 overflow a double from label 1024 on (and a sum of large
    gains sooner), so when the largest gain of a topic exceeds 2^GAIN_HEADROOM — for
    ``gains="exp"`` its highest label (judged, ranked, or one of ``levels``, e.g. max_rel), for
    a gain map its largest value — its gains are divided by 2^s, s = ⌈log2(largest)⌉ −
    GAIN_HEADROOM, an integer. Dividing by a power of two is exact, so ratios of gains are
    unchanged; formulas that add gains to counts (the blended ratio) scale the counts by 2^−s
    too. s = 0 for linear gains and for every gain below 2^512, so the usual values are
    computed as before, bit for bit. ``clip``: the kernel counts labels above it as ``clip``
    (max_rel), so the highest label is ``clip``, whatever the batch holds.
    """
    if gains == "exp":
        top = label_top(batch) if clip is None else np.full(len(batch.topics), clip)
        log_top = np.maximum(top, max(levels, default=0)).astype(np.float64)
    elif isinstance(gains, tuple):
        log_top = np.full(len(batch.topics), np.ceil(np.log2(max(max(v for _, v in gains), 1.0))))
    else:
        return np.zeros(len(batch.topics))
    return np.maximum(log_top - GAIN_HEADROOM, 0.0)


def gain(grades: np.ndarray, gains: Any, shift: np.ndarray | float = 0.0) -> np.ndarray:
    """Gain of each label divided by 2^shift (docs/conventions.md#gains). Labels <= 0 gain nothing.

    ``"linear"``: the label (trec_eval); ``"exp"``: 2^label - 1 (Burges et al. ICML 2005; gdeval,
    NTCIREVAL/Sakai), computed as 2^(label − shift) − 2^−shift so that it stays finite (see
    :func:`gain_shift`); a tuple of (label, gain) pairs: that gain, labels not listed keeping
    gain = label (the trec_eval convention for an incomplete gain map). ``shift`` broadcasts
    against ``grades`` (0: the gains themselves).
    """
    g = np.maximum(grades, 0).astype(np.float64)
    if gains == "exp":
        return np.exp2(g - shift) - np.exp2(-np.asarray(shift, dtype=np.float64))
    out = g
    if gains != "linear":
        for label, value in gains:
            if label > 0:
                out = np.where(g == label, value, out)
    return out if np.ndim(shift) == 0 and shift == 0 else out * np.exp2(-np.asarray(shift, dtype=np.float64))


def ideal_gains(ideal: np.ndarray, gains: Any, shift: np.ndarray | float = 0.0) -> np.ndarray:
    """Gains of the ideal ranking, largest first: an explicit gain map need not grow with the
    label (trec_eval ``ndcg.1=3,2=1`` sorts its ideal list by gain)."""
    g = gain(ideal, gains, shift)
    return -np.sort(-g, axis=-1) if isinstance(gains, tuple) else g


def exp_stop(grades: np.ndarray, top: np.ndarray | float) -> np.ndarray:
    """(2^g − 1) / 2^top, Chapelle et al.'s stop probability (CIKM 2009, §4), for labels g
    clipped to [0, top]: a label at or above ``top`` (max_rel, the label of certain
    satisfaction) stops the user with probability 1 − 2^−top. Computed as 2^(g − top) − 2^−top,
    exact for ordinary labels and finite for any; ``top`` broadcasts against ``grades``."""
    top = np.asarray(top, dtype=np.float64)
    g = np.minimum(np.maximum(grades, 0), top)
    return np.exp2(g - top) - np.exp2(-top)


def ideal_cumulative(ideal_gain: np.ndarray, d: int) -> np.ndarray:
    """cg*(r) for r = 1..d, shape (T, d): the ideal list's cumulative gain, cg*(K) beyond it."""
    ideal_cg = np.zeros((ideal_gain.shape[0], d))
    width = min(d, ideal_gain.shape[1])
    if width:
        ideal_cg[:, :width] = np.cumsum(ideal_gain[:, :width], axis=-1)
        ideal_cg[:, width:] = ideal_cg[:, width - 1 : width]
    return ideal_cg


def blend_weights(beta: float, shift: np.ndarray | float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(u, w) with u·count + w·gain ∝ count + β·(gain·2^s) for gains divided by 2^shift: the
    weights of counts and of scaled gains in a ratio that mixes them (Sakai's blended ratio,
    the O-measure). u = 1, w = β where s = 0 (the formula as written); elsewhere the larger of
    2^−s and β is scaled to 1, so neither overflows and β = 0 still leaves the counts alone."""
    shift = np.asarray(shift, dtype=np.float64)
    log_beta = np.log2(beta) if beta > 0 else -np.inf
    top = np.maximum(-shift, log_beta)
    scaled = shift > 0
    return np.where(scaled, np.exp2(-shift - top), 1.0), np.where(scaled, np.exp2(log_beta - top), beta)


def blended_ratio(j: np.ndarray, g: np.ndarray, ideal_gain: np.ndarray, beta: float,
                  shift: np.ndarray | float = 0.0) -> np.ndarray:
    """Sakai's blended ratio BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)) (Sakai, WWW 2012, Eq. 3).

    ``j`` (S, T, D) marks relevant ranks, ``g`` (S, T, D) their gains, ``ideal_gain`` (T, K)
    the gains of the ideal ranking sorted descending; cg*(r) = cg*(K) beyond the ideal list.
    Gains divided by 2^shift (:func:`gain_shift`, shape (T, 1)) give the same ratio, with
    counts and gains weighted by :func:`blend_weights`.
    """
    d = j.shape[-1]
    unit, weight = blend_weights(beta, shift)
    return safe_div(np.cumsum(j, axis=-1) * unit + weight * np.cumsum(g, axis=-1),
                    ranks(d) * unit + weight * ideal_cumulative(ideal_gain, d))


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
    return mask.argmax(axis=-1), cast(np.ndarray, mask.any(axis=-1))


REL = Param("rel", "int", 1, "the lowest label counted as relevant (trec_eval -l)", low=1)
MAX_REL = Param(
    "max_rel", "int", None,
    "the label that means 'certainly satisfied' (default: the highest label in the qrels)", low=1,
)
