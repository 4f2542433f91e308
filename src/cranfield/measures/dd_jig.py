"""The TREC Dynamic Domain jig's session measures besides the Cube Test (docs/dynamic-domain.md):
sDCG, its normalised form nsDCG, and the expected utility EU, as the 2017 scorer computes them
(trec-dd-jig ``scorer/sDCG.py`` and ``scorer/expected_utility.py``).

A document's gain g is the sum of its ratings over the topic's subtopics (each subtopic's rating
the sum of its passages' ratings, 0 read as 1: ``truth4SDCG``). Iteration q (0-based) and the
position j of a document within its iteration (0-based, the iteration's documents by score)
discount it:

- ``sDCG(bq=4,b=2)@c`` = Σ over the documents of the first c iterations of
  g / (1 + log_b(j + 1)) / (1 + log_bq(q + 1)) (Järvelin, Price, Delcambre & Nielsen, ECIR 2008,
  session DCG, Eq. 2–3 with DCG's 1 + log_b discount);
- ``nsDCG@c`` = sDCG / its bound: the topic's document gains, largest first, on the 5·c positions
  of c iterations of 5 documents, ordered by discount (``sDCG_bound_per_topic``);
- ``EU(a=0.001,gamma=0.5,p=0.5)@c``: the user reads each iteration's list and stops after the
  s-th of its L documents with probability (1 − p)^(s−1)·p (s < L; the rest of the mass at s = L),
  so reads the document at position j with probability (1 − p)^j; a nugget expected E times is
  worth rating·(1 − γ^E)/(1 − γ), and reading costs a per document (Yang & Lad, ICTIR 2009,
  "Modeling expected utility of multi-session information distillation", §4, Eq. 14).
  Each passage of the truth is its own nugget (the jig's ``MANUAL`` passages), so E is (1 − p)^j
  for each passage of the document at position j, and the gain of that document is
  g·(1 − γ^((1−p)^j))/(1 − γ). The jig's cost counts each document's length in characters in
  the collection, which the truth does not hold: here every document costs 1, which is the jig's
  value with a length of 1 for every document of the run.

The jig's nEU needs the collection's document lengths for its bounds and is not provided.
"""

from __future__ import annotations

import numpy as np

from cranfield._numeric import safe_div
from cranfield.batch import Batch
from cranfield.measures.cubetest import DD_ITERATION, PER_ITERATION, iterations
from cranfield.measures.registry import MeasureSpec, Param, cutoff_param, register


def _document_gain(batch: Batch) -> np.ndarray:
    """g, the sum of a document's ratings over the subtopics, (S, T, D)."""
    return np.maximum(batch.labels, 0).sum(axis=3).astype(np.float64)


