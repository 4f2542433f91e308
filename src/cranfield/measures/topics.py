"""Facts of a topic's judgments that measures and topic averaging need (Golbus, Aslam &
Clarke, Inf. Retr. 2013, §3): ξ, the size of the smallest set of relevant documents that
covers every subtopic (exact by default, by a search over coverage bitmasks; the greedy set
cover with ``xi="greedy"``); the maximum and expected subtopic recall d_max and
d_mean at a depth; the diversity difficulty dd = d_max − d_mean; and the subtopic miss rate."""

from __future__ import annotations

from typing import cast

import numpy as np

from cranfield._numeric import distinct, safe_div
from cranfield.batch import Topics
from cranfield.errors import check_choice, check_int, invalid, warn

Depth = int | str

XI_METHODS = ("exact", "greedy")

MAX_EXACT_INTENTS = 20  # exact ξ searches at most 2^20 coverage states per topic; above it, greedy with a warning


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


def _smallest_cover(masks: np.ndarray, target: int) -> int:
    """The fewest of ``masks`` (distinct, non-zero bitmasks) whose OR is ``target`` (their OR):
    breadth-first search over the reachable OR states, each visited once."""
    if target == 0:
        return 0
    if masks.size <= 4096:  # only maximal masks matter: a subset of another mask never shortens a cover
        sub = (masks[:, None] & masks[None, :]) == masks[:, None]
        np.fill_diagonal(sub, False)
        masks = masks[~sub.any(axis=1)]
    if (masks == target).any():
        return 1
    seen = np.zeros(target + 1, dtype=bool)  # every state is a subset of target, so <= target
    seen[0] = True
    frontier = np.zeros(1, dtype=np.int64)
    chunk = max(1, (1 << 22) // masks.size)
    for size in range(1, masks.size + 1):
        found = []
        for start in range(0, frontier.size, chunk):
            step = (frontier[start:start + chunk, None] | masks[None, :]).ravel()
            if (step == target).any():
                return size
            found.append(step[~seen[step]])
        frontier = distinct(np.concatenate(found))
        seen[frontier] = True
    raise AssertionError("the OR of all masks is the target")  # pragma: no cover


def exact_cover(topics: Topics, rel: int = 1, *, max_intents: int = MAX_EXACT_INTENTS) -> np.ndarray:
    """ξ: the size of the smallest set of relevant documents covering every coverable intent, shape (T,).

    Each relevant document is the bitmask of the intents it covers; a breadth-first search over
    the ORs of the distinct masks finds the fewest whose OR covers all (at most 2^n states for n
    coverable intents). A topic with more than ``max_intents`` coverable intents gets the greedy
    cover's size (an upper bound), with a warning.

    Examples
    --------
    Greedy takes the document covering four intents first and then needs two more; two suffice:

    >>> import numpy as np
    >>> from cranfield import Topics
    >>> docs = np.array([[[1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 0]]])  # 3 documents x 6 intents
    >>> topics = Topics.from_intent_labels(docs)
    >>> exact_cover(topics).tolist(), greedy_cover(topics).tolist()
    ([2], [3])
    """
    max_intents = check_int(max_intents, "max_intents", low=0, high=30)
    covers, _ = _coverage(topics, rel)
    coverable = cast(np.ndarray, covers.any(axis=1))  # (T, I)
    xi = np.zeros(covers.shape[0], dtype=np.int64)
    too_many = np.flatnonzero(coverable.sum(axis=1) > max_intents)
    if too_many.size:
        warn(f"{too_many.size} topics have more than {max_intents} coverable intents: their xi is the greedy "
             f"set cover's size (an upper bound), not the minimum")
        xi[too_many] = greedy_cover(topics.take(too_many), rel)
    for t in np.flatnonzero(coverable.any(axis=1)):
        if t in too_many:
            continue
        cols = covers[t][:, coverable[t]]  # (J, n)
        bits = cols.astype(np.int64) @ (np.int64(1) << np.arange(cols.shape[1], dtype=np.int64))
        masks = distinct(bits[bits > 0])
        xi[t] = _smallest_cover(masks, (1 << cols.shape[1]) - 1)
    return xi


def cover_size(topics: Topics, rel: int = 1, xi: str = "exact") -> np.ndarray:
    """ξ of each topic, shape (T,): the minimum cover (``"exact"``, default) or the greedy
    cover's size (``"greedy"``, an upper bound); computed once per topic set."""
    method = check_choice(xi, "xi", XI_METHODS)
    rel = check_int(rel, "lowest relevant label rel", low=1)
    compute = (lambda: exact_cover(topics, rel)) if method == "exact" else (lambda: greedy_cover(topics, rel))
    return topics.cached(("xi", method, rel), compute)


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


def d_mean(topics: Topics, depth: Depth = "xi", rel: int = 1, *, xi: str = "exact") -> np.ndarray:
    """Expected S-recall at depth k: d_mean(k) = 1 − Σ_i (1 − R_i/R)^k / M'
    (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 1), (T,).

    The sum runs over the M' coverable intents; documents are drawn with replacement, the
    paper's approximation. 0 for a topic without relevant documents. ``xi``: ξ for the depths
    ``"xi"``/``"xi+1"`` is the minimum cover (``"exact"``) or the greedy one (``"greedy"``).
    """
    return d_mean_at(topics, resolve_depth(depth, cover_size(topics, rel, xi)), rel)


def diversity_difficulty(topics: Topics, depth: Depth = "xi", rel: int = 1, *, xi: str = "exact") -> np.ndarray:
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
    hi, mean = d_max(topics, rel), d_mean(topics, depth, rel, xi=xi)
    return safe_div(2.0 * hi * mean, hi + mean)


def subtopic_miss_rate(topics: Topics, depth: Depth = "xi", rel: int = 1, *,
                       fallback: np.ndarray | None = None, xi: str = "exact") -> np.ndarray:
    """smr_i(k) = (1 − R_i/R)^k / Σ_j (1 − R_j/R)^k (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 3;
    Eq. 4 at k = ξ), shape (T, I).

    Computed in log space, so large depths do not underflow. Where the formula is 0/0 (every
    coverable intent is covered by every relevant document) the rates are uniform over the
    coverable intents, or ``fallback`` (T, I) there when given (α#-IA uses the intent
    probabilities). Intents without relevant documents, and padding, get 0; each row sums to
    1 for a topic with a relevant document and is all 0 otherwise. ``xi`` as for :func:`d_mean`.
    """
    return smr_at(topics, resolve_depth(depth, cover_size(topics, rel, xi)), rel, fallback)
