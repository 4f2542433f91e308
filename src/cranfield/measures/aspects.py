"""Multi-aspect evaluation (Maistro et al., CIKM 2021; docs/conventions.md#aspects): TOMA, CAM and MM.

Documents are judged on several aspects (relevance, correctness, credibility, ...), each with
ordered labels l_0 < ... < l_K. A document's ground truth is a tuple of labels.

- **TOMA** embeds each label tuple in Euclidean space (``embed``: a non-decreasing number per
  label; default the label's index), orders tuples by their distance to the best tuple
  (Euclidean, Manhattan, Chebyshev or Minkowski-p; Maistro et al., CIKM 2021, Eq. 2–3), groups tuples at equal
  distance (|d − d'| ≤ 1e-9) into equivalence classes, maps classes to weights (``rank``: the
  worst class 0, +1 per class; ``binary``: the ⌈C/2⌉ best classes 1, the rest 0; or an explicit
  list), and evaluates any single-aspect measure on those weights as labels.
- **CAM** = Σ_a p_a·μ_a (Eq. 5) and **MM** = Σ_a p_a / Σ_a (p_a/μ_a) (Eq. 6, 0 when some μ_a = 0)
  combine a measure computed on each aspect alone, with per-aspect grades (``grades``: the label
  → grade maps, default the label index). ``MM(variant=table)`` = 1/Σ_a(1/μ_a) is what paper
  003's Table 3 prints.

A gate aspect (``gate="relevance"``) says a document at that aspect's lowest label has every
aspect at its lowest label (Maistro et al., CIKM 2021, §3.4: non-relevant documents are not correct); the label
space then leaves out the tuples the gate forbids. A document not judged on an aspect takes
that aspect's lowest label (the number is reported in a warning).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cranfield._choices import DISTANCES, MISSING_RULES
from cranfield.errors import CranfieldError, check_choice, check_float, check_int, invalid, warn
from cranfield.measures.registry import MeasureSpec, Param, parse_measure, register

WEIGHTS = ("rank", "binary")


METHODS = ("toma", "cam", "mm")


VARIANTS = ("eq6", "table")


MAX_COORDINATE = 1e6  # |embedding value|: distances stay far from overflow


MAX_TUPLES = 100_000  # label tuples of the space (the product of the aspects' label counts)


@dataclass(frozen=True)
class AspectSpace:
    """The aspects, their ordered labels (worst first), embeddings and optional gate."""

    labels: dict[str, tuple[str, ...]]
    embed: dict[str, tuple[float, ...]] = field(default_factory=dict)
    gate: str | None = None
    missing: str = "lowest"

    def __post_init__(self) -> None:
        """Check every field: at least one aspect, each with two or more distinct labels and at
        most :data:`MAX_TUPLES` label tuples in all; embeddings finite (|v| ≤ :data:`MAX_COORDINATE`),
        one per label and non-decreasing (stored as floats); a known gate; a known missing rule."""
        check_choice(self.missing, "missing-judgment rule", MISSING_RULES)
        if not isinstance(self.labels, Mapping) or not self.labels:
            raise invalid("labels", "a mapping of each aspect to its labels, worst first", self.labels)
        for aspect, names in self.labels.items():
            if (isinstance(names, str) or not isinstance(names, Sequence) or len(names) < 2
                    or len({str(x) for x in names}) != len(names)):
                raise invalid(f"labels of aspect {aspect!r}", "two or more distinct labels, worst first", names)
        size = math.prod(len(v) for v in self.labels.values())
        if size > MAX_TUPLES:
            raise invalid("number of label tuples (the product of the aspects' label counts)",
                          f"at most {MAX_TUPLES}", size)
        if not isinstance(self.embed, Mapping):
            raise invalid("embedding", "a mapping of aspects to one number per label", self.embed)
        object.__setattr__(self, "embed", {aspect: self._embedding(aspect, values)
                                           for aspect, values in self.embed.items()})
        if self.gate is not None:
            check_choice(self.gate, "gate aspect", list(self.labels))
        if self.missing == "gate" and self.gate is None:
            raise CranfieldError("missing='gate' needs a gate aspect")

    def _embedding(self, aspect: str, values: Any) -> tuple[float, ...]:
        """One aspect's embedding, checked: one finite number per label, non-decreasing."""
        check_choice(aspect, "aspect of an embedding", list(self.labels))
        count = len(self.labels[aspect])
        if isinstance(values, str) or not isinstance(values, Sequence) or len(values) != count:
            raise invalid(f"embedding of aspect {aspect!r}", f"{count} numbers, one per label", values)
        out = tuple(check_float(v, f"embedding value of aspect {aspect!r}", low=-MAX_COORDINATE, high=MAX_COORDINATE)
                    for v in values)
        if any(b < a for a, b in zip(out, out[1:])):
            raise invalid(f"embedding of aspect {aspect!r}", "non-decreasing (worst label first)", list(values))
        return out

    @property
    def aspects(self) -> list[str]:
        return list(self.labels)

    def coordinates(self, aspect: str) -> np.ndarray:
        values = self.embed.get(aspect)
        return np.asarray(values if values is not None else range(len(self.labels[aspect])), dtype=np.float64)

    def tuples(self) -> np.ndarray:
        """Every allowed tuple of label indices, shape (N, A)."""
        grid = np.array(list(itertools.product(*(range(len(v)) for v in self.labels.values()))), dtype=np.int64)
        if self.gate is None:
            return grid
        g = self.aspects.index(self.gate)
        return grid[(grid[:, g] > 0) | (grid == 0).all(axis=1)]

    def allowed(self, tup: Sequence[int]) -> bool:
        if self.gate is None:
            return True
        g = self.aspects.index(self.gate)
        return tup[g] > 0 or all(x == 0 for x in tup)

    def name(self, tup: Sequence[int]) -> str:
        return "(" + ", ".join(self.labels[a][i] for a, i in zip(self.aspects, tup)) + ")"


