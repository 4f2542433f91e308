"""How diverse is each topic of a collection? (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5;
docs/conventions.md#collection)

Per topic, from the judgments alone (no run):

- ξ — the size of a greedy set cover of the coverable intents by relevant documents: each
  step takes the document covering the most still-uncovered intents, ties to the larger
  docno (``Topics.rel_docs`` is docno-descending, so the first of equals wins). Minimum set
  cover is NP-hard (Carterette, ICTIR 2009); Golbus, Aslam & Clarke (§4.1) use a greedy
  approximation too.
- d_max — maximum S-recall: coverable intents / declared intents M (1 when, as by default,
  intents without relevant documents are dropped; Golbus, Aslam & Clarke, Inf. Retr. 2013, §4.2).
- d_mean(k) = 1 − Σ_i (1 − R_i/R)^k / M' (Eq. 1) — expected S-recall of k relevant documents
  drawn with replacement, the sum over the M' coverable intents.
- dd = 2·d_max·d_mean/(d_max + d_mean) (Eq. 2) — diversity difficulty (large = easy to diversify).
- smr_i(k) = (1 − R_i/R)^k / Σ_j (1 − R_j/R)^k (Eq. 3) — subtopic miss rate; smr_i = smr_i(ξ)
  (Eq. 4). When every coverable intent is covered by every relevant document the formula is
  0/0 and smr is uniform over the coverable intents. Intents without relevant documents
  (kept with ``empty_intents="keep"``) get smr 0: no system can cover them, so they carry no
  information for evaluation.

The depth k is explicit (docs/conventions.md#collection): ``"xi"`` (default), ``"xi+1"`` or an
integer. Golbus, Aslam & Clarke's Table 3 (smr) reproduces at k = ξ; its Table 1 (dd) only at
k = ξ + 1 — topic 60 has ξ = 3 and dd(3) = 0.442, dd(4) = 0.481 (printed 0.481). ``docs/collection.md`` has the details.

A topic without relevant documents has ξ = 0 and d_max = d_mean = dd = 0, smr all 0.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Union

import numpy as np

from .batch import Topics
from .collection import Collection
from .errors import check_int, invalid
from .measures._common import safe_div

Depth = Union[int, str]
DEPTH_WORDS = ("xi", "xi+1")
MAX_DEPTH = 1_000_000  # an explicit depth k: (1 − R_i/R)^k is computed in log space, any k is exact

__all__ = [
    "Depth", "check_depth", "load_collection", "relevant_counts", "greedy_cover", "resolve_depth", "d_max", "d_mean",
    "diversity_difficulty", "subtopic_miss_rate", "TopicStats", "topic_stats", "CollectionDiversity",
    "collection_diversity",
]


def load_collection(
    qrels: Any, *, diversity: bool | None = None, intents: Any = None, intent_types: Any = None,
    empty_intents: str = "drop",
) -> Collection:
    """A :class:`~cranfield.collection.Collection` from a path, dict, DataFrame, Qrels or Collection.

    The options are those of :class:`~cranfield.evaluate.Evaluator` (an intent file implies
    diversity qrels).
    """
    if isinstance(qrels, Collection):
        return qrels
    from .io import as_qrels, read_intent_types, read_intents

    if intents is not None and diversity is None:
        diversity = True
    if isinstance(intents, (str, Path)):
        intents = read_intents(intents)
    if isinstance(intent_types, (str, Path)):
        intent_types = read_intent_types(intent_types)
    return Collection.from_qrels(as_qrels(qrels, diversity=diversity), intents=intents,
                                 intent_types=intent_types, empty_intents=empty_intents)


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
    uncovered = covers.any(axis=1)  # (T, I) coverable intents
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
    """Maximum S-recall: coverable intents / declared intents M, shape (T,) (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4.1)."""
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


def _d_mean_at(topics: Topics, k: np.ndarray, rel: int) -> np.ndarray:
    log_term, coverable = _miss_terms(topics, k, rel)
    m_prime = coverable.sum(axis=1)
    return np.where(m_prime > 0, 1.0 - safe_div(np.exp(log_term).sum(axis=1), m_prime), 0.0)


def _smr_at(topics: Topics, k: np.ndarray, rel: int, fallback: np.ndarray | None = None) -> np.ndarray:
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
    return _d_mean_at(topics, resolve_depth(depth, greedy_cover(topics, rel)), rel)


def diversity_difficulty(topics: Topics, depth: Depth = "xi", rel: int = 1) -> np.ndarray:
    """dd = 2·d_max·d_mean/(d_max + d_mean) (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 2), shape (T,); 0 when both are 0.

    Examples
    --------
    Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 1, topic 86 (82 relevant documents; 62, 78 and 60 per subtopic; ξ = 1):
    the printed dd = 0.977 is reached at depth ξ + 1 = 2, not at ξ.

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
    return _smr_at(topics, resolve_depth(depth, greedy_cover(topics, rel)), rel, fallback)


