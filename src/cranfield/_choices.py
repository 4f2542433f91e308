"""The allowed values of the options that read a run, the labels of a nugget assignment file and
the multi-aspect measures' choices, declared once, below every reader: the readers of ``io/``
check them, :mod:`cranfield.evaluation.options` declares the evaluation's options with them, the
command line offers them as its choices, and the nugget and multi-aspect measures read them from
here, all without importing numpy or the readers (``cranfield --help`` stays light)."""

from __future__ import annotations

ORDERS = ("score", "rank", "file")
"""How run lines are ranked (docs/conventions.md#order): by score (trec_eval), by the rank
column (ndeval's default) or in file order."""

ON_DUPLICATE = ("error", "first")
"""A document twice in a topic of a run: an error, or the first line kept."""

SCORE_DTYPES = ("float32", "float64")
"""Run scores compared as C floats (trec_eval) or doubles (gdeval)."""

IMPORTANCE = ("vital", "okay")
"""The importance of a nugget (docs/nuggets.md), in the order of the count tensor's first axis."""

ASSIGNMENTS = ("support", "partial_support", "not_support", "failed")
"""How far an answer supports a nugget (docs/nuggets.md), in the order of the count tensor's second axis."""

DISTANCES = ("euclidean", "manhattan", "chebyshev", "minkowski")
"""TOMA's distances to the best label tuple (Maistro et al., CIKM 2021, Eq. 2–3; docs/conventions.md#aspects)."""

MISSING_RULES = ("lowest", "gate", "error")
"""A document not judged on an aspect: the aspect's lowest label; the lowest label only when the
gate aspect is at its lowest (Maistro et al., CIKM 2021, §4.1: credibility is not assessed for
non-relevant documents), else an error; or always an error."""
