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
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from .errors import CranfieldError, InputError, check_choice, check_float, check_int, invalid, warn
from .evaluate import Evaluator
from .registry import MeasureSpec, Param, parse_measure, register

DISTANCES = ("euclidean", "manhattan", "chebyshev", "minkowski")
# a document not judged on an aspect: the aspect's lowest label; the lowest label only when the
# gate aspect is at its lowest (Maistro et al., CIKM 2021, §4.1: credibility is not assessed for non-relevant
# documents), else an error; or always an error
MISSING_RULES = ("lowest", "gate", "error")
WEIGHTS = ("rank", "binary")
METHODS = ("toma", "cam", "mm")
VARIANTS = ("eq6", "table")
MAX_COORDINATE = 1e6  # |embedding value|: distances stay far from overflow
MAX_TUPLES = 100_000  # label tuples of the space (the product of the aspects' label counts)
MAX_REPORT_ASPECTS = 6  # the upper bounds try every order of the aspects: 720 candidate rankings
CONFIG_KEYS = ("labels", "embed", "gate", "grades", "missing")


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


def _labels_of(space: AspectSpace, judgments: Mapping[str, Mapping[str, Mapping[str, Any]]]
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
                index = names.index(label) if label in names else (int(label) if str(label).lstrip("-").isdigit() else -1)
                if not 0 <= index < len(names):
                    raise CranfieldError(f"aspect {aspect!r}, topic {topic!r}, document {doc!r}: label {label!r} "
                                         f"is not one of {', '.join(names)}")
                out.setdefault(topic, {}).setdefault(doc, [None] * len(space.aspects))[k] = index  # type: ignore[list-item]
    gate = space.aspects.index(space.gate) if space.gate is not None else None
    for name, topic in out.items():
        for doc, tup in topic.items():
            if None in tup:
                missing = [a for a, x in zip(space.aspects, tup) if x is None]
                gated = gate is not None and tup[gate] == 0 and space.gate not in missing
                if space.missing == "error" or (space.missing == "gate" and not gated):
                    raise CranfieldError(f"topic {name!r}, document {doc!r} is not judged on "
                                         f"{', '.join(missing)} (missing={space.missing!r})")
                filled += tup.count(None)
                topic[doc] = [0 if x is None else x for x in tup]
            if not space.allowed(topic[doc]):
                raise CranfieldError(f"document {doc!r} contradicts the gate {space.gate!r}: {space.name(topic[doc])}")
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
            for topic, docs in _labels_of(space, judgments).items()}


def aspect_qrels(space: AspectSpace, judgments: Mapping, aspect: str, grades: Sequence[int] | None = None
                 ) -> dict[str, dict[str, int]]:
    """One aspect's judgments as single-aspect qrels, labels mapped through ``grades`` (one
    integer >= 0 per label, non-decreasing; default the label index)."""
    check_choice(aspect, "aspect", space.aspects)
    table = check_grades(space, None if grades is None else {aspect: grades})[aspect]
    k = space.aspects.index(aspect)
    return {topic: {doc: int(table[tup[k]]) for doc, tup in docs.items()}
            for topic, docs in _labels_of(space, judgments).items()}


def _scores(qrels: Mapping, runs: Sequence[Any], measure: Any, **options: Any) -> np.ndarray:
    res = Evaluator(qrels, [measure], **options).evaluate(runs)
    return res.values[:, 0, :], res


