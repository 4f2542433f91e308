"""The allowed values of the options that read a run, and the labels of a nugget assignment file,
declared once, below every reader: the readers of ``io/`` check them,
:mod:`cranfield.evaluation.options` declares the evaluation's options with them, the command
line offers them as its choices, and the nugget measures read their labels from here, all
without importing numpy or the readers (``cranfield --help`` stays light)."""

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
