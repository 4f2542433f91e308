"""Exhaustive case analysis of Albahem et al., ADCS 2018, §3 (docs/conventions.md#enumeration): every ranking of
length 0..h over m
aspects, scored in batches through the ordinary kernels, and every pair of rankings that
Relevance Monotonicity, Irrelevance Monotonicity and Redundancy relate — and the relations
they induce — checked for violations.

A ranking is a word over {x, a_1..a_m}: each position is a distinct document relevant to exactly
one aspect, or non-relevant. Rankings of length L are numbered by their base-(m + 1) digits
(0 = x, k = aspect k), so parents, extensions and swapped rankings are index arithmetic and no
ranking is ever stored as text. The synthetic qrels give every aspect ``relevant_per_aspect``
relevant documents (binary labels, uniform aspect weights); there are ((m+1)^(h+1) − 1)/m
rankings, ∅ included (88,573 for h = 10, m = 2). At most :data:`MAX_RANKINGS` (10 million:
h ≤ 14 for m = 2, h ≤ 11 for m = 3) are enumerated, over at most :data:`MAX_ASPECTS` (23,
named a..w) aspects with at most :data:`MAX_RELEVANT` (10,000) relevant documents per aspect; larger
spaces are refused up front (:func:`max_depth`).

Properties (a violation is m(S) > m(T) + 1e-12·max(1, |m(S)|, |m(T)|) for a pair "S ≤ T"):
- Relevance Monotonicity: m(S) ≤ m(S·r) for every relevant r;
- Irrelevance Monotonicity: m(S·x) ≤ m(S);
- Redundancy: m(S·p) ≤ m(S·n), p relevant to an aspect S covers, n to one it does not;
- Induction: m(S) ≤ m(T) for every induced pair (S, T): T reachable from S through the relations
  (two or more steps) and (S, T) not itself a direct pair. Induction is counted per induced pair
  (applicable: the induced pairs; violated: those with m(S) > m(T)); a ranking that is also
  directly related to S is never counted, even if it is reachable through a longer chain too.
Pairs whose smaller side is ∅ are left out unless ``include_empty``.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield._parallel import map_blocks
from cranfield._progress import progress
from cranfield.analysis.options import ASPECT_NAMES, MAX_ASPECTS, MAX_RANKINGS, MAX_RELEVANT, PAPER_000
from cranfield.batch import Batch, Topics
from cranfield.errors import CranfieldError, check_choice, check_int
from cranfield.measures.fairness import needs_groups
from cranfield.measures.registry import Measure, parse_measure

CHUNK = 1 << 18  # rankings scored per batch
BLOCK = 1 << 18  # rankings (parents and children) per block of the streamed relations: memory per block


def count_rankings(depth: int, aspects: int) -> int:
    """((m+1)^(h+1) − 1)/m: the rankings of length 0..h over m aspects, as an exact int."""
    return ((aspects + 1) ** (depth + 1) - 1) // aspects


def max_depth(aspects: int) -> int:
    """The largest depth h whose space over ``aspects`` aspects holds at most
    :data:`MAX_RANKINGS` rankings (exact integers: 14 for 2 aspects, 11 for 3)."""
    depth = 0
    while count_rankings(depth + 1, aspects) <= MAX_RANKINGS:
        depth += 1
    return depth


def check_space_size(depth: object, aspects: object) -> tuple[int, int]:
    """``(depth, aspects)`` as ints when the space they span may be enumerated: 1 ≤ aspects ≤
    :data:`MAX_ASPECTS` and 1 ≤ depth ≤ :func:`max_depth` (at most :data:`MAX_RANKINGS`
    rankings); else the error saying the allowed range."""
    m = check_int(aspects, "number of aspects", low=1, high=MAX_ASPECTS)
    h = check_int(depth, f"depth over {m} aspects (at most {MAX_RANKINGS:,} rankings)", low=1, high=max_depth(m))
    return h, m


@dataclass(frozen=True)
class Space:
    """All rankings of length 0..h over m aspects, numbered level by level."""

    depth: int
    aspects: int

    def __post_init__(self) -> None:
        depth, aspects = check_space_size(self.depth, self.aspects)
        object.__setattr__(self, "depth", depth)
        object.__setattr__(self, "aspects", aspects)

    @property
    def base(self) -> int:
        return self.aspects + 1

    @property
    def offsets(self) -> np.ndarray:
        """Index of the first ranking of each length 0..h (and the total at the end)."""
        return np.concatenate(([0], np.cumsum(self.base ** np.arange(self.depth + 1))))

    @property
    def size(self) -> int:
        return count_rankings(self.depth, self.aspects)

    def level(self, length: int) -> np.ndarray:
        """Codes 0..(m+1)^L − 1 of the rankings of one length."""
        return np.arange(self.base**length, dtype=np.int64)

    def digits(self, length: int, codes: np.ndarray) -> np.ndarray:
        """(n, L) digits of codes, most significant (rank 1) first."""
        powers = self.base ** np.arange(length - 1, -1, -1, dtype=np.int64)
        return (codes[:, None] // powers) % self.base

    def coverage(self, length: int, codes: np.ndarray) -> np.ndarray:
        """(n, m) whether each aspect is covered by the ranking."""
        d = self.digits(length, codes)
        return (d[:, :, None] == np.arange(1, self.base)).any(axis=1)

    def word(self, index: int) -> str:
        """A ranking written as ``a.b.x`` (∅ for the empty ranking)."""
        length = int(np.searchsorted(self.offsets, index, side="right") - 1)
        if length == 0:
            return "∅"
        d = self.digits(length, np.array([index - self.offsets[length]]))[0]
        return ".".join("x" if k == 0 else ASPECT_NAMES[k - 1] for k in d)


def _labels(space: Space, start: int, stop: int) -> tuple[np.ndarray, np.ndarray]:
    """Labels (n, 1, h, m) and lengths (n, 1) of rankings start..stop."""
    idx = np.arange(start, stop)
    length = np.searchsorted(space.offsets, idx, side="right") - 1
    code = idx - space.offsets[length]
    labels = np.zeros((idx.size, 1, max(space.depth, 1), space.aspects), dtype=np.int8)
    for r in range(space.depth):  # digit r of a ranking of length L is position r (rank r + 1)
        inside = r < length
        shift = np.where(inside, length - 1 - r, 0)
        digit = np.where(inside, (code // space.base**shift) % space.base, 0)
        rows = np.flatnonzero(digit > 0)
        labels[rows, 0, r, digit[rows] - 1] = 1
    return labels, length[:, None]


def synthetic_topics(aspects: int, relevant_per_aspect: int) -> Topics:
    """One topic whose every aspect has ``relevant_per_aspect`` relevant documents."""
    aspects = check_int(aspects, "number of aspects", low=1, high=MAX_ASPECTS)
    relevant_per_aspect = check_int(relevant_per_aspect, "number of relevant documents per aspect", low=1,
                                    high=MAX_RELEVANT)
    docs = np.repeat(np.eye(aspects, dtype=np.int8), relevant_per_aspect, axis=0)
    return Topics.from_intent_labels(docs[None], max_rel=1)


def score_space(measure: Measure, space: Space, topics: Topics, *, progress_bar: bool | None = None) -> np.ndarray:
    """The measure on every ranking of the space, in chunks (bounded memory), shape (size,)."""
    out = np.empty(space.size)
    starts = range(0, space.size, CHUNK)
    for start in progress(starts, len(starts), f"scoring {measure}", progress_bar):
        stop = min(start + CHUNK, space.size)
        labels, length = _labels(space, start, stop)
        out[start:stop] = oriented(measure, measure(Batch.from_labels(labels, topics, length=length))[:, 0])
    return out


def oriented(measure: Measure, scores: np.ndarray) -> np.ndarray:
    """Scores read as higher is better: a loss (``lower_is_better``, such as EE-L) negated, so
    that every property's "m(S) ≤ m(T)" means "T is not worse than S" (docs/fairness.md#axioms)."""
    return -scores if measure.spec.lower_is_better else scores