def evaluate_aspects(
    space: AspectSpace, judgments: Mapping, runs: Sequence[Any], measure: str, *, method: str = "toma",
    dist: str = "euclidean", weight: Any = "rank", p: float = 2.0, grades: Mapping[str, Sequence[int]] | None = None,
    aspect_weights: Mapping[str, float] | None = None, variant: str = "eq6", **options: Any,
) -> Any:
    """Scores (runs × topics) of ``measure`` under TOMA, CAM or MM, as an evaluate Results.

    ``aspect_weights`` p_a (finite, >= 0, not all 0; default 1/A each) weigh CAM and MM;
    ``grades`` are checked by :func:`check_grades`; ``variant`` is MM's ``eq6`` or ``table``.
    """
    check_choice(method, "method", METHODS)
    check_choice(variant, "MM variant", VARIANTS)
    if method == "toma":
        return _scores(toma_qrels(space, judgments, dist, weight, p), runs, measure, **options)[1]
    table = check_grades(space, grades)
    w = _aspect_weights(space, aspect_weights)[:, None, None]
    per, last = [], None
    for aspect in space.aspects:
        values, last = _scores(aspect_qrels(space, judgments, aspect, table[aspect]), runs, measure, **options)
        per.append(values)
    mu = np.stack(per)  # (A, S, T)
    if method == "cam":
        combined = (w * mu).sum(axis=0)
    else:
        zero = (mu <= 0).any(axis=0)
        pw = np.ones_like(w) if variant == "table" else w
        numerator = 1.0 if variant == "table" else w.sum()
        combined = np.where(zero, 0.0, numerator / (pw / np.where(mu > 0, mu, 1.0)).sum(axis=0))
    assert last is not None
    return type(last)(**{**last.__dict__, "values": combined[:, None, :]})


def _aspect_weights(space: AspectSpace, weights: Mapping[str, Any] | None) -> np.ndarray:
    """p_a of each aspect (default 1/A), checked: known aspects, finite, >= 0, not all 0."""
    given = dict(weights or {})
    for aspect in given:
        check_choice(aspect, "aspect of the aspect weights", space.aspects)
    w = np.array([check_float(given.get(a, 1.0 / len(space.aspects)), f"weight of aspect {a!r}", low=0)
                  for a in space.aspects])
    if not w.sum() > 0:
        raise invalid("aspect weights", "numbers >= 0, not all 0", given)
    return w


def _refuse(batch: Any, **params: Any) -> np.ndarray:
    """Multi-aspect measures are not kernels over one set of judgments: see :func:`evaluate_named`."""
    raise CranfieldError("TOMA, CAM and MM need judgments on several aspects: use `cranfield aspects eval` "
                         "or cranfield.aspects.evaluate_aspects")


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
    "CAM", _refuse, (_MEASURE,), cite="Maistro et al., CIKM 2021, Eq. 5", doc="weighted arithmetic mean of per-aspect scores",
    cutoff="none",
))
register(MeasureSpec(
    "MM", _refuse, (_MEASURE, Param("variant", "choice", "eq6", "eq6: Σp/Σ(p/μ); table: 1/Σ(1/μ) (Table 3)",
                                    choices=("eq6", "table"))),
    cite="Maistro et al., CIKM 2021, Eq. 6", doc="weighted harmonic mean of per-aspect scores (0 if one is 0)", cutoff="none",
))


def evaluate_named(space: AspectSpace, judgments: Mapping, runs: Sequence[Any], name: str,
                   grades: Mapping[str, Sequence[int]] | None = None, **options: Any) -> Any:
    """Evaluate ``TOMA(nDCG@10, dist=manhattan, weight=rank)``, ``CAM(AP)`` or ``MM(AP, variant=table)``."""
    m = multi_aspect_measure(name)
    params = m.params
    inner = str(params["measure"])
    if m.name == "TOMA":
        return evaluate_aspects(space, judgments, runs, inner, dist=params["dist"], weight=params["weight"],
                                p=params["p"], **options)
    return evaluate_aspects(space, judgments, runs, inner, method=m.name.lower(), grades=grades,
                            variant=params.get("variant", "eq6"), **options)


def multi_aspect_measure(name: Any) -> Any:
    """``name`` parsed, when it is TOMA, CAM or MM (of a single-aspect measure), else the error."""
    m = parse_measure(name)
    if m.name not in ("TOMA", "CAM", "MM"):
        raise invalid("multi-aspect measure", "TOMA(...), CAM(...) or MM(...) of a single-aspect measure, "
                      "e.g. CAM(nDCG@10)", str(name))
    return m


