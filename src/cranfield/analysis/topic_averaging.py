"""How much the topic averaging changes a measure's ranking of systems (Golbus, Aslam & Clarke,
Inf. Retr. 2013, §6.4, Tables 6–7; docs/studies.md#topic-averagings).

The runs are scored once; their per-topic scores are then averaged over topics in several ways —
``avg`` (arithmetic mean), ``geom`` (geometric mean, floor 1e-5 as trec_eval's gm_map) and
``dd`` (weights 1 − dd(t), dd at depth ξ, ξ + 1 or k; §6.3) — and each pair of averagings is
compared by Kendall's τ between the orderings of the runs by their averaged scores
(:func:`cranfield.meta.agreement.kendall_tau`, τ-b), as Tables 6 (ERR-IA) and 7 (D#-nDCG) do. Under
each averaging, the measures are compared with each other too (Table 8: α#-IA's subtopic averagings).
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield.errors import CranfieldError, invalid
from cranfield.evaluation.averaging import AVERAGES, dd_weights
from cranfield.evaluation.evaluator import Evaluator, Results
from cranfield.measures.topics import check_depth
from cranfield.meta.agreement import kendall_tau

DEFAULT_AVERAGINGS = ("avg", "geom", "dd@xi", "dd@xi+1")

__all__ = ["DEFAULT_AVERAGINGS", "AveragingCorrelation", "parse_averagings", "averaging_correlation"]


def parse_averagings(spec: str | Sequence[str]) -> list[str]:
    """Topic averagings from text such as ``avg,geom,dd@xi+1``: ``avg``, ``geom`` or ``dd`` (dd at
    depth ξ), ``dd@xi``, ``dd@xi+1`` or ``dd@K`` (an integer depth); canonical (``dd`` → ``dd@xi``),
    each once, at least two."""
    parts = [p.strip() for p in (spec.split(",") if isinstance(spec, str) else spec)]
    out: list[str] = []
    for p in parts:
        how, _, depth = p.partition("@")
        if how not in AVERAGES or (depth and how != "dd") or (p.endswith("@")):
            raise invalid("topic averaging", "avg, geom, dd or dd@xi, dd@xi+1, dd@K", p)
        name = f"dd@{check_depth(depth or 'xi')}" if how == "dd" else how
        if name in out:
            raise invalid("list of topic averagings", "each averaging once", spec)
        out.append(name)
    if len(out) < 2:
        raise invalid("list of topic averagings", "at least two averagings to compare", spec)
    return out


@dataclass(frozen=True, eq=False)
class AveragingCorrelation:
    """Kendall's τ between the run orderings of each measure under each pair of topic averagings
    (Golbus, Aslam & Clarke, Inf. Retr. 2013, Tables 6–7).

    Attributes
    ----------
    runs, measures, topics : list of str
    averagings : list of str
        ``avg``, ``geom``, ``dd@xi``, ...
    means : ndarray, shape (A, S, M)
        The runs' averaged scores under each averaging.
    pairs : list of (str, str)
        The pairs of averagings compared, in the order of ``averagings``.
    tau : ndarray, shape (M, P)
        Kendall's τ-b between the run orderings of each pair (NaN when an ordering ties every run).
    measure_pairs : list of (str, str)
        The pairs of measures (none with one measure).
    measure_tau : ndarray, shape (A, Q)
        Under each averaging, Kendall's τ-b between the run orderings of each pair of measures (Table 8:
        the subtopic averagings of α#-IA as measures, under avg, geom and DD topic averaging).
    """

    runs: list[str]
    measures: list[str]
    topics: list[str]
    averagings: list[str]
    means: np.ndarray
    pairs: list[tuple[str, str]]
    tau: np.ndarray
    measure_pairs: list[tuple[str, str]] = dataclasses.field(default_factory=list)
    measure_tau: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 0)))

    def between_measures(self) -> list[dict[str, Any]]:
        """One dict per averaging and pair of measures: ``average``, ``a``, ``b``, ``tau`` (Table 8)."""
        return [{"average": h, "a": a, "b": b,
                 "tau": None if np.isnan(self.measure_tau[k, q]) else float(self.measure_tau[k, q])}
                for k, h in enumerate(self.averagings) for q, (a, b) in enumerate(self.measure_pairs)]

    def rows(self) -> list[dict[str, Any]]:
        """One dict per measure and pair: ``measure``, ``a``, ``b``, ``tau`` (None when undefined)."""
        return [{"measure": m, "a": a, "b": b, "tau": None if np.isnan(self.tau[i, p]) else float(self.tau[i, p])}
                for i, m in enumerate(self.measures) for p, (a, b) in enumerate(self.pairs)]

    def to_dict(self) -> dict[str, Any]:
        """``runs``, ``measures``, ``topics`` (count), ``averagings``, ``rows`` (:meth:`rows`),
        ``between_measures`` (:meth:`between_measures`) and ``means``:
        one ``{run, measure, <averaging>: value, ...}`` per run and measure."""
        means = [{"run": r, "measure": m, **{a: float(self.means[k, s, i]) for k, a in enumerate(self.averagings)}}
                 for i, m in enumerate(self.measures) for s, r in enumerate(self.runs)]
        return {"runs": list(self.runs), "measures": list(self.measures), "topics": len(self.topics),
                "averagings": list(self.averagings), "rows": self.rows(), "between_measures": self.between_measures(),
                "means": means}

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self) -> Any:
        """:meth:`rows` as a DataFrame: ``measure``, ``a``, ``b``, ``tau``."""
        import pandas as pd

        return pd.DataFrame(self.rows(), columns=["measure", "a", "b", "tau"]).astype({"tau": float})

    def matrix(self, measure: str) -> list[list[float | None]]:
        """The upper triangle of Tables 6–7 for one measure: τ of averaging i (row) against j > i."""
        i = self.measures.index(measure)
        n = len(self.averagings)
        out: list[list[float | None]] = [[None] * n for _ in range(n)]
        for p, (a, b) in enumerate(self.pairs):
            out[self.averagings.index(a)][self.averagings.index(b)] = float(self.tau[i, p])
        return out


def averaging_correlation(
    qrels: Any, runs: Any, measures: Sequence[str], *,
    averagings: str | Sequence[str] = DEFAULT_AVERAGINGS, evaluator: Evaluator | None = None, **options: Any,
) -> AveragingCorrelation:
    """Kendall's τ between the orderings of ``runs`` by each measure under each pair of topic averagings
    (Golbus, Aslam & Clarke, Inf. Retr. 2013, §6.4, Tables 6–7: ERR-IA and D#-nDCG under avg, geom, DD).

    Parameters
    ----------
    qrels : path, dict, DataFrame, Qrels or Collection
    runs : runs as :meth:`Evaluator.evaluate` takes them (a list of paths or Run objects, a dict
        ``{name: run}``, ...), at least two
    measures : sequence of str
        Measures averaged by their mean (not trec_eval's counts or gm_map).
    averagings : text or sequence
        :func:`parse_averagings`; default ``avg, geom, dd@xi, dd@xi+1``.
    evaluator : Evaluator, optional
        Scores the runs (built from ``qrels``, ``measures`` and ``options`` when omitted).
    options
        Evaluator options (``diversity``, ``intents``, ``missing``, ...).

    Examples
    --------
    Topic 1 has dd weight 1/7 (depth ξ), topic 2 5/27; run A finds both intents of topic 1 and
    one of topic 2 at rank 2, run B the reverse: equal under ``avg``, B ahead under ``dd``:

    >>> qrels = {"1": {"x": {"d1": 1}, "y": {"d2": 1}}, "2": {"x": {"d3": 1, "d4": 1, "d5": 1}, "y": {"d6": 1}}}
    >>> runs = {"A": {"1": {"d1": 2.0, "d2": 1.0}, "2": {"d3": 2.0, "d4": 1.0}},
    ...         "B": {"1": {"d1": 2.0, "d9": 1.0}, "2": {"d3": 2.0, "d6": 1.0}},
    ...         "C": {"1": {"d2": 1.0}, "2": {"d6": 1.0}}}
    >>> res = averaging_correlation(qrels, runs, ["StRecall@2"], averagings="avg,dd")
    >>> res.means[:, :, 0].round(4).tolist(), round(res.rows()[0]["tau"], 4)   # tau-b = 2/sqrt(2*3)
    ([[0.75, 0.75, 0.5], [0.7177, 0.7823, 0.5]], 0.8165)
    """
    names = parse_averagings(averagings)
    ev = evaluator if evaluator is not None else Evaluator(qrels, list(measures), **options)
    res = ev.evaluate(runs)
    bad = [m for m, how in zip(res.measures, res.aggregate) if how != "mean"]
    if bad:
        raise CranfieldError(f"comparing topic averagings needs measures averaged by their mean; {bad[0]} is "
                             "aggregated otherwise (a count or gm_map)")
    if len(res.runs) < 2:
        raise CranfieldError("comparing run orderings needs at least two runs")
    keep = np.flatnonzero(ev.topic_mask)
    means = np.stack([_averaged(res, how, ev, keep) for how in names])  # (A, S, M)
    pairs = list(itertools.combinations(range(len(names)), 2))
    tau = np.array([[kendall_tau(means[a, :, m], means[b, :, m]) for a, b in pairs]
                    for m in range(len(res.measures))], dtype=np.float64).reshape(len(res.measures), len(pairs))
    mpairs = list(itertools.combinations(range(len(res.measures)), 2))
    mtau = np.array([[kendall_tau(means[k, :, i], means[k, :, j]) for i, j in mpairs] for k in range(len(names))],
                    dtype=np.float64).reshape(len(names), len(mpairs))
    return AveragingCorrelation(list(res.runs), list(res.measures), list(res.topics), names, means,
                                [(names[a], names[b]) for a, b in pairs], tau,
                                [(res.measures[i], res.measures[j]) for i, j in mpairs], mtau)


def _averaged(res: Results, how: str, ev: Evaluator, keep: np.ndarray) -> np.ndarray:
    """The runs' ``all`` row (S, M) under one averaging, from the same per-topic scores."""
    if how.startswith("dd@"):
        weights = dd_weights(ev.collection.topics, check_depth(how[3:]))[keep]
        return dataclasses.replace(res, average="dd", topic_weights=weights).summary()
    return dataclasses.replace(res, average=how, topic_weights=None).summary()
