"""Diversity measures (docs/conventions.md#ndeval): ndeval's family, subtopic recall and the intent-aware wrapper.

Labels come from the batch's intent axis: ``J_i(r) = [label_i(d_r) >= rel]`` (ndeval reads
graded judgments as binary). M' is the number of intents of the topic (those with a relevant
document, unless ``empty_intents="keep"``); a topic with M' = 0 scores 0 everywhere.

ndeval parity (ndeval 4.5 through pyndeval): ``alpha_nDCG``, ``alpha_DCG``, ``ERR_IA``,
``nERR_IA``, ``NRBP``, ``nNRBP``, ``AP_IA`` (MAP-IA), ``P_IA`` and ``StRecall`` (strec).
Two ndeval conventions are kept on purpose and documented per measure: the ideal list is
ndeval's greedy heuristic (so normalised values can exceed 1), and its "ideal-ideal"
normalisation is not applied at rank 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from cranfield._numeric import ordered_dot, safe_div
from cranfield.batch import Batch
from cranfield.measures._common import REL, log2_discount, ranks
from cranfield.measures.registry import REGISTRY, Measure, MeasureSpec, Param, cutoff_param, register

NDEVAL = "ndeval 4.5 (pyndeval)"
ALPHA = Param("alpha", "float", 0.5,
              "redundancy penalty: each earlier document of the intent multiplies its gain by 1 - alpha",
              low=0, high=1)
BETA_NRBP = Param("beta", "float", 0.5, "patience of NRBP's user (ndeval's default 0.5)", low=0, high=1, open_high=True)


def intent_hits(batch: Batch, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """J_i(r): the document at rank r is relevant to intent i, shape (S, T, D, I)."""
    return batch.labels[:, :, :cutoff] >= rel


def novelty_gain(hits: np.ndarray, alpha: float) -> np.ndarray:
    """NG(r) = Σ_i J_i(r)·(1 − α)^{C_i(r−1)} (Clarke et al. SIGIR 2008, Eq. 4), shape (S, T, D).

    Only the relevant (rank, intent) cells are visited: in each (run, topic, intent) the k-th
    of them (from 0) gains (1 − α)^k, and the gains of a rank are added intent after intent,
    which is the order (and so the rounding) of the dense sum over fewer than 8 intents;
    with 8 or more intents the dense sum is kept, so the values are the same bit for bit.
    """
    s, t, d, n_int = hits.shape
    if n_int >= 8:  # numpy's pairwise sum over 8+ intents rounds in another order: keep it
        before = np.cumsum(hits, axis=2) - hits
        return (hits * (1.0 - alpha) ** before).sum(axis=3)
    cell = np.flatnonzero(np.moveaxis(hits, 3, 2))  # in (S, T, I, D) order: ranks ascending per intent
    if not cell.size:
        return np.zeros((s, t, d))
    group = cell // d  # (run, topic, intent)
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    k = np.arange(cell.size) - np.repeat(starts, np.diff(np.append(starts, cell.size)))
    powers = (1.0 - alpha) ** np.arange(int(k.max()) + 1, dtype=np.float64)
    rank = (group // n_int) * d + cell % d  # (run, topic, rank); its intents come in ascending order
    return np.bincount(rank, weights=powers[k], minlength=s * t * d).reshape(s, t, d)


def batch_novelty_gain(batch: Batch, cutoff: int | None, alpha: float, rel: int = 1) -> np.ndarray:
    """:func:`novelty_gain` of the batch's rankings to ``cutoff`` (all ranks when None), shape
    (S, T, min(cutoff, D)): computed once per batch for all the measures that share α and
    ``rel`` (NG at a cutoff is the prefix of NG at any deeper one)."""
    depth = batch.depth if cutoff is None else min(cutoff, batch.depth)
    return batch.cached_prefix(("novelty-gain", alpha, rel), depth,
                               lambda k: novelty_gain(intent_hits(batch, k, rel), alpha))


def greedy_ideal(doc_gains: np.ndarray, hits: np.ndarray, alpha: float, steps: int) -> np.ndarray:
    """The marginal gains of a greedy novelty-discounted ideal list, shape (T, steps).

    ``doc_gains`` (T, J, I) is each document's gain per intent, ``hits`` (T, J, I) whether it
    counts as relevant to the intent (each such document multiplies the intent's later gains by
    1 − α). Each step takes the document with the largest Σ_i gain·(1 − α)^{C_i}, summed over the
    intents in order (ndeval's order of operations); ties go to the first document of the J
    axis (the larger docno for ``Topics.rel_docs``). Vectorised over topics and documents, one
    iteration per rank (ranks past J score 0). With 0/1 gains this is ndeval's greedy α-ideal
    (:func:`greedy_alpha_ideal`). The first k steps do not depend
    on ``steps``: a list built to the cutoff is the prefix of the full one.
    """
    n_topics, n_docs, n_int = doc_gains.shape
    gains = np.ascontiguousarray(np.moveaxis(doc_gains, 2, 0))  # (I, T, J): one contiguous plane per intent
    factor = np.ones((n_int, n_topics, 1))
    taken = np.zeros((n_topics, n_docs), dtype=bool)
    out = np.zeros((n_topics, steps))
    rows = np.arange(n_topics)
    score = np.zeros((n_topics, n_docs))
    for step in range(min(steps, n_docs)):
        # the intents are added one after the other, as ndeval's loop does (a pairwise sum
        # could round a tie differently)
        if n_int:
            np.multiply(gains[0], factor[0], out=score)
            for i in range(1, n_int):
                score += gains[i] * factor[i]
        score[taken] = -1.0
        pick = score.argmax(axis=1)
        out[:, step] = np.maximum(score[rows, pick], 0.0)
        taken[rows, pick] = True
        factor = np.where(hits[rows, pick].T[:, :, None], factor * (1.0 - alpha), factor)
    return out


def greedy_alpha_ideal(batch: Batch, alpha: float, rel: int, depth: int | None = None) -> np.ndarray:
    """The novelty gains NG*(r) of ndeval's greedy ideal list, ranks 1..min(depth, J) (all J
    relevant documents when ``depth`` is None), shape (T, ·).

    Each step takes the document with the largest marginal gain, ties to the larger docno
    (``Topics.rel_docs`` is docno-descending, so ``argmax`` takes the first of equals); gains
    are accumulated in ndeval's order of operations so that its ties are reproduced exactly.
    A greedy list's first k ranks do not depend on how deep it goes, so a measure cut at k
    builds (and caches) only k ranks. A heuristic: the true maximum of α-DCG is NP-hard, and a
    run can beat this list.
    """
    def compute(steps: int) -> np.ndarray:
        docs = batch.topics.rel_docs >= rel  # (T, J, I)
        return greedy_ideal(docs.astype(np.float64), docs, alpha, steps)

    n_docs = batch.topics.rel_docs.shape[1]
    return batch.topics.cached_prefix(("alpha-ideal", alpha, rel), n_docs if depth is None else min(depth, n_docs),
                                      compute)


def nrbp_ideal_depth(beta: float, n_intents: int) -> int:
    """The ranks of the ideal list that can change nNRBP's denominator Σ_r β^{r−1}·NG*(r) in
    double precision. NG*(r) ≤ I and, when the sum is not 0, NG*(1) ≥ 1: the ranks past n add
    at most I·β^n/(1 − β), less than 2^−64 of the sum once n ≥ (64 + log2(I/(1 − β)))/log2(1/β)
    (1 for β = 0)."""
    if beta == 0:
        return 1
    return math.ceil((64 + math.log2(max(n_intents, 1) / (1.0 - beta))) / -math.log2(beta))


def alpha_ndcg(batch: Batch, *, cutoff: int | None, alpha: float = 0.5, rel: int = 1) -> np.ndarray:
    """α-nDCG@k (Clarke et al. SIGIR 2008): α-DCG@k = Σ_{r≤k} NG(r)/log2(r+1) over the α-DCG@k
    of ndeval's greedy ideal list (see :func:`greedy_alpha_ideal`; values can exceed 1)."""
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    ideal = greedy_alpha_ideal(batch, alpha, rel, cutoff)
    return safe_div(ordered_dot(ng, log2_discount(ng.shape[-1])), ordered_dot(ideal, log2_discount(ideal.shape[-1])))


