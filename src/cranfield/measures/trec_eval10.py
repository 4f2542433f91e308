"""The measures trec_eval 10.0 (June 2026) adds to its ``all_trec`` set, and ``yaap``, as
trec_eval computes them (docs/migration.md#trec_eval-10).

- ``rbp(p)``: rank-biased precision (Moffat & Zobel, TOIS 2008, Eq. 6) with trec_eval's gains
  (``m_rbp.c``): a document's gain is its label, divided by the topic's highest label when that
  is above 1 (so the gains lie in [0, 1]); unjudged documents and negative labels gain 0; p = 0.9.
- ``rbp_resid(p)``: RBP's residual (``m_rbp_resid.c``): the weight of the retrieved ranks
  whose document is unjudged (not in the qrels, or a negative label) plus the weight of every
  rank after the ranking, p^n; 0 when no retrieved document is unjudged (trec_eval's rule).
- ``unj@k``: the fraction of unjudged documents in the top k (``m_unjudged.c``): ranks beyond the
  ranking count as judged, so the count is divided by k, not by the ranking's length.
- ``yaap``: Robertson's "yet another average precision" (ECIR 2012, "On smoothing average
  precision", §4): log((1 + s) / (1 + R − s)), s = Σ over retrieved relevant documents of the
  precision at their ranks (``m_yaap.c``; in trec_eval since 9.0.3).

Each kernel maps a :class:`~cranfield.batch.Batch` to an (S, T) array; each is checked per topic
against trec_eval 10.0 built from its source (tests/compat/test_trec_eval10.py).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cranfield.batch import Batch
from cranfield.measures._common import REL, cut, ranks, within_length
from cranfield.measures.adhoc import relevant_at
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

TREC_EVAL10 = "trec_eval 10.0 (usnistgov/trec_eval, built from source)"


def _retrieved(batch: Batch, cutoff: int | None) -> np.ndarray:
    """n, the number of ranked documents that count (the ranking's length, at most k), (S, T)."""
    return batch.length if cutoff is None else np.minimum(batch.length, cutoff)


def _unjudged(batch: Batch, cutoff: int | None) -> np.ndarray:
    """(S, T, D): a retrieved document trec_eval counts as unjudged: absent from the qrels
    (RELVALUE_NONPOOL) or judged with a negative label (RELVALUE_UNJUDGED)."""
    d = cut(batch.grades, cutoff).shape[-1]
    return within_length(_retrieved(batch, cutoff), d) & (~cut(batch.judged, cutoff) | (cut(batch.grades, cutoff) < 0))


def _persistence(p: float, d: int) -> np.ndarray:
    """p^(r−1) for r = 1..d, as trec_eval accumulates it (one multiplication per rank)."""
    return np.cumprod(np.r_[1.0, np.full(max(d - 1, 0), p)])[:d]


def trec_rbp(batch: Batch, *, cutoff: int | None, p: float = 0.9) -> np.ndarray:
    """RBP = (1 − p)·Σ_r p^(r−1)·g_r (Moffat & Zobel, TOIS 2008, Eq. 6) with trec_eval 10's
    gains (``m_rbp.c``): g = label / m for a topic whose highest label m is above 1, the label
    itself otherwise; unjudged documents and negative labels gain 0."""
    grades = cut(batch.grades, cutoff)
    top = batch.topics.ideal.max(axis=1, initial=0).astype(np.float64)  # (T,)
    scale = np.where(top > 1, top, 1.0)[None, :, None]
    g = np.where(within_length(_retrieved(batch, cutoff), grades.shape[-1]), np.maximum(grades, 0) / scale, 0.0)
    return (1.0 - p) * (g * _persistence(p, grades.shape[-1])).sum(axis=-1)


def rbp_residual(batch: Batch, *, cutoff: int | None, p: float = 0.9) -> np.ndarray:
    """RBP's residual as trec_eval 10 computes it (``m_rbp_resid.c``; Moffat & Zobel, TOIS 2008,
    §4): p^n + (1 − p)·Σ over unjudged retrieved ranks r of p^(r−1), n documents retrieved;
    0 when none of them is unjudged (the unretrieved tail p^n then does not count either)."""
    unjudged = _unjudged(batch, cutoff)
    weight = _persistence(p, unjudged.shape[-1])
    tail = p ** _retrieved(batch, cutoff).astype(np.float64)
    value = tail + (1.0 - p) * np.where(unjudged, weight, 0.0).sum(axis=-1)
    return np.where(unjudged.any(axis=-1), value, 0.0)


def unjudged_at(batch: Batch, *, cutoff: int) -> np.ndarray:
    """unj@k = |{r ≤ min(k, n) : d_r unjudged}| / k (trec_eval 10 ``unj.k``, ``m_unjudged.c``):
    the ranks after the ranking count as judged non-relevant documents."""
    return _unjudged(batch, cutoff).sum(axis=-1) / cutoff


def yaap(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """yaap = log((1 + s) / (1 + R − s)), s = Σ_{r: d_r relevant} C(r)/r (Robertson, ECIR 2012,
    "On smoothing average precision"; trec_eval ``yaap``, ``m_yaap.c``): s/R is AP, and the
    log-odds form averages better over topics than AP does."""
    j = relevant_at(batch, cutoff, rel)
    s = np.where(j, np.cumsum(j, axis=-1) / ranks(j.shape[-1]), 0.0).sum(axis=-1)
    return np.log((1.0 + s) / (1.0 + batch.topics.num_rel(rel) - s))


CUT = cutoff_param()
P_TREC = Param("p", "float", 0.9, "persistence: the probability of moving to the next rank", low=0, high=1,
               open_high=True)
WHOLE: dict[str, Any] = {"depth": lambda p: p.get("cutoff")}

register(MeasureSpec(
    "rbp", trec_rbp, (CUT, P_TREC), cite="Moffat & Zobel, TOIS 2008, Eq. 6; trec_eval 10 rbp (m_rbp.c)",
    doc="rank-biased precision with trec_eval 10's gains (label / highest label of the topic), p = 0.9",
    reference=f"{TREC_EVAL10}: rbp", **WHOLE,
))
register(MeasureSpec(
    "rbp_resid", rbp_residual, (CUT, P_TREC),
    cite="Moffat & Zobel, TOIS 2008, §4; trec_eval 10 rbp_resid (m_rbp_resid.c)",
    doc="RBP's residual: weight of unjudged ranks and of the ranks after the run (0 without unjudged)",
    reference=f"{TREC_EVAL10}: rbp_resid", **WHOLE,
))
register(MeasureSpec(
    "unj", unjudged_at, (CUT,), cite="trec_eval 10 unj.k (m_unjudged.c, Soboroff 2023)",
    doc="fraction of unjudged documents in the top k (ranks after the run count as judged)",
    cutoff="required", reference=f"{TREC_EVAL10}: unj_k",
))
register(MeasureSpec(
    "yaap", yaap, (CUT, REL), cite="Robertson, ECIR 2012 (On smoothing average precision); trec_eval yaap",
    doc="yet another average precision: log((1 + s) / (1 + R − s)), s/R = AP",
    value_range=(float("-inf"), float("inf")), reference=f"{TREC_EVAL10}: yaap", **WHOLE,
))
