"""The α#-IA family: intent-aware cascade #-measures (Golbus, Aslam & Clarke, Inf. Retr. 2013,
§6.2–6.3; docs/conventions.md#alpha-sharp).

Spelling (one registered measure, its variants as parameters)::

    alpha#-IA(discount=dcg, subtopics=micro, alpha=0.3, lambda=0.5, beta=0.8, gains=..., rel=1, floor=1e-5)@k

(``α#-IA`` is accepted too; ``cranfield measures alpha#-IA`` lists the parameters.) With
defaults, ``alpha#-IA@20`` is Golbus, Aslam & Clarke's Eq. 10, α#-nDCG-IA@20 with α = 0.3, λ = 0.5.

Per intent i the gain of the document at rank r is (Eq. 7, without the w_i)

    G_i(r) = gain(g_i(d_r)) · (1 − α)^{C_i(r−1)},

binary by default (a label ≥ ``rel`` gains 1; ``gains=linear|exp|map`` for graded gains), and
C_i(r−1) counts the documents relevant to i above rank r. A discount vector (Table 4) turns
gains into a score: ``err`` 1/r, ``dcg`` 1/log2(r + 1), ``rbp`` β^{r−1} (Table 4 prints
1/β^{r−1}; the discount is β^{r−1}, β = 0.8 as in §6.5). Subtopic averaging (§6.3):

- ``cascade``: Σ_r disc(r)·Σ_i w_i G_i(r) over the same sum for the greedy ideal list of that
  gain (each step the document with the largest marginal gain, ties to the larger docno, as
  ndeval; values can exceed 1, as α-nDCG's);
- ``micro``: Σ_i w_i·X_i with X_i = Σ_r disc(r) G_i(r) over intent i's own ideal (its
  relevant documents by gain, an exact ideal for one intent) — the α-nDCG-IA of Eq. 10;
- ``geom``: Π_i max(X_i, ε)^{w_i}, with the floor ε = ``floor`` (default 1e-5, trec_eval's
  gm_map floor; 0 < ε ≤ 1): an intent the ranking misses counts as ε, so ε decides how far one
  missed intent pulls the product down (the Subtopic = Geom rows of Table 10). A non-default
  floor shows in the measure's name, e.g. ``alpha#-IA(subtopics=geom,floor=0.1)@5``; the
  other averagings ignore it;
- ``smr``: Σ_i smr_i·X_i with the subtopic miss rates at depth ξ (Eq. 3–4, from
  :mod:`cranfield.analysis.diversity`; w_i where that formula is 0/0).

Then α#-X@k = λ·S-recall@k + (1 − λ)·(subtopic average) (Eq. 10). Exact reductions (tested
to 1e-12 per topic): λ = 1 is ``StRecall@k``; ``cascade`` with λ = 0 and the dcg discount is
``alpha_nDCG(alpha=α)@k`` (uniform intent weights, binary gains); ``micro`` with λ = α = 0,
the dcg discount and ``gains=linear`` is ``nDCG_IA@k``. A topic without relevant documents
scores 0.

References: Golbus, Aslam, Clarke, "Increasing evaluation sensitivity to diversity", Inf.
Retrieval 16 (2013), Eq. 5, 7, 8, 10 and Table 4 (docs/references.md#golbus2013).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cranfield._numeric import ordered_dot, safe_div
from cranfield.batch import Batch, Topics
from cranfield.measures._common import REL, gain, gain_shift, log2_discount, ranks
from cranfield.measures.diversity import greedy_ideal, subtopic_recall
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register

DISCOUNTS = ("err", "dcg", "rbp")
SUBTOPICS = ("cascade", "micro", "geom", "smr")
GEOM_EPSILON = 1e-5
PAPER = "Golbus, Aslam & Clarke, Inf. Retr. 2013"

__all__ = ["DISCOUNTS", "SUBTOPICS", "rank_discount", "intent_gains", "greedy_ideal", "cascade_ideal", "intent_ideal",
           "alpha_sharp_per_intent", "alpha_sharp_ia"]


def rank_discount(discount: str, d: int, beta: float = 0.8) -> np.ndarray:
    """Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 4, for r = 1..d: ``err`` 1/r, ``dcg`` 1/log2(r + 1),
    ``rbp`` β^{r−1}."""
    if discount == "err":
        return 1.0 / ranks(d)
    if discount == "dcg":
        return log2_discount(d)
    if discount == "rbp":
        return beta ** np.arange(d, dtype=np.float64)
    raise ValueError(f"unknown discount {discount!r}")


def _gain_of(labels: np.ndarray, gains: Any, rel: int, shift: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(hits: label ≥ rel, gain: 1.0 per hit when ``gains`` is None, else gain(label)·2^−shift on
    hits) for per-topic labels (T, ·, ·) and a per-topic shift (T,)."""
    hits = labels >= rel
    if gains is None:
        return hits, hits.astype(np.float64)
    return hits, np.where(hits, gain(labels, gains, shift[:, None, None]), 0.0)


