"""Optimal truncation analysis (Amigó, Mizzaro & Spina, SIGIR 2022, §4.2–4.3;
docs/conventions.md#optimal-truncation).

For every run × topic and truncation measure, the ranking length n* ∈ [0, n] that maximises
the measure (equal values under the rule of docs/conventions.md#equality → the shortest); the
distribution of n* over the log bins {0}, [1, 4], [5, 8], [9, 16], ... (the paper's Figure 2);
and Kendall's τ between the systems' mean scores on full rankings and on rankings cut at each measure's
optimum (Table 2 layout: full-ranking measures × truncation measures).

Every prefix of every ranking is scored in one pass from cumulative sums (the measures'
prefix functions in :mod:`cranfield.measures.truncated`), never by re-evaluating each length.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield.analysis.options import DEFAULT_FULL
from cranfield.errors import CranfieldError, check_choice, check_int, invalid
from cranfield.evaluation.evaluator import Evaluator
from cranfield.evaluation.inputs import named_runs
from cranfield.io import Run, as_run
from cranfield.measures.registry import Measure, iter_specs, parse_measure
from cranfield.measures.truncated import ranking_length
from cranfield.meta.agreement import kendall_tau

TRUNCATION_COLUMNS = {  # the rows of each part of TruncationResult.to_dict
    "optimal": ["run", "topic", "measure", "length", "returned", "value"],
    "distribution": ["measure", "bin", "count", "fraction"],
    "kendall": ["full", "truncated", "tau"],
}


def best_prefix(values: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n*, the value there): the first maximum of each row of prefix values over n' ≤ n.

    ``values`` (..., D + 1) holds the measure at every truncation; ``length`` (...) is n. Values
    within 1e-12·max(1, |a|, |b|) of the maximum count as equal, so ties go to the shortest.
    """
    valid = np.arange(values.shape[-1]) <= length[..., None]
    masked = np.where(valid, values, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    tol = 1e-12 * np.maximum(1.0, np.abs(top))
    best = (masked >= top - tol).argmax(axis=-1)
    return best, np.take_along_axis(values, best[..., None], axis=-1)[..., 0]


def length_bin(n: np.ndarray) -> np.ndarray:
    """Bin index of lengths: 0 for n = 0, 1 for [1, 4], then k for (2^k, 2^(k+1)] (Amigó, Mizzaro & Spina, SIGIR 2022,
    Figure 2)."""
    n = np.asarray(n)
    if n.size and n.min() < 0:
        raise invalid("ranking lengths", "integers >= 0", n.min())
    return np.where(n == 0, 0, np.maximum(1, np.ceil(np.log2(np.maximum(n, 1))) - 1)).astype(int)


def bin_label(k: int) -> str:
    """``0``, ``1-4``, ``5-8``, ``9-16``, ... for the bins k = 0, 1, 2, 3, ..."""
    k = check_int(k, "length bin", low=0)
    if k == 0:
        return "0"
    low = 1 if k == 1 else 2**k + 1
    return f"{low}-{2 ** (k + 1)}"



@dataclass(frozen=True)
class TruncationResult:
    """Optimal truncation of runs × topics for each truncation measure.

    Attributes
    ----------
    runs, topics, measures : list of str
    length : ndarray of int, shape (S, M, T)
        n*, the optimal length (0 for a topic missing from the run: the empty ranking).
    value : ndarray of float64, shape (S, M, T)
        The measure at n*.
    full_length : ndarray of int, shape (S, T)
        The returned length n.
    full_measures : list of str
    full_scores : ndarray of float64, shape (S, F)
        Mean over topics of each full-ranking measure on the full rankings.
    """

    runs: list[str]
    topics: list[str]
    measures: list[str]
    length: np.ndarray
    value: np.ndarray
    full_length: np.ndarray
    full_measures: list[str]
    full_scores: np.ndarray

    def distribution(self) -> tuple[list[str], np.ndarray]:
        """(bin labels, counts) with counts of shape (M, bins) over all run × topic pairs."""
        bins = length_bin(self.length)
        top = max(int(bins.max(initial=1)), 1)
        counts = np.stack([np.bincount(bins[:, m].ravel(), minlength=top + 1) for m in range(len(self.measures))])
        return [bin_label(k) for k in range(top + 1)], counts

    def kendall(self) -> np.ndarray:
        """τ between each full-ranking measure (rows) and each truncation measure at its optimum
        (columns), over the systems' mean scores (Amigó, Mizzaro & Spina, SIGIR 2022, Table 2), shape (F, M)."""
        truncated = self.value.mean(axis=2)  # (S, M)

        def tau(x: np.ndarray, y: np.ndarray) -> float:
            defined = x.size >= 2 and bool(np.isfinite(x).all() and np.isfinite(y).all())
            return kendall_tau(x, y) if defined else float("nan")

        return np.array([[tau(self.full_scores[:, f], truncated[:, m])
                          for m in range(len(self.measures))] for f in range(len(self.full_measures))])

    def to_dict(self) -> dict[str, Any]:
        """Plain Python values (the JSON of ``cranfield truncation --format json``): three lists of rows,
        ``optimal`` (run, topic, measure, length n*, returned n, value at n*), ``distribution``
        (measure, bin, count, fraction: Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2) and ``kendall``
        (full, truncated, tau: their Table 2; None where undefined)."""
        labels, counts = self.distribution()
        tau = self.kendall()
        return {
            "optimal": [
                {"run": run, "topic": topic, "measure": measure, "length": int(self.length[s, m, t]),
                 "returned": int(self.full_length[s, t]), "value": float(self.value[s, m, t])}
                for s, run in enumerate(self.runs) for t, topic in enumerate(self.topics)
                for m, measure in enumerate(self.measures)
            ],
            "distribution": [
                {"measure": measure, "bin": label, "count": int(counts[m, k]),
                 "fraction": float(counts[m, k] / max(counts[m].sum(), 1))}
                for m, measure in enumerate(self.measures) for k, label in enumerate(labels)
            ],
            "kendall": [
                {"full": full, "truncated": measure, "tau": None if np.isnan(tau[f, m]) else float(tau[f, m])}
                for f, full in enumerate(self.full_measures) for m, measure in enumerate(self.measures)
            ],
        }

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self, part: str = "optimal") -> Any:
        """One part of :meth:`to_dict` as a tidy pandas DataFrame: ``optimal`` (default; one row per
        run × topic × measure), ``distribution`` (one row per measure × length bin) or ``kendall``
        (one row per full-ranking × truncation measure; NaN where τ is undefined)."""
        import pandas as pd

        part = check_choice(part, "part of the truncation result", tuple(TRUNCATION_COLUMNS))
        frame = pd.DataFrame(self.to_dict()[part], columns=TRUNCATION_COLUMNS[part])
        return frame.astype({"tau": float}) if part == "kendall" else frame

    def to_json(self) -> str:
        """:meth:`to_dict` as indented JSON."""
        return json.dumps(self.to_dict(), indent=1) + "\n"





