"""Scores averaged over judgment groups, as trec_eval 9.0.x computes ``map_avgjg``, ``P_avgjg``
and ``Rprec_mult_avgjg`` with ``-R qrels_jg`` (``m_map_avgjg.c``, ``m_P_avgjg.c``,
``m_Rprec_mult_avgjg.c``, ``form_res_rels_jg.c``): on each topic, the measure under every group
that judges the topic, summed in the byte order of the groups' names and divided by their number;
the ``all`` row is the mean over the topics (docs/judges.md#qrels_jg).

Every (topic, group) pair is scored as a topic of its own by one
:class:`~cranfield.evaluation.evaluator.Evaluator` (its qrels the group's judgments of the topic,
its ranking the run's ranking of the topic), so ``-M``, ``-J``, ``-l`` and the missing-topic rules
apply to each group as trec_eval applies them, and the runs are scored in one pass."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.errors import CranfieldError
from cranfield.evaluation.evaluator import Evaluator, Results, named_runs
from cranfield.io import Order, Qrels, Run, as_run
from cranfield.io.qrels_jg import read_qrels_jg

__all__ = ["JudgmentGroupEvaluator", "evaluate_judgment_groups", "pair_id"]


def pair_id(topic: str, group: str) -> str:
    """The id of a (topic, group) pair, ``"301 [nist]"``: with a space, so never a topic id of a file."""
    return f"{topic} [{group}]"


def _pair_qrels(groups: Mapping[str, Qrels], source: str) -> tuple[Qrels, list[str], list[tuple[int, int]]]:
    """One ad hoc qrels whose topics are the (topic, group) pairs; the topics in order of first
    appearance over the groups; per pair, (its topic's index, its group's place in byte order)."""
    rank = {g: k for k, g in enumerate(sorted(groups, key=str.encode))}
    topics = list(dict.fromkeys(t for q in groups.values() for t in q.topic_ids))
    where = {t: k for k, t in enumerate(topics)}
    ids, pairs, codes, start = [], [], [], 0
    for g, q in groups.items():
        if q.diversity:
            raise CranfieldError(f"{q.source}: judgment groups hold ad hoc judgments, not diversity qrels")
        ids += [pair_id(t, g) for t in q.topic_ids]
        pairs += [(where[t], rank[g]) for t in q.topic_ids]
        codes.append(q.topic + start)
        start += len(q.topic_ids)
    parts = list(groups.values())
    lines = [q.line for q in parts]
    qrels = Qrels(source, tuple(ids), np.concatenate(codes), ("0",), np.concatenate([q.intent for q in parts]),
                  np.concatenate([np.asarray(q.docno, dtype=object) for q in parts]),
                  np.concatenate([q.rel for q in parts]),
                  None if any(x is None for x in lines) else np.concatenate(lines), False)  # type: ignore[arg-type]
    return qrels, topics, pairs


class JudgmentGroupEvaluator:
    """An :class:`~cranfield.evaluation.evaluator.Evaluator` for judgment groups: each measure
    scored under every group that judges a topic and averaged over those groups (trec_eval's
    ``-R qrels_jg``).

    Parameters
    ----------
    qrels : ``{group: Qrels}`` or the path of a ``qrels_jg`` file (:func:`~cranfield.io.qrels_jg.read_qrels_jg`)
    measures : measures, as for the Evaluator; trec_eval's ``map_avgjg`` is ``AP``, ``P_avgjg.k``
        ``P@k``, ``Rprec_mult_avgjg.m`` ``Rprec(mult=m)``; any measure averages the same way.
    strip_topic_prefix, **options
        As for the Evaluator (``missing``, ``depth``, ``judged_only``, ``norel``, ``names``, ...),
        applied to every group.
    """

    def __init__(self, qrels: Mapping[str, Qrels] | str | Path, measures: Any, *,
                 strip_topic_prefix: bool = False, **options: Any) -> None:
        named = read_qrels_jg(qrels) if isinstance(qrels, (str, Path)) else dict(qrels)
        if not named:
            raise CranfieldError("no judgment group to evaluate")
        self.source = str(qrels) if isinstance(qrels, (str, Path)) else "+".join(q.source for q in named.values())
        self.groups = named
        pairs, self.topic_ids, self._pairs = _pair_qrels(named, self.source)
        self._pair_ids = list(pairs.topic_ids)
        self.groups_of: dict[str, list[str]] = {}  # topic -> the groups judging it, in byte order
        for g in sorted(named, key=str.encode):
            for t in named[g].topic_ids:
                self.groups_of.setdefault(t, []).append(g)
        self.strip_topic_prefix = strip_topic_prefix
        self.inner = Evaluator(pairs, measures, **options)
        self.measures = self.inner.measures
        self.missing = self.inner.missing
        self.judged_only = self.inner.judged_only

    def expand(self, run: Run) -> Run:
        """The run with each judged topic's ranking repeated once per group that judges the topic,
        under the pair's id (:func:`pair_id`); a topic no group judges keeps its id (and is
        reported as not in the qrels)."""
        ids = run.topic_ids
        if self.strip_topic_prefix:
            ids = tuple(t.rsplit("-", 1)[-1] for t in ids)
            if len(set(ids)) < len(ids):
                raise CranfieldError(f"{run.source}: stripping topic prefixes makes two topics the same")
        new_ids, take = [], []
        for t, topic in enumerate(ids):
            for g in self.groups_of.get(topic, [None]):
                new_ids.append(topic if g is None else pair_id(topic, g))
                take.append(t)
        picked = np.asarray(take, dtype=np.int64)
        lengths = run.lengths[picked]
        offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        rows = np.repeat(run.offsets[picked] - offsets[:-1], lengths) + np.arange(offsets[-1])
        return Run(run.name, run.source, tuple(new_ids), offsets, run.docno[rows], run.score[rows],
                   None if run.line is None else run.line[rows], run.doc_key[rows],
                   None if run.iteration is None else run.iteration[rows], run.comments)

    def evaluate(self, runs: Any, *, order: Order = "score", on_duplicate: str = "error", score_dtype: str = "float32",
                 names: Sequence[str] | None = None, client: Any = None, progress_bar: bool | None = None,
                 per_intent: bool = False, per_iteration: bool = False, per_group: bool = False) -> Results:
        """Score ``runs`` (as :meth:`Evaluator.evaluate <cranfield.evaluation.evaluator.Evaluator.evaluate>`):
        per topic the mean over the groups that judge it of the measure under each group's
        judgments (a group whose value is undefined left out), then ``all``, the mean over topics."""
        if per_intent or per_iteration or per_group:
            raise CranfieldError("judgment groups are ad hoc qrels: no per-intent, per-iteration or per-group rows")
        items, given = named_runs(runs, names)
        read = [self.expand(as_run(r, order=order, on_duplicate=on_duplicate, score_dtype=score_dtype))
                for r in items]
        inner = self.inner.evaluate(read, order=order, on_duplicate=on_duplicate, score_dtype=score_dtype,
                                    names=given, client=client, progress_bar=progress_bar)
        return self.average(inner)

    def average(self, inner: Results) -> Results:
        """Per-pair scores (:meth:`evaluate`'s inner results) averaged over each topic's groups:
        the groups' values added in the byte order of their names (trec_eval's), then divided by
        their number."""
        column = {t: k for k, t in enumerate(inner.topics)}
        kept = [(column[p], t, rank) for p, (t, rank) in zip(self._pair_ids, self._pairs) if p in column]
        used = sorted({t for _, t, _ in kept})
        place = {t: k for k, t in enumerate(used)}
        s, m = inner.values.shape[:2]
        total = np.zeros((s, m, len(used)))
        count = np.zeros_like(total)
        unscored = np.ones((s, len(used)), dtype=bool)
        for step in range(len(self.groups)):  # the groups in byte order, each over all its topics at once
            src = np.array([c for c, _, r in kept if r == step], dtype=np.int64)
            dst = np.array([place[t] for _, t, r in kept if r == step], dtype=np.int64)
            v = inner.values[:, :, src]
            total[:, :, dst] += np.where(np.isnan(v), 0.0, v)
            count[:, :, dst] += ~np.isnan(v)
            if inner.unscored is not None:
                unscored[:, dst] &= inner.unscored[:, src]
        values = np.full_like(total, np.nan)
        np.divide(total, count, out=values, where=count > 0)
        provenance = {**inner.provenance, "qrels": self.source, "qrels_format": "qrels_jg",
                      "judgment_groups": list(self.groups)}
        return dataclasses.replace(inner, topics=[self.topic_ids[t] for t in used], values=values,
                                   unscored=None if inner.unscored is None else unscored, intent_ids=None,
                                   intent_weights=None, topic_weights=None, provenance=provenance)


def evaluate_judgment_groups(groups: Mapping[str, Qrels] | str | Path, runs: Any, measures: Sequence[str], *,
                             order: Order = "score", **options: Any) -> Results:
    """Each run's score on each topic averaged over the judgment groups that judge the topic
    (:class:`JudgmentGroupEvaluator`).

    Parameters
    ----------
    groups : ``{group: Qrels}`` or the path of a ``qrels_jg`` file (:func:`~cranfield.io.qrels_jg.read_qrels_jg`)
    runs : runs, as for :meth:`cranfield.Evaluator.evaluate`
    measures : sequence of str
    order, **options
        How runs are read and scored (:class:`cranfield.Evaluator`); ``missing="skip"`` scores only
        the topics a run has, as trec_eval without ``-c``.

    Returns
    -------
    Results
        Per topic (in the order the groups first name them) and, from ``summary()``/``rows()``,
        ``all``, the mean over the topics scored.

    Examples
    --------
    >>> from cranfield.io import qrels_from_dict
    >>> groups = {"a": qrels_from_dict({"1": {"d1": 1}}), "b": qrels_from_dict({"1": {"d2": 1}})}
    >>> evaluate_judgment_groups(groups, {"1": {"d1": 2.0, "d2": 1.0}}, ["AP"]).values.ravel().tolist()
    [0.75]
    """
    return JudgmentGroupEvaluator(groups, list(measures), **options).evaluate(runs, order=order)