def intent_gains(batch: Batch, cutoff: int | None, alpha: float, gains: Any = None, rel: int = 1) -> np.ndarray:
    """G_i(r) = gain(g_i(d_r))·(1 − α)^{C_i(r−1)} (Golbus, Aslam & Clarke,
    Inf. Retr. 2013, Eq. 7, without w_i), shape (S, T, D, I); graded gains are divided by
    2^s per topic (:func:`~cranfield.measures._common.gain_shift`), as the ideals' must be."""
    labels = batch.labels[:, :, :cutoff]
    hits = labels >= rel
    d = hits.shape[2]
    # C_i(r−1) in the narrowest integer type, and (1 − α)^C by table look-up (the same powers)
    before = np.cumsum(hits, axis=2, dtype=np.int8 if d < 127 else np.int16 if d < 32767 else np.int64)
    before -= hits
    out = ((1.0 - alpha) ** np.arange(d + 1, dtype=np.float64))[before]
    out *= hits if gains is None else np.where(hits, gain(labels, gains, gain_shift(batch, gains)[:, None, None]), 0.0)
    return out


def _relative_weights(topics: Topics) -> np.ndarray:
    """w_i / max_j w_j, (T, I): exactly 1 for uniform weights (the scale cancels in ratios)."""
    w = topics.weights
    return safe_div(w, w.max(axis=1, keepdims=True) if w.shape[1] else np.zeros((w.shape[0], 1)))


def cascade_ideal(topics: Topics, cutoff: int, alpha: float, gains: Any = None, rel: int = 1,
                  shift: np.ndarray | None = None) -> np.ndarray:
    """Σ_i v_i G_i(r) of the greedy ideal list (:func:`greedy_ideal`), ranks 1..min(k, J),
    shape (T, min(k, J)), with v_i = w_i / max_j w_j and graded gains divided by 2^shift (T,)
    (:func:`~cranfield.measures._common.gain_shift`; default 0).

    With binary gains and uniform weights (v_i = 1 exactly) it is ndeval's greedy α-ideal, so
    the cascade reduces to α-nDCG exactly. The deepest list computed is cached on the topic
    block and serves every smaller cutoff.
    """
    shift = np.zeros(len(topics)) if shift is None else shift
    key = ("alpha#-cascade-ideal", alpha, gains if gains is None or isinstance(gains, str) else tuple(gains), rel,
           shift.tobytes())

    def compute(steps: int) -> np.ndarray:
        hits, g = _gain_of(topics.rel_docs, gains, rel, shift)  # (T, J, I)
        return greedy_ideal(g * _relative_weights(topics)[:, None, :], hits, alpha, steps)

    return topics.cached_prefix(key, min(cutoff, topics.rel_docs.shape[1]), compute)


def intent_ideal(topics: Topics, cutoff: int, alpha: float, gains: Any = None, rel: int = 1,
                 shift: np.ndarray | None = None) -> np.ndarray:
    """Each intent's ideal G_i(r), ranks 1..k, shape (T, I, min(k, K)): its relevant documents
    by gain descending, the r-th discounted by (1 − α)^{r−1} (the optimum for one intent);
    graded gains divided by 2^shift (T,) as in :func:`cascade_ideal`."""
    _, g = _gain_of(topics.ideal_intent, gains, rel, np.zeros(len(topics)) if shift is None else shift)
    g = -np.sort(-g, axis=2)[:, :, :cutoff]
    return g * (1.0 - alpha) ** np.arange(g.shape[2], dtype=np.float64)


def alpha_sharp_per_intent(batch: Batch, *, cutoff: int, discount: str = "dcg", alpha: float = 0.3,
                           beta: float = 0.8, gains: Any = None, rel: int = 1) -> np.ndarray:
    """X_i = α-X_i@k, each intent against its own ideal (Golbus, Aslam & Clarke, Inf. Retr. 2013, §6.2),
    shape (S, T, I)."""
    g = intent_gains(batch, cutoff, alpha, gains, rel)
    num = ordered_dot(np.moveaxis(g, 3, 2), rank_discount(discount, g.shape[2], beta))
    ideal = intent_ideal(batch.topics, cutoff, alpha, gains, rel, gain_shift(batch, gains))
    return safe_div(num, ordered_dot(ideal, rank_discount(discount, ideal.shape[2], beta)))


def _smr_weights(topics: Topics, rel: int) -> np.ndarray:
    from cranfield.measures.topics import subtopic_miss_rate

    return topics.cached(("alpha#-smr", rel), lambda: subtopic_miss_rate(topics, "xi", rel, fallback=topics.weights))