@dataclass(frozen=True)
class TopicStats:
    """Collection diversity of T topics (arrays over topics; ``(T, I)`` over intents).

    Attributes
    ----------
    num_rel : ndarray of int, shape (T,)
        R: documents relevant to some intent.
    num_rel_intent : ndarray of int, shape (T, I)
        R_i.
    n_intents : ndarray of int, shape (T,)
        M: declared intents.
    xi : ndarray of int, shape (T,)
        The greedy set-cover size ξ.
    depth : ndarray of int, shape (T,)
        The depth k of d_mean, dd and smr.
    d_max, d_mean, dd : ndarray of float64, shape (T,)
    smr : ndarray of float64, shape (T, I)
    """

    num_rel: np.ndarray
    num_rel_intent: np.ndarray
    n_intents: np.ndarray
    xi: np.ndarray
    depth: np.ndarray
    d_max: np.ndarray
    d_mean: np.ndarray
    dd: np.ndarray
    smr: np.ndarray


def topic_stats(topics: Topics, depth: Depth = "xi", rel: int = 1) -> TopicStats:
    """Every statistic of Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5, for each topic, at depth ``depth``
    (docs/conventions.md#collection)."""
    r_i, r = relevant_counts(topics, rel)
    xi = greedy_cover(topics, rel)
    k = resolve_depth(depth, xi)
    hi, mean = d_max(topics, rel), _d_mean_at(topics, k, rel)
    return TopicStats(num_rel=r, num_rel_intent=r_i, n_intents=topics.n_intents, xi=xi, depth=k, d_max=hi,
                      d_mean=mean, dd=safe_div(2.0 * hi * mean, hi + mean), smr=_smr_at(topics, k, rel))


