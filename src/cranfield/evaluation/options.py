"""The options of an evaluation, declared once: their allowed values (:data:`MISSING`,
:data:`NOREL`, :data:`ORDERS`, :data:`AVERAGES`, ...), their defaults and their checks, in
:class:`EvalOptions`. The ``Evaluator``, ``evaluate``, ``Report`` and the command line's choices
all take them from here,
so every entry point accepts the same values and refuses the others with the same message
(``The missing option must be one of 'auto', ...``). This module imports no numpy: the
command line builds its parser from it."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cranfield._choices import ON_DUPLICATE, ORDERS, SCORE_DTYPES
from cranfield.errors import check_bool, check_choice, check_int

__all__ = [
    "AVERAGES", "DEFAULT_NUGGET_MEASURES", "EMPTY_INTENTS", "EVALUATOR_OPTIONS", "EvalOptions", "INTENT_SCHEMES",
    "MISSING", "NOREL", "NUGGET_MISSING", "ON_DUPLICATE", "ORDERS", "RUN_OPTIONS", "SCORE_DTYPES", "TARGETS",
    "check_option", "check_type",
]

MISSING = ("auto", "zero", "empty", "skip")
"""Topics of the qrels absent from a run (docs/conventions.md#missing)."""
NOREL = ("include", "exclude")
"""Topics without any relevant document: scored (trec_eval) or dropped (gdeval)."""
EMPTY_INTENTS = ("drop", "keep")
"""Intents without relevant documents: dropped (ndeval) or kept (docs/conventions.md#intents)."""
AVERAGES = ("avg", "geom", "dd")
"""The topic average of the ``all`` row: arithmetic, geometric or weighted by 1 − dd(t)."""
INTENT_SCHEMES = ("uniform", "nonuniform")
"""Intent probabilities by name instead of an intent file (Sakai, WWW 2012, Table 1)."""
TARGETS = ("uniform", "relevant")
"""Target group distributions by name instead of a file (docs/fairness.md)."""
NUGGET_MISSING = ("zero", "skip")
"""Topics of the nugget assignments a run has no answer for (docs/nuggets.md)."""
DEFAULT_NUGGET_MEASURES = ("V_strict", "V", "A_strict", "A")
"""The nugget measures scored when none is given (docs/nuggets.md)."""


def check_type(value: Any, what: str, types: tuple[type, ...], expected: str) -> None:
    """A TypeError saying what was expected when ``value`` is none of ``types``."""
    if not isinstance(value, types):
        raise TypeError(f"{what} must be {expected}; got {type(value).__name__}")


def _choice(choices: tuple[str, ...]) -> Callable[[Any, str], Any]:
    return lambda value, name: check_choice(value, f"{name} option", choices)


def _flag(value: Any, name: str) -> bool:
    return check_bool(value, f"{name} option")


def _depth(value: Any, name: str) -> int | None:
    return None if value is None else check_int(value, name, low=1, text=False)


def _dd_depth(value: Any, name: str) -> Any:
    from cranfield.measures.topics import check_depth  # numpy: only when an evaluator is built

    return check_depth(value)


def _typed(types: tuple[type, ...], expected: str) -> Callable[[Any, str], Any]:
    def check(value: Any, name: str) -> Any:
        check_type(value, name, types, expected)
        return value
    return check


def _intents(value: Any, name: str) -> Any:
    from cranfield.io import Intents  # numpy: only when an evaluator is built

    return _typed((str, Path, Intents, type(None)), "a path, an Intents, 'uniform' or 'nonuniform'")(value, name)


_CHECKS: dict[str, Callable[[Any, str], Any]] = {
    "dd_depth": _dd_depth,
    "missing": _choice(MISSING),
    "norel": _choice(NOREL),
    "average": _choice(AVERAGES),
    "empty_intents": _choice(EMPTY_INTENTS),
    "diversity": _typed((bool, type(None)), "True, False or None"),
    "intents": _intents,
    "intent_types": _typed((str, Path, Mapping, type(None)), "a path or a dict {(qid, intent): 'inf' or 'nav'}"),
    "depth": _depth,
    "judged_only": _flag,
    "strip_topic_prefix": _flag,
    "stochastic": lambda value, name: bool(value),
    "groups": lambda value, name: value,  # a path or Groups, read by Fairness.of
    "target": lambda value, name: value,  # a name of TARGETS, a path or Target, read by Fairness.of
    "order": _choice(ORDERS),
    "on_duplicate": _choice(ON_DUPLICATE),
    "score_dtype": _choice(SCORE_DTYPES),
}


def check_option(name: str, value: Any) -> Any:
    """``value`` as the option ``name`` of :class:`EvalOptions` takes it, else the error of the one
    template (:func:`cranfield.errors.check_choice` and its kin: ``The order option must be one
    of 'score', 'rank', 'file'. Got 'x' instead.``)."""
    return _CHECKS[name](value, name)


@dataclass(frozen=True)
class EvalOptions:
    """How qrels and runs are read and which topics count: every option of an evaluation with
    its default, checked when made (:func:`check_option`); see
    :class:`~cranfield.evaluation.evaluator.Evaluator` for what each means.

    The first fields are the :class:`~cranfield.evaluation.evaluator.Evaluator`'s
    (:data:`EVALUATOR_OPTIONS`), the last three say how each run is read, for
    :meth:`~cranfield.evaluation.evaluator.Evaluator.evaluate` (:data:`RUN_OPTIONS`).
    """

    dd_depth: Any = "xi"
    missing: str = "auto"
    norel: str = "include"
    average: str = "avg"
    empty_intents: str = "drop"
    diversity: bool | None = None
    intents: Any = None
    intent_types: Any = None
    depth: int | None = None
    judged_only: bool = False
    strip_topic_prefix: bool = False
    stochastic: bool = False
    groups: Any = None
    target: Any = None
    order: str = "score"
    on_duplicate: str = "error"
    score_dtype: str = "float32"

    def __post_init__(self) -> None:
        for f in dataclasses.fields(self):  # in declaration order: the first wrong option is the one named
            object.__setattr__(self, f.name, check_option(f.name, getattr(self, f.name)))


RUN_OPTIONS = ("order", "on_duplicate", "score_dtype")
"""The options of :class:`EvalOptions` that say how a run is read (``Evaluator.evaluate``'s)."""
EVALUATOR_OPTIONS = tuple(f.name for f in dataclasses.fields(EvalOptions) if f.name not in RUN_OPTIONS)
"""The options of :class:`EvalOptions` that the ``Evaluator`` takes."""
