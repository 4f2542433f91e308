"""The seven formal properties of Amigó, Mizzaro & Spina, SIGIR 2022, §2 (docs/conventions.md#truncation-properties),
checked on constructed rankings.

Rankings are single-intent and binary: ``r`` a relevant document, ``x`` a non-relevant one,
every document distinct; the collection holds ``R`` relevant documents (at least those the
ranking retrieves) and R + (the longest ranking) judged non-relevant documents: every ``x`` is a judged
non-relevant document, as BPref needs (with none judged, its min(R, N) is 0 and Recall would hold). Universal
properties are checked on every ranking of length up to
``depth`` for each collection size in ``collections``; the two thresholds search n, m ≤ 1000
with a collection of 1,000 relevant documents. "a > b" means a − b > 1e-12·max(1, |a|, |b|)
(docs/conventions.md#equality), so rounding is never a violation.

``holds`` follows each property's logical form: the universal ones (Priority, Top-weightedness, Confidence,
Recall, Redundancy) hold iff no instance is violated; Shallowness ("∃ m") holds iff some m ≤ 1000 is a witness
(its ``violations`` are the candidate m that are not); Deepness ("n large enough") holds iff every n from some N
on is a witness.

- Priority: if d_{i+k} is relevant and d_i is not, swapping them strictly increases M.
- Top-weightedness: with x·r at ranks i, i+1 and again at j, j+1 (i < j), fixing the pair at i
  gains strictly more than fixing the pair at j.
- Deepness threshold: "n large enough" — M(r) > M(x^n·r^n) for every n from some N up to
  1000 (the literal "∃ n" is met at n = 1 by AP, which the paper marks ✗).
- Shallowness threshold: ∃ m ≤ 1000 with M(r) < M(x^m·r^m).
  Both thresholds use a collection of 2,000 relevant documents, so that x^n·r^n never runs out
  of relevant documents (with R close to n, R-precision would "satisfy" Deepness).
- Confidence: M(S) > M(S·x) for every ranking S that retrieves a relevant document (as for
  Recall: a measure that is 0 until something relevant is found cannot decrease).
- Recall: M(S) over R relevant documents > M(S) over R + 1, for S retrieving a relevant one.
- Redundancy: M(x^n·r) − M(x^{n+1}) > M(x^{n−1}·r·r) − M(x^{n−1}·r·x).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield.analysis.options import PROPERTIES
from cranfield.batch import Batch, Topics
from cranfield.errors import check_choice, check_int, invalid
from cranfield.measures.registry import Measure, parse_measure

THRESHOLD_SEARCH = 1000
THRESHOLD_COLLECTION = 2 * THRESHOLD_SEARCH  # x^n·r^n stays within the relevant documents for every n
MAX_DEPTH = 12  # the universal properties list every binary ranking up to the depth, and pairs of them
MAX_COLLECTION = 100_000  # relevant documents of a collection


@dataclass(frozen=True)
class PropertyCheck:
    """Outcome of checking one property for one measure.

    ``holds`` is the ✓/✗; ``cases`` how many instances were checked (for the thresholds: the
    candidate n or m tried), ``violations`` how many failed, ``example`` one failing (or, for the
    thresholds, satisfying) instance written as rankings such as ``x.x.r``.
    """

    measure: str
    property: str
    holds: bool
    cases: int
    violations: int
    example: str | None

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values: ``measure``, ``property``, ``holds``, ``cases``, ``violations`` and
        ``example`` (a cell of Amigó, Mizzaro & Spina, SIGIR 2022, Table 1)."""
        return {"measure": self.measure, "property": self.property, "holds": bool(self.holds),
                "cases": int(self.cases), "violations": int(self.violations), "example": self.example}

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self) -> Any:
        """:meth:`to_dict` as a one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


def _greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a - b > 1e-12 * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


def _word(ranking: Sequence[int]) -> str:
    return ".".join("r" if g else "x" for g in ranking) or "∅"


def score(measure: Measure, rankings: Sequence[Sequence[int]], relevant: int) -> np.ndarray:
    """Scores of binary rankings against a collection of ``relevant`` relevant documents and ``relevant`` + the
    longest ranking judged non-relevant ones (every ``x`` of a ranking is a judged non-relevant document)."""
    length = np.fromiter(map(len, rankings), dtype=np.int64, count=len(rankings))
    labels = np.zeros((len(rankings), max(int(length.max(initial=0)), 1)), dtype=np.int8)
    # a boolean mask assigns in row order: ranking after ranking, each from its first position
    labels[np.arange(labels.shape[1]) < length[:, None]] = np.fromiter(
        itertools.chain.from_iterable(rankings), dtype=np.int8, count=int(length.sum()))
    return score_labels(measure, labels, length, relevant)


def score_labels(measure: Measure, labels: np.ndarray, length: np.ndarray, relevant: int) -> np.ndarray:
    """:func:`score` of the rankings given as (rankings, positions) 0/1 ``labels`` and their lengths."""
    depth = int(length.max(initial=0))
    # every retrieved non-relevant document is judged, and so are as many unretrieved ones: the collection holds
    # N = R + depth judged non-relevant documents (without them BPref's min(R, N) is 0 and it never sees one)
    judged = np.array([2 * max(relevant, 0) + depth])
    topics = Topics.from_ideal(np.ones((1, max(relevant, 1)), dtype=np.int8) * (relevant > 0), num_judged=judged,
                               max_rel=1)
    return measure(Batch.from_labels(labels[:, None, :], topics, length=length[:, None]))[:, 0]


def _all_rankings(depth: int, low: int = 0) -> list[tuple[int, ...]]:
    return [r for n in range(low, depth + 1) for r in itertools.product((0, 1), repeat=n)]


def _universal(measure: Measure, name: str, pairs: Callable[[int], list[tuple[tuple, tuple, int]]],
               collections: Sequence[int]) -> PropertyCheck:
    """Check ``better > worse`` for every (better, worse, R) instance."""
    cases = violations = 0
    example = None
    for relevant in collections:
        instances = pairs(relevant)
        if not instances:
            continue
        better = score(measure, [b for b, _, _ in instances], relevant)
        worse = score(measure, [w for _, w, _ in instances], relevant)
        if name == "recall":  # the same ranking, one more relevant document in the collection
            worse = score(measure, [w for _, w, _ in instances], relevant + 1)
        ok = _greater(better, worse)
        cases += len(instances)
        violations += int((~ok).sum())
        if example is None and not ok.all():
            k = int(np.flatnonzero(~ok)[0])
            b, w, _ = instances[k]
            example = f"R={relevant}: M({_word(b)})={better[k]:.6g} vs M({_word(w)})={worse[k]:.6g}"
    return PropertyCheck(str(measure), name, violations == 0 and cases > 0, cases, violations, example)


def _swap(r: tuple, i: int, j: int) -> tuple:
    s = list(r)
    s[i], s[j] = s[j], s[i]
    return tuple(s)


def _priority(depth: int) -> Callable[[int], list]:
    def pairs(relevant: int) -> list:
        return [(_swap(r, i, j), r, relevant) for r in _all_rankings(depth) if sum(r) <= relevant
                for i in range(len(r)) for j in range(i + 1, len(r)) if r[i] == 0 and r[j] == 1]
    return pairs


def _top_weighted(depth: int) -> Callable[[int], list]:
    def pairs(relevant: int) -> list:
        return [(_swap(r, i, i + 1), _swap(r, j, j + 1), relevant)
                for r in _all_rankings(depth) if sum(r) <= relevant
                for i in range(len(r) - 1) for j in range(i + 2, len(r) - 1)
                if r[i] == r[j] == 0 and r[i + 1] == r[j + 1] == 1]
    return pairs


def _confidence(depth: int) -> Callable[[int], list]:
    def pairs(relevant: int) -> list:
        return [(r, r + (0,), relevant) for r in _all_rankings(depth - 1) if 0 < sum(r) <= relevant]
    return pairs


def _recall(depth: int) -> Callable[[int], list]:
    def pairs(relevant: int) -> list:
        return [(r, r, relevant) for r in _all_rankings(depth, 1) if 0 < sum(r) <= relevant]
    return pairs


def _redundancy(measure: Measure, depth: int, collections: Sequence[int]) -> PropertyCheck:
    cases = violations = 0
    example = None
    for relevant in collections:
        if relevant < 2:
            continue
        for n in range(1, depth):
            a = score(measure, [(0,) * n + (1,), (0,) * (n + 1), (0,) * (n - 1) + (1, 1), (0,) * (n - 1) + (1, 0)],
                      relevant)
            ok = bool(_greater(np.array([a[0] - a[1]]), np.array([a[2] - a[3]]))[0])
            cases += 1
            if not ok:
                violations += 1
                example = example or (f"R={relevant}, n={n}: first relevant gains {a[0] - a[1]:.6g}, "
                                      f"second gains {a[2] - a[3]:.6g}")
    return PropertyCheck(str(measure), "redundancy", violations == 0 and cases > 0, cases, violations, example)


@functools.lru_cache(maxsize=32)
def _threshold_scores(measure: Measure) -> tuple[float, np.ndarray]:
    """M(r) and M(x^n·r^n) for n = 1..:data:`THRESHOLD_SEARCH`, shared by Deepness and Shallowness (read-only)."""
    n = np.arange(1, THRESHOLD_SEARCH + 1)[:, None]
    position = np.arange(2 * THRESHOLD_SEARCH)
    deep = score_labels(measure, ((position >= n) & (position < 2 * n)).astype(np.int8), 2 * n[:, 0],
                        THRESHOLD_COLLECTION)
    deep.setflags(write=False)
    return float(score(measure, [(1,)], THRESHOLD_COLLECTION)[0]), deep


def _threshold(measure: Measure, name: str) -> PropertyCheck:
    top, deep = _threshold_scores(measure)
    if name == "deepness":  # from some N on, for every n up to the end of the search
        ok = _greater(np.full_like(deep, top), deep)
        tail = np.flatnonzero(~ok)
        first = 0 if not tail.size else int(tail[-1]) + 1
        holds = first < deep.size
    else:
        ok = _greater(deep, np.full_like(deep, top))
        hits = np.flatnonzero(ok)
        first, holds = (int(hits[0]) if hits.size else deep.size), bool(hits.size)
    example = (f"n={first + 1}: M(r)={top:.6g}, M(x^n.r^n)={deep[first]:.6g}" if holds
               else f"n=1..{deep.size}: M(r)={top:.6g}, M(x^n.r^n) from {deep[0]:.6g} to {deep[-1]:.6g}")
    return PropertyCheck(str(measure), name, holds, deep.size, int((~ok).sum()), example)


def check_property(measure: str | Measure, prop: str, *, depth: int = 7,
                   collections: Sequence[int] = (1, 3, 10)) -> PropertyCheck:
    """Check one property of Amigó, Mizzaro & Spina, SIGIR 2022, §2, for a measure (see the module docstring).

    ``depth`` (1..:data:`MAX_DEPTH`) bounds the rankings of the universal properties and
    Redundancy; ``collections`` are the numbers of relevant documents R tried (1..
    :data:`MAX_COLLECTION` each).
    """
    prop = check_choice(prop, "property", PROPERTIES)
    depth = check_int(depth, "depth", low=1, high=MAX_DEPTH)
    if isinstance(collections, (str, bytes)) or np.ndim(collections) != 1 or not len(collections):
        raise invalid("collections", "a non-empty sequence of numbers of relevant documents", collections)
    collections = [check_int(r, "number of relevant documents in a collection", low=1, high=MAX_COLLECTION)
                   for r in collections]
    m = parse_measure(measure)
    if prop in ("deepness", "shallowness"):
        return _threshold(m, prop)
    if prop == "redundancy":
        return _redundancy(m, depth, collections)
    builders = {"priority": _priority, "top-weightedness": _top_weighted, "confidence": _confidence,
                "recall": _recall}
    return _universal(m, prop, builders[prop](depth), collections)


def property_table(measures: Sequence[str], properties: Sequence[str] = PROPERTIES, **options) -> list[PropertyCheck]:
    """Every (measure, property) check: the ✓/✗ matrix of Amigó, Mizzaro & Spina, SIGIR 2022, Table 1."""
    properties = [check_choice(p, "property", PROPERTIES) for p in properties]
    return [check_property(m, p, **options) for m in measures for p in properties]
