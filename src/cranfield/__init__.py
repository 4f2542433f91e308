"""cranfield: exact, fast offline evaluation of rankings beyond single relevance.

The main entry points are :func:`evaluate` (qrels + runs + measure names → tidy DataFrame),
:class:`Evaluator` (qrels compiled once, many runs), the readers in :mod:`cranfield.io`,
:func:`parse_measure` and the batch kernels in :mod:`cranfield.measures`.
"""

from __future__ import annotations

from cranfield._version import __version__
from cranfield.errors import CranfieldError, EvaluationWarning, InputError, MeasureError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (docs/architecture.md#start-up)
if TYPE_CHECKING:
    from typing import Any

    from cranfield.analysis.judges import compare_judges
    from cranfield.analysis.repro import reproduce
    from cranfield.analysis.similarity import similarity
    from cranfield.batch import Batch, Topics
    from cranfield.compat.ir_measures import as_ir_measures_provider, ir_measure
    from cranfield.evaluation.collection import Collection
    from cranfield.evaluation.evaluator import Evaluator, Results, evaluate
    from cranfield.evaluation.nuggets import evaluate_nuggets
    from cranfield.io import read_intents, read_qrels, read_run
    from cranfield.io.nuggets import read_nuggets
    from cranfield.measures.plugins import load_plugin, measure, param, register_measure, unregister_measure
    from cranfield.measures.registry import Measure, MeasureSpec, Param, parse_measure
    from cranfield.render.report import Report

# Imported on first use (PEP 562), so that `import cranfield` and every command stay light, and
# the command line catches Ctrl-C from its first moment (numpy and pandas are imported after).
_LAZY = {
    **dict.fromkeys(("Batch", "Topics"), "cranfield.batch"),
    "Collection": "cranfield.evaluation.collection",
    "evaluate_nuggets": "cranfield.evaluation.nuggets",
    "read_nuggets": "cranfield.io.nuggets",
    **dict.fromkeys(("Evaluator", "Results", "evaluate"), "cranfield.evaluation.evaluator"),
    **dict.fromkeys(("read_intents", "read_qrels", "read_run"), "cranfield.io"),
    **dict.fromkeys(("load_plugin", "measure", "param", "register_measure", "unregister_measure"),
                    "cranfield.measures.plugins"),
    **dict.fromkeys(("Measure", "MeasureSpec", "Param", "parse_measure"), "cranfield.measures.registry"),
    "Report": "cranfield.render.report",
    "compare_judges": "cranfield.analysis.judges",
    "similarity": "cranfield.analysis.similarity",
    "reproduce": "cranfield.analysis.repro",
    **dict.fromkeys(("as_ir_measures_provider", "ir_measure"), "cranfield.compat.ir_measures"),
}
_SUBPACKAGES = ("analysis", "batch", "cli", "compat", "evaluation", "io", "measures", "meta", "render")


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported from their module when first asked for (and the
    subpackages, ``cranfield.io`` ...)."""
    import importlib

    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
    elif name in _SUBPACKAGES:
        value = importlib.import_module(f"cranfield.{name}")
    else:
        raise AttributeError(f"module 'cranfield' has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    """The module's names with those imported on first use (:data:`_LAZY`, the subpackages)."""
    return sorted({*globals(), *_LAZY, *_SUBPACKAGES})


__all__ = [
    "__version__", "evaluate", "Evaluator", "Results", "Report", "Batch", "Topics", "Collection",
    "read_qrels", "read_run", "read_intents", "read_nuggets", "evaluate_nuggets", "parse_measure", "Measure",
    "CranfieldError", "InputError", "MeasureError", "EvaluationWarning",
    "as_ir_measures_provider", "ir_measure", "similarity", "reproduce", "compare_judges",
    "register_measure", "measure", "param", "Param", "MeasureSpec", "unregister_measure", "load_plugin",
]