def violation(space: Space, i: int, a: float, j: int, b: float, loss: bool) -> str:
    """A violating pair as text, in the measure's own values: m(S) > m(T), or m(S) < m(T) for a loss."""
    if loss:
        return f"m({space.word(i)})={-a:.6g} < m({space.word(j)})={-b:.6g}"
    return f"m({space.word(i)})={a:.6g} > m({space.word(j)})={b:.6g}"


def _greater(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return a - b > 1e-12 * np.maximum(1.0, np.maximum(np.abs(a), np.abs(b)))


@dataclass
class Check:
    """Applicable cases, violations and a few violating pairs (``S ≤ T`` written as words)."""

    measure: str
    property: str
    applicable: int = 0
    violations: int = 0
    examples: list[str] = field(default_factory=list)

    @builtins.property  # the field ``property`` shadows the builtin for mypy
    def rate(self) -> float:
        return self.violations / self.applicable if self.applicable else 0.0

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (a row of ``cranfield axioms --format json``): ``measure``, ``property``,
        ``applicable``, ``violations``, ``rate`` and ``examples`` (Albahem et al., ADCS 2018)."""
        return {"measure": self.measure, "property": self.property, "applicable": self.applicable,
                "violations": self.violations, "rate": self.rate, "examples": list(self.examples)}

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self) -> Any:
        """:meth:`to_dict` as a one-row pandas DataFrame (``examples`` holds the list)."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])

    def add(self, space: Space, scores: np.ndarray, low: np.ndarray, high: np.ndarray, keep: int) -> None:
        bad = np.flatnonzero(_greater(scores[low], scores[high]))
        self.applicable += int(low.size)
        self.violations += int(bad.size)
        for k in bad[: max(0, keep - len(self.examples))]:
            i, j = int(low[k]), int(high[k])
            self.examples.append(f"m({space.word(i)})={scores[i]:.6g} > m({space.word(j)})={scores[j]:.6g}")


def relation_pairs(space: Space, prop: str, include_empty: bool = False) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(smaller, larger) index arrays of one relation (relevance, irrelevance or redundancy),
    level by level."""
    check_choice(prop, "relation", PAPER_000[:3])
    m, base, off = space.aspects, space.base, space.offsets
    for length in range(0 if include_empty else 1, space.depth):
        codes = space.level(length)
        s = off[length] + codes
        if prop == "relevance":
            for a in range(1, base):
                yield s, off[length + 1] + codes * base + a
        elif prop == "irrelevance":
            yield off[length + 1] + codes * base, s
        elif prop == "redundancy":
            cov = space.coverage(length, codes) if length else np.zeros((1, m), dtype=bool)
            for p in range(1, base):
                for n in range(1, base):
                    rows = np.flatnonzero(cov[:, p - 1] & ~cov[:, n - 1])
                    if rows.size:
                        yield off[length + 1] + codes[rows] * base + p, off[length + 1] + codes[rows] * base + n


def _edges(space: Space, include_empty: bool) -> tuple[np.ndarray, np.ndarray]:
    """All direct relations as edges smaller → larger."""
    pairs = [pair for prop in PAPER_000[:3] for pair in relation_pairs(space, prop, include_empty)]
    none = np.empty(0, dtype=np.int64)  # depth 1 without ∅: no pair
    return np.concatenate([none, *(a for a, _ in pairs)]), np.concatenate([none, *(b for _, b in pairs)])


def _process_order(space: Space) -> np.ndarray:
    """A key that puts every ranking after all the rankings it points to.

    Relevance edges go to longer rankings; Redundancy edges go from a ranking ending in an
    already-covered aspect to one ending in a new aspect (same length); Irrelevance edges leave
    rankings ending in x, which nothing points to. So: rankings not ending in x by decreasing
    length, new-aspect endings first; then rankings ending in x by increasing length.
    """
    key = np.zeros(space.size, dtype=np.int64)
    covered = np.zeros((1, space.aspects), dtype=bool)  # coverage of each ranking of the level
    for length in range(1, space.depth + 1):
        codes = space.level(length)
        last = codes % space.base
        prefix = covered[codes // space.base]
        novel = np.where(last > 0, ~prefix[np.arange(codes.size), np.maximum(last, 1) - 1], False)
        idx = space.offsets[length] + codes
        key[idx] = np.where(last == 0, 2 * (space.depth + 1) + length,
                            2 * (space.depth - length) + np.where(novel, 0, 1))
        covered = prefix.copy()
        rows = np.flatnonzero(last > 0)
        covered[rows, last[rows] - 1] = True
    key[0] = 2 * space.depth + 1
    return key


INDUCTION_BLOCK = 8192  # targets per run of the order in which violating induced pairs are kept as examples
INDUCTION_MEMORY = 128 * 2**20  # bytes of the two bitsets (reach, direct) that runs of that width took
MAX_INDUCTION_RANKINGS = 100_000  # induction relates pairs of rankings: induced pairs grow faster than rankings


def induction_block(size: int) -> int:
    """Width of the runs of targets (by increasing score) in which :func:`induction` looks for its examples,
    over a space of ``size`` rankings: a multiple of 64, at most :data:`INDUCTION_BLOCK`, with two bitsets of
    ``size`` × width bits within :data:`INDUCTION_MEMORY` (the passes of the bitsets that counted induced pairs
    before :func:`induced_pairs`; kept so that the examples printed do not change)."""
    return max(64, min(INDUCTION_BLOCK, INDUCTION_MEMORY * 8 // (2 * max(size, 1)) // 64 * 64))


def max_induction_depth(aspects: int) -> int:
    """The deepest space over ``aspects`` aspects whose induced pairs are counted: at most
    :data:`MAX_INDUCTION_RANKINGS` rankings (10 for 2 aspects, 8 for 3)."""
    depth = 1
    while count_rankings(depth + 1, aspects) <= MAX_INDUCTION_RANKINGS:
        depth += 1
    return depth


def induced_pairs(space: Space, include_empty: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(S, T) index arrays of every induced pair of Albahem et al. (ADCS 2018, §3.2): T reachable from S
    through the three relations and (S, T) not itself a direct pair, sorted by S then T. They do not depend
    on the measure: :func:`check_space` computes them once for all its measures.

    Each ranking's reachable set — its direct successors and everything they reach — is built
    children-first in the order of :func:`_process_order`, one vectorised gather, sort and deduplication per
    group of rankings sharing an order key, the sets done so far stored as slices of one array of
    targets; time and memory grow with the reachable pairs (742,810 induced pairs for h = 10, m = 2),
    not with the square of the space.
    """
    n = space.size
    low, high = _edges(space, include_empty)
    key = _process_order(space)
    by_key = np.argsort(key[low], kind="stable")
    low, high = low[by_key], high[by_key]
    groups = np.concatenate(([0], np.flatnonzero(np.diff(key[low])) + 1, [low.size]))
    start = np.zeros(n, dtype=np.int64)  # ranking r reaches targets[start[r]:start[r] + count[r]]
    count = np.zeros(n, dtype=np.int64)
    targets = np.empty(0, dtype=np.int64)
    reached: list[np.ndarray] = []  # S·n + T of the reachable pairs, group by group
    for a, b in zip(groups[:-1], groups[1:]):
        src, dst = low[a:b], high[a:b]
        # S reaches its direct successors and everything they reach (final: they have smaller keys)
        sizes = count[dst]
        gather = np.arange(int(sizes.sum())) + np.repeat(start[dst] - (np.cumsum(sizes) - sizes), sizes)
        code = np.sort(np.concatenate((src * n + dst, np.repeat(src, sizes) * n + targets[gather])))
        code = code[np.diff(code, prepend=-1) != 0]  # each pair once, by S then T
        row = code // n
        first = np.flatnonzero(np.diff(row, prepend=-1))
        start[row[first]] = targets.size + first
        count[row[first]] = np.diff(np.append(first, code.size))
        targets = np.concatenate((targets, code % n))
        reached.append(code)
    code = np.sort(np.concatenate(reached))  # each pair once: the groups' sources are disjoint
    induced = code[~np.isin(code, low * n + high, assume_unique=True, kind="sort")]
    return induced // n, induced % n


def induction(space: Space, scores: np.ndarray, measure: str, *, include_empty: bool = False,
              keep: int = 3, loss: bool = False, pairs: tuple[np.ndarray, np.ndarray] | None = None) -> Check:
    """Induced pairs (S, T): T reachable from S through the three relations and (S, T) not itself a direct
    pair (see the module docstring). ``applicable`` counts these pairs, ``violations`` those with m(S) > m(T).
    ``scores`` are :func:`oriented`; ``loss``: the examples show a loss's own values; ``pairs``: the
    :func:`induced_pairs` of the space (computed when not given), shared by every measure.

    Targets are ranked by increasing score: the targets that score below m(S) (beyond the tolerance
    1e-12·max(1, |m(S)|)) are those ranked before ``below[S]``, one integer comparison per pair. The examples
    are the first violating pairs going through the targets by increasing score in runs of
    :func:`induction_block`, sources in index order within a run, then sorted.
    """
    keep = check_int(keep, "number of examples", low=0)
    low, high = induced_pairs(space, include_empty) if pairs is None else pairs
    order = np.argsort(scores, kind="stable")
    rank = np.empty(space.size, dtype=np.int64)
    rank[order] = np.arange(space.size)
    below = np.searchsorted(scores[order], scores - 1e-12 * np.maximum(1.0, np.abs(scores)), side="left")
    target = rank[high]
    bad = np.flatnonzero(target < below[low])
    check = Check(measure, "induction", applicable=int(low.size), violations=int(bad.size))
    first = bad[np.lexsort((target[bad], low[bad], target[bad] // induction_block(space.size)))[:keep]]
    for i, j in sorted(zip(low[first].tolist(), high[first].tolist())):
        check.examples.append(violation(space, i, scores[i], j, scores[j], loss) + ", an induced pair")
    return check


@dataclass(frozen=True)
class Block:
    """A prefix block of the ranking space: the rankings of length ``length`` with codes in
    ``[start, stop)`` (their base-(m + 1) digits: one prefix range) and their one-longer
    extensions, codes ``[start·(m+1), stop·(m+1))`` of the next length. Every pair of the
    three relations lies within one block."""

    length: int
    start: int
    stop: int


def blocks(space: Space, include_empty: bool = False, size: int | None = None) -> list[Block]:
    """The blocks covering every pair of the relations, by length then prefix: at most ``size``
    (default :data:`BLOCK`) rankings each, parents and children counted."""
    per = max(1, (BLOCK if size is None else size) // (space.base + 1))
    out: list[Block] = []
    for length in range(0 if include_empty else 1, space.depth):
        n = space.base**length
        out.extend(Block(length, a, min(a + per, n)) for a in range(0, n, per))
    return out


def score_range(measure: Measure, space: Space, topics: Topics, start: int, stop: int) -> np.ndarray:
    """The measure on rankings ``start..stop`` of the space, in batches of :data:`CHUNK`."""
    out = np.empty(stop - start)
    for a in range(start, stop, CHUNK):
        b = min(a + CHUNK, stop)
        labels, length = _labels(space, a, b)
        out[a - start:b - start] = oriented(measure, measure(Batch.from_labels(labels, topics, length=length))[:, 0])
    return out


Example = tuple[int, int, int, str]  # (length, relation group, position in the level's pairs, text)


@dataclass
class BlockCount:
    """What one block contributes to a check: counts and its first violations per group."""

    applicable: int = 0
    violations: int = 0
    examples: list[Example] = field(default_factory=list)


def _block_pairs(space: Space, block: Block, prop: str) -> Iterator[tuple[int, np.ndarray, np.ndarray, np.ndarray]]:
    """(group, position, smaller, larger) of the pairs of one relation within a block, in the
    order :func:`relation_pairs` lists them (group by group, then by code)."""
    m, base, off, length = space.aspects, space.base, space.offsets, block.length
    codes = np.arange(block.start, block.stop, dtype=np.int64)
    s = off[length] + codes
    if prop == "relevance":
        for a in range(1, base):
            yield a, codes, s, off[length + 1] + codes * base + a
    elif prop == "irrelevance":
        yield 0, codes, off[length + 1] + codes * base, s
    elif prop == "redundancy":
        cov = space.coverage(length, codes) if length else np.zeros((codes.size, m), dtype=bool)
        for p in range(1, base):
            for n in range(1, base):
                rows = np.flatnonzero(cov[:, p - 1] & ~cov[:, n - 1])
                if rows.size:
                    yield (p * base + n, codes[rows], off[length + 1] + codes[rows] * base + p,
                           off[length + 1] + codes[rows] * base + n)


def check_block(block: Block, *, measures: Sequence[Measure], space: Space, topics: Topics,
                properties: Sequence[str], keep: int, scores: Sequence[np.ndarray] | None = None
                ) -> list[dict[str, BlockCount]]:
    """Counts of each relation in ``properties`` for each measure on one block (a pure function
    of its arguments, so blocks may run anywhere): scores the block's parents and children, or takes
    them from ``scores``, each measure's :func:`score_space` when the whole space is scored anyway."""
    base, off = space.base, space.offsets
    lo, hi = off[block.length] + block.start, off[block.length] + block.stop
    clo, chi = off[block.length + 1] + block.start * base, off[block.length + 1] + block.stop * base
    out = []
    for k, measure in enumerate(measures):
        # the block's scores: parents (indices lo..hi) then children (clo..chi)
        block_scores = (np.concatenate((scores[k][lo:hi], scores[k][clo:chi])) if scores is not None else
                        np.concatenate((score_range(measure, space, topics, lo, hi),
                                        score_range(measure, space, topics, clo, chi))))

        def at(idx: np.ndarray) -> np.ndarray:
            return np.where(idx >= clo, idx - clo + (hi - lo), idx - lo)

        counts = {}
        for prop in properties:
            count = BlockCount()
            for group, position, low, high in _block_pairs(space, block, prop):
                a, b = block_scores[at(low)], block_scores[at(high)]
                bad = np.flatnonzero(_greater(a, b))
                count.applicable += int(low.size)
                count.violations += int(bad.size)
                count.examples += [
                    (block.length, group, int(position[k]),
                     violation(space, int(low[k]), a[k], int(high[k]), b[k], measure.spec.lower_is_better))
                    for k in bad[:keep]]
            counts[prop] = count
        out.append(counts)
    return out


def check_settings(depth: object, aspects: object, relevant_per_aspect: object = None, examples: object = 3
                   ) -> tuple[Space, int, int]:
    """(space, relevant documents per aspect, examples) from the settings of :func:`check_space`,
    each checked (the error says the allowed range): see :func:`check_space`."""
    space = Space(depth, aspects)  # type: ignore[arg-type]
    relevant = space.depth if relevant_per_aspect is None else check_int(
        relevant_per_aspect, f"number of relevant documents per aspect (a ranking of depth {space.depth} needs "
        f"{space.depth} distinct documents)", low=space.depth, high=MAX_RELEVANT)
    return space, relevant, check_int(examples, "number of examples", low=0)


def check_space(measures: Sequence[str | Measure], *, depth: int = 10, aspects: int = 2,
                relevant_per_aspect: int | None = None, properties: Sequence[str] = PAPER_000,
                include_empty: bool = False, examples: int = 3, progress_bar: bool | None = None,
                client: Any = None) -> list[Check]:
    """Check Albahem et al.'s (ADCS 2018) properties for each measure over every ranking up to ``depth``.

    ``relevant_per_aspect`` defaults to ``depth`` and must be at least ``depth`` (a ranking of
    ``depth`` documents all relevant to one aspect needs that many distinct documents) and at
    most :data:`MAX_RELEVANT`; ``examples`` is the number of violating pairs kept per check.
    Every setting and measure is checked before any ranking is scored.

    Relevance, Irrelevance and Redundancy are streamed: the space is cut into :func:`blocks`
    (prefix ranges of one length with their extensions) scored and counted one at a time, so
    memory is one block's whatever the depth; ``client`` (a ``dask.distributed.Client``) runs the
    blocks on a cluster (docs/scaling.md). The counts and examples do not depend on the blocks or
    where they ran. Induction relates every pair of rankings: it is counted over spaces of at most
    :data:`MAX_INDUCTION_RANKINGS` rankings (:func:`max_induction_depth`); its :func:`induced_pairs` do not
    depend on the measure and are computed once, each measure then costing one comparison per pair. With
    Induction every ranking is scored once per measure (:func:`score_space`) and, without ``client``, the
    blocks take their scores from there instead of scoring them again.
    """
    space, relevant, examples = check_settings(depth, aspects, relevant_per_aspect, examples)
    properties = [check_choice(p, "property", PAPER_000) for p in properties]
    if "induction" in properties and space.size > MAX_INDUCTION_RANKINGS:
        raise CranfieldError(
            f"Induction relates every pair of rankings, so it is counted up to depth "
            f"{max_induction_depth(space.aspects)} over {space.aspects} aspects (at most "
            f"{MAX_INDUCTION_RANKINGS:,} rankings; depth {space.depth} has {space.size:,}): check the other "
            "properties at this depth (--properties relevance,irrelevance,redundancy)")
    parsed = [parse_measure(name) for name in measures]
    for name, measure in zip(measures, parsed):
        if needs_groups(measure):
            raise CranfieldError(f"{name} needs document groups, which the rankings the properties are stated over "
                                 "(relevance labels over aspects) do not have: no property is defined for it "
                                 "(docs/fairness.md#axioms)")
    topics = synthetic_topics(space.aspects, relevant)
    streamed = [p for p in properties if p != "induction"]
    # Induction needs every score of a small space: then the streamed relations reuse them (not on a cluster)
    whole = ([_all_scores(m, space, topics, progress_bar, client) for m in parsed] if "induction" in properties
             else None)
    counted: list[list[dict[str, BlockCount]]] = []
    if streamed:
        work = blocks(space, include_empty)
        fn = partial(check_block, measures=parsed, space=space, topics=topics, properties=streamed, keep=examples,
                     scores=whole if client is None else None)
        if client is None:
            counted = [fn(b) for b in progress(work, len(work), "checking relations", progress_bar)]
        else:
            counted = map_blocks(fn, work, client=client)
    pairs = induced_pairs(space, include_empty) if whole is not None else None
    out = []
    for k, (name, measure) in enumerate(zip(measures, parsed)):
        for prop in properties:
            if whole is not None and prop == "induction":
                out.append(induction(space, whole[k], str(name), include_empty=include_empty, keep=examples,
                                     loss=measure.spec.lower_is_better, pairs=pairs))
                continue
            check = Check(str(name), prop)
            found: list[Example] = []
            for part in counted:
                check.applicable += part[k][prop].applicable
                check.violations += part[k][prop].violations
                found += part[k][prop].examples
            check.examples = [text for *_, text in sorted(found)[:examples]]
            out.append(check)
    return out


def _all_scores(measure: Measure, space: Space, topics: Topics, progress_bar: bool | None, client: Any) -> np.ndarray:
    """The measure on every ranking (:func:`score_space`), the chunks mapped on ``client``."""
    if client is None:
        return score_space(measure, space, topics, progress_bar=progress_bar)
    parts = map_blocks(partial(_score_chunk, measure=measure, space=space, topics=topics),
                       [range(a, min(a + CHUNK, space.size)) for a in range(0, space.size, CHUNK)], client=client)
    return np.concatenate(parts) if parts else np.empty(0)


def _score_chunk(rankings: range, *, measure: Measure, space: Space, topics: Topics) -> np.ndarray:
    return score_range(measure, space, topics, rankings.start, rankings.stop)


# Properties that hold from a witness (Deepness: every n from some N on), not from 0 violations
EXISTENTIAL = ("deepness", "shallowness")
