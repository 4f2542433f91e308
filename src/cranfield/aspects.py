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

from .errors import CranfieldError, warn
from .evaluate import Evaluator
from .registry import MeasureSpec, Param, parse_measure, register

DISTANCES = ("euclidean", "manhattan", "chebyshev", "minkowski")
# a document not judged on an aspect: the aspect's lowest label; the lowest label only when the
# gate aspect is at its lowest (Maistro et al., CIKM 2021, §4.1: credibility is not assessed for non-relevant
# documents), else an error; or always an error
MISSING_RULES = ("lowest", "gate", "error")
WEIGHTS = ("rank", "binary")


@dataclass(frozen=True)
class AspectSpace:
    """The aspects, their ordered labels (worst first), embeddings and optional gate."""

    labels: dict[str, tuple[str, ...]]
    embed: dict[str, tuple[float, ...]] = field(default_factory=dict)
    gate: str | None = None
    missing: str = "lowest"

    def __post_init__(self) -> None:
        if self.missing not in MISSING_RULES:
            raise CranfieldError(f"missing must be one of {', '.join(MISSING_RULES)}, got {self.missing!r}")
        if self.missing == "gate" and self.gate is None:
            raise CranfieldError("missing='gate' needs a gate aspect")
        for aspect, values in self.embed.items():
            if aspect not in self.labels:
                raise CranfieldError(f"embedding for unknown aspect {aspect!r}")
            if len(values) != len(self.labels[aspect]):
                raise CranfieldError(f"aspect {aspect!r} has {len(self.labels[aspect])} labels but "
                                     f"{len(values)} embedding values")
            if any(b < a for a, b in zip(values, values[1:])):
                raise CranfieldError(f"the embedding of aspect {aspect!r} must be non-decreasing, got {list(values)}")
        if self.gate is not None and self.gate not in self.labels:
            raise CranfieldError(f"gate {self.gate!r} is not an aspect ({', '.join(self.labels)})")

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
    """Distance of each tuple's embedding to the best tuple's (Maistro et al., CIKM 2021, Eq. 2)."""
    if dist not in DISTANCES:
        raise CranfieldError(f"dist must be one of {', '.join(DISTANCES)}, got {dist!r}")
    coords = np.stack([space.coordinates(a)[tuples[:, k]] for k, a in enumerate(space.aspects)], axis=1)
    best = np.array([space.coordinates(a)[-1] for a in space.aspects])
    gap = np.abs(coords - best)
    if dist == "euclidean":
        return np.sqrt((gap**2).sum(axis=1))
    if dist == "manhattan":
        return gap.sum(axis=1)
    if dist == "chebyshev":
        return gap.max(axis=1)
    return (gap**p).sum(axis=1) ** (1.0 / p)


def order(space: AspectSpace, dist: str = "euclidean", p: float = 2.0, tol: float = 1e-9
          ) -> tuple[np.ndarray, np.ndarray]:
    """(tuples sorted best → worst, equivalence class of each: 0 = the best)."""
    tuples = space.tuples()
    d = distances(space, tuples, dist, p)
    # by distance; equal distances by label indices, best first (display order only)
    idx = np.lexsort(tuple(-tuples[:, k] for k in reversed(range(tuples.shape[1]))) + (d,))
    tuples, d = tuples[idx], d[idx]
    return tuples, np.concatenate(([0], np.cumsum(np.diff(d) > tol)))


def class_weights(classes: np.ndarray, weight: Any = "rank") -> np.ndarray:
    """Weight of each tuple from its class: ``rank``, ``binary`` or an explicit list (best first)."""
    count = int(classes.max()) + 1
    if weight == "rank":
        return (count - 1 - classes).astype(np.int64)
    if weight == "binary":
        return (classes < math.ceil(count / 2)).astype(np.int64)
    values = np.asarray(weight, dtype=np.int64)
    if values.size != count:
        raise CranfieldError(f"an explicit weight map needs {count} values (one per class, best first)")
    if (np.diff(values) > 0).any():
        raise CranfieldError("class weights must not increase from the best class to the worst")
    return values[classes]