def _pairs(values: Sequence[str] | None, what: str, form: str = "NAME=v1,v2,...") -> dict[str, list[str]]:
    """``NAME=v1,v2,...`` options as {NAME: [v1, v2, ...]} (``NAME=FILE``: {NAME: [FILE]}); each
    NAME once."""
    out: dict[str, list[str]] = {}
    for text in values or []:
        name, _, rest = (x.strip() for x in text.partition("="))
        items = [v.strip() for v in rest.split(",")] if form.endswith("...") else [rest]
        if not name or not all(items) or name in out:
            raise invalid(f"value of {what}", f"{form} with each NAME given once", text)
        out[name] = items
    return out


def load_config(path: str) -> dict[str, Any]:
    """An aspect configuration file, JSON or TOML (``.toml``): a mapping with ``labels``,
    ``embed`` and ``grades`` (mappings of aspects to lists), ``gate`` and ``missing`` (strings),
    the command-line options of the same names. Any problem is an :class:`InputError` naming
    the file."""
    import json
    from pathlib import Path

    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read the aspect configuration: {exc.strerror or exc}") from None
    try:
        if str(path).endswith(".toml"):
            import tomllib

            config = tomllib.loads(text.decode())
        else:
            config = json.loads(text)
    except (ValueError, ImportError) as exc:
        raise InputError(path, None, f"cannot read the aspect configuration: {exc}") from None
    return _checked_config(path, config)


def _checked_config(path: str, config: Any) -> dict[str, Any]:
    """The parsed configuration when its keys and value types are those of :func:`load_config`."""
    if not isinstance(config, dict):
        raise InputError(path, None, "the aspect configuration must be a mapping (a JSON object or TOML table) of "
                                     f"{', '.join(CONFIG_KEYS)}; got a {type(config).__name__}")
    unknown = [k for k in config if k not in CONFIG_KEYS]
    if unknown:
        raise InputError(path, None, f"unknown keys {', '.join(map(repr, unknown))} in the aspect configuration; "
                                     f"the keys are {', '.join(CONFIG_KEYS)}")
    for key in ("labels", "embed", "grades"):
        value = config.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise InputError(path, None, f"{key!r} must map each aspect to a list, e.g. "
                                         '{"relevance": ["nr", "mr", "hr"]}; got ' + repr(value))
    for key in ("gate", "missing"):
        if not isinstance(config.get(key, ""), str):
            raise InputError(path, None, f"{key!r} must be a string; got {config[key]!r}")
    return config


def _space_from(args: Any, config: Mapping[str, Any]) -> AspectSpace:
    """The aspect space of the options and the configuration file (options win)."""
    labels = {a: tuple(str(x) for x in v) for a, v in config.get("labels", {}).items()}
    labels.update({a: tuple(v) for a, v in _pairs(args.labels, "--labels").items()})
    embed = {**config.get("embed", {}), **_pairs(args.embed, "--embed")}
    if not labels:
        raise CranfieldError("declare each aspect's labels, worst first: --labels relevance=nr,mr,fr,hr")
    missing = getattr(args, "missing_aspect", None) or config.get("missing", "lowest")
    return AspectSpace(labels, embed, gate=args.gate or config.get("gate"), missing=missing)


def read_aspect_judgments(files: Mapping[str, str]) -> dict[str, dict[str, dict[str, str]]]:
    """{aspect: {topic: {docno: label}}} from one TREC qrels file per aspect (labels are label
    names or indices)."""
    from .io._tokens import read_columns, require_columns

    out: dict = {}
    for aspect, path in files.items():
        cols = read_columns(path, 4)
        require_columns(cols, (4,), "qid iter docno label")
        for q, d, label in zip(*(cols.text[j].tolist() for j in (0, 2, 3))):
            out.setdefault(aspect, {}).setdefault(q.decode(), {})[d.decode()] = label.decode()
    return out


