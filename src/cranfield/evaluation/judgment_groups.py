"""Scores averaged over judgment groups, as trec_eval 9.0.x computes ``map_avgjg``, ``P_avgjg``
and ``Rprec_mult_avgjg`` with ``-R qrels_jg`` (``m_map_avgjg.c``, ``m_P_avgjg.c``,
``m_Rprec_mult_avgjg.c``): on each topic, the measure under every group that judges the topic,
averaged over those groups; the ``all`` row is the mean over the topics (docs/judges.md#qrels_jg)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from cranfield.errors import CranfieldError
from cranfield.io.qrels import Qrels
from cranfield.io.qrels_jg import read_qrels_jg

__all__ = ["evaluate_judgment_groups"]


def evaluate_judgment_groups(groups: Mapping[str, Qrels] | str, runs: Any, measures: Sequence[str], *,
                             order: str = "score", **options: Any) -> Any:
    """Each run's score on each topic averaged over the judgment groups that judge the topic.

    Parameters
    ----------
    groups : ``{group: Qrels}`` or the path of a ``qrels_jg`` file (:func:`~cranfield.io.read_qrels_jg`)
    runs : runs, as for :meth:`cranfield.Evaluator.evaluate`
    measures : sequence of str
        trec_eval's ``map_avgjg`` is ``AP``, ``P_avgjg.k`` ``P@k``, ``Rprec_mult_avgjg.m``
        ``Rprec(mult=m)``; any measure averages the same way.
    order, **options
        How runs are read and scored (:class:`cranfield.Evaluator`); ``missing="skip"`` scores only
        the topics a run has, as trec_eval without ``-c``.

    Returns
    -------
    pandas.DataFrame
        Columns run, topic, measure, value; per topic (in the order the groups first name them),
        then ``all``, the mean over the topics scored.

    Examples
    --------
    >>> from cranfield.io import qrels_from_dict
    >>> groups = {"a": qrels_from_dict({"1": {"d1": 1}}), "b": qrels_from_dict({"1": {"d2": 1}})}
    >>> evaluate_judgment_groups(groups, {"1": {"d1": 2.0, "d2": 1.0}}, ["AP"])["value"].tolist()
    [0.75, 0.75]
    """
    import pandas as pd

    from cranfield.evaluation.evaluator import Evaluator

    named = read_qrels_jg(groups) if isinstance(groups, str) else dict(groups)
    if not named:
        raise CranfieldError("no judgment group to evaluate")
    results = [Evaluator(q, list(measures), **options).evaluate(runs, order=order) for q in named.values()]
    topics = list(dict.fromkeys(t for r in results for t in r.topics))
    where = {t: k for k, t in enumerate(topics)}
    first = results[0]
    total = np.zeros((len(first.runs), len(first.measures), len(topics)))
    count = np.zeros_like(total)
    for r in results:
        if list(r.runs) != list(first.runs):
            raise CranfieldError("the judgment groups scored different runs")
        columns = [where[t] for t in r.topics]
        values = np.asarray(r.values, dtype=np.float64)
        total[:, :, columns] += np.nan_to_num(values)
        count[:, :, columns] += ~np.isnan(values)
    with np.errstate(invalid="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    rows = []
    for s, run in enumerate(first.runs):
        for m, measure in enumerate(first.measures):
            for t, topic in enumerate(topics):
                rows.append((run, topic, measure, mean[s, m, t]))
            scored = mean[s, m][~np.isnan(mean[s, m])]
            rows.append((run, "all", measure, float(scored.mean()) if scored.size else np.nan))
    return pd.DataFrame(rows, columns=["run", "topic", "measure", "value"])
