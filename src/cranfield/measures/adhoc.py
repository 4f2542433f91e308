"""Ad hoc measures (docs/conventions.md#adhoc): trec_eval's family, ERR, RBP, Sakai's Q-measure and P+.

Each kernel maps a :class:`~cranfield.batch.Batch` to an (S, T) array. Binary measures count
a document as relevant when its label is at least ``rel`` (default 1, trec_eval's rule);
unjudged documents and negative labels are not relevant. Topics without relevant documents
score 0 where the formula would divide by zero, as trec_eval does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from cranfield._numeric import ordered_dot, ordered_sum, safe_div
from cranfield.batch import Batch
from cranfield.errors import MeasureError
from cranfield.measures._common import (
    MAX_REL,
    REL,
    at_rank,
    blended_ratio,
    cut,
    exp_stop,
    first_true,
    gain,
    gain_shift,
    ideal_gains,
    ranks,
    within_length,
)
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

TREC_EVAL = "trec_eval 9.0.7 (pytrec-eval-terrier)"


def relevant_at(batch: Batch, cutoff: int | None, rel: int) -> np.ndarray:
    return cut(batch.grades, cutoff) >= rel


def precision(batch: Batch, *, cutoff: int, rel: int = 1) -> np.ndarray:
    """P@k = C(k) / k: missing ranks count as non-relevant (trec_eval ``P.k``)."""
    return relevant_at(batch, cutoff, rel).sum(axis=-1) / cutoff


def recall(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """R@k = C(k) / R (trec_eval ``recall.k``); 0 when the topic has no relevant document."""
    return safe_div(relevant_at(batch, cutoff, rel).sum(axis=-1), batch.topics.num_rel(rel))


def average_precision(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """AP = Σ_r J(r)·P@r / R (trec_eval ``map``; with @k, ``map_cut.k``: the sum stops at k,
    the denominator stays R)."""
    j = relevant_at(batch, cutoff, rel)
    prec = np.cumsum(j, axis=-1, dtype=np.int32 if j.shape[-1] < 2**31 else np.int64) / ranks(j.shape[-1])
    prec *= j  # P@r where the document at r is relevant, else 0
    return safe_div(ordered_sum(prec), batch.topics.num_rel(rel))  # added in rank order, as trec_eval


def reciprocal_rank(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """RR = 1 / rank of the first relevant document, 0 if none (trec_eval ``recip_rank``)."""
    first, found = first_true(relevant_at(batch, cutoff, rel))
    return np.where(found, 1.0 / (first + 1.0), 0.0)


def r_precision(batch: Batch, *, rel: int = 1, mult: float = 1.0) -> np.ndarray:
    """Rprec = P@R with R the topic's number of relevant documents (trec_eval ``Rprec``); with
    ``mult`` it is precision at ⌊mult·R + 0.9⌋ documents (trec_eval ``Rprec_mult``), counting
    unretrieved positions as non-relevant, and 0 when that cutoff is 0."""
    j = relevant_at(batch, None, rel)
    r = batch.topics.num_rel(rel)
    cut = r if mult == 1.0 else np.floor(mult * r + 0.9).astype(np.int64)
    if j.shape[-1] == 0:
        return np.zeros(j.shape[:-1])
    found = np.cumsum(j, axis=-1)
    idx = np.broadcast_to(np.clip(cut - 1, 0, j.shape[-1] - 1)[:, None], j.shape[:-1] + (1,))
    return safe_div(np.take_along_axis(found, idx, axis=-1)[..., 0] * (cut > 0), cut)


def dcg(g: np.ndarray) -> np.ndarray:
    """Σ_r g_r / log2(r + 1) over the last axis, each term divided and the terms added in rank
    order, as trec_eval's ``ndcg`` computes it (docs/conventions.md#fixed-order)."""
    return ordered_sum(g / np.log2(ranks(g.shape[-1]) + 1.0))


