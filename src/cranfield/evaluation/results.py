"""The result of an evaluation: :class:`Results`, the scores of runs × measures × topics with the
settings that produced them (the ``all`` row, tidy rows, a DataFrame, Parquet), and
:class:`RunScores`, one run's scores as the :class:`~cranfield.evaluation.evaluator.Evaluator`
returns them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cranfield._display import first_names, html_table


@dataclass(frozen=True)
class Results:
    """Scores of runs × measures × topics, with the settings that produced them.

    Attributes
    ----------
    runs : list of str
        Run names, unique (``tag#filename`` when two runs share a tag).
    measures : list of str
        Measure names as the user wrote them.
    topics : list of str
        The evaluated topics.
    values : ndarray of float64, shape (S, M, T)
        NaN where a topic is not scored (``missing="skip"``).
    aggregate : list of str
        ``"mean"``, ``"sum"`` (trec_eval sums its counts) or ``"geom"`` (the geometric mean
        whatever ``average`` says: trec_eval's ``gm_map``) per measure.
    provenance : dict
        Version and settings, written as a ``#`` header or with ``--provenance``.
    intent_values : ndarray of float64, shape (S, M, T, I), optional
        Each intent's score of the intent-aware measures (NaN elsewhere), with ``per_intent``.
    intent_ids, intent_weights
        The intents of each topic and their probabilities (T, I).
    iteration_values : ndarray of float64, shape (S, M, T, C), optional
        For iteration measures (the Cube Test family), the value after each iteration 1..C,
        with ``per_iteration``.
    average : {"avg", "geom", "dd"}
        How the ``all`` row averages topics (:func:`cranfield.evaluation.averaging.average`); counts are
        always summed.
    topic_weights : ndarray, shape (T,), optional
        1 − dd(t) for ``average="dd"``.
    unscored : ndarray of bool, shape (S, T), optional
        The topics each run leaves out by a rule already announced (``missing="skip"``); every
        other NaN value left out of an ``all`` row is named in a warning.
    group_ids, group_values, group_target
        With ``per_group`` (docs/fairness.md#per-group): the groups, each group's share of the
        attention per run and topic (S, T, G), and the target distribution (T, G).
    trisk : ndarray of float64, shape (S, M), optional
        Risk-sensitive scores (:func:`~cranfield.evaluation.risk.risk_adjusted`): ``values`` are
        the risk-adjusted differences, so the ``all`` row is URisk, and ``trisk`` is TRisk
        (Dinçer, Macdonald & Ounis, SIGIR 2014), written as the rows ``MEASURE[TRisk]``.
    """

    runs: list[str]
    measures: list[str]
    topics: list[str]
    values: np.ndarray
    aggregate: list[str]
    provenance: dict[str, Any]
    intent_values: np.ndarray | None = None
    intent_ids: list[tuple[str, ...]] | None = None
    intent_weights: np.ndarray | None = None
    iteration_values: np.ndarray | None = None
    average: str = "avg"
    topic_weights: np.ndarray | None = None
    measure_specs: list[Any] | None = None
    unscored: np.ndarray | None = None
    group_ids: list[str] | None = None
    group_values: np.ndarray | None = None
    group_target: np.ndarray | None = None
    trisk: np.ndarray | None = None

    def summary(self) -> np.ndarray:
        """The ``all`` row per run and measure, shape (S, M): the topic average (``average``)
        over scored topics, the sum for trec_eval's counts, the geometric mean for ``geom``.
        NaN values are left out, with a warning unless ``unscored`` says they were announced."""
        from cranfield.evaluation.averaging import average, total

        out = np.empty(self.values.shape[:2])
        for m, how in enumerate(self.aggregate):
            label, x = self.measures[m], self.values[:, m]
            if how == "sum":
                out[:, m] = total(x, topics=self.topics, name=label, announced=self.unscored)
            else:
                out[:, m] = average(x, "geom" if how == "geom" else self.average, weights=self.topic_weights,
                                    topics=self.topics, measure=self.measure_specs[m] if self.measure_specs else None,
                                    name=label, announced=self.unscored)
        return out

    def rows(self, per_topic: bool = True) -> Iterator[tuple[str, str, str, float]]:
        """(run, topic, measure, value) rows: per topic when asked, then ``all`` per run.

        With per-intent values, each topic row of an intent-aware measure is followed by
        ``measure[intent=i]`` (X_i) and ``measure[intent=i].w`` (w_i) rows (docs/conventions.md#output).
        """
        means = self.summary()
        for s, run in enumerate(self.runs):
            if per_topic:
                for t, topic in enumerate(self.topics):
                    for m, measure in enumerate(self.measures):
                        v = self.values[s, m, t]
                        if not np.isnan(v):
                            yield run, topic, measure, float(v)
                            yield from self._intent_rows(s, m, t, run, topic, measure)
                    yield from self._group_rows(s, t, run, topic)
            for m, measure in enumerate(self.measures):
                yield run, "all", measure, float(means[s, m])

    def _intent_rows(self, s: int, m: int, t: int, run: str, topic: str, measure: str
                     ) -> Iterator[tuple[str, str, str, float]]:
        if self.iteration_values is not None:
            for c, v in enumerate(self.iteration_values[s, m, t].tolist(), start=1):
                if not np.isnan(v):
                    yield run, topic, f"{measure}[iteration={c}]", float(v)
        if self.intent_values is None or self.intent_ids is None or self.intent_weights is None:
            return
        for i, name in enumerate(self.intent_ids[t]):
            v = self.intent_values[s, m, t, i]
            if not np.isnan(v):
                yield run, topic, f"{measure}[intent={name}]", float(v)
                yield run, topic, f"{measure}[intent={name}].w", float(self.intent_weights[t, i])

    def _group_rows(self, s: int, t: int, run: str, topic: str) -> Iterator[tuple[str, str, str, float]]:
        """``exposure[group=g]`` (the group's share of the attention), ``.target`` and ``.ratio``
        (share / target, where the target is positive) rows of one run and topic."""
        if self.group_values is None or self.group_ids is None or self.group_target is None:
            return
        for g, name in enumerate(self.group_ids):
            share, target = float(self.group_values[s, t, g]), float(self.group_target[t, g])
            if np.isnan(share) or np.isnan(target):
                continue
            yield run, topic, f"exposure[group={name}]", share
            yield run, topic, f"exposure[group={name}].target", target
            if target > 0:
                yield run, topic, f"exposure[group={name}].ratio", share / target

    def to_dict(self, per_topic: bool = True) -> dict[str, Any]:
        """Plain Python values: ``runs``, ``measures``, ``topics``, ``average`` and ``rows``, the
        ``{run, topic, measure, value}`` objects of :meth:`rows` (``--format json``; None for NaN)."""
        rows = [{"run": run, "topic": topic, "measure": measure, "value": None if np.isnan(value) else value}
                for run, topic, measure, value in self.rows(per_topic)]
        return {"runs": list(self.runs), "measures": list(self.measures), "topics": list(self.topics),
                "average": self.average, "rows": rows}

    def to_frame(self, per_topic: bool = True) -> Any:
        """A tidy pandas DataFrame with columns ``run``, ``topic``, ``measure``, ``value``."""
        import pandas as pd

        return pd.DataFrame(list(self.rows(per_topic)), columns=["run", "topic", "measure", "value"])

    def to_parquet(self, path: str | Path, per_topic: bool = True) -> None:
        """Write :meth:`rows` as a Parquet file with columns ``run``, ``topic``, ``measure`` (strings)
        and ``value`` (float64, null where undefined), atomically; the provenance is kept in the
        schema metadata (docs/parquet.md). Needs pyarrow (``pip install 'cranfield[parquet]'``)."""
        from cranfield.io.arrow import write_results_parquet

        write_results_parquet(path, self.rows(per_topic), self.provenance)

    def __repr__(self) -> str:
        """``Results(2 runs × 2 measures × 50 topics; AP, nDCG@10)``: the shape, not the numbers."""
        return (f"Results({len(self.runs)} runs × {len(self.measures)} measures × {len(self.topics)} topics; "
                f"{first_names(self.measures)})")

    def _repr_html_(self) -> str:
        """What a notebook shows: the ``all`` row (:meth:`summary`) as runs × measures, the
        settings (the provenance) below (:func:`cranfield._display.html_table`)."""
        import pandas as pd

        frame = pd.DataFrame(self.summary(), index=pd.Index(self.runs, name="run"), columns=self.measures)
        how = {"avg": "mean", "geom": "geometric mean", "dd": "dd-weighted mean"}.get(self.average, self.average)
        settings = {k: v for k, v in self.provenance.items() if k != "measures"}
        return html_table(frame, f"{len(self.runs)} runs × {len(self.measures)} measures, {how} over "
                          f"{len(self.topics)} topics", settings)


class RunScores(NamedTuple):
    """One run's scores over the collection's topics (:meth:`Evaluator.score_run`)."""

    values: np.ndarray
    """Shape (M, T); NaN where a topic is not scored (``missing="skip"``) or a measure is undefined."""
    intents: np.ndarray | None
    """With ``per_intent``: each intent's score of the intent-aware measures, (M, T, I)."""
    iterations: list[np.ndarray] | None
    """With ``per_iteration``: each iteration measure's value after every iteration, M × (T, C)."""
    unscored: np.ndarray | None
    """With ``missing="skip"``: the topics left out (absent from the run), shape (T,)."""
    groups: np.ndarray | None = None
    """With ``per_group``: each group's share of the attention, (T, G)."""
