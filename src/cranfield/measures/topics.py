"""Facts of a topic's judgments that measures and topic averaging need (Golbus, Aslam &
Clarke, Inf. Retr. 2013, §3): ξ, the size of the smallest set of relevant documents that
covers every subtopic (greedy set cover); the maximum and expected subtopic recall d_max and
d_mean at a depth; the diversity difficulty dd = d_max − d_mean; and the subtopic miss rate."""

from __future__ import annotations

from typing import cast

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Topics
from cranfield.errors import check_int, invalid

Depth = int | str


DEPTH_WORDS = ("xi", "xi+1")


MAX_DEPTH = 1_000_000  # an explicit depth k: (1 − R_i/R)^k is computed in log space, any k is exact


# --------------------------------------------------------------------------- per-topic arrays
def _coverage(topics: Topics, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """(covers (T, J, I): document j is relevant to declared intent i; declared (T, I))."""
    rel = check_int(rel, "lowest relevant label rel", low=1)
    declared = topics.weights > 0
    return (topics.rel_docs >= rel) & declared[:, None, :], declared


def relevant_counts(topics: Topics, rel: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(R_i, R): relevant documents per intent, shape (T, I), and relevant to some intent, (T,).

    A document is relevant to intent i when its label for i is at least ``rel``.
    """
    covers, _ = _coverage(topics, rel)
    return covers.sum(axis=1), covers.any(axis=2).sum(axis=1)


def greedy_cover(topics: Topics, rel: int = 1) -> np.ndarray:
    """ξ: the size of the greedy set cover of each topic's coverable intents, shape (T,).

    Each step takes the relevant document covering the most uncovered intents; ties go to the
    larger docno (the first of equals in the docno-descending ``rel_docs``). Vectorised over
    topics and documents; the loop runs over steps, at most the number of intents.

    Examples
    --------
    >>> import numpy as np
    >>> from cranfield import Topics
    >>> docs = np.array([[[1, 0, 0], [1, 1, 0], [0, 0, 1], [0, 1, 0]]])  # 4 documents x 3 intents
    >>> greedy_cover(Topics.from_intent_labels(docs)).tolist()
    [2]
    """
    covers, _ = _coverage(topics, rel)
    n_topics, n_docs, n_int = covers.shape
    uncovered = cast(np.ndarray, covers.any(axis=1))  # (T, I) coverable intents
    xi = np.zeros(n_topics, dtype=np.int64)
    if n_docs == 0:
        return xi
    rows = np.arange(n_topics)
    for _ in range(n_int):
        if not uncovered.any():
            break
        new = (covers & uncovered[:, None, :]).sum(axis=2)  # (T, J) intents each document would add
        pick = new.argmax(axis=1)  # first maximum: the larger docno
        active = new[rows, pick] > 0
        xi += active
        uncovered &= ~(covers[rows, pick] & active[:, None])
    return xi


def check_depth(depth: object) -> Depth:
    """The depth k as ``"xi"``, ``"xi+1"`` (also written ξ, ξ+1) or an int in [0, :data:`MAX_DEPTH`]
    (also as text), else the error saying so."""
    expected = f"'xi', 'xi+1' or an integer in the range [0, {MAX_DEPTH}]"
    if isinstance(depth, str):
        word = depth.strip().lower().replace("ξ", "xi").replace(" ", "")
        if word in DEPTH_WORDS:
            return word
        if not word.lstrip("+").isdigit():
            raise invalid("depth", expected, depth)
    elif isinstance(depth, (bool, float)) or not isinstance(depth, (int, np.integer)):
        raise invalid("depth", expected, depth)
    try:
        return check_int(depth, "depth", low=0, high=MAX_DEPTH)
    except ValueError:
        raise invalid("depth", expected, depth) from None


def resolve_depth(depth: Depth, xi: np.ndarray) -> np.ndarray:
    """The depth k of each topic: ``"xi"`` → ξ, ``"xi+1"`` → ξ + 1, an int → that int (T,)."""
    depth = check_depth(depth)
    if depth == "xi":
        return np.asarray(xi, dtype=np.int64).copy()
    if depth == "xi+1":
        return np.asarray(xi, dtype=np.int64) + 1
    return np.full(np.shape(xi), depth, dtype=np.int64)


def d_max(topics: Topics, rel: int = 1) -> np.ndarray:
    """Maximum S-recall: coverable intents / declared intents M, shape (T,) (Golbus, Aslam & Clarke, Inf. Retr. 2013,
    §4.1)."""
    r_i, _ = relevant_counts(topics, rel)
    return safe_div((r_i > 0).sum(axis=1), topics.n_intents)


def _miss_terms(topics: Topics, k: np.ndarray, rel: int) -> tuple[np.ndarray, np.ndarray]:
    """(log (1 − R_i/R)^k, coverable), shape (T, I): −inf where R_i = R (and k > 0) or R_i = 0."""
    r_i, r = relevant_counts(topics, rel)
    coverable = r_i > 0
    share = safe_div(r_i, r[:, None])  # R_i / R in [0, 1]
    full = share >= 1.0  # covered by every relevant document: never missed (0^0 = 1 at k = 0)
    kk = np.asarray(k, dtype=np.float64)[:, None]
    log_term = kk * np.log1p(-np.where(full, 0.0, share))
    log_term = np.where(full & (kk > 0), -np.inf, log_term)
    return np.where(coverable, log_term, -np.inf), coverable


def d_mean_at(topics: Topics, k: np.ndarray, rel: int) -> np.ndarray:
    log_term, coverable = _miss_terms(topics, k, rel)
    m_prime = coverable.sum(axis=1)
    return np.where(m_prime > 0, 1.0 - safe_div(np.exp(log_term).sum(axis=1), m_prime), 0.0)


def smr_at(topics: Topics, k: np.ndarray, rel: int, fallback: np.ndarray | None = None) -> np.ndarray:
    log_term, coverable = _miss_terms(topics, k, rel)
    top = log_term.max(axis=1, keepdims=True) if log_term.shape[1] else np.full((log_term.shape[0], 1), -np.inf)
    degenerate = np.isneginf(top[:, 0])  # 0/0, or no coverable intent
    terms = np.exp(log_term - np.where(degenerate[:, None], 0.0, top))  # largest term 1: no underflow
    out = safe_div(terms, terms.sum(axis=1, keepdims=True))
    if degenerate.any():
        even = safe_div(coverable, coverable.sum(axis=1, keepdims=True))
        if fallback is not None:
            even = np.where(coverable.any(axis=1, keepdims=True), np.asarray(fallback, dtype=np.float64), 0.0)
        out[degenerate] = even[degenerate]
    return out


def d_mean(topics: Topics, depth: Depth = "xi", rel: int = 1) -> np.ndarray:
    """Expected S-recall at depth k: d_mean(k) = 1 − Σ_i (1 − R_i/R)^k / M'
    (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 1), (T,).

    The sum runs over the M' coverable intents; documents are drawn with replacement, the
    paper's approximation. 0 for a topic without relevant documents.
    """
    return d_mean_at(topics, resolve_depth(depth, greedy_cover(topics, rel)), rel)


def diversity_difficulty(topics: Topics, depth: Depth = "xi", rel: int = 1) -> np.ndarray:
    """dd = 2·d_max·d_mean/(d_max + d_mean) (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 2), shape (T,); 0 when
    both are 0.

    Examples
    --------
    Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 1, topic 86 (82 relevant documents; 62, 78 and 60 per subtopic;
    ξ = 1): the printed dd = 0.977 is reached at depth ξ + 1 = 2, not at ξ.

    >>> import numpy as np
    >>> from cranfield import Topics
    >>> docs = np.zeros((1, 82, 3), dtype=int)
    >>> docs[0, :58] = 1                       # 58 documents relevant to all three subtopics
    >>> docs[0, 58, :2] = docs[0, 59, ::2] = 1   # one to {1, 2}, one to {1, 3}
    >>> docs[0, 60:62, 0] = docs[0, 62:81, 1] = docs[0, 81, 2] = 1  # {1} x2, {2} x19, {3} x1
    >>> topics = Topics.from_intent_labels(docs)
    >>> int(greedy_cover(topics)[0]), round(float(diversity_difficulty(topics, "xi+1")[0]), 3)
    (1, 0.977)
    """
    hi, mean = d_max(topics, rel), d_mean(topics, depth, rel)
    return safe_div(2.0 * hi * mean, hi + mean)


def subtopic_miss_rate(topics: Topics, depth: Depth = "xi", rel: int = 1, *,
                       fallback: np.ndarray | None = None) -> np.ndarray:
    """smr_i(k) = (1 − R_i/R)^k / Σ_j (1 − R_j/R)^k (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 3;
    Eq. 4 at k = ξ), shape (T, I).

    Computed in log space, so large depths do not underflow. Where the formula is 0/0 (every
    coverable intent is covered by every relevant document) the rates are uniform over the
    coverable intents, or ``fallback`` (T, I) there when given (α#-IA uses the intent
    probabilities). Intents without relevant documents, and padding, get 0; each row sums to
    1 for a topic with a relevant document and is all 0 otherwise.
    """
    return smr_at(topics, resolve_depth(depth, greedy_cover(topics, rel)), rel, fallback)