def prefix_measures() -> list[str]:
    """The measures that have a prefix kernel (their value at every truncation), sorted."""
    return sorted(spec.name for spec in iter_specs() if spec.prefix is not None)


def truncation_measure(name: str | Measure) -> Measure:
    """Parse a measure that has a prefix function (a truncation measure or F)."""
    m = parse_measure(name)
    if m.spec.prefix is None:
        raise CranfieldError(
            f"optimal truncation needs a measure that sees the ranking's length; {m.name} does not. "
            f"Use one of: {', '.join(prefix_measures())}"
        )
    return m


def optimal_truncation(
    qrels: Any, runs: Sequence[Any], measures: Sequence[str | Measure], *,
    full_measures: Sequence[str | Measure] = DEFAULT_FULL, order: str = "score", on_duplicate: str = "error",
    **options: Any,
) -> TruncationResult:
    """Where each truncation measure would have each run stop, and what that costs or gains.

    Parameters
    ----------
    qrels, runs : as for :func:`cranfield.evaluate`
    measures : truncation measures (``RBU``, ``DCGU``, ``OIE``, ``NDCGT``, ``F``, ...)
    full_measures : measures evaluated on the full rankings for the τ table
    order, on_duplicate : how run files are read (as for :meth:`~cranfield.evaluation.evaluator.Evaluator.evaluate`)
    options : passed to :class:`~cranfield.evaluation.evaluator.Evaluator` (``missing``, ``norel``, ``diversity``,
        ``strip_topic_prefix``, ...)
    """
    parsed = [truncation_measure(m) for m in measures]
    if not parsed:
        raise CranfieldError("optimal truncation needs at least one truncation measure")
    if not runs:
        raise CranfieldError("optimal truncation needs at least one run")
    evaluator = Evaluator(qrels, list(full_measures), **options)
    items, names = named_runs(runs)  # a {name: run} dict names its runs, as evaluate's
    # prepared as evaluate prepares them (strip_topic_prefix), so that both passes see the same topics
    loaded: list[Run] = [evaluator.prepare(as_run(r, order=order, on_duplicate=on_duplicate,  # type: ignore[arg-type]
                                                  name=None if names is None else names[k]))
                         for k, r in enumerate(items)]
    full = evaluator.evaluate(loaded)
    coll = evaluator.collection
    n_s, n_m = len(loaded), len(parsed)
    length = np.zeros((n_s, n_m, coll.n_topics), dtype=int)
    value = np.zeros((n_s, n_m, coll.n_topics))
    returned = np.zeros((n_s, coll.n_topics), dtype=int)
    for s, run in enumerate(loaded):
        # a topic missing from the run is the empty ranking: its only choice is n* = 0
        for block in evaluator.topic_blocks(run):
            batch = coll.batch([run], topics=block)
            returned[s, block] = batch.length[0]
            for m, measure in enumerate(parsed):
                assert measure.spec.prefix is not None  # parsed with a prefix function
                prefix = measure.spec.prefix(batch, **measure.params)[0]
                length[s, m, block], value[s, m, block] = best_prefix(prefix, ranking_length(batch, measure.cutoff)[0])
    keep = np.flatnonzero(evaluator.topic_mask)
    return TruncationResult(
        runs=full.runs, topics=full.topics, measures=[str(m) for m in measures], length=length[:, :, keep],
        value=value[:, :, keep], full_length=returned[:, keep], full_measures=[str(f) for f in full_measures],
        full_scores=full.summary(),
    )
