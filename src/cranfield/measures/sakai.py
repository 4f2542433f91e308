"""Sakai's diversity family (Sakai, WWW 2012, §2–3; NTCIREVAL conventions): D-, D#-, DIN-, DIN#-measures,
P+Q, P+Q# and effective precision.

Gains are ``exp`` (2^L − 1: L1 → 1, L2 → 3, L3 → 7) by default, the discount log2(r + 1),
γ = 0.5, and Q@l divides by min(l, R) (NTCIREVAL). A document is relevant (J(r) = 1) when it
is relevant to some intent. Navigational intents come from the intent file or ``--intent-types``;
untyped intents are informational.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np

from cranfield._numeric import ordered_dot, safe_div
from cranfield.batch import Batch
from cranfield.measures._common import blended_ratio, cut, gain, gain_shift
from cranfield.measures.adhoc import cascade, dcg, p_plus, q_measure, q_value, rbp_weights
from cranfield.measures.diversity import intent_hits, per_intent_scores, subtopic_recall
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

PAPER = "Sakai, WWW 2012"


def global_gain(batch: Batch, cutoff: int | None, gains: Any, shift: np.ndarray, *, din: bool = False) -> np.ndarray:
    """GG(r) = Σ_i w_i·g_i(r) (Sakai, WWW 2012, Eq. 6), shape (S, T, D), with the gains of topic t
    divided by 2^shift[t] (:func:`~cranfield.measures._common.gain_shift`).

    With ``din=True``, GG_DIN (Eq. 8): a navigational intent j only gains at the first rank
    relevant to it (isnew_j(r) = 1 iff no document relevant to j appears above r).
    """
    labels = batch.labels[:, :, :cutoff]
    g = gain(labels, gains, shift[:, None, None]) * batch.topics.weights[None, :, None, :]
    if din:
        hits = labels >= 1
        seen_before = (np.cumsum(hits, axis=2) - hits) > 0
        g = np.where(batch.topics.nav[None, :, None, :] & seen_before, 0.0, g)
    return g.sum(axis=3)


def ideal_global_gain(batch: Batch, gains: Any, shift: np.ndarray) -> np.ndarray:
    """GG*(r): the global gains of all relevant documents sorted descending, shape (T, J), scaled
    as :func:`global_gain`'s."""
    def compute() -> np.ndarray:
        topics = batch.topics
        gg = (gain(topics.rel_docs, gains, shift[:, None, None]) * topics.weights[:, None, :]).sum(axis=2)
        return -np.sort(-gg, axis=1)

    key = ("global-ideal", gains if isinstance(gains, str) else tuple(gains), shift.tobytes())
    return batch.topics.cached(key, compute)


def _relevant(batch: Batch, cutoff: int | None) -> tuple[np.ndarray, np.ndarray]:
    """J(r) (relevant to some intent), shape (S, T, D), and R per topic."""
    j = cast(np.ndarray, (batch.labels[:, :, :cutoff] >= 1).any(axis=3))
    r = (batch.topics.rel_docs >= 1).any(axis=2).sum(axis=1)
    return j, r


def _d_ndcg(batch: Batch, cutoff: int | None, gains: Any, din: bool) -> np.ndarray:
    shift = gain_shift(batch, gains)
    ideal = cut(ideal_global_gain(batch, gains, shift), cutoff)
    return safe_div(dcg(global_gain(batch, cutoff, gains, shift, din=din)), dcg(ideal))


def _d_q(batch: Batch, cutoff: int | None, gains: Any, beta: float, din: bool) -> np.ndarray:
    j, r = _relevant(batch, cutoff)
    shift = gain_shift(batch, gains)
    br = blended_ratio(j, global_gain(batch, cutoff, gains, shift, din=din), ideal_global_gain(batch, gains, shift),
                       beta, shift[:, None])
    return q_value(j, br, r, cutoff)


def d_ndcg(batch: Batch, *, cutoff: int | None, gains: Any = "exp") -> np.ndarray:
    """D-nDCG@l: nDCG with global gains GG(r) against one ideal list sorted by GG (Sakai, WWW 2012, §2.2)."""
    return _d_ndcg(batch, cutoff, gains, din=False)


def d_q(batch: Batch, *, cutoff: int | None, gains: Any = "exp", beta: float = 1.0) -> np.ndarray:
    """D-Q@l: Q@l with global gains, J(r) = relevant to some intent (Sakai, WWW 2012, §2.2)."""
    return _d_q(batch, cutoff, gains, beta, din=False)


def d_err(batch: Batch, *, cutoff: int | None, gains: Any = "exp") -> np.ndarray:
    """D-ERR@l: the ERR cascade with stop probability GG(r)/(GG*_max + 1), over the same for the
    ideal list (docs/conventions.md#sakai)."""
    shift = gain_shift(batch, gains)
    ideal = ideal_global_gain(batch, gains, shift)
    top = (ideal[:, :1].sum(axis=1) + np.exp2(-shift))[:, None]  # (GG*_max + 1)·2^−s
    return safe_div(cascade(global_gain(batch, cutoff, gains, shift) / top[None]), cascade(cut(ideal, cutoff) / top))