def jk_discount(d: int, base: float) -> np.ndarray:
    """Järvelin & Kekäläinen's original discount: 1 for r < b (and r = 1), 1/log_b(r) from r = b on."""
    r = ranks(d)
    return np.where((r < base) | (r == 1), 1.0, 1.0 / (np.log(np.maximum(r, 2.0)) / np.log(base)))


def ndcg(batch: Batch, *, cutoff: int | None, gains: Any = "linear", discount: str = "log2",
         b: float = 2.0) -> np.ndarray:
    """nDCG@k = Σ_{r≤k} gain(d_r)·discount(r) over the same sum for the ideal ranking of all
    judged documents. ``discount="log2"``: 1/log2(r+1) (trec_eval ``ndcg``/``ndcg_cut.k`` with
    linear gains, gdeval with ``gains=exp``, NTCIREVAL's MSnDCG); ``discount="jk"``: Järvelin &
    Kekäläinen's original (TOIS 2002) with log base ``b`` and no discount above rank b
    (NTCIREVAL's nDCG)."""
    def total(g: np.ndarray) -> np.ndarray:
        if discount == "log2":
            return dcg(g)
        return ordered_dot(g, jk_discount(g.shape[-1], b))

    shift = gain_shift(batch, gains)[:, None]  # exp gains scaled per topic: the ratio is unchanged
    return safe_div(total(gain(cut(batch.grades, cutoff), gains, shift)),
                    total(cut(ideal_gains(batch.topics.ideal, gains, shift), cutoff)))


def _highest_gain(gains: Any, max_rel: int, shift: np.ndarray) -> np.ndarray:
    """h, the gain of the highest label (of the gain vector when one is given, NTCIREVAL), over 2^shift."""
    if isinstance(gains, tuple):
        return max(v for _, v in gains) * np.exp2(-shift)
    return gain(np.asarray(max_rel), gains, shift)


def _stop_probability(grades: np.ndarray, max_rel: int, sat: str, gains: Any, shift: np.ndarray) -> np.ndarray:
    """R(g): ``chapelle`` (2^g − 1)/2^max_rel, ``ntcir`` g/(h + 1) (NTCIREVAL); labels above max_rel
    count as max_rel, so R < 1; gains divided by 2^shift (T, 1) and so is the 1 of h + 1."""
    if sat == "ntcir":
        return (gain(np.minimum(grades, max_rel), gains, shift)
                / (_highest_gain(gains, max_rel, shift) + np.exp2(-shift)))
    return exp_stop(grades, max_rel)


def cascade(stop: np.ndarray) -> np.ndarray:
    """Σ_r (1/r)·R_r·Π_{s<r}(1 − R_s) over the last axis (the ERR cascade, Chapelle Eq. 3)."""
    reach = np.cumprod(1.0 - stop, axis=-1)
    reach = np.concatenate((np.ones(reach.shape[:-1] + (1,)), reach[..., :-1]), axis=-1)
    return (stop * reach / ranks(stop.shape[-1])).sum(axis=-1)


def err(batch: Batch, *, cutoff: int | None, max_rel: int | None = None,
        sat: str = "chapelle", gains: Any = "exp") -> np.ndarray:
    """ERR@k = Σ_r (1/r)·R_r·Π_{s<r}(1 − R_s) (Chapelle et al. CIKM 2009, Eq. 3) with
    R = (2^g − 1)/2^max_rel; ``sat=ntcir`` uses R = gain(g)/(gain(max_rel) + 1)."""
    top = max(batch.topics.max_rel if max_rel is None else max_rel, 1)
    shift = gain_shift(batch, gains, clip=top)[:, None]
    return cascade(_stop_probability(cut(batch.grades, cutoff), top, sat, gains, shift))