def _iteration_and_position(batch: Batch, cutoff: int | None,
                            docs_per_iteration: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(iteration q, position j within it, whether the document counts), each (S, T, D), 0-based."""
    it = iterations(batch, docs_per_iteration)
    d = it.shape[-1]
    rank = np.arange(d)
    opens = np.ones(it.shape, dtype=bool)
    opens[..., 1:] = it[..., 1:] != it[..., :-1]
    position = rank - np.maximum.accumulate(np.where(opens, rank, 0), axis=-1)
    inside = (it >= 0) if cutoff is None else (it >= 0) & (it < cutoff)
    return np.maximum(it, 0), position, inside


def _discount(q: np.ndarray, j: np.ndarray, bq: float, b: float) -> np.ndarray:
    """1 / ((1 + log_b(j + 1))·(1 + log_bq(q + 1))), q and j 0-based."""
    return 1.0 / ((1.0 + np.log(j + 1.0) / np.log(b)) * (1.0 + np.log(q + 1.0) / np.log(bq)))


def session_dcg(batch: Batch, *, cutoff: int | None, bq: float = 4.0, b: float = 2.0,
                docs_per_iteration: int | None = None) -> np.ndarray:
    """sDCG@c = Σ_{q<c} Σ_j g / (1 + log_b(j + 1)) / (1 + log_bq(q + 1)) (Järvelin et al., ECIR
    2008; trec-dd-jig ``sDCG_per_topic``)."""
    q, j, inside = _iteration_and_position(batch, cutoff, docs_per_iteration)
    return np.where(inside, _document_gain(batch) * _discount(q, j, bq, b), 0.0).sum(axis=-1)


def session_dcg_bound(batch: Batch, cutoff: int, bq: float, b: float) -> np.ndarray:
    """The jig's bound of sDCG@c per topic, (T,): the documents' gains, largest first, on the
    5·c positions of c iterations ordered by discount (``sDCG_bound_per_topic``)."""
    q, j = np.divmod(np.arange(cutoff * DD_ITERATION), DD_ITERATION)
    discounts = -np.sort(-_discount(q, j, bq, b))
    gains = -np.sort(-np.maximum(batch.topics.rel_docs, 0).sum(axis=2), axis=1).astype(np.float64)  # (T, J)
    n = min(gains.shape[1], discounts.size)
    return (gains[:, :n] * discounts[:n]).sum(axis=1)


def normalised_session_dcg(batch: Batch, *, cutoff: int, bq: float = 4.0, b: float = 2.0,
                           docs_per_iteration: int | None = None) -> np.ndarray:
    """nsDCG@c = sDCG@c / the jig's bound (trec-dd-jig ``scorer/sDCG.py``)."""
    bound = session_dcg_bound(batch, cutoff, bq, b)
    return safe_div(session_dcg(batch, cutoff=cutoff, bq=bq, b=b, docs_per_iteration=docs_per_iteration),
                    bound[None, :])


def expected_utility(batch: Batch, *, cutoff: int | None, a: float = 0.001, gamma: float = 0.5, p: float = 0.5,
                     docs_per_iteration: int | None = None) -> np.ndarray:
    """EU@c = Σ over the documents of the first c iterations of g·(1 − γ^((1−p)^j))/(1 − γ) −
    a·(1 − p)^j, j the position in the iteration (Yang & Lad, ICTIR 2009, §4, Eq. 14; trec-dd-jig
    ``eu_per_topic``, every passage a nugget and every document of length 1)."""
    _, j, inside = _iteration_and_position(batch, cutoff, docs_per_iteration)
    read = (1.0 - p) ** j.astype(np.float64)  # the probability of reading position j
    worth = (1.0 - gamma ** read) / (1.0 - gamma)
    return np.where(inside, _document_gain(batch) * worth - a * read, 0.0).sum(axis=-1)


CUT = cutoff_param("iterations: only the first c iterations count")
BASES = (Param("bq", "float", 4.0, "the log base of the iteration discount 1 + log_bq(q)", low=1, open_low=True),
         Param("b", "float", 2.0, "the log base of the document discount 1 + log_b(j)", low=1, open_low=True))
JIG = "the TREC DD 2017 scorer (trec-dd-jig scorer/{}) with --compat dd2017"
SDCG_CITE = "Järvelin, Price, Delcambre & Nielsen, ECIR 2008 (session DCG); trec-dd-jig scorer/sDCG.py"

register(MeasureSpec(
    "sDCG", session_dcg, (CUT, *BASES, PER_ITERATION), cite=SDCG_CITE,
    doc="session DCG: DCG within each iteration, discounted again by the iteration", aliases=("sessionDCG",),
    needs_intents=True, truncation_aware=True, depth=lambda p: None, value_range=(0.0, float("inf")),
    reference=JIG.format("sDCG.py"),
))
register(MeasureSpec(
    "nsDCG", normalised_session_dcg, (cutoff_param("iterations: only the first c iterations count (required: the "
                                                   "bound depends on it)"), *BASES, PER_ITERATION),
    cite=SDCG_CITE, doc="sDCG over the jig's bound (5 documents per iteration)", cutoff="required",
    needs_intents=True, truncation_aware=True, depth=lambda p: None, value_range=(0.0, float("inf")),
    reference=JIG.format("sDCG.py"),
))
register(MeasureSpec(
    "EU", expected_utility, (CUT, Param("a", "float", 0.001, "the cost of reading one document", low=0),
                             Param("gamma", "float", 0.5, "discount of a nugget seen again", low=0, high=1,
                                   open_high=True),
                             Param("p", "float", 0.5, "the probability of stopping after each document", low=0,
                                   high=1),
                             PER_ITERATION),
    cite="Yang & Lad, ICTIR 2009, §4, Eq. 14; trec-dd-jig scorer/expected_utility.py",
    doc="expected utility: nugget gain the user expects to read, less the cost of reading",
    aliases=("ExpectedUtility",),
    needs_intents=True, truncation_aware=True, depth=lambda p: None, value_range=(float("-inf"), float("inf")),
    reference=JIG.format("expected_utility.py"),
))
