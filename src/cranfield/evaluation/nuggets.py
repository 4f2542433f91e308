"""Nugget evaluation of generated answers: nugget assignments → :class:`~cranfield.Results`.

The scores are those of :mod:`cranfield.measures.nuggets` per (run, topic), in a
:class:`~cranfield.evaluation.evaluator.Results` like any evaluation's, so every format, the
report and the meta-evaluation work on them unchanged (docs/nuggets.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from cranfield._version import __version__
from cranfield.errors import check_choice, warn
from cranfield.evaluation.options import DEFAULT_NUGGET_MEASURES
from cranfield.evaluation.options import NUGGET_MISSING as MISSING
from cranfield.evaluation.results import Results
from cranfield.io.nuggets import read_nuggets


def evaluate_nuggets(assignments: Any, measures: Sequence[Any] | str = DEFAULT_NUGGET_MEASURES, *,
                     missing: str = "zero") -> Results:
    """Score the answers of nugget assignments (files, DataFrames or
    :class:`~cranfield.io.nuggets.NuggetAssignments`; :func:`~cranfield.io.nuggets.read_nuggets`)
    by nugget measures (``V_strict``, ``V``, ``A_strict``, ``A``, ``W``, ``W_strict``,
    ``NuggetRecall(...)``; Pradeep et al., arXiv:2411.09607, 2024).

    The topics are every topic some run answers. A run without an answer to one of them scores 0
    there (``missing="zero"``: the answer says nothing) or leaves it out of its mean
    (``missing="skip"``, nuggetizer's mean over the answers a file holds); either way one warning
    counts them.
    """
    from cranfield.measures.nuggets import parse_nugget_measure, score

    check_choice(missing, "missing", MISSING)
    parsed = [parse_nugget_measure(m) for m in ([measures] if isinstance(measures, str) else measures)]
    data = read_nuggets(assignments)
    counts, present = data.counts()
    counts = counts.astype(np.float64)  # once for every measure
    values = np.stack([score(m, counts) for m in parsed], axis=1) if parsed else np.zeros(
        (len(data.runs), 0, len(data.topics)))
    absent = ~present
    if absent.any():
        from cranfield.errors import listing

        runs = [data.runs[s] for s in np.flatnonzero(absent.any(axis=1))]
        warn(f"{int(absent.sum())} (run, topic) answer{'s' if absent.sum() > 1 else ''} missing, in "
             f"{len(runs)} run{'s' if len(runs) > 1 else ''} ({listing(runs, 5)}): "
             + ("scored 0" if missing == "zero" else "left out of the runs' means (missing=skip)"))
        if missing == "skip":
            values[np.broadcast_to(absent[:, None, :], values.shape)] = np.nan
    return Results(
        runs=list(data.runs), measures=[str(m) for m in parsed], topics=list(data.topics), values=values,
        aggregate=["mean"] * len(parsed), measure_specs=parsed,
        unscored=absent if missing == "skip" else None,
        provenance={"cranfield": __version__, "nuggets": list(data.sources),
                    "measures": [str(m) for m in parsed], "missing": missing})