def alpha_dcg(batch: Batch, *, cutoff: int, alpha: float = 0.5, rel: int = 1) -> np.ndarray:
    """ndeval's "alpha-DCG@k": α-DCG@k over the "ideal-ideal" in which every document covers
    every intent, Σ_{r≤k} M'(1−α)^{r−1}/log2(r+1) (collection-independent). As in ndeval the
    division is skipped at k = 1."""
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    num = ordered_dot(ng, log2_discount(ng.shape[-1]))
    if cutoff == 1:
        return num
    disc = log2_discount(cutoff)
    return safe_div(num, batch.topics.n_intents * ((1.0 - alpha) ** np.arange(cutoff) * disc).sum())


def err_ia(batch: Batch, *, cutoff: int, alpha: float = 0.5, rel: int = 1, norm: str = "ndeval",
           max_rel: int | None = None) -> np.ndarray:
    """ERR-IA@k as ndeval computes it: Σ_{r≤k} NG(r)/r over the ideal-ideal Σ_{r≤k} M'(1−α)^{r−1}/r
    (Chapelle et al. CIKM 2009 with binary labels and α-discounted intents; not divided at
    k = 1, like ndeval). ``norm="none"`` is Albahem et al., ADCS 2018, Eq. 5: Σ_i w_i·ERR_i with stop
    probability (2^g − 1)/2^max_rel."""
    if norm == "none":
        from cranfield.measures.adhoc import err

        return intent_aware(batch, err, cutoff=cutoff, max_rel=max_rel)
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    num = ordered_dot(ng, 1.0 / ranks(ng.shape[-1]))
    if cutoff == 1:
        return num
    return safe_div(num, batch.topics.n_intents * ((1.0 - alpha) ** np.arange(cutoff) / ranks(cutoff)).sum())