@dataclass(frozen=True)
class CollectionDiversity:
    """Per-topic collection diversity with the topic and intent names (``cranfield collection``).

    Attributes
    ----------
    topic_ids : tuple of str
    intent_ids : tuple of tuple of str
        Each topic's declared intents, in the column order of the (T, I) arrays.
    stats : TopicStats
    depth : int or str
        The depth as asked (``"xi"``, ``"xi+1"`` or an int); ``stats.depth`` has it per topic.
    """

    topic_ids: tuple[str, ...]
    intent_ids: tuple[tuple[str, ...], ...]
    stats: TopicStats
    depth: Depth

    def summary(self) -> dict[str, float]:
        """Min, max and mean of dd over the topics with a relevant document (Golbus, Aslam & Clarke, Inf. Retr. 2013, Table 2)."""
        dd = self.stats.dd[self.stats.num_rel > 0]
        if not dd.size:
            return {"topics": 0, "min": float("nan"), "max": float("nan"), "mean": float("nan")}
        return {"topics": int(dd.size), "min": float(dd.min()), "max": float(dd.max()), "mean": float(dd.mean())}

    def records(self) -> list[dict[str, Any]]:
        """One JSON-ready object per topic: ``topic``, ``intents``, ``R``, ``R_i``, ``xi``,
        ``depth``, ``d_max``, ``d_mean``, ``dd`` and ``smr`` (intent → value)."""
        s = self.stats
        out = []
        for t, topic in enumerate(self.topic_ids):
            names = self.intent_ids[t]
            out.append({
                "topic": topic, "intents": len(names), "R": int(s.num_rel[t]),
                "R_i": {i: int(s.num_rel_intent[t, k]) for k, i in enumerate(names)},
                "xi": int(s.xi[t]), "depth": int(s.depth[t]), "d_max": float(s.d_max[t]),
                "d_mean": float(s.d_mean[t]), "dd": float(s.dd[t]),
                "smr": {i: float(s.smr[t, k]) for k, i in enumerate(names)},
            })
        return out

    def to_json(self) -> str:
        return json.dumps(self.records(), indent=1) + "\n"

    def to_table(self) -> str:
        """Aligned text: one row per topic (R_i and smr as ``intent:value`` lists), then the
        min/max/mean of dd."""
        head = ["topic", "M", "R", "R_i", "xi", "k", "d_max", "d_mean", "dd", "smr"]
        rows = [[r["topic"], str(r["intents"]), str(r["R"]), " ".join(f"{i}:{n}" for i, n in r["R_i"].items()),
                 str(r["xi"]), str(r["depth"]), f"{r['d_max']:.3f}", f"{r['d_mean']:.3f}", f"{r['dd']:.3f}",
                 " ".join(f"{i}:{v:.3f}" for i, v in r["smr"].items())] for r in self.records()]
        widths = [max(len(x[c]) for x in [head, *rows]) for c in range(len(head))]
        left = {0, 3, 9}
        lines = ["  ".join(cell.ljust(w) if c in left else cell.rjust(w) for c, (cell, w) in enumerate(zip(x, widths)))
                 .rstrip() for x in [head, *rows]]
        s = self.summary()
        lines.append(f"dd over {s['topics']} topics with relevant documents (depth {self.depth}): "
                     f"min {s['min']:.3f}  max {s['max']:.3f}  mean {s['mean']:.3f}")
        return "\n".join(lines) + "\n"

    def plot(self, path: str | Path, bins: int = 10) -> None:
        """Histogram of dd over the topics (Golbus, Aslam & Clarke, Inf. Retr. 2013, Figure 2), saved to ``path``."""
        from .figures import new_figure, save_figure

        bins = check_int(bins, "number of bins", low=1, high=1000)
        dd = self.stats.dd[self.stats.num_rel > 0]
        fig = new_figure(figsize=(6, 4))
        ax = fig.subplots()
        ax.hist(dd, bins=bins, range=(0.0, 1.0), edgecolor="black")
        ax.set_xlabel(f"diversity difficulty dd (depth {self.depth})")
        ax.set_ylabel("topics")
        ax.set_xlim(0.0, 1.0)
        fig.tight_layout()
        save_figure(fig, path)


def collection_diversity(qrels: Any, *, depth: Depth = "xi", rel: int = 1, **options: Any) -> CollectionDiversity:
    """ξ, d_max, d_mean, dd and smr of every topic of a collection (Golbus, Aslam & Clarke, Inf. Retr. 2013, §4–5).

    Parameters
    ----------
    qrels : path, dict, DataFrame, Qrels or Collection
        Diversity qrels (``qid intent docno rel``); ad hoc qrels give one intent per topic.
    depth : {"xi", "xi+1"} or int
        The depth k of d_mean, dd and smr (docs/conventions.md#collection: Table 3 reproduces at ξ,
        Table 1 at ξ + 1).
    rel : int
        The lowest label counted as relevant.
    options
        ``diversity``, ``intents``, ``intent_types``, ``empty_intents`` as for
        :class:`~cranfield.evaluate.Evaluator`.
    """
    depth = check_depth(depth)  # before any work
    rel = check_int(rel, "lowest relevant label rel", low=1)
    coll = load_collection(qrels, **options)
    return CollectionDiversity(coll.topic_ids, coll.intent_ids, topic_stats(coll.topics, depth, rel), depth)
