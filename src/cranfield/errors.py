"""Exceptions and warnings raised by cranfield.

Every problem with user input is a :class:`CranfieldError` (a ``ValueError``), so callers can
catch one type, and the command line turns it into a one-line message and exit status 2.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

__all__ = [
    "CranfieldError",
    "InputError",
    "MeasureError",
    "EvaluationWarning",
    "warn",
    "listing",
]

_PACKAGE_DIR = str(Path(__file__).resolve().parent)


class CranfieldError(ValueError):
    """Base class of every error cranfield raises for bad input."""


class InputError(CranfieldError):
    """A malformed input file or object, located by source and (when known) line number.

    The message reads ``path:line: what is wrong``, the convention of compilers and linters.
    """

    def __init__(self, source: str, line: int | None, message: str) -> None:
        self.source = source
        self.line = line
        self.reason = message
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {message}")


class MeasureError(CranfieldError):
    """An unknown measure name, an unknown parameter, or a parameter value out of range."""


class EvaluationWarning(UserWarning):
    """Something the user should know about the evaluation (dropped topics, repaired input)."""


def warn(message: str) -> None:
    """Emit an :class:`EvaluationWarning` attributed to the first caller outside cranfield."""
    frame, level = sys._getframe(1), 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, EvaluationWarning, stacklevel=level)


def listing(items: "list[str] | tuple[str, ...]", limit: int = 10) -> str:
    """``a, b, c and 7 more``: a short list of names for a message."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")