def nerr_ia(batch: Batch, *, cutoff: int | None, alpha: float = 0.5, rel: int = 1) -> np.ndarray:
    """nERR-IA@k (ndeval): Σ_{r≤k} NG(r)/r over the same sum for the greedy α-ideal list."""
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    ideal = greedy_alpha_ideal(batch, alpha, rel, cutoff)
    return safe_div(ordered_dot(ng, 1.0 / ranks(ng.shape[-1])), ordered_dot(ideal, 1.0 / ranks(ideal.shape[-1])))


def nrbp(batch: Batch, *, cutoff: int | None, alpha: float = 0.5, beta: float = 0.5, rel: int = 1) -> np.ndarray:
    """NRBP (Clarke, Kolla, Vechtomova ICTIR 2009): (1 − (1−α)β)/M' · Σ_r β^{r−1}·NG(r) over the
    whole run (ndeval's collection-independent normalisation)."""
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    total = ordered_dot(ng, beta ** np.arange(ng.shape[-1], dtype=np.float64))
    return safe_div((1.0 - (1.0 - alpha) * beta) * total, batch.topics.n_intents)


def nnrbp(batch: Batch, *, cutoff: int | None, alpha: float = 0.5, beta: float = 0.5, rel: int = 1) -> np.ndarray:
    """nNRBP (ndeval): NRBP over the NRBP of the greedy α-ideal list; 0 where that is 0 (ndeval
    prints NaN there). The ideal list stops where its further ranks cannot change the sum
    (:func:`nrbp_ideal_depth`)."""
    ng = batch_novelty_gain(batch, cutoff, alpha, rel)
    ideal = greedy_alpha_ideal(batch, alpha, rel, nrbp_ideal_depth(beta, batch.topics.rel_docs.shape[2]))
    return safe_div(ordered_dot(ng, beta ** np.arange(ng.shape[-1], dtype=np.float64)),
                    ordered_dot(ideal, beta ** np.arange(ideal.shape[-1], dtype=np.float64)))


