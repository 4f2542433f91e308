"""Measures for truncated rankings: terminal-document, utility and information-theoretic (OIE)
measures (Amigó, Mizzaro & Spina, SIGIR 2022, §3; docs/conventions.md#truncated), and Sakai
& Zeng's intentwise RBU.

These measures read each ranking's true length (``Batch.length``): a ranking of three
documents differs from one padded with non-relevant documents, and the empty ranking is a
valid answer. Each is written as a *prefix* function giving the score of every truncation
n' = 0..n of every ranking at once, shape (S, T, D + 1), by cumulative sums; the ordinary
kernel reads it at n' = n (or min(n, k) with ``@k``). The optimal-truncation analysis uses
the prefix functions directly.

Relevance scales (Amigó, Mizzaro & Spina, SIGIR 2022, §4.1): Rel(d) = grade/max_rel for DCG-, RBP-, flat and terminal
measures; Rel'(d) = (2^grade − 1)/2^max_rel for the ERR- and RBU-derived ones (a binary
relevant document has Rel' = 0.5). max_rel is the qrels file's highest label unless given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from cranfield._numeric import distinct, ordered_dot, safe_div
from cranfield.batch import Batch
from cranfield.errors import MeasureError
from cranfield.measures._common import exp_stop, first_true, gain, gain_shift, log2_discount, ranks
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, extend, register

PAPER = "Amigó, Mizzaro & Spina, SIGIR 2022"


def ranking_length(batch: Batch, cutoff: int | None) -> np.ndarray:
    """n = the number of documents each ranking returns (at most ``cutoff``), shape (S, T)."""
    return batch.length if cutoff is None else np.minimum(batch.length, cutoff)


def _grades(batch: Batch, cutoff: int | None) -> np.ndarray:
    return batch.grades[:, :, :cutoff]


def _top(batch: Batch, max_rel: int | None) -> int:
    return max(batch.topics.max_rel if max_rel is None else max_rel, 1)


def rel_linear(grades: np.ndarray, max_rel: int) -> np.ndarray:
    """Rel(d) = grade / max_rel in [0, 1]: 0 for non-positive labels, 1 from max_rel (the label
    of a fully relevant document) on."""
    return np.minimum(np.maximum(grades, 0), max_rel) / max_rel


def rel_exp(grades: np.ndarray, max_rel: int) -> np.ndarray:
    """Rel'(d) = (2^grade − 1) / 2^max_rel (Chapelle et al., CIKM 2009; Amigó, Mizzaro & Spina, SIGIR 2022, §4.1),
    labels above max_rel counting as max_rel; finite for any label (:func:`exp_stop`)."""
    return exp_stop(grades, max_rel)


def prefix_sum(per_rank: np.ndarray) -> np.ndarray:
    """Σ_{r ≤ n'} x_r for n' = 0..D: the last axis grows by one leading zero."""
    out = np.zeros(per_rank.shape[:-1] + (per_rank.shape[-1] + 1,))
    np.cumsum(per_rank, axis=-1, out=out[..., 1:])
    return out


def at_length(prefix: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The prefix value at each ranking's own length n, shape (S, T)."""
    return np.take_along_axis(prefix, np.minimum(n, prefix.shape[-1] - 1)[..., None], axis=-1)[..., 0]


def _satisfaction(rel: np.ndarray) -> np.ndarray:
    """R_r·Π_{s<r}(1 − R_s): the probability that the user stops at rank r (ERR's cascade)."""
    reach = np.cumprod(1.0 - rel, axis=-1)
    reach = np.concatenate((np.ones(reach.shape[:-1] + (1,)), reach[..., :-1]), axis=-1)
    return rel * reach


# --------------------------------------------------------------------------- utility family
def flat_utility_prefix(batch: Batch, *, cutoff: int | None, e: float = 0.05, max_rel: int | None = None) -> np.ndarray:
    """Flat utility U = Σ_{i≤n} (Rel(d_i) − e) (Amigó, Mizzaro & Spina, SIGIR 2022, §3.3)."""
    rel = rel_linear(_grades(batch, cutoff), _top(batch, max_rel))
    return prefix_sum(rel - e)


def dcgu_prefix(batch: Batch, *, cutoff: int | None, e: float = 0.05, max_rel: int | None = None) -> np.ndarray:
    """DCGU = Σ_{i≤n} (Rel(d_i) − e)/log2(i + 1) (Amigó, Mizzaro & Spina, SIGIR 2022, §3.3)."""
    rel = rel_linear(_grades(batch, cutoff), _top(batch, max_rel))
    return prefix_sum((rel - e) * log2_discount(rel.shape[-1]))


def erru_prefix(batch: Batch, *, cutoff: int | None, e: float = 0.05, max_rel: int | None = None) -> np.ndarray:
    """ERRU = Σ_{i≤n} (1/i)·(Rel'(d_i)·Π_{j<i}(1 − Rel'(d_j)) − e)
    (Amigó, Mizzaro & Spina, SIGIR 2022, §3.3)."""
    rel = rel_exp(_grades(batch, cutoff), _top(batch, max_rel))
    return prefix_sum((_satisfaction(rel) - e) / ranks(rel.shape[-1]))


def rbpu_prefix(batch: Batch, *, cutoff: int | None, p: float = 0.8, e: float = 0.05,
                max_rel: int | None = None) -> np.ndarray:
    """RBPU = (1 − p)·Σ_{k≤n} (Rel(d_k) − e)·p^{k−1} (Amigó, Mizzaro & Spina, SIGIR 2022, §3.3)."""
    rel = rel_linear(_grades(batch, cutoff), _top(batch, max_rel))
    return prefix_sum((1.0 - p) * (rel - e) * p ** np.arange(rel.shape[-1], dtype=np.float64))


def _rbu_top(batch: Batch, max_rel: Any) -> np.ndarray:
    """max_rel per topic and intent, shape (T, I): the file's highest label (at least 1), each
    (topic, intent)'s own (``topic``, as RBU.java), or a given integer."""
    topics = batch.topics
    if max_rel == "topic":
        return topics.ideal_intent.max(axis=2, initial=0)
    level = topics.max_rel if max_rel == "file" else int(max_rel)
    return np.full(topics.weights.shape, max(level, 1))


def rbu_prefix(batch: Batch, *, cutoff: int | None, p: float = 0.8, e: float = 0.05,
               max_rel: Any = "file") -> np.ndarray:
    """Rank-biased utility (Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018; Amigó, Mizzaro & Spina, SIGIR 2022, §3.3):
    Σ_i w_i·(1 − p)·Σ_{r≤n} p^{r−1}·REL_i(d_r)·Π_{s<r}(1 − REL_i(d_s)) − e·(1 − p)·Σ_{r≤n} p^{r−1},
    REL_i = (2^g − 1)/2^max_rel. With one intent this is Amigó, Mizzaro & Spina's RBU; with diversity qrels
    it is the RBU reference implementation's measure (never NaN: an intent without relevant
    documents contributes 0)."""
    labels = batch.labels[:, :, :cutoff]  # (S, T, D, I)
    rel = exp_stop(labels, _rbu_top(batch, max_rel)[None, :, None, :])
    stop = _satisfaction(np.moveaxis(rel, 3, 2))  # (S, T, I, D)
    gained = (stop * batch.topics.weights[None, :, :, None]).sum(axis=2)
    weight = (1.0 - p) * p ** np.arange(gained.shape[-1], dtype=np.float64)
    return prefix_sum((gained - e) * weight)


def irbu(batch: Batch, *, cutoff: int | None, p: float = 0.99, gains: Any = "linear") -> np.ndarray:
    """Intentwise RBU (Sakai & Zeng 2019; NTCIREVAL): per intent
    Σ_{r≤l} p^r·(g_r/(h+1))·Π_{s<r}(1 − g_s/(h+1)), h the gain of the highest label, then Σ_i w_i.
    Rank-equivalent to RBU with e = 0 but not equal to it; it has no effort term, so it does
    not see truncation. Gains are scaled per topic (:func:`gain_shift`), so h may be huge."""
    labels = batch.labels[:, :, :cutoff]
    shift = gain_shift(batch, gains, batch.topics.max_rel)
    h_plus_1 = gain(np.asarray(batch.topics.max_rel), gains, shift) + np.exp2(-shift)  # (h + 1)·2^−s, (T,)
    stop = _satisfaction(np.moveaxis(gain(labels, gains, shift[:, None, None]) / h_plus_1[:, None, None], 3, 2))
    per_intent = ordered_dot(stop, p ** np.arange(1, stop.shape[-1] + 1, dtype=np.float64))
    return (per_intent * batch.topics.weights[None]).sum(axis=-1)


# --------------------------------------------------------------------------- terminal document
def _terminal_relevance(batch: Batch, rel_prefix: np.ndarray, max_rel: int) -> np.ndarray:
    """Rel_T(n') = Σ_{i≤n'} Rel(d_i) / Σ_{d judged} Rel(d), or 1 when the topic has no relevant
    document (Liu et al. 2016), shape (S, T, D + 1)."""
    total = rel_linear(batch.topics.ideal, max_rel).sum(axis=1)[None, :, None]
    return np.where(total > 0, safe_div(rel_prefix, np.broadcast_to(total, rel_prefix.shape)), 1.0)


def ndcgt_prefix(batch: Batch, *, cutoff: int | None, gains: Any = "linear") -> np.ndarray:
    """NDCGT (Liu et al., SIGIR 2016; Amigó, Mizzaro & Spina, SIGIR 2022, §3.2): nDCG of d_1..d_n followed by a terminal
    document with gain Rel_T·gain(max_rel), over the ideal list followed by a terminal
    document with Rel_T = 1. ``@k`` truncates the run; the ideal list is never cut."""
    top = _top(batch, None)
    shift = gain_shift(batch, gains, top)[:, None]  # gains scaled per topic: the ratio is the same
    grades = _grades(batch, cutoff)
    g = gain(grades, gains, shift)
    d = g.shape[-1]
    rel_t = _terminal_relevance(batch, prefix_sum(rel_linear(grades, top)), top)
    g_max = gain(np.asarray(top), gains, shift)  # (T, 1)
    terminal = rel_t * g_max * log2_discount(d + 1)  # the terminal at rank n' + 1
    run = prefix_sum(g * log2_discount(d)) + terminal
    ideal_g = gain(batch.topics.ideal, gains, shift)
    big_r = (batch.topics.ideal > 0).sum(axis=1)
    ideal = ordered_dot(ideal_g, log2_discount(ideal_g.shape[1])) + g_max[:, 0] / np.log2(big_r + 2.0)
    return safe_div(run, ideal[None, :, None])


def errt_prefix(batch: Batch, *, cutoff: int | None, max_rel: int | None = None) -> np.ndarray:
    """ERRT (Amigó, Mizzaro & Spina, SIGIR 2022, §3.2): ERR with stop probability Rel'(d_i) for the documents and the
    unscaled Rel_T for a terminal document at rank n + 1."""
    top = _top(batch, max_rel)
    grades = _grades(batch, cutoff)
    stop = rel_exp(grades, top)
    d = stop.shape[-1]
    docs = prefix_sum(_satisfaction(stop) / ranks(d))
    reach = np.concatenate((np.ones(stop.shape[:-1] + (1,)), np.cumprod(1.0 - stop, axis=-1)), axis=-1)
    rel_t = _terminal_relevance(batch, prefix_sum(rel_linear(grades, top)), top)
    return docs + reach * rel_t / ranks(d + 1)


def rbpt_prefix(batch: Batch, *, cutoff: int | None, p: float = 0.8, max_rel: int | None = None) -> np.ndarray:
    """RBPT (Amigó, Mizzaro & Spina, SIGIR 2022, §3.2): RBP with a terminal document of gain Rel_T at rank n + 1:
    (1 − p)·(Σ_{i≤n} p^{i−1}·Rel(d_i) + p^n·Rel_T)."""
    top = _top(batch, max_rel)
    rel = rel_linear(_grades(batch, cutoff), top)
    d = rel.shape[-1]
    rel_t = _terminal_relevance(batch, prefix_sum(rel), top)
    return (1.0 - p) * (prefix_sum(rel * p ** np.arange(d, dtype=np.float64)) + p ** np.arange(d + 1.0) * rel_t)


def rrt_prefix(batch: Batch, *, cutoff: int | None) -> np.ndarray:
    """RRT (Amigó, Mizzaro & Spina, SIGIR 2022, §3.2): 1/(rank of the first relevant document), or Rel_T/(n + 1)
    when the ranking has none."""
    top = _top(batch, None)
    grades = _grades(batch, cutoff)
    d = grades.shape[-1]
    hit = grades >= 1
    seen = prefix_sum(hit) > 0
    index, found = first_true(hit)
    first = np.where(found, index + 1.0, np.inf)[..., None]
    rel_t = _terminal_relevance(batch, prefix_sum(rel_linear(grades, top)), top)
    return np.where(seen, 1.0 / first, rel_t / ranks(d + 1))


# --------------------------------------------------------------------------- information theory
def oie_prefix(batch: Batch, *, cutoff: int | None, beta: float = 1.05, collection: int = 20000) -> np.ndarray:
    """OIE = H(S) + H(G) − β·H(S, G) (Amigó et al., ICTIR 2018;
    Amigó, Mizzaro & Spina, SIGIR 2022, §3.4), in closed form.

    The collection D holds the retrieved documents, every judged-relevant one and non-relevant
    filler, |D| = ``collection``. Retrieved documents rank by position, the others tie at +∞;
    counts use Rel(d') ≥ Rel(d) (graded), natural logarithms, the 1/|D| factor as written.
    H(S) = (n·ln|D| − ln n!)/|D|; H(G) = −(1/|D|)·Σ_v c_v·ln(c_{≥v}/|D|) over labels v ≥ 1;
    H(S, G) adds, for the document at rank r with label v, ln(#{s ≤ r : label_s ≥ v}/|D|)
    (r for v = 0), and for each non-retrieved relevant one ln(c_{≥v}/|D|). O(n + R) per topic,
    never materialising the collection.
    """
    grades = np.maximum(_grades(batch, cutoff), 0)
    ideal = np.maximum(batch.topics.ideal, 0)
    d = grades.shape[-1]
    size = float(collection)
    # labels matter only through their order: level v = 1..V numbers the distinct positive labels
    values = distinct(np.concatenate((ideal.ravel(), grades.ravel())))
    values = values[values > 0]
    level = np.arange(1, values.size + 1)[:, None]  # (V, 1)
    ranked = np.where(grades > 0, np.searchsorted(values, grades) + 1, 0)[..., None, :]  # (S, T, 1, D)
    judged = (np.where(ideal > 0, np.searchsorted(values, ideal) + 1, 0)[:, None, :]
              == level).sum(axis=2)  # c_v, (T, V)
    rank = np.broadcast_to(ranks(d), grades.shape)
    if values.size:  # documents at a rank at least as good with a label at least as high
        at_least = np.cumsum(ranked >= level, axis=-1)  # (S, T, V, D)
        own = np.take_along_axis(at_least, np.maximum(ranked - 1, 0), axis=-2)[..., 0, :]
        count = np.where(ranked[..., 0, :] > 0, own, rank)
    else:
        count = rank
    retrieved = prefix_sum(ranked == level)  # per level: retrieved so far, (S, T, V, D + 1)
    judged_ge = np.cumsum(judged[:, ::-1], axis=1)[:, ::-1]  # c_{≥v}
    log_ge = np.where(judged_ge > 0, np.log(np.maximum(judged_ge, 1) / size), 0.0)  # (T, V)
    h_g = -(judged * log_ge).sum(axis=1) / size  # (T,)
    h_s = (ranks(d + 1) - 1) * np.log(size) - np.concatenate(([0.0], np.cumsum(np.log(ranks(d)))))
    h_s = h_s / size
    joint_ranked = -prefix_sum(np.log(count / size)) / size
    missing = judged[None, :, :, None] - retrieved  # (S, T, V, D + 1)
    joint_missing = -(missing * log_ge[None, :, :, None]).sum(axis=2) / size
    outside = judged.sum(axis=1)[None, :, None] - retrieved.sum(axis=2)
    n = ranking_length(batch, cutoff)
    if bool((n + at_length(outside, n) > size).any()):
        raise MeasureError(
            f"The 'collection' parameter of OIE ({collection}) is smaller than the retrieved plus the "
            "non-retrieved relevant documents of some topic; give a larger collection=."
        )
    return h_s + h_g[None, :, None] - beta * (joint_ranked + joint_missing)


# --------------------------------------------------------------------------- registration
PrefixKernel = Callable[..., np.ndarray]


def kernel_of(prefix: PrefixKernel) -> Callable[..., np.ndarray]:
    """The measure at each ranking's length (min(n, k) with ``@k``) from its prefix function."""
    def at_n(batch: Batch, *, cutoff: int | None = None, **params: Any) -> np.ndarray:
        return at_length(prefix(batch, cutoff=cutoff, **params), ranking_length(batch, cutoff))

    at_n.__doc__ = prefix.__doc__
    return at_n


def f_prefix(batch: Batch, *, cutoff: int | None, beta: float = 1.0, rel: int = 1) -> np.ndarray:
    """F_β over the retrieved set, at every truncation (0 for the empty ranking)."""
    hits = prefix_sum(_grades(batch, cutoff) >= rel)
    n = ranks(hits.shape[-1]) - 1
    precision, recall = (safe_div(hits, np.broadcast_to(n, hits.shape)),
                         safe_div(hits, batch.topics.num_rel(rel)[None, :, None]))
    return safe_div((1 + beta**2) * precision * recall, beta**2 * precision + recall)


CUT = cutoff_param("truncate the run to its first k documents first")
E = Param("e", "float", 0.05, "effort per inspected document, in relevance units (Amigó, Mizzaro & Spina: 1/20)", low=0)
P = Param("p", "float", 0.8, "persistence: the probability of moving to the next rank", low=0, high=1, open_high=True)
MAXREL = Param("max_rel", "int", None, "the label that means fully relevant (default: the qrels' highest label)", low=1)
RBU_MAXREL = Param("max_rel", "maxrel", "file",
                   "normaliser of REL = (2^g - 1)/2^max_rel: file (the qrels' highest label), topic (each "
                   "topic and intent's own, as RBU.java) or a label")

FAMILY: list[tuple[str, PrefixKernel, tuple[Param, ...], tuple[float, float], str, str]] = [
    # name, prefix function, params, range, doc, cite
    ("FlatUtility", flat_utility_prefix, (E, MAXREL), (-np.inf, np.inf), "Σ (Rel − e)", "§3.3"),
    ("RBU", rbu_prefix, (P, E, RBU_MAXREL), (-1.0, 1.0), "rank-biased utility",
     "§3.3; Amigó, Spina & Carrillo-de-Albornoz, SIGIR 2018"),
    ("DCGU", dcgu_prefix, (E, MAXREL), (-np.inf, np.inf), "DCG with an effort cost per document", "§3.3"),
    ("ERRU", erru_prefix, (E, MAXREL), (-np.inf, np.inf), "ERR with an effort cost per document", "§3.3"),
    ("RBPU", rbpu_prefix, (P, E, MAXREL), (-1.0, 1.0), "RBP with an effort cost per document", "§3.3"),
    ("NDCGT", ndcgt_prefix, (Param("gains", "gains", "linear", "gain of each label: linear, exp or a map"),),
     (0.0, np.inf), "nDCG with a terminal document (above 1 when a short ranking takes nearly all the "
     "relevance: its terminal comes earlier than the ideal's)", "§3.2; Liu et al. SIGIR 2016"),
    ("ERRT", errt_prefix, (MAXREL,), (0.0, 1.0), "ERR with a terminal document", "§3.2; Liu et al. SIGIR 2016"),
    ("RBPT", rbpt_prefix, (P, MAXREL), (0.0, 1.0), "RBP with a terminal document", "§3.2; Liu et al. SIGIR 2016"),
    ("RRT", rrt_prefix, (), (0.0, 1.0), "reciprocal rank with a terminal document", "§3.2; Liu et al. SIGIR 2016"),
    ("OIE", oie_prefix, (Param("beta", "float", 1.05, "weight of the joint entropy H(S,G)", low=1,
                                               open_low=True),
                         Param("collection", "int", 20000, "|D|, the collection size", low=1)),
     (-np.inf, np.inf), "observational information effectiveness", "§3.4; Amigó et al., ICTIR 2018"),
]

for name, prefix, params, value_range, doc, where in FAMILY:
    register(MeasureSpec(
        name, kernel_of(prefix), (CUT, *params), cite=f"{PAPER}, {where}", doc=doc,
        value_range=value_range, truncation_aware=True, depth=lambda p: p.get("cutoff"),
        normalised=name in ("NDCGT",), needs_intents=False, prefix=prefix,
    ))

register(MeasureSpec(
    "iRBU", irbu, (CUT, Param("p", "float", 0.99, "persistence (NTCIREVAL's default 0.99)", low=0, high=1,
                               open_high=True),
                   Param("gains", "gains", "linear", "gain of each label (h = gain of the highest label)")),
    cite="Sakai & Zeng, SIGIR 2019 (NTCIREVAL iRBU); Amigó, Mizzaro & Spina, SIGIR 2022, §3.1",
    doc="intentwise rank-biased utility",
))
extend("F", prefix=f_prefix)

__all__ = ["at_length", "prefix_sum", "kernel_of", "rel_linear", "rel_exp"] + [
    f.__name__ for _, f, *_ in FAMILY
] + ["irbu", "f_prefix"]
