"""The data of the report's figures that need more than a :class:`~cranfield.evaluation.evaluator.Results`:
interpolated precision–recall curves, per-intent coverage, I-rec at depth and run lengths, each
computed from the :class:`~cranfield.evaluation.evaluator.Evaluator` and the parsed runs with the
registered measures (no measure is computed here), and the t interval of each run's mean.

The figures are drawn by :mod:`cranfield.render.plots` and gathered in the HTML report
(:func:`cranfield.render.html.html_report`, ``cranfield report``).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from cranfield.errors import EvaluationWarning, check_float, check_int
from cranfield.evaluation.evaluator import Evaluator, RunScores
from cranfield.io import Run

RECALL_LEVELS = tuple(round(0.1 * k, 1) for k in range(11))
"""The 11 standard recall levels 0.0, 0.1, ..., 1.0 of trec_eval's ``iprec_at_recall``."""

IREC_DEPTHS = tuple(range(1, 21))
"""Depths of the I-rec curve: 1..20 (TREC Web diversity evaluates at 20)."""

COVERAGE_DEPTH = 20
"""Depth of the per-intent coverage heat map."""


def score_with(evaluator: Evaluator, runs: Sequence[Run], measures: Sequence[str], *,
               per_intent: bool = False) -> list[RunScores]:
    """Each run scored by ``measures`` on ``evaluator``'s compiled collection and settings (topic
    rules, depth, judged-only), without compiling the qrels again. The runs may be prepared
    already (:meth:`Evaluator.prepare` is idempotent). The topic-set warnings were given when the
    runs were first evaluated and are not repeated. Scores cover the collection's topics, (M, T_qrels)."""
    ev = evaluator.with_measures(measures)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        return [ev.score_run(ev.prepare(run), per_intent=per_intent) for run in runs]


def _topic_mean(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis, NaN (unscored topics) left out."""
    scored = ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        return np.where(scored, values, 0.0).sum(axis=-1) / scored.sum(axis=-1)


def precision_recall(evaluator: Evaluator, runs: Sequence[Run],
                     levels: Sequence[float] = RECALL_LEVELS) -> np.ndarray:
    """Interpolated precision at each recall level, mean over the evaluated topics, shape (S, L):
    the measure ``IPrec@r`` (trec_eval's ``iprec_at_recall``; the 11-point curve of Salton & McGill,
    *Introduction to Modern Information Retrieval*, 1983)."""
    levels = [check_float(r, "recall level", low=0, high=1) for r in levels]
    scores = score_with(evaluator, runs, [f"IPrec@{r:g}" for r in levels])
    keep = evaluator.topic_mask
    if not scores:
        return np.zeros((0, len(levels)))
    return _topic_mean(np.stack([s.values[:, keep] for s in scores]))


def intent_recall(evaluator: Evaluator, runs: Sequence[Run], depths: Sequence[int] = IREC_DEPTHS) -> np.ndarray:
    """I-rec@k (subtopic recall, Zhai, Cohen & Lafferty, SIGIR 2003, §3.1; ndeval's strec@k) at
    each depth k, mean over the evaluated topics, shape (S, D): the measure ``StRecall@k``."""
    depths = [check_int(k, "depth", low=1) for k in depths]
    scores = score_with(evaluator, runs, [f"StRecall@{k}" for k in depths])
    keep = evaluator.topic_mask
    if not scores:
        return np.zeros((0, len(depths)))
    return _topic_mean(np.stack([s.values[:, keep] for s in scores]))


def intent_coverage(evaluator: Evaluator, runs: Sequence[Run], depth: int = COVERAGE_DEPTH
                    ) -> tuple[list[str], np.ndarray]:
    """Whether each intent of each evaluated topic is covered by each run — a document relevant to
    it within the first ``depth`` ranks — as ``(labels, coverage)``: ``topic:intent`` labels (N,)
    and 0/1 values (S, N), NaN where a topic is not scored. It is the per-intent value X_i of the
    intent-aware measure ``IA(Success@depth)`` (Agrawal et al., WSDM 2009), whose mean over a
    topic's intents is I-rec@depth (Zhai, Cohen & Lafferty, SIGIR 2003)."""
    depth = check_int(depth, "coverage depth", low=1)
    coll = evaluator.collection
    keep = np.flatnonzero(evaluator.topic_mask)
    weights = coll.weights[keep]
    t_idx, i_idx = np.nonzero(weights > 0)
    labels = [f"{coll.topic_ids[keep[t]]}:{coll.intent_ids[keep[t]][i]}" for t, i in zip(t_idx, i_idx)]
    scores = score_with(evaluator, runs, [f"IA(Success@{depth})"], per_intent=True)
    if not scores:
        return labels, np.zeros((0, len(labels)))
    detail = np.stack([s.intents[0][keep] for s in scores if s.intents is not None])  # (S, T, I)
    return labels, detail[:, t_idx, i_idx]


def run_lengths(evaluator: Evaluator, runs: Sequence[Run]) -> np.ndarray:
    """How many documents each run returns for each evaluated topic (after the evaluator's depth
    and judged-only rules), shape (S, T); 0 for a topic absent from the run. Truncation-aware
    measures tell these lengths apart (Amigó, Mizzaro & Spina, SIGIR 2022)."""
    coll = evaluator.collection
    keep = evaluator.topic_mask
    out = np.zeros((len(runs), coll.n_topics), dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        for s, run in enumerate(runs):
            run = evaluator.prepare(run)
            where = coll.topic_index(run)
            known = where >= 0
            out[s, where[known]] = run.lengths[known]
    return out[:, keep]


def has_truncation_measures(measure_specs: Sequence[Any] | None) -> bool:
    """Whether any measure tells a short ranking from one padded with non-relevant documents
    (``MeasureSpec.truncation_aware``): the report then shows the run lengths."""
    return any(getattr(getattr(m, "spec", None), "truncation_aware", False) for m in measure_specs or [])


def group_exposure(results: Any) -> tuple[np.ndarray, np.ndarray] | None:
    """Each run's share of the attention per group and the target distribution, mean over the
    topics where both are defined, (S, G) and (G,) (docs/fairness.md); None without per-group
    values."""
    if results.group_values is None or results.group_target is None:
        return None
    shares, target = results.group_values, results.group_target
    defined = ~np.isnan(shares).any(axis=2) & ~np.isnan(target).any(axis=1)[None, :]  # (S, T)
    n = np.maximum(defined.sum(axis=1, keepdims=True), 1)
    mean = np.add.reduce(np.where(defined[..., None], shares, 0.0), axis=1) / n
    topics = ~np.isnan(target).any(axis=1)
    goal = np.add.reduce(target[topics], axis=0) / max(int(topics.sum()), 1)
    return mean, goal