def subtopic_recall(batch: Batch, *, cutoff: int | None, rel: int = 1) -> np.ndarray:
    """S-recall / I-rec@k (Zhai, Cohen, Lafferty SIGIR 2003): |{i : C_i(k) > 0}| / M'."""
    covered = intent_hits(batch, cutoff, rel).any(axis=2).sum(axis=-1)
    return safe_div(covered, batch.topics.n_intents)


# --------------------------------------------------------------------------- intent-aware wrapper
def per_intent_scores(batch: Batch, kernel: Callable[..., np.ndarray], **params: Any) -> np.ndarray:
    """X_i: an ad hoc kernel applied to each intent alone, shape (S, T, I).

    Intents are folded into the topic axis (T·I topics, each with its intent's labels and
    its own ideal list), so one kernel call scores them all.
    """
    s, t, _, n_int = batch.labels.shape
    return kernel(folded_intents(batch), **params).reshape(s, t, n_int)


def folded_intents(batch: Batch) -> Batch:
    """The batch with each (topic, intent) as a topic of its own (T·I topics, one intent each),
    built once per batch; its topics (:meth:`Topics.per_intent`) once per set of topics, so
    that what the kernels cache on them (ideal lists) serves every run."""
    def fold() -> Batch:
        s, t, d, n_int = batch.labels.shape
        labels = np.moveaxis(batch.labels, 3, 2).reshape(s, t * n_int, d, 1)
        return Batch(
            labels, np.repeat(batch.judged, n_int, axis=1), np.repeat(batch.length, n_int, axis=1),
            np.repeat(batch.present, n_int, axis=1), batch.topics.cached(("per-intent",), batch.topics.per_intent),
        )

    return batch.cached(("per-intent",), fold)


def intent_aware(batch: Batch, kernel: Callable[..., np.ndarray], **params: Any) -> np.ndarray:
    """IA(X) = Σ_i w_i·X_i (Agrawal et al., WSDM 2009; Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 8;
    Sakai, WWW 2012, Eq. 5)."""
    return (per_intent_scores(batch, kernel, **params) * batch.topics.weights).sum(axis=-1)


def ia(batch: Batch, *, measure: Measure, cutoff: None = None) -> np.ndarray:
    """``IA(X)``: any registered ad hoc measure X made intent-aware."""
    return intent_aware(batch, measure.spec.kernel, **measure.params)


def _ia_per_intent(batch: Batch, *, measure: Measure, cutoff: None = None) -> np.ndarray:
    return per_intent_scores(batch, measure.spec.kernel, **measure.params)


CUT = cutoff_param()