def distances(space: AspectSpace, tuples: np.ndarray, dist: str = "euclidean", p: float = 2.0) -> np.ndarray:
    """Distance of each tuple's embedding to the best tuple's (Maistro et al., CIKM 2021, Eq. 2).

    The gaps are divided by the largest of each tuple before they are raised to a power, so a
    large Minkowski exponent ``p`` (>= 1) neither overflows nor loses the order.
    """
    check_choice(dist, "distance", DISTANCES)
    p = check_float(p, "Minkowski exponent p", low=1)
    coords = np.stack([space.coordinates(a)[tuples[:, k]] for k, a in enumerate(space.aspects)], axis=1)
    best = np.array([space.coordinates(a)[-1] for a in space.aspects])
    gap = np.abs(coords - best)
    scale = gap.max(axis=1)
    if dist == "chebyshev":
        return scale
    unit = gap / np.where(scale > 0, scale, 1.0)[:, None]
    if dist == "euclidean":
        return scale * np.sqrt((unit**2).sum(axis=1))
    if dist == "manhattan":
        return gap.sum(axis=1)
    return scale * (unit**p).sum(axis=1) ** (1.0 / p)


def order(space: AspectSpace, dist: str = "euclidean", p: float = 2.0, tol: float = 1e-9
          ) -> tuple[np.ndarray, np.ndarray]:
    """(tuples sorted best → worst, equivalence class of each: 0 = the best); distances within
    ``tol`` (>= 0) are equal."""
    tol = check_float(tol, "distance tolerance", low=0)
    tuples = space.tuples()
    d = distances(space, tuples, dist, p)
    # by distance; equal distances by label indices, best first (display order only)
    idx = np.lexsort(tuple(-tuples[:, k] for k in reversed(range(tuples.shape[1]))) + (d,))
    tuples, d = tuples[idx], d[idx]
    return tuples, np.concatenate(([0], np.cumsum(np.diff(d) > tol)))


