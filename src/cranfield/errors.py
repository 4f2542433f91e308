"""Exceptions and warnings raised by cranfield.

Every problem with user input is a :class:`CranfieldError` (a ``ValueError``), so callers can
catch one type, and the command line turns it into a one-line message and exit status 2.
"""

from __future__ import annotations

import math
import numbers
import os
import sys
import warnings
from types import FrameType

__all__ = [
    "CranfieldError",
    "InputError",
    "MeasureError",
    "EvaluationWarning",
    "warn",
    "listing",
    "invalid",
    "check_int",
    "check_float",
    "check_bool",
    "check_choice",
]

_PACKAGE_DIR = os.path.dirname(os.path.realpath(__file__))  # os.path, not pathlib: this module is on every start-up


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
    frame: FrameType | None = sys._getframe(1)
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE_DIR):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, EvaluationWarning, stacklevel=level)


def listing(items: list[str] | tuple[str, ...], limit: int = 10) -> str:
    """``a, b, c and 7 more``: a short list of names for a message."""
    shown = ", ".join(items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


# --------------------------------------------------------------------------- argument validation
# One message template for every invalid argument, option or parameter value in cranfield:
#     The <what> must be <expected>. Got <value> instead.
# (the measure registry's parameter errors use the same sentence).


def invalid(what: str, expected: str, got: object) -> CranfieldError:
    """The error for an invalid value: ``The {what} must be {expected}. Got {got!r} instead.``"""
    return CranfieldError(f"The {what} must be {expected}. Got {got!r} instead.")


def _bounds(kind: str, low: float | None, high: float | None, open_low: bool, open_high: bool) -> str:
    if low is None and high is None:
        return f"{kind}"
    if high is None:
        return f"{kind} {'>' if open_low else '>='} {low:g}"
    if low is None:
        return f"{kind} {'<' if open_high else '<='} {high:g}"
    left, right = "(" if open_low else "[", ")" if open_high else "]"
    return f"{kind} in the range {left}{low:g}, {high:g}{right}"


def _within(value: float, low: float | None, high: float | None, open_low: bool, open_high: bool) -> bool:
    if low is not None and (value < low or (open_low and value == low)):
        return False
    return not (high is not None and (value > high or (open_high and value == high)))


def check_int(value: object, what: str, *, low: int | None = None, high: int | None = None,
              text: bool = True) -> int:
    """``value`` as an int within ``[low, high]``, else :func:`invalid`.

    Accepts Python and numpy integers, integral floats and (``text``, the command line's values)
    their text (``"10"``, ``"1e3"``); refuses booleans, fractions, NaN and infinities. A Python
    parameter typed ``int`` passes ``text=False``: ``Evaluator(depth="10")`` is refused.
    """
    expected = _bounds("an integer", low, high, False, False)
    if isinstance(value, bool) or (isinstance(value, str) and not text):
        raise invalid(what, expected, value)
    number: object = value
    if isinstance(value, str):
        stripped = value.strip()
        try:
            number = int(stripped)
        except ValueError:
            try:
                number = float(stripped)
            except ValueError:
                raise invalid(what, expected, value) from None
    if isinstance(number, numbers.Integral):
        result = int(number)
    elif isinstance(number, numbers.Real) and math.isfinite(float(number)) and float(number).is_integer():
        result = int(float(number))
    else:
        raise invalid(what, expected, value)
    if not _within(result, low, high, False, False):
        raise invalid(what, expected, value)
    return result


def check_float(value: object, what: str, *, low: float | None = None, high: float | None = None,
                open_low: bool = False, open_high: bool = False, text: bool = True) -> float:
    """``value`` as a finite float within the given bounds, else :func:`invalid`.

    NaN and infinities are always refused; booleans too; text (``"0.05"``) unless ``text``
    (see :func:`check_int`).
    """
    expected = _bounds("a finite number", low, high, open_low, open_high)
    if isinstance(value, bool) or (isinstance(value, str) and not text):
        raise invalid(what, expected, value)
    try:
        result = float(value.strip() if isinstance(value, str) else value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise invalid(what, expected, value) from None
    if not math.isfinite(result) or not _within(result, low, high, open_low, open_high):
        raise invalid(what, expected, value)
    return result


def check_bool(value: object, what: str) -> bool:
    """``value`` if it is True or False (numpy's booleans too), else :func:`invalid`: a flag given
    as text (``"no"``) or a number would otherwise be read by its truth value."""
    import numpy as np

    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise invalid(what, "True or False", value)


def check_choice(value: object, what: str, choices: tuple[str, ...] | list[str]) -> str:
    """``value`` if it is one of ``choices``, else :func:`invalid` (with a close match suggested)."""
    if isinstance(value, str) and value in choices:
        return value
    expected = "one of " + ", ".join(repr(c) for c in choices)
    error = invalid(what, expected, value)
    import difflib  # only for a wrong value (~8 ms of start-up otherwise)

    close = difflib.get_close_matches(str(value), list(choices), n=1)
    if close:
        error = CranfieldError(f"{error} Did you mean {close[0]!r}?")
    raise error
