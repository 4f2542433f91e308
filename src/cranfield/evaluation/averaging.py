"""Averaging scores over topics: arithmetic, geometric and diversity-difficulty weighted
(Golbus, Aslam & Clarke, Inf. Retr. 2013, §6.3; docs/conventions.md#averaging).

- ``avg``: the arithmetic mean.
- ``geom``: exp(mean(log(max(x, ε)))) with ε = 1e-5 — trec_eval's ``gm_map`` (Robertson,
  CIKM 2006): a topic scoring 0 counts as 1e-5 instead of sending the mean to 0. An error for
  a measure that can be negative (its ``value_range`` starts below 0) and for negative values.
- ``dd``: Σ_t w_t·x_t / Σ_t w_t with w_t = 1 − dd(t), the diversity difficulty of topic t at
  depth ξ (:func:`dd_weights`): topics that are hard to diversify weigh more. A topic with
  weight 0 (dd = 1, e.g. a topic with a single intent, M' = 1) does not count and is named in a
  warning; all weights 0 is an error. A topic without relevant documents has no dd (0/0:
  d_max = d_mean = 0; it would get the largest weight 1 while every run scores 0 on it):
  :func:`dd_weights` gives it weight NaN, and the dd average leaves it out, naming it in a
  warning. ξ is the minimum cover (:func:`cranfield.measures.topics.exact_cover`).

NaN values (topics not scored, ``missing="skip"``, or a measure undefined for a topic) are left
out, the weights of the others renormalised; a row with no value left averages to NaN. A topic
never leaves a mean silently: the topics left out are named in a warning, except those the
caller says were announced already (``announced``: the Evaluator's ``missing="skip"`` warning).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cranfield._numeric import GEOM_EPSILON, ordered_sum
from cranfield.errors import CranfieldError, check_choice, listing, warn
from cranfield.evaluation.options import AVERAGES

_KINDS = {"avg": "mean", "geom": "geometric mean", "dd": "dd-weighted mean", "sum": "sum"}

__all__ = ["AVERAGES", "GEOM_EPSILON", "average", "total", "dd_weights"]


def _can_be_negative(measure: Any) -> bool:
    if measure is None:
        return False
    from cranfield.measures.registry import parse_measure

    return parse_measure(measure).spec.value_range[0] < 0


def _left_out(values: Any, how: str, axis: int, topics: Sequence[str] | None, name: str | None,
              announced: Any) -> np.ndarray:
    """``values`` as float64 with the topic axis last; warns naming the topics whose NaN
    values are left out of the ``how`` (``_KINDS``), except ``announced`` ones (bool,
    broadcast to ``values``)."""
    x = np.asarray(values, dtype=np.float64)
    silent = np.isnan(x) & ~np.broadcast_to(np.asarray(False if announced is None else announced, bool), x.shape)
    x, silent = np.moveaxis(x, axis, -1), np.moveaxis(silent, axis, -1)
    lost = np.flatnonzero(silent.reshape(-1, x.shape[-1]).any(axis=0)) if x.size else np.zeros(0, int)
    if lost.size:
        ids = [str(topics[int(t)]) if topics is not None else str(t) for t in lost]
        what = f"{name}: " if name else ""
        warn(f"{what}{lost.size} topics have no value (NaN) and are left out of the {_KINDS[how]}: {listing(ids)}")
    return x


def _summation_order(topics: Sequence[str] | None, n: int) -> np.ndarray:
    """The order in which a mean adds its topics' values: the byte order of the topic ids, as
    trec_eval sorts its topics (strcmp) and adds their values one at a time in double; index
    order without ids. A fixed order, so the printed mean is the same on every machine
    (docs/conventions.md#fixed-order)."""
    if topics is None or len(topics) != n:
        return np.arange(n)
    return np.asarray(sorted(range(n), key=lambda t: str(topics[t]).encode()), dtype=np.intp)


def total(values: Any, *, axis: int = -1, topics: Sequence[str] | None = None, name: str | None = None,
          announced: Any = None) -> np.ndarray:
    """Sum over topics (trec_eval's counts, such as ``num_rel``), NaN values left out with a
    warning as in :func:`average`; NaN where no topic has a value.

    >>> total([[3.0, 4.0], [1.0, 0.0]]).tolist()
    [7.0, 1.0]
    """
    x = _left_out(values, "sum", axis, topics, name, announced)
    scored = ~np.isnan(x)
    return np.where(scored.any(axis=-1), np.where(scored, x, 0.0).sum(axis=-1), np.nan)


def average(
    values: Any, how: str = "avg", *, weights: Any = None, axis: int = -1,
    topics: Sequence[str] | None = None, measure: Any = None, eps: float = GEOM_EPSILON,
    name: str | None = None, announced: Any = None,
) -> np.ndarray:
    """Average scores over topics.

    Parameters
    ----------
    values : array_like of float
        Scores with topics along ``axis`` (e.g. ``Results.values``, shape (S, M, T)).
    how : {"avg", "geom", "dd"}
    weights : array_like of float, shape (T,), optional
        Topic weights, required for ``dd`` (see :func:`dd_weights`: 1 − dd(t)); normalised
        here. Ignored by ``avg`` and ``geom``.
    axis : int
        The topic axis.
    topics : sequence of str, optional
        Topic names, for the warnings that list topics left out (NaN values, weight 0).
    measure : str or Measure, optional
        The measure averaged: ``geom`` refuses measures whose range allows negative values.
    eps : float
        The floor of ``geom`` (1e-5, trec_eval's gm_map).
    name : str, optional
        The measure's name in warnings (default: ``measure``).
    announced : array_like of bool, optional
        Values (broadcast to ``values``) whose NaN was announced already: left out without a
        warning. Any other NaN value left out is named in a warning.

    Returns
    -------
    ndarray of float64
        ``values`` with the topic axis reduced; NaN where no topic has a value.

    Examples
    --------
    >>> average([0.5, 0.0, 0.25], "avg").item(), round(average([0.5, 0.0, 0.25], "geom").item(), 6)
    (0.25, 0.010772)
    >>> average([0.5, 0.0, 0.25], "dd", weights=[2.0, 1.0, 1.0]).item()  # weights 1 - dd(t)
    0.3125
    """
    check_choice(how, "average", AVERAGES)
    x = _left_out(values, how, axis, topics, name or (None if measure is None else str(measure)), announced)
    order = _summation_order(topics, x.shape[-1])
    scored = ~np.isnan(x)
    if how == "geom":
        if _can_be_negative(measure):
            raise CranfieldError(f"the geometric mean needs non-negative scores, but {measure} can be negative; "
                                 "use --average avg or dd")
        if (x[scored] < 0).any():
            raise CranfieldError("the geometric mean needs non-negative scores; got a negative value")
        logs = np.where(scored, np.log(np.maximum(np.where(scored, x, 1.0), eps)), 0.0)
        count = scored.sum(axis=-1)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(count > 0, np.exp(ordered_sum(logs[..., order]) / count), np.nan)
    if how == "avg":
        w = np.ones(x.shape[-1])
    else:
        if weights is None:
            raise CranfieldError("the dd average needs topic weights 1 - dd(t) "
                                 "(cranfield.evaluation.averaging.dd_weights)")
        w = np.asarray(weights, dtype=np.float64).ravel()
        if w.shape != (x.shape[-1],):
            raise CranfieldError(f"expected {x.shape[-1]} topic weights, got {w.size}")
        undefined = np.flatnonzero(np.isnan(w))
        if undefined.size:  # dd_weights: topics without relevant documents
            names = [str(topics[int(t)]) if topics is not None else str(t) for t in undefined]
            warn(f"{undefined.size} topics have no relevant document (dd undefined) and are left out of the "
                 f"dd average: {listing(names)}")
            w = np.where(np.isnan(w), 0.0, w)
        if (w < 0).any():
            raise CranfieldError("topic weights must be non-negative numbers (NaN: left out)")
        if not (w > 0).any():
            raise CranfieldError("every topic has weight 0 (dd = 1, or no relevant document, everywhere): the dd "
                                 "average is undefined")
        zero = np.setdiff1d(np.flatnonzero(w == 0), undefined)
        if zero.size:
            names = [topics[int(t)] if topics is not None else str(t) for t in zero]
            warn(f"{zero.size} topics have weight 1 - dd = 0 and do not count in the dd average: {listing(names)}")
    wx = np.where(scored, w, 0.0)
    total = wx.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, ordered_sum(np.where(scored, x, 0.0)[..., order] * w[order]) / total, np.nan)


def dd_weights(qrels: Any, depth: Any = "xi", rel: int = 1, **options: Any) -> np.ndarray:
    """Topic weights 1 − dd(t) for the ``dd`` average, shape (T,), in the collection's topic order.

    ``qrels`` is anything :func:`cranfield.analysis.diversity.load_collection` accepts (a path, a
    Collection, ...) or a :class:`~cranfield.batch.Topics`; ``depth`` defaults to ξ (docs/conventions.md#averaging),
    the minimum cover. A topic without relevant documents gets NaN: :func:`average` leaves it out with a warning.
    """
    from cranfield.batch import Topics
    from cranfield.evaluation.collection import load_collection
    from cranfield.measures.topics import diversity_difficulty

    topics = qrels if isinstance(qrels, Topics) else load_collection(qrels, **options).topics
    from cranfield.measures.topics import relevant_counts

    return np.where(relevant_counts(topics, rel)[1] > 0, 1.0 - diversity_difficulty(topics, depth, rel), np.nan)