register(MeasureSpec(
    "StRecall", subtopic_recall, (CUT, REL), cite="Zhai, Cohen, Lafferty SIGIR 2003; ndeval strec@k",
    doc="subtopic recall: fraction of the intents covered", aliases=("I-rec", "S-recall", "strec", "Irec"),
    needs_intents=True, normalised=True, reference=f"{NDEVAL}: strec@k",
))
register(MeasureSpec(
    "alpha_nDCG", alpha_ndcg, (CUT, ALPHA, REL), cite="Clarke et al. SIGIR 2008, Eq. 4; ndeval alpha-nDCG@k",
    doc="novelty-biased nDCG over ndeval's greedy ideal (can exceed 1)", aliases=("alpha-nDCG", "a-nDCG"),
    needs_intents=True, value_range=(0.0, float("inf")), reference=f"{NDEVAL}: alpha-nDCG@k",
))
register(MeasureSpec(
    "alpha_DCG", alpha_dcg, (CUT, ALPHA, REL), cite="ndeval alpha-DCG@k (collection-independent normalisation)",
    doc="α-DCG over the ideal-ideal (every document covering every intent; not divided at k = 1)",
    aliases=("alpha-DCG",), cutoff="required", needs_intents=True, value_range=(0.0, float("inf")),
    reference=f"{NDEVAL}: alpha-DCG@k",
))
register(MeasureSpec(
    "ERR_IA", err_ia, (CUT, ALPHA, REL,
                       Param("norm", "choice", "ndeval",
                             "ndeval: over the ideal-ideal; none: Albahem et al., ADCS 2018, Eq. 5, Σ w_i ERR_i",
                             choices=("ndeval", "none")),
                       Param("max_rel", "int", None, "for norm=none: the label that means certainly satisfied", low=1)),
    cite="Chapelle et al. CIKM 2009; ndeval ERR-IA@k", doc="intent-aware expected reciprocal rank",
    aliases=("ERR-IA",), cutoff="required", needs_intents=True, value_range=(0.0, float("inf")),
    reference=f"{NDEVAL}: ERR-IA@k",
))
register(MeasureSpec(
    "nERR_IA", nerr_ia, (CUT, ALPHA, REL), cite="ndeval nERR-IA@k", doc="ERR-IA over the greedy α-ideal list",
    aliases=("nERR-IA",), needs_intents=True, value_range=(0.0, float("inf")), reference=f"{NDEVAL}: nERR-IA@k",
))
register(MeasureSpec(
    "NRBP", nrbp, (CUT, ALPHA, BETA_NRBP, REL), cite="Clarke, Kolla, Vechtomova ICTIR 2009; ndeval NRBP",
    doc="novelty- and rank-biased precision", needs_intents=True, reference=f"{NDEVAL}: NRBP",
))
register(MeasureSpec(
    "nNRBP", nnrbp, (CUT, ALPHA, BETA_NRBP, REL), cite="ndeval nNRBP", doc="NRBP over the greedy α-ideal list",
    needs_intents=True, value_range=(0.0, float("inf")), reference=f"{NDEVAL}: nNRBP",
))
register(MeasureSpec(
    "IA", ia, (CUT, Param("measure", "measure", None, "the ad hoc measure made intent-aware")),
    cite="Agrawal et al., WSDM 2009; Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 8; Sakai, WWW 2012, Eq. 5",
    doc="intent-aware version of any ad hoc measure: Σ_i w_i X_i", needs_intents=True, per_intent=_ia_per_intent,
))

# X_IA spellings of IA(X); ndeval's MAP-IA and P-IA are IA(AP) and IA(P@k) with uniform weights
for base, names, ref in [
    ("nDCG", ("nDCG_IA", "nDCG-IA"), ""),
    ("AP", ("AP_IA", "MAP-IA", "MAP_IA", "AP-IA"), f"{NDEVAL}: MAP-IA"),
    ("P", ("P_IA", "P-IA"), f"{NDEVAL}: P-IA@k"),
    ("Q", ("Q_IA", "Q-IA"), ""),
    ("RR", ("RR_IA", "RR-IA", "MRR_IA"), ""),
    ("R", ("R_IA", "R-IA"), ""),
]:
    spec = REGISTRY[base]

    def _kernel(batch: Batch, _k: Callable[..., np.ndarray] = spec.kernel, **params: Any) -> np.ndarray:
        return intent_aware(batch, _k, **params)

    def _per_intent(batch: Batch, _k: Callable[..., np.ndarray] = spec.kernel, **params: Any) -> np.ndarray:
        return per_intent_scores(batch, _k, **params)

    _kernel.__doc__ = f"IA({base}) = Σ_i w_i·{base}_i (see :func:`intent_aware`)."
    register(MeasureSpec(
        names[0], _kernel, spec.params, cite=f"IA({base}); {spec.cite}", doc=f"intent-aware {spec.doc}",
        aliases=names[1:], cutoff=spec.cutoff, value_range=spec.value_range, normalised=spec.normalised,
        needs_intents=True, depth=spec.depth, reference=ref, per_intent=_per_intent,
    ))

__all__ = [
    "intent_hits", "novelty_gain", "batch_novelty_gain", "greedy_ideal", "greedy_alpha_ideal", "nrbp_ideal_depth",
    "alpha_ndcg", "alpha_dcg", "err_ia", "nerr_ia", "nrbp", "nnrbp", "subtopic_recall", "per_intent_scores",
    "folded_intents", "intent_aware", "ia",
]