def read_multi_aspect_qrels(path: str, names: Sequence[str]) -> dict[str, dict[str, dict[str, str]]]:
    """{aspect: {topic: {docno: label}}} from one file ``qid iter docno label_1 .. label_A``
    (``names``: the A distinct aspect names of the label columns)."""
    from .io._tokens import read_columns, require_columns

    if isinstance(names, str) or not names or not all(names) or len(set(names)) != len(names):
        raise invalid("aspect names of the label columns", "distinct non-empty names, e.g. relevance,correctness",
                      ",".join(names) if not isinstance(names, str) else names)

    width = 3 + len(names)
    cols = read_columns(path, width)
    require_columns(cols, (width,), "qid iter docno " + " ".join(names))
    out: dict = {a: {} for a in names}
    for k, aspect in enumerate(names):
        for q, d, label in zip(cols.text[0].tolist(), cols.text[2].tolist(), cols.text[3 + k].tolist()):
            out[aspect].setdefault(q.decode(), {})[d.decode()] = label.decode()
    return out


def add_parser(sub: Any) -> None:
    """``cranfield aspects order`` and ``cranfield aspects eval``."""
    import argparse

    p = sub.add_parser("aspects", help="multi-aspect evaluation: TOMA, CAM, MM",
                       description="Evaluate rankings judged on several aspects (Maistro et al., CIKM 2021).")
    inner = p.add_subparsers(dest="aspects_command", metavar="ACTION", required=True)
    for name, doc in (("order", "print the order of label tuples TOMA induces (Maistro et al., CIKM 2021, Table 1)"),
                      ("eval", "evaluate runs with TOMA, CAM and MM side by side")):
        q = inner.add_parser(name, help=doc, description=doc, formatter_class=argparse.RawDescriptionHelpFormatter,
                             epilog="example: cranfield aspects eval --aspect relevance=rel.qrels --aspect "
                                    "correctness=corr.qrels --labels relevance=nr,mr,fr,hr --labels "
                                    "correctness=nc,pc,c --gate relevance run.txt -m 'TOMA(nDCG@10,dist=manhattan)' "
                                    "-m 'CAM(nDCG@10)' -m 'MM(nDCG@10)'")
        q.add_argument("--labels", action="append", metavar="ASPECT=l0,l1,...", help="an aspect's labels, worst first")
        q.add_argument("--embed", action="append", metavar="ASPECT=v0,v1,...", help="non-decreasing coordinates")
        q.add_argument("--gate", metavar="ASPECT", help="at its lowest label, every aspect is at its lowest label")
        q.add_argument("--config", metavar="FILE", help="labels, embed, gate, grades and missing as JSON or TOML")
        if name == "order":
            q.add_argument("--dist", choices=(*DISTANCES[:3], "all"), default="all")
            q.set_defaults(handler=_run_order)
        else:
            q.add_argument("runs", nargs="+", metavar="run")
            q.add_argument("--aspect", action="append", metavar="NAME=FILE", help="an aspect's qrels (qid iter docno label)")
            q.add_argument("--aspect-qrels", metavar="FILE", help="one file: qid iter docno label_1 .. label_A")
            q.add_argument("--aspect-names", metavar="A1,A2,...", help="the aspects of --aspect-qrels' label columns")
            q.add_argument("--missing-aspect", choices=MISSING_RULES,
                           help="a document not judged on an aspect: lowest label (default), lowest only when "
                                "the gate aspect is at its lowest (Maistro et al., CIKM 2021, §4.1), or an error")
            q.add_argument("--grades", action="append", metavar="ASPECT=g0,g1,...",
                           help="CAM/MM: each label's grade for the per-aspect measure (default: the label index)")
            q.add_argument("-m", "--measure", action="append", required=True, metavar="MEASURE")
            q.add_argument("--per-topic", "-q", action="store_true")
            q.add_argument("--format", choices=("table", "trec", "csv", "json"), default="table")
            q.add_argument("--report", action="store_true",
                           help="also the upper bound of each CAM/MM measure per topic: its best score over "
                                "the candidate ideal rankings (recursive per aspect order, sum, squared, max)")
            q.add_argument("--plot", metavar="FILE", help="with --report: box-plots per topic (Maistro et al., CIKM 2021, Figure 2)")
            q.set_defaults(handler=_run_eval)


