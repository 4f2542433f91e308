"""trec_eval's remaining set and experimental measures (trec_eval 9.0.x ``all_trec``), so that
``-m all_trec`` gives every number trec_eval prints.

- ``relative_P.k`` = C(k) / min(k, R); ``set_relative_P`` = C(n) / min(n, R) over the retrieved set.
- ``num_nonrel_judged_ret``: retrieved documents judged with a label in [0, rel).
- ``utility.a,b,c,d`` = a·|rel ∩ ret| + b·|ret − rel| + c·|rel − ret| + d·|neither| (trec_eval's
  contingency-table utility; "neither" needs the collection size, trec_eval's ``-N``, 0 here).
- ``binG`` = (1/R)·Σ over retrieved relevant documents of 1 / log2(2 + non-relevant above it).
- ``G`` = Σ_r g(d_r) / log2(2 + Σ_{s≤r} max(g*_s, 1) − Σ_{s≤r} g(d_s)), over Σ g* (the ideal's
  total gain): a gain measure between AP and nDCG.
- ``ndcg_rel``: nDCG averaged over the relevant documents: at the rank of each retrieved one
  (DCG(r) / DCG*(r)), and DCG(n) / DCG*(R) for each one not retrieved.
- ``Rndcg``: nDCG averaged over the "R levels", the ranks where the ideal gain drops (after
  the documents of each gain), plus the end of the run when it is longer than that (trec_eval
  skips it when the run is exactly one document longer; kept).

Gains are trec_eval's: the label, or ``gains=`` pairs (``-m G.1=3,2=7``), ideal list sorted by
gain. Sources: trec_eval's ``m_relative_P.c``, ``m_set_relative_P.c``,
``m_num_nonrel_judged_ret.c``, ``m_utility.c``, ``m_binG.c``, ``m_G.c``, ``m_ndcg_rel.c``,
``m_Rndcg.c``; each is checked against pytrec-eval-terrier per topic.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.measures._common import REL, cut, gain, gain_shift, ideal_gains, log2_discount
from cranfield.measures.adhoc import TREC_EVAL, dcg, judged_nonrelevant, relevant_at
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register


def relative_precision(batch: Batch, *, cutoff: int, rel: int = 1) -> np.ndarray:
    """relative_P.k = C(k) / min(k, R) (trec_eval ``relative_P``); 0 without relevant documents."""
    return safe_div(relevant_at(batch, cutoff, rel).sum(axis=-1), np.minimum(batch.topics.num_rel(rel), cutoff))


def set_relative_precision(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """set_relative_P = C(n) / min(n, R) over the n retrieved documents (trec_eval ``set_relative_P``)."""
    n = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    return safe_div(relevant_at(batch, cutoff, rel).sum(axis=-1), np.minimum(batch.topics.num_rel(rel), n))


def num_nonrel_judged_ret(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """Retrieved documents judged non-relevant, labels in [0, rel) (trec_eval ``num_nonrel_judged_ret``)."""
    return judged_nonrelevant(batch, cutoff, rel).sum(axis=-1).astype(np.float64)


def utility(batch: Batch, *, cutoff: int | None, a: float = 1.0, b: float = -1.0, c: float = 0.0,
            d: float = 0.0, rel: int = 1) -> np.ndarray:
    """a·rel_ret + b·nonrel_ret + c·rel_notret + d·nonrel_notret (trec_eval ``utility``; the
    collection size is unknown, so nonrel_notret = rel_ret − ret − R as trec_eval without -N)."""
    hits = relevant_at(batch, cutoff, rel).sum(axis=-1).astype(np.float64)
    ret = (batch.length if cutoff is None else np.minimum(batch.length, cutoff)).astype(np.float64)
    big_r = batch.topics.num_rel(rel).astype(np.float64)
    return a * hits + b * (ret - hits) + c * (big_r - hits) + d * (hits - ret - big_r)


def bin_g(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """binG = (1/R)·Σ_{relevant d_r} 1/log2(2 + non-relevant documents above r) (trec_eval ``binG``)."""
    j = relevant_at(batch, cutoff, rel)
    nonrel_above = np.arange(j.shape[-1]) - (np.cumsum(j, axis=-1) - 1)
    return safe_div(np.where(j, 1.0 / np.log2(2.0 + nonrel_above), 0.0).sum(axis=-1), batch.topics.num_rel(rel))


def _padded(x: np.ndarray, width: int) -> np.ndarray:
    """x along its last axis, cut or zero-padded to ``width``."""
    out = np.zeros(x.shape[:-1] + (width,))
    k = min(width, x.shape[-1])
    out[..., :k] = x[..., :k]
    return out


def g_measure(batch: Batch, *, cutoff: int | None, gains: Any = "linear") -> np.ndarray:
    """G (trec_eval ``G``): Σ_r g(d_r)/log2(2 + cost(r) − cg(r)) / Σ g*, cost(r) = Σ_{s≤r} max(g*_s, 1).
    With gains divided by 2^s (exp gains of huge labels), log2(2 + x) = s + log2(2^(1−s) + x/2^s)."""
    shift = gain_shift(batch, gains)[:, None]
    g = gain(cut(batch.grades, cutoff), gains, shift)
    ideal = ideal_gains(batch.topics.ideal, gains, shift)
    cost = np.cumsum(np.maximum(_padded(ideal, g.shape[-1]), np.exp2(-shift)), axis=-1)
    with np.errstate(divide="ignore"):  # log2(0) = -inf: logaddexp2 then gives 1 - s exactly
        log_cost = shift + np.logaddexp2(1.0 - shift, np.log2(np.maximum(cost - np.cumsum(g, axis=-1), 0.0)))
    terms = np.where(g != 0, g / log_cost, 0.0)
    return safe_div(terms.sum(axis=-1), ideal.sum(axis=-1))


def _cumulative_dcg(g: np.ndarray, width: int) -> np.ndarray:
    """DCG after each rank 1..width (constant after the gains end)."""
    g = _padded(g, width)
    return np.cumsum(g * log2_discount(width), axis=-1) if width else g


def ndcg_rel(batch: Batch, *, cutoff: int | None, gains: Any = "linear") -> np.ndarray:
    """ndcg_rel (trec_eval): nDCG averaged over the documents of positive gain — DCG(r)/DCG*(r)
    at each retrieved one, DCG(n)/DCG*(K) for each one not retrieved."""
    shift = gain_shift(batch, gains)[:, None]  # scaled exp gains: the ratios are unchanged
    g = gain(cut(batch.grades, cutoff), gains, shift)
    ideal = ideal_gains(batch.topics.ideal, gains, shift)
    width = max(g.shape[-1], ideal.shape[-1])
    run_dcg, ideal_dcg = _cumulative_dcg(g, width), _cumulative_dcg(ideal, width)
    ratio = safe_div(run_dcg, np.broadcast_to(ideal_dcg, run_dcg.shape))
    positive = _padded(g, width) > 0
    num_rel = (ideal > 0).sum(axis=-1)
    missed = num_rel - positive.sum(axis=-1)
    last = safe_div(dcg(g), ideal_dcg[..., -1]) if width else np.zeros(g.shape[:-1])
    total = np.where(positive, ratio, 0.0).sum(axis=-1) + missed * last
    return np.where(total > 0, safe_div(total, num_rel), 0.0)


def r_ndcg(batch: Batch, *, cutoff: int | None, gains: Any = "linear", rel: int = 1) -> np.ndarray:
    """Rndcg (trec_eval): nDCG averaged at the ranks where the ideal gain drops, and at the end
    of a run longer than the ideal's positive part plus one document; 0 for a topic without a
    document labelled ``rel`` or more (trec_eval's only use of -l here)."""
    shift = gain_shift(batch, gains)[:, None]  # scaled exp gains: the ratios are unchanged
    g = gain(cut(batch.grades, cutoff), gains, shift)
    ideal = ideal_gains(batch.topics.ideal, gains, shift)
    width = max(g.shape[-1], ideal.shape[-1]) + 1
    run_dcg, ideal_dcg = _cumulative_dcg(g, width), _cumulative_dcg(ideal, width)
    padded = _padded(ideal, width)
    drop = (padded[:, :-1] > 0) & (padded[:, :-1] != padded[:, 1:])  # a drop after rank r (1-based: r = index + 1)
    at_drop = safe_div(run_dcg[..., :-1], np.broadcast_to(ideal_dcg[:, :-1], run_dcg[..., :-1].shape))
    total = np.where(drop, at_drop, 0.0).sum(axis=-1)
    count = np.broadcast_to(drop.sum(axis=-1), total.shape).astype(np.float64)
    n = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    extra = n > (ideal > 0).sum(axis=-1) + 1
    end = safe_div(dcg(g), ideal_dcg[:, -1]) if g.shape[-1] else np.zeros(total.shape)
    total, count = total + np.where(extra, end, 0.0), count + extra
    return np.where(batch.topics.num_rel(rel) > 0, safe_div(total, count), 0.0)


CUT = cutoff_param()
WHOLE: dict[str, Any] = {"depth": lambda p: p.get("cutoff")}
GAIN_PAIRS = Param("gains", "gains", "linear", "gain of each label: linear (trec_eval), exp, or level:gain pairs")

register(MeasureSpec(
    "relative_P", relative_precision, (CUT, REL), cite="trec_eval relative_P.k",
    doc="C(k) / min(k, R)", cutoff="required", normalised=True, reference=f"{TREC_EVAL}: relative_P",
))
register(MeasureSpec(
    "set_relative_P", set_relative_precision, (CUT, REL), cite="trec_eval set_relative_P",
    doc="relevant retrieved over min(retrieved, R)", aliases=("SetRelP",), normalised=True,
    reference=f"{TREC_EVAL}: set_relative_P", **WHOLE,
))
register(MeasureSpec(
    "num_nonrel_judged_ret", num_nonrel_judged_ret, (CUT, REL), cite="trec_eval num_nonrel_judged_ret",
    doc="retrieved documents judged non-relevant", aliases=("NumNonRelJudgedRet",),
    value_range=(0.0, float("inf")), aggregate="sum", reference=f"{TREC_EVAL}: num_nonrel_judged_ret", **WHOLE,
))
register(MeasureSpec(
    "utility", utility, (CUT, Param("a", "float", 1.0, "worth of a relevant retrieved document"),
                         Param("b", "float", -1.0, "worth of a non-relevant retrieved document"),
                         Param("c", "float", 0.0, "worth of a relevant document not retrieved"),
                         Param("d", "float", 0.0, "worth of a non-relevant document not retrieved"), REL),
    cite="trec_eval utility (set utility on the contingency table)", doc="linear set utility",
    aliases=("Utility",), value_range=(float("-inf"), float("inf")), reference=f"{TREC_EVAL}: utility", **WHOLE,
))
register(MeasureSpec(
    "binG", bin_g, (CUT, REL), cite="trec_eval binG (experimental, 2008)",
    doc="binary G: 1/log2(2 + non-relevant above) averaged over the relevant documents", normalised=True,
    reference=f"{TREC_EVAL}: binG", **WHOLE,
))
register(MeasureSpec(
    "G", g_measure, (CUT, GAIN_PAIRS), cite="trec_eval G (experimental, 2008)",
    doc="normalised gain between AP and nDCG", normalised=True, reference=f"{TREC_EVAL}: G", **WHOLE,
))
register(MeasureSpec(
    "ndcg_rel", ndcg_rel, (CUT, GAIN_PAIRS), cite="trec_eval ndcg_rel (experimental)",
    doc="nDCG averaged over the relevant documents", normalised=True, reference=f"{TREC_EVAL}: ndcg_rel", **WHOLE,
))
register(MeasureSpec(
    "Rndcg", r_ndcg, (CUT, GAIN_PAIRS, REL), cite="trec_eval Rndcg (experimental)",
    doc="nDCG averaged at the R levels of the ideal ranking", normalised=True, reference=f"{TREC_EVAL}: Rndcg", **WHOLE,
))