def d_rbp(batch: Batch, *, cutoff: int | None, gains: Any = "exp", p: float = 0.8) -> np.ndarray:
    """D-RBP(p)@l: (1 − p)·Σ_r p^{r−1}·GG(r)/GG*_max, unnormalised (docs/conventions.md#sakai)."""
    shift = gain_shift(batch, gains)
    gg = global_gain(batch, cutoff, gains, shift)
    top = ideal_global_gain(batch, gains, shift)[:, :1].sum(axis=1)
    return safe_div(ordered_dot(gg, rbp_weights(p, gg.shape[-1])), top)


def din_ndcg(batch: Batch, *, cutoff: int | None, gains: Any = "exp") -> np.ndarray:
    """DIN-nDCG@l (Sakai, WWW 2012, Eq. 9): D-nDCG with GG_DIN in the system's gains only; the ideal
    stays D's, so the maximum can be below 1."""
    return _d_ndcg(batch, cutoff, gains, din=True)


def din_q(batch: Batch, *, cutoff: int | None, gains: Any = "exp", beta: float = 1.0) -> np.ndarray:
    """DIN-Q@l (Sakai, WWW 2012, Eq. 10–11): D-Q@l with GG_DIN in the blended ratio's numerator;
    J(r), C(r) and the ideal gains stay D's."""
    return _d_q(batch, cutoff, gains, beta, din=True)


def p_plus_q(batch: Batch, *, cutoff: int | None, gains: Any = "exp", beta: float = 1.0) -> np.ndarray:
    """P+Q@l (Sakai, WWW 2012, Eq. 12): Σ_{i inf} w_i·Q_i@l + Σ_{j nav} w_j·P+_j@l, each intent against
    its own ideal list."""
    q = per_intent_scores(batch, q_measure, cutoff=cutoff, beta=beta, gains=gains)
    pp = per_intent_scores(batch, p_plus, cutoff=cutoff, beta=beta, gains=gains)
    return (np.where(batch.topics.nav[None], pp, q) * batch.topics.weights[None]).sum(axis=2)


def effective_precision(batch: Batch, *, cutoff: int) -> np.ndarray:
    """Ef-P@l (Sakai, WWW 2012, §4.2): the fraction of the top l that is relevant to some informational
    intent, or is the first document relevant to some navigational intent."""
    hits = intent_hits(batch, cutoff)
    first = hits & ((np.cumsum(hits, axis=2) - hits) == 0)
    nav = batch.topics.nav[None, :, None, :]
    effective = np.where(nav, first, hits).any(axis=3)
    return effective.sum(axis=-1) / cutoff


def sharp(kernel: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
    """X# = γ·I-rec@l + (1 − γ)·X@l (Sakai, WWW 2012, Eq. 7)."""
    def combined(batch: Batch, *, cutoff: int | None, gamma: float = 0.5, **params: Any) -> np.ndarray:
        irec = subtopic_recall(batch, cutoff=cutoff)
        return gamma * irec + (1.0 - gamma) * kernel(batch, cutoff=cutoff, **params)

    first = (kernel.__doc__ or kernel.__name__).splitlines()[0]  # no docstrings under python -OO
    combined.__doc__ = f"γ·I-rec@l + (1 − γ)·({first}) (Sakai, WWW 2012, Eq. 7)."
    return combined


CUT = cutoff_param("rank cutoff l")
EXP = Param("gains", "gains", "exp", "per-intent gain of each label: exp (2^L - 1, NTCIREVAL), linear or a map")
BETA = Param("beta", "float", 1.0, "weight of graded gain in the blended ratio", low=0)
GAMMA = Param("gamma", "float", 0.5, "weight of I-rec against the relevance measure", low=0, high=1)
P = Param("p", "float", 0.8, "persistence of the RBP user", low=0, high=1, open_high=True)

FAMILY = [
    # name, kernel, params, normalised, needs types, cite
    ("D-nDCG", d_ndcg, (EXP,), True, False, "§2.2, Eq. 6"),
    ("D-Q", d_q, (EXP, BETA), True, False, "§2.2, Eq. 6 with Q@l"),
    ("D-ERR", d_err, (EXP,), True, False, "§2.2 with ERR (docs/conventions.md#sakai)"),
    ("D-RBP", d_rbp, (EXP, P), False, False, "§2.2 with RBP (docs/conventions.md#sakai)"),
    ("DIN-nDCG", din_ndcg, (EXP,), False, True, "§3.1, Eq. 8–9"),
    ("DIN-Q", din_q, (EXP, BETA), False, True, "§3.1, Eq. 10–11"),
    ("P+Q", p_plus_q, (EXP, BETA), False, True, "§3.2, Eq. 12"),
]

for name, kernel, params, normalised, types, where in FAMILY:
    register(MeasureSpec(
        name, kernel, (CUT, *params), cite=f"{PAPER}, {where}", doc=(kernel.__doc__ or "").split("\n")[0],
        normalised=normalised, needs_intents=True, needs_types=types,
    ))
    register(MeasureSpec(
        name.replace("-", "#-") if "-" in name else name + "#", sharp(kernel), (CUT, GAMMA, *params),
        cite=f"{PAPER}, Eq. 7 with {name}", doc=f"γ·I-rec + (1 − γ)·{name}", needs_intents=True, needs_types=types,
    ))

register(MeasureSpec(
    "Ef-P", effective_precision, (CUT,), cite=f"{PAPER}, §4.2",
    doc="effective precision (redundant navigational hits ignored)",
    aliases=("EfP",), cutoff="required", needs_intents=True, needs_types=True,
))