def nerr(batch: Batch, *, cutoff: int | None, gains: Any = "exp", max_rel: int | None = None) -> np.ndarray:
    """nERR@l (NTCIREVAL; Sakai & Song SIGIR 2011): ERR with stop probability g/(h + 1) over the
    ERR of the ideal list, both cut at l."""
    top = max(batch.topics.max_rel if max_rel is None else max_rel, 1)
    shift = gain_shift(batch, gains, clip=top)[:, None]
    run = cascade(_stop_probability(cut(batch.grades, cutoff), top, "ntcir", gains, shift))
    ideal = cascade(_stop_probability(cut(batch.topics.ideal, cutoff), top, "ntcir", gains, shift))
    return safe_div(run, ideal)


def rbp_weights(p: float, d: int) -> np.ndarray:
    """(1 − p)·p^{r−1} for r = 1..d: RBP's user model (Moffat & Zobel 2008)."""
    return (1.0 - p) * p ** np.arange(d, dtype=np.float64)


def rbp(batch: Batch, *, cutoff: int | None, p: float = 0.8, max_rel: int | None = None,
        part: str = "base", gains: Any = "linear") -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel, TOIS 2008, Eq. 6): (1 − p)·Σ_r p^{r−1}·g_r/max_rel.

    ``part="residual"`` gives the weight of the unjudged and unretrieved ranks,
    (1 − p)·Σ_{r≤n, d_r unjudged} p^{r−1} + p^n; ``part="upper"`` gives base + residual.
    """
    top = batch.topics.max_rel if max_rel is None else max_rel
    grades = cut(batch.grades, cutoff)
    d = grades.shape[-1]
    weight = rbp_weights(p, d)
    # gain relative to the highest gain: g/max_rel for linear gains, of the gain vector when one is given
    top = max(top, 1)
    shift = gain_shift(batch, gains, clip=top)[:, None]  # labels above max_rel count as max_rel
    highest = _highest_gain(gains, top, shift)
    base = ordered_dot(gain(np.minimum(grades, top), gains, shift) / highest, weight)
    if part == "base":
        return base
    n = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    unjudged = within_length(n, d) & ~cut(batch.judged, cutoff)
    residual = ordered_dot(unjudged, weight) + p ** n.astype(np.float64)
    return residual if part == "residual" else base + residual


def q_value(j: np.ndarray, br: np.ndarray, num_relevant: np.ndarray, cutoff: int | None) -> np.ndarray:
    """(1/R)·Σ_r J(r)·BR(r), with R replaced by min(l, R) for Q@l (NTCIREVAL)."""
    denom = num_relevant if cutoff is None else np.minimum(num_relevant, cutoff)
    return safe_div((j * br).sum(axis=-1), denom)


def q_measure(batch: Batch, *, cutoff: int | None, beta: float = 1.0, gains: Any = "exp") -> np.ndarray:
    """Q-measure (Sakai, NTCIR-4 2004; Sakai, WWW 2012, Eq. 2–3): (1/R)·Σ_r J(r)·BR(r),
    BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)). Q@l sums r ≤ l and divides by min(l, R)
    (NTCIREVAL's Q@l)."""
    grades = cut(batch.grades, cutoff)
    j = grades > 0
    shift = gain_shift(batch, gains)[:, None]
    br = blended_ratio(j, gain(grades, gains, shift), ideal_gains(batch.topics.ideal, gains, shift), beta, shift)
    return q_value(j, br, batch.topics.num_rel(1), cutoff)


def p_plus(batch: Batch, *, cutoff: int | None, beta: float = 1.0, gains: Any = "exp") -> np.ndarray:
    """P+ (Sakai, AIRS 2006; Sakai, WWW 2012, Eq. 4): (1/C(rp))·Σ_{r≤rp} J(r)·BR(r), rp the rank of the
    highest-ranked document among those of the highest label in the top l; 0 without any
    relevant document there."""
    grades = cut(batch.grades, cutoff)
    j = grades > 0
    shift = gain_shift(batch, gains)[:, None]
    br = blended_ratio(j, gain(grades, gains, shift), ideal_gains(batch.topics.ideal, gains, shift), beta, shift)
    best = np.where(j, grades, 0).max(axis=-1, initial=0)
    rp, found = first_true(j & (grades == best[..., None]))
    upto = np.arange(j.shape[-1]) <= rp[..., None]
    num = (j * br * upto).sum(axis=-1)
    count = np.cumsum(j, axis=-1)
    denom = at_rank(count, rp)
    return np.where(found, safe_div(num, denom), 0.0)


def f_measure(batch: Batch, *, cutoff: int | None, beta: float = 1.0, rel: int = 1) -> np.ndarray:
    """F_β = (1 + β²)·P·R / (β²·P + R) over the retrieved set (trec_eval ``set_F``; with @k
    over the first k documents); 0 when nothing relevant is retrieved."""
    hits = relevant_at(batch, cutoff, rel).sum(axis=-1)
    retrieved = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    p, r = safe_div(hits, retrieved), safe_div(hits, batch.topics.num_rel(rel))
    return safe_div((1 + beta**2) * p * r, beta**2 * p + r)


def num_ret(batch: Batch, *, cutoff: int | None) -> np.ndarray:
    """Documents retrieved (trec_eval ``num_ret``); with @k at most k."""
    n = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    return n.astype(np.float64)


def num_rel(batch: Batch, *, rel: int = 1) -> np.ndarray:
    """Relevant documents of the topic (trec_eval ``num_rel``)."""
    return np.broadcast_to(batch.topics.num_rel(rel), batch.length.shape).astype(np.float64)


def num_rel_ret(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """Relevant documents retrieved (trec_eval ``num_rel_ret``); with @k within the first k."""
    return relevant_at(batch, cutoff, rel).sum(axis=-1).astype(np.float64)


def success(batch: Batch, *, cutoff: int, rel: int = 1) -> np.ndarray:
    """Success@k = 1 if a relevant document is in the top k (trec_eval ``success.k``)."""
    return cast(np.ndarray, relevant_at(batch, cutoff, rel).any(axis=-1)).astype(np.float64)


def judged_nonrelevant(batch: Batch, cutoff: int | None, rel: int) -> np.ndarray:
    """Documents judged with a label in [0, rel): trec_eval's "judged non-relevant" (a negative
    label counts as unjudged there)."""
    grades = cut(batch.grades, cutoff)
    return cut(batch.judged, cutoff) & (grades >= 0) & (grades < rel)


def bpref(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """bpref (Buckley & Voorhees SIGIR 2004; trec_eval ``bpref``): (1/R)·Σ over retrieved relevant
    documents of 1 − min(n, min(R, N))/min(R, N), n the judged non-relevant documents above it and
    N all judged non-relevant documents of the topic (labels >= 0 only, as trec_eval)."""
    j = relevant_at(batch, cutoff, rel)
    above = np.cumsum(judged_nonrelevant(batch, cutoff, rel), axis=-1)
    big_r = batch.topics.num_rel(rel)
    denom = np.minimum(big_r, batch.topics.num_nonrel(rel))[None, :, None]
    term = np.where(above > 0, 1.0 - safe_div(np.minimum(above, denom), np.broadcast_to(denom, above.shape)), 1.0)
    return safe_div(ordered_sum(term * j), big_r)  # added in rank order, as trec_eval


INFAP_EPSILON = 1e-5  # trec_eval's smoothing of the judged-relevant fraction


def inf_ap(batch: Batch, *, rel: int = 1) -> np.ndarray:
    """infAP (Yilmaz & Aslam, CIKM 2006; trec_eval ``infAP``): expected precision at each retrieved
    relevant document, inferred from the judged sample above it, summed and divided by R.

    trec_eval's conventions: documents absent from the qrels are outside the pool and skipped; a
    negative label (−1, spam −2, ...) marks a pooled document that was not judged; labels in
    [0, rel) are judged non-relevant and labels ≥ rel relevant. At 0-based rank j > 0 a relevant
    document adds 1/(j+1) + (j/(j+1))·((r−1+n+u)/j)·((r−1+ε)/(r−1+n+2ε)) with r, n, u the
    relevant, non-relevant and pooled-unjudged documents up to it and ε = 1e−5; at rank 1 it adds 1."""
    grades = batch.grades
    unjudged = batch.judged & (grades < 0)
    nonrel = batch.judged & (grades >= 0) & (grades < rel)
    relevant = grades >= rel
    r_before = np.cumsum(relevant, axis=-1) - 1.0
    n, u = np.cumsum(nonrel, axis=-1), np.cumsum(unjudged, axis=-1)
    j = ranks(grades.shape[-1]) - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        later = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r_before + n + u) / j) * (
            (r_before + INFAP_EPSILON) / (r_before + n + 2 * INFAP_EPSILON))
    term = np.where(j == 0, 1.0, later)
    return safe_div(ordered_sum(np.where(relevant, term, 0.0)), batch.topics.num_rel(rel))


def set_precision(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """Precision of the retrieved set (trec_eval ``set_P``; the first k with @k)."""
    retrieved = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    return safe_div(relevant_at(batch, cutoff, rel).sum(axis=-1), retrieved)


def set_recall(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """Recall of the retrieved set (trec_eval ``set_recall``)."""
    return safe_div(relevant_at(batch, cutoff, rel).sum(axis=-1), batch.topics.num_rel(rel))


def set_ap(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """SetP × SetR (trec_eval ``set_map``), computed as trec_eval does, C² / (n·R) with C the relevant
    retrieved documents and n the retrieved ones: the product of the two rounded quotients can differ
    in the last bit (and in a printed 4th decimal)."""
    retrieved = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    found = relevant_at(batch, cutoff, rel).sum(axis=-1).astype(np.float64)
    return safe_div(found * found, retrieved * batch.topics.num_rel(rel).astype(np.float64))


ELEVEN_POINTS = tuple(k / 10 for k in range(11))  # trec_eval's recall levels 0.0, 0.1, ..., 1.0


def recall_counts(levels: Any, num_rel: np.ndarray, rounding: str = "trec_eval9") -> np.ndarray:
    """trec_eval's conversion of recall levels into counts of relevant documents, ⌊level·R + 0.9⌋,
    shape (T, L) for R of shape (T,) (``m_iprec_at_recall.c``, ``m_11pt_avg.c``); with
    ``rounding="trec_eval10"``, level·R rounded half up (trec_eval 10.0's ``lround``)."""
    product = np.asarray(levels, dtype=np.float64)[None, :] * num_rel[:, None]
    if rounding == "trec_eval10":
        whole = np.floor(product)
        return whole + (product - whole >= 0.5)
    return np.floor(product + 0.9)


def _interpolated(batch: Batch, levels: Any, rel: int, rounding: str = "trec_eval9") -> np.ndarray:
    """Interpolated precision at recall levels (trec_eval ``iprec_at_recall``), shape (S, T, L):
    the best precision at any rank that has found at least :func:`recall_counts` relevant
    documents, 0 if no rank does. On a ranking that a run has but that is empty (``judged_only``
    removed every document), the precision of a level that needs no relevant document is 0/0:
    NaN, as trec_eval computes it (docs/conventions.md#judged-only)."""
    j = relevant_at(batch, None, rel)
    found = np.cumsum(j, axis=-1)
    precision = np.where(j, found / ranks(j.shape[-1]), 0.0)
    needed = recall_counts(levels, batch.topics.num_rel(rel), rounding)  # (T, L)
    # the best precision at or after each rank, so that "enough found" is a suffix maximum
    best_after = np.maximum.accumulate(precision[..., ::-1], axis=-1)[..., ::-1] if j.shape[-1] else precision
    reached = found[..., None, :] >= needed[None, :, :, None]  # (S, T, L, D)
    index, any_rank = first_true(reached)
    first = np.where(any_rank, index, -1)  # first rank reaching each level
    value = np.take_along_axis(best_after, np.maximum(first, 0), axis=-1) if j.shape[-1] else np.zeros(first.shape)
    empty = (batch.length == 0) & batch.present  # (S, T)
    return np.where(empty[..., None] & (needed == 0), np.nan, np.where(first >= 0, value, 0.0))


def iprec(batch: Batch, *, cutoff: float, rel: int = 1, rounding: str = "trec_eval9") -> np.ndarray:
    """IPrec@r: interpolated precision at recall r (trec_eval ``iprec_at_recall``)."""
    return _interpolated(batch, [cutoff], rel, rounding)[..., 0]


def eleven_point(batch: Batch, *, levels: tuple[float, ...] | None = None, rel: int = 1,
                 rounding: str = "trec_eval9") -> np.ndarray:
    """Interpolated precision averaged over recall levels (trec_eval ``11pt_avg``): by default the
    11 levels 0, 0.1, ..., 1; ``levels`` as trec_eval's ``11pt_avg.0.2,0.5,0.8``, each listed
    level counted (a level listed twice counts twice). The levels are added as trec_eval adds them,
    one at a time from the last to the first (m_11pt_avg.c), then divided by their number."""
    levels = levels or ELEVEN_POINTS
    return ordered_sum(_interpolated(batch, levels, rel, rounding)[..., ::-1]) / len(levels)


def num_q(batch: Batch) -> np.ndarray:
    """1 per evaluated topic (trec_eval ``num_q``; summed in the ``all`` row)."""
    return np.ones(batch.length.shape)


# --------------------------------------------------------------------------- registration
@dataclass(frozen=True)
class RecallLevels(Param):
    """A list of recall levels in [0, 1], comma-separated (``11pt(levels=0.2,0.5,0.8)``); a
    tuple of floats, or None for the default."""

    def describe(self) -> str:
        return "recall levels in [0, 1] separated by commas, e.g. 0.2,0.5,0.8"

    def convert(self, text: Any, measure: str) -> tuple[float, ...]:
        items = text.split(",") if isinstance(text, str) else list(text)
        try:
            levels = tuple(float(v) for v in items)
        except (TypeError, ValueError):
            levels = ()
        if not levels or not all(0 <= v <= 1 for v in levels):
            raise MeasureError(f"The {self.name!r} parameter of {measure} must be {self.describe()}. "
                               f"Got {text!r} instead.")
        return levels

    def format(self, value: Any) -> str:
        return ",".join(str(int(v)) if v.is_integer() else repr(v) for v in value)


CUT = cutoff_param()
LINEAR = Param("gains", "gains", "linear", "gain of each label: linear (trec_eval), exp (2^l - 1) or a map")
EXP = Param("gains", "gains", "exp", "gain of each label: exp (2^l - 1, NTCIREVAL), linear or a map")
BETA_Q = Param("beta", "float", 1.0, "weight of graded gain against binary precision", low=0)
P_RBP = Param("p", "float", 0.8, "persistence: the probability of moving to the next rank", low=0, high=1,
              open_high=True)
WHOLE: dict[str, Any] = {"depth": lambda p: p.get("cutoff")}
ROUNDING = Param("rounding", "choice", "trec_eval9", "recall level r to a count of relevant documents: trec_eval9 "
                 "⌊r·R + 0.9⌋, trec_eval10 r·R rounded half up", choices=("trec_eval9", "trec_eval10"))

register(MeasureSpec(
    "P", precision, (CUT, REL), cite="trec_eval P.k", doc="precision at rank k",
    aliases=("Precision",), cutoff="required", reference=f"{TREC_EVAL}: P_k",
))
register(MeasureSpec(
    "R", recall, (CUT, REL), cite="trec_eval recall.k", doc="recall at rank k (whole run without @k)",
    aliases=("Recall",), reference=f"{TREC_EVAL}: recall_k",
))
register(MeasureSpec(
    "AP", average_precision, (CUT, REL), cite="trec_eval map / map_cut.k",
    doc="average precision (with @k: trec_eval's map_cut, denominator R)", aliases=("MAP",),
    normalised=True, reference=f"{TREC_EVAL}: map, map_cut_k",
))
register(MeasureSpec(
    "RR", reciprocal_rank, (CUT, REL), cite="trec_eval recip_rank",
    doc="reciprocal rank of the first relevant document", aliases=("MRR", "RecipRank"),
    normalised=True, reference=f"{TREC_EVAL}: recip_rank",
))
register(MeasureSpec(
    "nDCG", ndcg, (CUT, LINEAR,
                   Param("discount", "choice", "log2", "log2: 1/log2(r+1); jk: Järvelin & Kekäläinen's log base b, "
                         "no discount above rank b", choices=("log2", "jk")),
                   Param("b", "float", 2.0, "the log base of discount=jk", low=1, open_low=True)),
    cite="Järvelin & Kekäläinen, TOIS 2002; trec_eval ndcg / ndcg_cut.k",
    doc="normalised discounted cumulative gain, discount 1/log2(r+1), ideal over all judged documents",
    aliases=("NDCG",), normalised=True, reference=f"{TREC_EVAL}: ndcg, ndcg_cut_k",
))
register(MeasureSpec(
    "ERR", err, (CUT, MAX_REL,
                 Param("sat", "choice", "chapelle", "stop probability: chapelle (2^g-1)/2^max_rel or ntcir g/(h+1)",
                       choices=("chapelle", "ntcir")),
                 Param("gains", "gains", "exp", "gains for sat=ntcir")),
    cite="Chapelle, Metzler, Zhang, Grinspan, CIKM 2009, Eq. 3",
    doc="expected reciprocal rank (cascade model)",
))
register(MeasureSpec(
    "nERR", nerr, (CUT, EXP, MAX_REL), cite="Chapelle et al. CIKM 2009; Sakai & Song SIGIR 2011 (NTCIREVAL nERR)",
    doc="ERR with NTCIREVAL's stop probability g/(h+1), over the ideal list's", normalised=True,
    reference="NTCIREVAL (pyNTCIREVAL 0.0.3): nERR@l",
))
register(MeasureSpec(
    "RBP", rbp, (CUT, P_RBP, MAX_REL,
                 Param("part", "choice", "base",
                       "base score, residual (unjudged + unretrieved mass) or upper = base + residual",
                       choices=("base", "residual", "upper")),
                 Param("gains", "gains", "linear",
                       "gain of each label, relative to the highest gain (NTCIREVAL's gain vector)")),
    cite="Moffat & Zobel, TOIS 2008, Eq. 6", doc="rank-biased precision with graded gain g/max_rel",
    **WHOLE,
))
register(MeasureSpec(
    "Q", q_measure, (CUT, BETA_Q, EXP), cite="Sakai, NTCIR-4 2004; Sakai, WWW 2012, Eq. 2–3 (NTCIREVAL Q-measure, Q@l)",
    doc="Q-measure: graded average precision with blended ratio", aliases=("Q-measure",), normalised=True,
))
register(MeasureSpec(
    "P+", p_plus, (CUT, BETA_Q, EXP), cite="Sakai, AIRS 2006; Sakai, WWW 2012, Eq. 4 (NTCIREVAL P-plus)",
    doc="P-plus: blended ratio averaged up to the preferred (first best-labelled) document",
    aliases=("Pplus", "P-plus"), normalised=True,
))
register(MeasureSpec(
    "Rprec", r_precision, (REL, Param("mult", "float", 1.0, "precision at ⌊mult·R + 0.9⌋ documents (trec_eval "
                                      "Rprec_mult)", low=0, open_low=True)),
    cite="trec_eval Rprec, Rprec_mult", doc="precision at rank R (or a multiple of R)",
    aliases=("R-prec", "Rprecision"), cutoff="none", normalised=True, depth=lambda p: None,
    reference=f"{TREC_EVAL}: Rprec",
))
register(MeasureSpec(
    "F", f_measure, (CUT, Param("beta", "float", 1.0, "weight of recall against precision (0: precision)", low=0),
                     REL),
    cite="van Rijsbergen 1979; trec_eval set_F", doc="F-measure over the retrieved set (the first k with @k)",
    aliases=("SetF", "F1"), normalised=True, reference=f"{TREC_EVAL}: set_F",
))
register(MeasureSpec(
    "NumRet", num_ret, (CUT,), cite="trec_eval num_ret", doc="number of documents retrieved",
    value_range=(0.0, float("inf")), depth=lambda p: 0, reference=f"{TREC_EVAL}: num_ret", aggregate="sum",
))
register(MeasureSpec(
    "NumRel", num_rel, (REL,), cite="trec_eval num_rel", doc="number of relevant documents of the topic",
    value_range=(0.0, float("inf")), cutoff="none", depth=lambda p: 0, reference=f"{TREC_EVAL}: num_rel",
    aggregate="sum",
))
register(MeasureSpec(
    "Success", success, (CUT, REL), cite="trec_eval success.k; NTCIREVAL Hit@l",
    doc="1 if a relevant document is in the top k", aliases=("Hit",),
    cutoff="required", normalised=True, reference=f"{TREC_EVAL}: success_k",
))
register(MeasureSpec(
    "Bpref", bpref, (CUT, REL), cite="Buckley & Voorhees, SIGIR 2004; trec_eval bpref",
    doc="binary preference: relevant documents ranked above judged non-relevant ones", aliases=("bpref",),
    reference=f"{TREC_EVAL}: bpref",
))
register(MeasureSpec(
    "infAP", inf_ap, (REL,), cite="Yilmaz & Aslam, CIKM 2006; trec_eval infAP",
    doc="inferred AP over a sampled pool (negative label: pooled, not judged; absent: not pooled)",
    cutoff="none", depth=lambda p: None, reference=f"{TREC_EVAL}: infAP",
))
register(MeasureSpec(
    "SetP", set_precision, (CUT, REL), cite="trec_eval set_P", doc="precision of the retrieved set",
    reference=f"{TREC_EVAL}: set_P",
))
register(MeasureSpec(
    "SetR", set_recall, (CUT, REL), cite="trec_eval set_recall", doc="recall of the retrieved set",
    reference=f"{TREC_EVAL}: set_recall",
))
register(MeasureSpec(
    "SetAP", set_ap, (CUT, REL), cite="trec_eval set_map", doc="SetP × SetR", reference=f"{TREC_EVAL}: set_map",
))
register(MeasureSpec(
    "IPrec", iprec, (Param("cutoff", "float", None, "the recall level r in [0, 1]", low=0, high=1), REL, ROUNDING),
    cite="trec_eval iprec_at_recall", doc="interpolated precision at a recall level", cutoff="required",
    depth=lambda p: None, reference=f"{TREC_EVAL}: iprec_at_recall_r",
))
register(MeasureSpec(
    "11pt", eleven_point, (RecallLevels("levels", "levels", None, "the recall levels averaged (default: 0, 0.1, "
                                        "..., 1)"), REL, ROUNDING),
    cite="trec_eval 11pt_avg", doc="11-point interpolated average precision (or over the given recall levels)",
    aliases=("11pt_avg",), cutoff="none", depth=lambda p: None, normalised=True, reference=f"{TREC_EVAL}: 11pt_avg",
))
register(MeasureSpec(
    "NumQ", num_q, (), cite="trec_eval num_q", doc="number of topics evaluated", value_range=(0.0, float("inf")),
    cutoff="none", depth=lambda p: 0, aggregate="sum", reference=f"{TREC_EVAL}: num_q",
))
register(MeasureSpec(
    "NumRelRet", num_rel_ret, (CUT, REL), cite="trec_eval num_rel_ret",
    doc="number of relevant documents retrieved", value_range=(0.0, float("inf")),
    reference=f"{TREC_EVAL}: num_rel_ret", aggregate="sum",
))