def _run_order(args: Any) -> int:
    sp = _space_from(args, load_config(args.config) if args.config else {})
    for dist in (DISTANCES[:3] if args.dist == "all" else (args.dist,)):
        tuples, classes = order(sp, dist)
        groups = [" = ".join(sp.name(t) for t, c in zip(tuples.tolist(), classes) if c == k)
                  for k in range(int(classes.max()) + 1)]
        print(f"{dist} ({len(groups)} classes, best first): " + "  >  ".join(groups))
    return 0


def _run_eval(args: Any) -> int:
    import sys

    from .cli import _split_measures
    from .report import render

    config = load_config(args.config) if args.config else {}
    sp = _space_from(args, config)
    grades = check_grades(sp, {**config.get("grades", {}), **_pairs(args.grades, "--grades")})
    names = list(dict.fromkeys(_split_measures(args.measure)))
    measures = [multi_aspect_measure(n) for n in names]
    _check_report(args, measures)
    judgments = _read_judgments(args)
    results = [evaluate_named(sp, judgments, args.runs, n, grades=grades) for n in names]
    first = results[0]
    merged = type(first)(**{**first.__dict__, "measures": names, "aggregate": ["mean"] * len(names),
                            "measure_specs": None,
                            "values": np.concatenate([r.values for r in results], axis=1)})
    sys.stdout.write(render(merged, args.format, args.per_topic))
    if args.report:
        _report(sp, judgments, names, grades, args.plot)
    return 0


def _check_report(args: Any, measures: list[Any]) -> None:
    """--report and --plot, before any work: --plot draws --report's upper bounds of CAM/MM
    measures, into a file that can be written."""
    from .figures import check_plot_path

    if not args.plot:
        return
    if not args.report or not any(m.name in ("CAM", "MM") for m in measures):
        raise CranfieldError("--plot draws the upper bounds of --report for CAM and MM measures: add --report and "
                             "a CAM(...) or MM(...) measure")
    check_plot_path(args.plot)


def _read_judgments(args: Any) -> dict[str, dict[str, dict[str, str]]]:
    """The judgments of --aspect NAME=FILE (one file per aspect) or --aspect-qrels FILE with
    --aspect-names (one column per aspect), never both."""
    if args.aspect_qrels and args.aspect:
        raise CranfieldError("give the judgments either with --aspect NAME=FILE or with --aspect-qrels, not both")
    if args.aspect_names and not args.aspect_qrels:
        raise CranfieldError("--aspect-names names the label columns of --aspect-qrels: add --aspect-qrels FILE")
    if args.aspect_qrels:
        if not args.aspect_names:
            raise CranfieldError("--aspect-qrels needs --aspect-names a1,a2,...")
        return read_multi_aspect_qrels(args.aspect_qrels, [a.strip() for a in args.aspect_names.split(",")])
    if args.aspect:
        return read_aspect_judgments({a: v[0] for a, v in _pairs(args.aspect, "--aspect", "NAME=FILE").items()})
    raise CranfieldError("give the judgments: --aspect NAME=FILE per aspect, or --aspect-qrels FILE --aspect-names")


def _report(sp: AspectSpace, judgments: Mapping, names: list[str], grades: Mapping, plot: str | None) -> None:
    boxes = {}
    for name in names:
        m = parse_measure(name)
        if m.name not in ("CAM", "MM"):
            continue
        strategies, topics, values = upper_bounds(sp, judgments, str(m.params["measure"]), method=m.name.lower(),
                                                  grades=grades, variant=m.params.get("variant", "eq6"))
        best = values.max(axis=0)
        print(f"\nupper bound of {name} per topic (best of {len(strategies)} candidate ideal rankings)")
        for t, topic in enumerate(topics):
            arg = strategies[int(values[:, t].argmax())]
            print(f"  {topic}\t{best[t]:.4f}\t{arg}" + ("\t< 1" if best[t] < 1 - 1e-12 else ""))
        boxes[name] = values
    if plot and boxes:
        plot_upper_bounds(topics, boxes, plot)