def alpha_sharp_ia(batch: Batch, *, cutoff: int, discount: str = "dcg", subtopics: str = "micro",
                   alpha: float = 0.3, lam: float = 0.5, beta: float = 0.8, gains: Any = None, rel: int = 1,
                   floor: float = GEOM_EPSILON, **named: Any) -> np.ndarray:
    """α#-X-IA@k = λ·S-recall@k + (1 − λ)·(subtopic average of α-X)
    (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 10, §6.3), (S, T).

    Parameters
    ----------
    batch : Batch
    cutoff : int
        k.
    discount : {"err", "dcg", "rbp"}
        Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 4: 1/r, 1/log2(r + 1), β^{r−1}.
    subtopics : {"cascade", "micro", "geom", "smr"}
        Subtopic averaging (§6.3; see the module docstring).
    alpha : float
        Redundancy penalty of Eq. 7 (default 0.3, §6.4).
    lam : float
        λ, the weight of S-recall (default 0.5); the measure name spells it ``lambda``.
    beta : float
        Patience of the ``rbp`` discount (0.8).
    gains : None, "linear", "exp" or a label→gain map
        None (default): binary, a label ≥ ``rel`` gains 1.
    rel : int
        The lowest label counted as relevant (for the gains, C_i and S-recall).
    floor : float
        ε in (0, 1] of the ``geom`` subtopic average Π_i max(X_i, ε)^{w_i} (default 1e-5); the
        other averagings ignore it.

    Examples
    --------
    Intent 1 has two relevant documents (a, c), intent 2 one (b); [a, b] covers both intents,
    [a, c] only the first (S-recall 1 against 0.5; micro average of α-nDCG_i 0.662 against 0.5):

    >>> import numpy as np
    >>> from cranfield import Batch, Topics
    >>> topics = Topics.from_intent_labels(np.array([[[1, 0], [0, 1], [1, 0]]]))
    >>> labels = np.array([[[[1, 0], [0, 1]]], [[[1, 0], [1, 0]]]])   # (rankings, topics, depth, intents)
    >>> alpha_sharp_ia(Batch.from_labels(labels, topics), cutoff=2).round(4).ravel().tolist()
    [0.8311, 0.5]
    """
    lam = float(named.pop("lambda", lam))
    if named:
        raise TypeError(f"unexpected parameters {', '.join(named)}")
    topics = batch.topics
    if subtopics == "cascade":
        g = intent_gains(batch, cutoff, alpha, gains, rel)
        num = (g * _relative_weights(topics)[None, :, None, :]).sum(axis=3)
        ideal = cascade_ideal(topics, cutoff, alpha, gains, rel, gain_shift(batch, gains))
        avg = safe_div(ordered_dot(num, rank_discount(discount, num.shape[-1], beta)),
                       ordered_dot(ideal, rank_discount(discount, ideal.shape[-1], beta)))
    else:
        x = alpha_sharp_per_intent(batch, cutoff=cutoff, discount=discount, alpha=alpha, beta=beta,
                                   gains=gains, rel=rel)
        if subtopics == "micro":
            avg = (x * topics.weights).sum(axis=-1)
        elif subtopics == "geom":
            has_rel = (topics.rel_docs >= rel).any(axis=(1, 2))  # M' = 0 scores 0, not 1
            avg = np.where(has_rel, np.exp((topics.weights * np.log(np.maximum(x, floor))).sum(axis=-1)), 0.0)
        elif subtopics == "smr":
            avg = (x * _smr_weights(topics, rel)).sum(axis=-1)
        else:
            raise ValueError(f"unknown subtopic averaging {subtopics!r}")
    return lam * subtopic_recall(batch, cutoff=cutoff, rel=rel) + (1.0 - lam) * avg


register(MeasureSpec(
    "alpha#-IA", alpha_sharp_ia,
    (cutoff_param(),
     Param("discount", "choice", "dcg", "rank discount (Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 4): "
           "err 1/r, dcg 1/log2(r+1), rbp beta^(r-1)",
           choices=DISCOUNTS),
     Param("subtopics", "choice", "micro", "subtopic averaging (§6.3): cascade (one greedy ideal), micro (sum of "
           "w_i times each intent's normalised score), geom (product of max(x_i,floor)^w_i), smr (weights smr_i(xi))",
           choices=SUBTOPICS),
     Param("alpha", "float", 0.3, "redundancy penalty: each earlier document of the intent multiplies its gain by "
           "1 - alpha (Eq. 7)", low=0, high=1),
     Param("lambda", "float", 0.5, "weight of S-recall: lambda*S-recall + (1-lambda)*subtopic average (Eq. 10)",
           low=0, high=1),
     Param("beta", "float", 0.8, "patience of the rbp discount beta^(r-1)", low=0, high=1, open_low=True),
     Param("gains", "gains", None, "default binary (a label >= rel gains 1); or linear, exp or a label:gain map"),
     REL,
     Param("floor", "float", GEOM_EPSILON, "floor epsilon of the geom subtopic average: each intent's score counts as "
           "max(x_i, floor) in the product (1e-5 as trec_eval's gm_map; other averagings ignore it)",
           low=0, high=1, open_low=True)),
    cite=f"{PAPER}, Eq. 7 and 10, §6.3, Table 4",
    doc="intent-aware cascade #-measure: lambda*S-recall + (1-lambda)*subtopic average of alpha-discounted scores",
    aliases=("alpha_sharp_IA", "alpha-sharp-IA"), cutoff="required", value_range=(0.0, float("inf")),
    needs_intents=True,
))