def class_weights(classes: np.ndarray, weight: Any = "rank") -> np.ndarray:
    """Weight of each tuple from its class: ``rank``, ``binary`` or an explicit list (best first)
    of integers >= 0 that does not increase."""
    count = int(classes.max()) + 1
    if isinstance(weight, str):
        weight = check_choice(weight, "class weights", WEIGHTS)
        return (count - 1 - classes if weight == "rank" else classes < math.ceil(count / 2)).astype(np.int64)
    if not isinstance(weight, Sequence) or len(weight) != count:
        raise invalid("explicit class weights", f"{count} integers >= 0, one per class, best first", weight)
    values = np.array([check_int(w, "class weight", low=0) for w in weight], dtype=np.int64)
    if (np.diff(values) > 0).any():
        raise invalid("explicit class weights", "non-increasing from the best class to the worst", weight)
    return values[classes]


def check_grades(space: AspectSpace, grades: Mapping[str, Sequence[Any]] | None) -> dict[str, list[int]]:
    """CAM/MM's per-aspect grade maps, checked: known aspects, one integer >= 0 per label (worst
    first), non-decreasing; the label index for an aspect without one."""
    if grades is not None and not isinstance(grades, Mapping):
        raise invalid("grades", "a mapping of aspects to one grade per label", grades)
    given = dict(grades or {})
    out = {}
    for aspect in given:
        check_choice(aspect, "aspect of the grades", space.aspects)
    for aspect in space.aspects:
        count = len(space.labels[aspect])
        values = given.get(aspect, range(count))
        if isinstance(values, str) or not isinstance(values, (Sequence, range)) or len(values) != count:
            raise invalid(f"grades of aspect {aspect!r}", f"{count} integers >= 0, one per label "
                          f"({', '.join(map(str, space.labels[aspect]))})", values)
        out[aspect] = [check_int(g, f"grade of aspect {aspect!r}", low=0) for g in values]
        if any(b < a for a, b in zip(out[aspect], out[aspect][1:])):
            raise invalid(f"grades of aspect {aspect!r}", "non-decreasing (worst label first)", values)
    return out


def label_indices(space: AspectSpace, judgments: Mapping[str, Mapping[str, Mapping[str, Any]]]
               ) -> dict[str, dict[str, list[int]]]:
    """{topic: {docno: label indices}} from {aspect: {topic: {docno: label}}} (index or name)."""
    if not isinstance(judgments, Mapping) or not all(
            isinstance(j, Mapping) and all(isinstance(d, Mapping) for d in j.values()) for j in judgments.values()):
        raise invalid("judgments", "a mapping {aspect: {topic: {docno: label}}}", type(judgments).__name__)
    unknown = [a for a in judgments if a not in space.labels]
    if unknown:
        raise CranfieldError(f"judgments for undeclared aspects: {', '.join(unknown)}")
    topics = {a: set(j) for a, j in judgments.items()}
    if len({frozenset(t) for t in topics.values()}) > 1:
        raise CranfieldError("the aspects' judgments cover different topics: "
                             + "; ".join(f"{a}: {len(t)} topics" for a, t in topics.items()))
    out: dict[str, dict[str, list[int]]] = {}
    filled = 0
    for k, aspect in enumerate(space.aspects):
        names = space.labels[aspect]
        for topic, docs in judgments.get(aspect, {}).items():
            for doc, label in docs.items():
                index = (names.index(label) if label in names
                         else int(label) if str(label).lstrip("-").isdigit() else -1)
                if not 0 <= index < len(names):
                    raise CranfieldError(f"aspect {aspect!r}, topic {topic!r}, document {doc!r}: label {label!r} "
                                         f"is not one of {', '.join(names)}")
                out.setdefault(topic, {}).setdefault(doc, [None] * len(space.aspects))[k] = index  # type: ignore[list-item]
    gate = space.aspects.index(space.gate) if space.gate is not None else None
    for name, judged in out.items():
        for doc, tup in judged.items():
            if None in tup:
                missing = [a for a, x in zip(space.aspects, tup) if x is None]
                gated = gate is not None and tup[gate] == 0 and space.gate not in missing
                if space.missing == "error" or (space.missing == "gate" and not gated):
                    raise CranfieldError(f"topic {name!r}, document {doc!r} is not judged on "
                                         f"{', '.join(missing)} (missing={space.missing!r})")
                filled += len(missing)  # tup has one entry per aspect
                judged[doc] = [0 if x is None else x for x in tup]
            if not space.allowed(judged[doc]):
                raise CranfieldError(f"document {doc!r} contradicts the gate {space.gate!r}: {space.name(judged[doc])}")
    if filled:
        warn(f"{filled} (document, aspect) judgments are missing and take the aspect's lowest label")
    return out


