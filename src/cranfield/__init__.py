"""cranfield: exact, fast offline evaluation of rankings beyond single relevance.

The main entry points are :func:`evaluate` (qrels + runs + measure names → tidy DataFrame),
:class:`Evaluator` (qrels compiled once, many runs), the readers in :mod:`cranfield.io`,
:func:`parse_measure` and the batch kernels in :mod:`cranfield.measures`.
"""

from typing import TYPE_CHECKING, Any

from cranfield._version import __version__
from cranfield.batch import Batch, Topics  # noqa: E402
from cranfield.errors import CranfieldError, EvaluationWarning, InputError, MeasureError  # noqa: E402
from cranfield.evaluation.collection import Collection  # noqa: E402
from cranfield.evaluation.evaluator import Evaluator, Results, evaluate  # noqa: E402
from cranfield.io import read_intents, read_qrels, read_run  # noqa: E402
from cranfield.measures.plugins import load_plugin, measure, param, register_measure, unregister_measure  # noqa: E402
from cranfield.measures.registry import Measure, MeasureSpec, Param, parse_measure  # noqa: E402

if TYPE_CHECKING:
    from cranfield.analysis.judges import compare_judges
    from cranfield.compat.ir_measures import as_ir_measures_provider, ir_measure
    from cranfield.render.report import Report

# Imported on first use (PEP 562), so that `import cranfield` and every command stay light.
_LAZY = {"Report": "cranfield.render.report", "as_ir_measures_provider": "cranfield.compat.ir_measures",
         "ir_measure": "cranfield.compat.ir_measures", "compare_judges": "cranfield.analysis.judges"}


def __getattr__(name: str) -> Any:
    """The names of :data:`_LAZY`, imported from their module when first asked for."""
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'cranfield' has no attribute {name!r}")

__all__ = [
    "__version__", "evaluate", "Evaluator", "Results", "Report", "Batch", "Topics", "Collection",
    "read_qrels", "read_run", "read_intents", "parse_measure", "Measure",
    "CranfieldError", "InputError", "MeasureError", "EvaluationWarning",
    "as_ir_measures_provider", "ir_measure", "compare_judges",
    "register_measure", "measure", "param", "Param", "MeasureSpec", "unregister_measure", "load_plugin",
]
