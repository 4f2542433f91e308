"""Judgment coverage, unnormalised DCG and compatibility (docs/conventions.md#judged-dcg-compat).

- ``Judged@k``: the fraction of the top k that is judged (ir_measures' ``Judged``, from OpenNIR).
- ``DCG@k``: discounted cumulative gain itself (Järvelin & Kekäläinen, TOIS 2002), the numerator
  of cranfield's ``nDCG``: same gains, same 1/log2(r + 1) discount.
- ``Compat``: rank-biased overlap with the best ideal ranking (Clarke, Vtyurina & Smucker,
  TOIS 2021), as ir_measures' ``Compat`` computes it.

Each kernel maps a :class:`~cranfield.batch.Batch` to an (S, T) array.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.errors import MeasureError
from cranfield.measures._common import cut, gain, gain_shift, within_length
from cranfield.measures.adhoc import LINEAR, dcg
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

IR_MEASURES = "ir_measures 0.4 (its judged and compat providers)"
LARGEST = float(np.finfo(np.float64).max)


def judged_at(batch: Batch, *, cutoff: int | None, source: str | None = None) -> np.ndarray:
    """Judged@k = |{r ≤ min(k, n) : d_r judged}| / min(k, n), n the ranking's length (ir_measures'
    ``Judged``): a ranking shorter than k is divided by its own length, and without k the whole
    ranking counts. A document is judged when the qrels list it, whatever its label (negative
    labels included). An empty ranking scores 0.

    ``source=NAME`` counts only the documents whose label comes from that source of layered
    qrels (docs/judges.md#layered): with the reference's and a judge's layers, Judged@k(source=judge)
    is the share of the top k that only the judge's labels cover (the filled holes)."""
    judged = batch.judged if source is None else _judged_by(batch, source)
    n = batch.length if cutoff is None else np.minimum(batch.length, cutoff)
    return safe_div(cut(judged, cutoff).sum(axis=-1), n)


def _judged_by(batch: Batch, source: str) -> np.ndarray:
    """Which ranked documents have a label from ``source`` (S, T, D); an error for qrels that
    name no sources or not that one."""
    if batch.judged_by is None:
        raise MeasureError(f"Judged(source={source}) needs layered qrels, whose fifth column names the source of "
                           "each label (qid iter docno rel source, as cranfield judges --fill writes them)")
    if source not in batch.judges:
        raise MeasureError(f"Judged(source={source}): the qrels name no source {source!r}; theirs are "
                           f"{', '.join(batch.judges)}")
    return batch.judged_by == batch.judges.index(source)


class SourceName(Param):
    """The name of a source of layered qrels (a word of their fifth column), or None: any source."""

    def describe(self) -> str:
        return "a source named in the fifth column of layered qrels (no spaces, commas or parentheses)"

    def convert(self, text: Any, measure: str) -> str | None:
        word = None if text is None else str(text).strip()
        if word is not None and (not word or any(c in word for c in " \t,()=@")):
            raise MeasureError(f"The {self.name!r} parameter of {measure} must be {self.describe()}. "
                               f"Got {text!r} instead.")
        return word


def dcg_at(batch: Batch, *, cutoff: int | None, gains: Any = "linear") -> np.ndarray:
    """DCG@k = Σ_{r≤k} gain(d_r) / log2(r + 1) (Järvelin & Kekäläinen, TOIS 2002, §2.2, with the
    log2(r + 1) discount of trec_eval's ``ndcg``; Burges et al., ICML 2005, for ``gains=exp``):
    the numerator of :func:`~cranfield.measures.adhoc.ndcg`, not divided by the ideal's.

    Exponential gains of labels from about 1000 on are summed at a scale 2^−s
    (:func:`~cranfield.measures._common.gain_shift`) and scaled back; a sum beyond the largest
    double is reported as that double (≈1.8e308) instead of infinity.
    """
    shift = gain_shift(batch, gains)[:, None]  # (T, 1); 0 unless exp gains exceed 2^512
    scaled = dcg(gain(cut(batch.grades, cutoff), gains, shift))
    if not shift.any():
        return scaled
    with np.errstate(over="ignore"):
        return np.minimum(np.ldexp(scaled, shift[:, 0].astype(np.int64)), LARGEST)


def _ideal_positions(batch: Batch, relevant: np.ndarray) -> np.ndarray:
    """Position (0-based) of each ranked relevant document in the ideal ranking that agrees best
    with the run, shape (S, T, D): the topic's relevant documents by label, largest first, and
    within a label the retrieved ones first, in the run's order (the unretrieved after them, in
    any order). That is the count of the topic's relevant documents with a larger label plus the
    count of documents of the same label ranked above it. Meaningless where ``relevant`` is False.
    """
    grades = batch.grades
    s, t, d = grades.shape
    if d == 0:
        return np.zeros(grades.shape, dtype=np.int64)
    # documents of the same label ranked above: a stable sort by label groups them in rank order
    key = np.where(relevant, -grades.astype(np.float64), np.inf)
    order = np.argsort(key, axis=-1, kind="stable")
    sorted_key = np.take_along_axis(key, order, axis=-1)
    q = np.arange(d)
    starts = np.concatenate((np.ones((s, t, 1), dtype=bool), sorted_key[..., 1:] != sorted_key[..., :-1]), axis=-1)
    group_start = np.maximum.accumulate(np.where(starts, q, 0), axis=-1)
    same_above = np.empty((s, t, d), dtype=np.int64)
    np.put_along_axis(same_above, order, q - group_start, axis=-1)
    # relevant documents of the topic with a larger label: one searchsorted over all topics, the
    # labels replaced by their rank among all values (rows of the ideal are sorted descending)
    ideal = batch.topics.ideal
    levels, index = np.unique(np.concatenate((ideal.ravel(), grades.ravel())), return_inverse=True)
    u, k = len(levels), ideal.shape[1]
    ideal_level, grade_level = index[: ideal.size].reshape(ideal.shape), index[ideal.size:].reshape(grades.shape)
    topic = np.arange(t, dtype=np.int64)
    keys = (topic[:, None] * u + (u - 1 - ideal_level)).ravel()  # ascending within and across rows
    query = topic[None, :, None] * u + (u - 1 - grade_level)
    larger = np.searchsorted(keys, query, side="left") - topic[None, :, None] * k
    return larger + same_above


def compat(batch: Batch, *, p: float = 0.95, normalize: bool = True) -> np.ndarray:
    """Compatibility (Clarke, Vtyurina & Smucker, TOIS 2021, §3): rank-biased overlap (Webber,
    Moffat & Zobel, TOIS 2010, Eq. 4 truncated at depth N) of the ranking with the ideal ranking
    of the topic's relevant documents (label > 0) that agrees best with it, over that of the
    ideal ranking with itself.

    RBO_N(A, B) = Σ_{i=1..N} p^{i−1}·|A_{:i} ∩ B_{:i}|/i / Σ_{i=1..N} p^{i−1}, N = max(n, R), n the
    ranking's length and R the number of relevant documents (ir_measures' ``compat`` provider).
    The ideal orders documents by label, largest first, and documents of equal label as the run
    ranks them, retrieved before unretrieved (§3.2: the ideal most compatible with the run, so
    ties in the qrels cost nothing). ``normalize=True`` divides by RBO_N(ideal, ideal); otherwise
    the value is RBO_N itself. 0 for a topic without relevant documents.

    In closed form: a document at rank j (1-based) and ideal position π is in both prefixes
    from depth m = max(j, π) on, so it adds Σ_{i=m..N} p^{i−1}/i = F(N) − F(m − 1), F(k) = Σ_{i≤k} p^{i−1}/i.
    """
    grades = batch.grades
    d = grades.shape[-1]
    n = np.minimum(batch.length, d)
    relevant = (grades > 0) & within_length(n, d)
    num_rel = (batch.topics.ideal > 0).sum(axis=1)  # (T,)
    depth = np.maximum(n, num_rel[None, :])  # N, (S, T)
    top = int(max(d, batch.topics.ideal.shape[1], 1))
    weight = p ** np.arange(top, dtype=np.float64)  # p^{i-1}, i = 1..top
    f = np.concatenate(([0.0], np.cumsum(weight / np.arange(1, top + 1))))  # F(0..top)
    f_depth = f[depth]
    rank = np.arange(d)
    first_shared = np.maximum(rank, _ideal_positions(batch, relevant))  # m − 1, 0-based
    overlap = np.where(relevant, f_depth[..., None] - f[np.minimum(first_shared, top)], 0.0).sum(axis=-1)
    if not normalize:
        total = np.concatenate(([0.0], np.cumsum(weight)))[depth]  # Σ_{i≤N} p^{i−1}
        return safe_div(overlap, total)
    # the ideal against itself: its document at position π adds F(N) − F(π), π = 0..R−1
    f_sums = np.concatenate(([0.0], np.cumsum(f)))  # Σ_{m<k} F(m)
    best = num_rel[None, :] * f_depth - f_sums[num_rel][None, :]
    return safe_div(overlap, best)


# --------------------------------------------------------------------------- registration
register(MeasureSpec(
    "Judged", judged_at, (cutoff_param(), SourceName("source", "source", None, "count only the labels of this "
                                                                              "source of layered qrels")),
    cite="ir_measures Judged (from OpenNIR): judged documents in the top min(k, n) over min(k, n)",
    doc="fraction of the top k (of the ranking, if shorter) that is judged (by one source of layered qrels: "
        "source=NAME)",
    reference=f"{IR_MEASURES}: Judged@k",
))
register(MeasureSpec(
    "DCG", dcg_at, (cutoff_param(), LINEAR),
    cite="Järvelin & Kekäläinen, TOIS 2002, §2.2; discount 1/log2(r+1) as trec_eval's ndcg",
    doc="discounted cumulative gain, not normalised: the numerator of nDCG",
    value_range=(0.0, float("inf")),
    reference="the numerator of nDCG (trec_eval ndcg, ndcg_cut.k)",
))
register(MeasureSpec(
    "Compat", compat,
    (Param("p", "float", 0.95, "persistence of rank-biased overlap", low=0, high=1),
     Param("normalize", "bool", True, "divide by the ideal ranking's own overlap, so the ideal scores 1")),
    cite="Clarke, Vtyurina & Smucker, TOIS 2021; RBO of Webber, Moffat & Zobel, TOIS 2010, Eq. 4",
    doc="compatibility: rank-biased overlap with the most compatible ideal ranking, over the ideal's own",
    cutoff="none", normalised=True, truncation_aware=True,
    reference=f"{IR_MEASURES}: Compat(p, normalize)",
))