def _labels_of(space: AspectSpace, judgments: Mapping[str, Mapping[str, Mapping[str, Any]]]
               ) -> dict[str, dict[str, list[int]]]:
    """{topic: {docno: label indices}} from {aspect: {topic: {docno: label}}} (index or name)."""
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
    """One aspect's judgments as single-aspect qrels, labels mapped through ``grades``."""
    table = list(grades) if grades is not None else list(range(len(space.labels[aspect])))
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
    """Scores (runs × topics) of ``measure`` under TOMA, CAM or MM, as an evaluate Results."""
    if method == "toma":
        return _scores(toma_qrels(space, judgments, dist, weight, p), runs, measure, **options)[1]
    if method not in ("cam", "mm"):
        raise CranfieldError(f"method must be toma, cam or mm, got {method!r}")
    per, last = [], None
    for aspect in space.aspects:
        values, last = _scores(aspect_qrels(space, judgments, aspect, (grades or {}).get(aspect)), runs, measure,
                               **options)
        per.append(values)
    mu = np.stack(per)  # (A, S, T)
    w = np.array([(aspect_weights or {}).get(a, 1.0 / len(space.aspects)) for a in space.aspects])[:, None, None]
    if method == "cam":
        combined = (w * mu).sum(axis=0)
    else:
        zero = (mu <= 0).any(axis=0)
        pw = np.ones_like(w) if variant == "table" else w
        numerator = 1.0 if variant == "table" else w.sum()
        combined = np.where(zero, 0.0, numerator / (pw / np.where(mu > 0, mu, 1.0)).sum(axis=0))
    assert last is not None
    return type(last)(**{**last.__dict__, "values": combined[:, None, :]})


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
    m = parse_measure(name)
    params = m.params
    inner = str(params["measure"])
    if m.name == "TOMA":
        return evaluate_aspects(space, judgments, runs, inner, dist=params["dist"], weight=params["weight"],
                                p=params["p"], **options)
    if m.name in ("CAM", "MM"):
        return evaluate_aspects(space, judgments, runs, inner, method=m.name.lower(), grades=grades,
                                variant=params.get("variant", "eq6"), **options)
    raise CranfieldError(f"{name} is not a multi-aspect measure (TOMA, CAM or MM)")


def _pairs(values: Sequence[str] | None, what: str) -> dict[str, list[str]]:
    out = {}
    for text in values or []:
        name, sep, rest = text.partition("=")
        if not sep or not rest:
            raise CranfieldError(f"{what} takes NAME=v1,v2,...; got {text!r}")
        out[name.strip()] = [v.strip() for v in rest.split(",") if v.strip()]
    return out


def load_config(path: str) -> dict[str, Any]:
    """An aspect configuration file, JSON or TOML: ``labels``, ``embed``, ``gate``, ``grades``,
    ``missing`` (the command-line options of the same names)."""
    import json

    text = open(path, "rb").read()
    try:
        if path.endswith(".toml"):
            import tomllib

            return tomllib.loads(text.decode())
        return json.loads(text)
    except (ValueError, ImportError) as exc:
        raise CranfieldError(f"{path}: cannot read the aspect configuration: {exc}") from None


def _space_from(args: Any) -> AspectSpace:
    config = load_config(args.config) if getattr(args, "config", None) else {}
    labels = {a: tuple(str(x) for x in v) for a, v in config.get("labels", {}).items()}
    labels.update({a: tuple(v) for a, v in _pairs(args.labels, "--labels").items()})
    try:
        embed = {a: tuple(float(x) for x in v) for a, v in config.get("embed", {}).items()}
        embed.update({a: tuple(float(x) for x in v) for a, v in _pairs(args.embed, "--embed").items()})
    except ValueError:
        raise CranfieldError("--embed values must be numbers") from None
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
    """{aspect: {topic: {docno: label}}} from one file ``qid iter docno label_1 .. label_A``."""
    from .io._tokens import read_columns, require_columns

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
    sp = _space_from(args)
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

    sp = _space_from(args)
    if args.aspect_qrels:
        if not args.aspect_names:
            raise CranfieldError("--aspect-qrels needs --aspect-names a1,a2,...")
        judgments = read_multi_aspect_qrels(args.aspect_qrels, [a.strip() for a in args.aspect_names.split(",")])
    elif args.aspect:
        judgments = read_aspect_judgments({a: v[0] for a, v in _pairs(args.aspect, "--aspect").items()})
    else:
        raise CranfieldError("give the judgments: --aspect NAME=FILE per aspect, or --aspect-qrels FILE --aspect-names")
    config = load_config(args.config) if args.config else {}
    grades = {a: [int(x) for x in v] for a, v in config.get("grades", {}).items()}
    grades.update({a: [int(x) for x in v] for a, v in _pairs(args.grades, "--grades").items()})
    names = _split_measures(args.measure)
    results = [evaluate_named(sp, judgments, args.runs, n, grades=grades) for n in names]
    first = results[0]
    merged = type(first)(**{**first.__dict__, "measures": names, "aggregate": ["mean"] * len(names),
                            "measure_specs": None,
                            "values": np.concatenate([r.values for r in results], axis=1)})
    sys.stdout.write(render(merged, args.format, args.per_topic))
    if args.report:
        _report(sp, judgments, names, grades, args.plot)
    return 0


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
    the aspects); ``sum``, ``squared`` and ``max`` sort by Σ grade, Σ grade² and max grade."""
    labels = _labels_of(space, judgments)
    table = {a: np.asarray((grades or {}).get(a, range(len(space.labels[a]))), dtype=np.float64)
             for a in space.aspects}
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
    below 1 means no ranking of those documents can score 1."""
    runs = ideal_rankings(space, judgments, grades)
    strategies = list(runs)
    res = evaluate_aspects(space, judgments, [runs[s] for s in strategies], measure, method=method,
                           grades=grades, **options)
    return strategies, res.topics, res.values[:, 0, :]


def plot_upper_bounds(topics: list[str], values: Mapping[str, np.ndarray], path: str) -> None:
    """Box-plots per topic of each method's scores over the candidate ideal rankings (Figure 2)."""
    from .truncation import _pyplot

    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 0.5 * len(topics) + 2), 4))
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
    fig.savefig(path)
    plt.close(fig)