def toma_qrels(space: AspectSpace, judgments: Mapping, dist: str = "euclidean", weight: Any = "rank",
               p: float = 2.0) -> dict[str, dict[str, int]]:
    """Single-aspect qrels whose label is each document's TOMA class weight."""
    tuples, classes = order(space, dist, p)
    weights = class_weights(classes, weight)
    lookup = {tuple(t): int(w) for t, w in zip(tuples.tolist(), weights.tolist())}
    return {topic: {doc: lookup[tuple(tup)] for doc, tup in docs.items()}
            for topic, docs in label_indices(space, judgments).items()}


def aspect_qrels(space: AspectSpace, judgments: Mapping, aspect: str, grades: Sequence[int] | None = None
                 ) -> dict[str, dict[str, int]]:
    """One aspect's judgments as single-aspect qrels, labels mapped through ``grades`` (one
    integer >= 0 per label, non-decreasing; default the label index)."""
    check_choice(aspect, "aspect", space.aspects)
    table = check_grades(space, None if grades is None else {aspect: grades})[aspect]
    k = space.aspects.index(aspect)
    return {topic: {doc: int(table[tup[k]]) for doc, tup in docs.items()}
            for topic, docs in label_indices(space, judgments).items()}


def _refuse(batch: Any, **params: Any) -> np.ndarray:
    """Multi-aspect measures are not kernels over one set of judgments: see :func:`evaluate_named`."""
    raise CranfieldError("TOMA, CAM and MM need judgments on several aspects: use `cranfield aspects eval` "
                         "or cranfield.analysis.aspects.evaluate_aspects")


_MEASURE = Param("measure", "measure", None, "the single-aspect measure")


register(MeasureSpec(
    "TOMA", _refuse, (_MEASURE, Param("dist", "choice", "euclidean", "distance to the best label tuple",
                                      choices=DISTANCES),
                      Param("weight", "choice", "rank", "class weights", choices=WEIGHTS),
                      Param("p", "float", 2.0, "the Minkowski exponent", low=1)),
    cite="Maistro et al., CIKM 2021, §3", doc="total order of label tuples by distance, then any measure",
    cutoff="none", normalised=True,
))


register(MeasureSpec(
    "CAM", _refuse, (_MEASURE,), cite="Maistro et al., CIKM 2021, Eq. 5",
    doc="weighted arithmetic mean of per-aspect scores", cutoff="none",
))


register(MeasureSpec(
    "MM", _refuse, (_MEASURE, Param("variant", "choice", "eq6", "eq6: Σp/Σ(p/μ); table: 1/Σ(1/μ) (Table 3)",
                                    choices=("eq6", "table"))),
    cite="Maistro et al., CIKM 2021, Eq. 6", doc="weighted harmonic mean of per-aspect scores (0 if one is 0)",
    cutoff="none",
))


def multi_aspect_measure(name: Any) -> Any:
    """``name`` parsed, when it is TOMA, CAM or MM (of a single-aspect measure), else the error."""
    m = parse_measure(name)
    if m.name not in ("TOMA", "CAM", "MM"):
        raise invalid("multi-aspect measure", "TOMA(...), CAM(...) or MM(...) of a single-aspect measure, "
                      "e.g. CAM(nDCG@10)", str(name))
    return m