STRATEGIES = ("recursive", "sum", "squared", "max")


def ideal_rankings(space: AspectSpace, judgments: Mapping, grades: Mapping[str, Sequence[int]] | None = None
                   ) -> dict[str, dict[str, dict[str, float]]]:
    """Candidate ideal rankings of each topic's judged documents (Maistro et al., CIKM 2021, §4.2), as runs:
    ``recursive:a>b`` sorts by one aspect's grade, ties by the next (every preference order of
    the aspects, at most :data:`MAX_REPORT_ASPECTS`); ``sum``, ``squared`` and ``max`` sort by
    Σ grade, Σ grade² and max grade (``grades`` as for :func:`check_grades`)."""
    check_int(len(space.aspects), "number of aspects of the candidate ideal rankings (one per order of the aspects)",
              low=1, high=MAX_REPORT_ASPECTS)
    table = {a: np.asarray(g, dtype=np.float64) for a, g in check_grades(space, grades).items()}
    labels = _labels_of(space, judgments)
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for topic, docs in labels.items():
        names = sorted(docs)
        g = np.array([[table[a][docs[d][k]] for k, a in enumerate(space.aspects)] for d in names])  # (J, A)
        keys: dict[str, np.ndarray] = {}
        for perm in itertools.permutations(range(len(space.aspects))):
            label = "recursive:" + ">".join(space.aspects[k] for k in perm)
            keys[label] = np.lexsort(tuple(-g[:, k] for k in reversed(perm)))
        keys["sum"] = np.argsort(-g.sum(axis=1), kind="stable")
        keys["squared"] = np.argsort(-(g**2).sum(axis=1), kind="stable")
        keys["max"] = np.argsort(-g.max(axis=1), kind="stable")
        for label, order_ in keys.items():
            runs.setdefault(label, {})[topic] = {names[j]: float(len(names) - r) for r, j in enumerate(order_)}
    return runs


def upper_bounds(space: AspectSpace, judgments: Mapping, measure: str, *, method: str = "cam",
                 grades: Mapping[str, Sequence[int]] | None = None, **options: Any) -> tuple[list[str], list[str], np.ndarray]:
    """CAM or MM of every candidate ideal ranking (Maistro et al., CIKM 2021, §4.2): (strategies, topics, values
    of shape (strategies, topics)). The best strategy per topic estimates the measure's maximum;
    below 1 means no ranking of those documents can score 1. ``method`` is ``cam`` or ``mm``."""
    check_choice(method, "method of the upper bounds", METHODS[1:])
    runs = ideal_rankings(space, judgments, grades)
    strategies = list(runs)
    res = evaluate_aspects(space, judgments, [runs[s] for s in strategies], measure, method=method,
                           grades=grades, **options)
    return strategies, res.topics, res.values[:, 0, :]


def plot_upper_bounds(topics: list[str], values: Mapping[str, np.ndarray], path: str) -> None:
    """Box-plots per topic of each method's scores over the candidate ideal rankings (Figure 2)."""
    from .figures import new_figure, save_figure

    if not values:
        raise CranfieldError("no upper bounds to plot")
    fig = new_figure(figsize=(max(6, 0.5 * len(topics) + 2), 4))
    ax = fig.subplots()
    width = 0.8 / max(len(values), 1)
    for k, (label, v) in enumerate(values.items()):
        pos = np.arange(len(topics)) + k * width
        box = ax.boxplot([v[:, t] for t in range(len(topics))], positions=pos, widths=width * 0.9,
                         patch_artist=True, manage_ticks=False)
        for patch in box["boxes"]:
            patch.set_facecolor(f"C{k}")
        ax.plot([], [], color=f"C{k}", label=label, linewidth=6)
    ax.set_xticks(np.arange(len(topics)) + 0.4 - width / 2, topics, rotation=90)
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_ylabel("score of the candidate ideal rankings")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)
