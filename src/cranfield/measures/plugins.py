"""Your own measures: declare a kernel, its parameters and its value range (docs/plugins.md).

A measure is a *kernel*, a pure vectorised function of a :class:`~cranfield.batch.Batch`::

    kernel(batch, *, cutoff, **params) -> ndarray of shape (S, T)

one value per run and topic. ``cutoff`` is the ``@k`` of the name (None without one; not
passed at all when the measure is declared with ``cutoff="none"``) and ``params`` are the
declared parameters, already validated. :func:`register_measure` (or the :func:`measure`
decorator) adds it to the registry, so that its name works everywhere a built-in measure's
does: :func:`cranfield.evaluate`, :func:`cranfield.parse_measure`, ``cranfield eval -m``,
``compare``, ``discpower``, ``axioms`` and the other studies.

The command line loads plugins with ``--plugin MODULE`` (a module name or a ``.py`` file,
:func:`load_plugin`) and from the entry points of the group ``cranfield.measures`` of the
installed packages (:func:`load_entry_points`).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import inspect
import math
import numbers
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar

import numpy as np

from cranfield._entry_points import ENTRY_POINT_GROUP, may_declare
from cranfield.batch import Batch
from cranfield.errors import CranfieldError, MeasureError, check_choice, invalid
from cranfield.measures.registry import (
    KINDS,
    NAME_PATTERN,
    REGISTRY,
    MeasureSpec,
    Param,
    cutoff_param,
    register,
    unregister,
)

__all__ = ["ENTRY_POINT_GROUP", "param", "register_measure", "measure", "unregister_measure", "load_plugin",
           "load_entry_points"]

_IDENTIFIER = "a Python identifier other than 'cutoff' (the @k of the name, declared by cutoff=)"
_TYPES: dict[Any, str] = {int: "int", float: "float", bool: "bool", str: "choice"}
_LOADED_ENTRY_POINTS: set[tuple[str, str]] = set()
K = TypeVar("K", bound=Callable[..., Any])


# --------------------------------------------------------------------------- declaring
def param(name: str, kind: Any, default: Any, doc: str = "", *, low: float | None = None,
          high: float | None = None, open_low: bool = False, open_high: bool = False,
          choices: Iterable[str] = ()) -> Param:
    """A parameter of a measure, written ``Name(name=value)`` in a measure name.

    ``kind`` is ``int``, ``float``, ``bool`` or ``str`` (a word among ``choices``), or one of
    the registry's kinds by name (``"gains"``: a gain map such as ``0:0,1:1,2:3``; ``"measure"``:
    another measure, as in ``IA(nDCG@10)``). ``low``/``high`` bound numbers (``open_low`` and
    ``open_high`` exclude the bound). ``default`` is validated like any value given in a name.
    """
    if not isinstance(name, str) or not name.isidentifier() or name == "cutoff":
        raise _error(invalid("name of a parameter", _IDENTIFIER, name))
    kind_name = _TYPES.get(kind, kind) if isinstance(kind, (type, str)) else kind
    if kind_name not in KINDS:
        raise _error(invalid(f"kind of parameter {name!r}", "int, float, bool, str or one of "
                             + ", ".join(map(repr, KINDS)), kind))
    words = tuple(choices)
    if kind_name == "choice" and not (words and all(isinstance(w, str) for w in words)):
        raise _error(invalid(f"choices of parameter {name!r}", "a non-empty sequence of words (a str parameter)",
                             choices))
    for bound, value in (("low", low), ("high", high)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                                  or math.isnan(value)):
            raise _error(invalid(f"{bound} bound of parameter {name!r}", "a number or None", value))
    if not isinstance(doc, str):
        raise _error(invalid(f"doc of parameter {name!r}", "a str", doc))
    p = Param(name, kind_name, default, doc, low=low, high=high, open_low=open_low, open_high=open_high,
              choices=words)
    if default is None:
        return p
    try:
        return dataclasses.replace(p, default=p.convert(default, "a measure"))
    except CranfieldError:
        raise _error(invalid(f"default of parameter {name!r}", p.describe(), default)) from None


def register_measure(
    name: str, kernel: Callable[..., np.ndarray], *, params: Iterable[Param] | Param = (),
    value_range: tuple[float, float] = (0.0, 1.0), cite: str = "", doc: str = "", cutoff: str = "optional",
    aliases: Iterable[str] = (), normalised: bool = False, truncation_aware: bool = False,
    needs_intents: bool = False, depth: Callable[[Mapping[str, Any]], int | None] | None = None,
    aggregate: str = "mean", replace: bool = False,
) -> MeasureSpec:
    """Register ``kernel`` as the measure ``name`` and return its spec.

    Parameters
    ----------
    name : str
        Letters, digits and ``_+#-``, starting with a letter or digit (``MyPrecision``).
    kernel : callable
        ``kernel(batch, *, cutoff, **params) -> ndarray (S, T)``. Its result is checked on
        every call: an array of shape (S, T) within ``value_range`` (NaN allowed).
    params : sequence of Param
        The parameters besides the cutoff, from :func:`param`.
    value_range : (low, high)
        The least and greatest values (``math.inf`` for unbounded).
    cite, doc : str
        The paper and equation it implements; one line saying what it measures (default: the
        first line of the kernel's docstring).
    cutoff : {"optional", "required", "none"}
        Whether the name takes ``@k``; with "none" the kernel gets no ``cutoff`` keyword.
    aliases : sequence of str
        Other names of the measure.
    normalised, truncation_aware, needs_intents : bool
        Whether the ideal ranking scores 1; whether a short ranking differs from one padded
        with non-relevant documents; whether it reads several intents.
    depth : callable, optional
        ``depth(params) -> int | None``: how many ranks the kernel reads; by default the cutoff
        (None, the whole ranking, without one).
    aggregate : {"mean", "sum"}
        How the ``all`` row combines the topics.
    replace : bool
        Replace a measure already registered under ``name`` instead of raising an error.

    Raises
    ------
    MeasureError
        For an invalid declaration (name, parameters, value range, a kernel whose signature
        does not take the parameters) or a name already registered.
    TypeError
        When ``kernel`` is not callable.
    """
    if not isinstance(name, str) or not NAME_PATTERN.fullmatch(name):
        raise _error(invalid("name of a measure", "letters, digits and _+#-, starting with a letter or digit, "
                             "such as MyPrecision", name))
    if not callable(kernel):
        raise TypeError(f"The kernel of measure {name!r} must be a function kernel(batch, *, cutoff, **params) -> "
                        f"ndarray (S, T). Got {kernel!r} instead.")
    cutoff = _checked(lambda: check_choice(cutoff, f"cutoff of measure {name!r}", ("optional", "required", "none")))
    declared = (params,) if isinstance(params, Param) else tuple(params)
    for p in declared:
        if not isinstance(p, Param):
            raise _error(invalid(f"params of measure {name!r}", "Param objects, from cranfield.param(...)", p))
        if p.name == "cutoff":
            raise _error(invalid(f"params of measure {name!r}", "parameters other than 'cutoff' (declare the @k "
                                 "with cutoff='optional' or 'required')", p.name))
    if len({p.name for p in declared}) != len(declared):
        raise _error(invalid(f"parameter names of measure {name!r}", "distinct", [p.name for p in declared]))
    low, high = _value_range(name, value_range)
    names = (name, *_aliases(name, aliases))
    _check_signature(name, kernel, (*(("cutoff",) if cutoff != "none" else ()), *(p.name for p in declared)))
    for text, what in ((cite, "cite"), (doc, "doc")):
        if not isinstance(text, str):
            raise _error(invalid(f"{what} of measure {name!r}", "a str", text))
    taken = {alias: spec.name for spec in REGISTRY.values() for alias in (spec.name, *spec.aliases)}
    clashes = [n for n in names if n in taken and not (replace and taken[n] == name)]
    if clashes:
        hint = " Pass replace=True to replace it." if clashes[0] == name else ""
        raise MeasureError(f"The name {clashes[0]!r} is already registered (measure {taken[clashes[0]]}).{hint}")
    spec = MeasureSpec(
        name, _checked_kernel(name, kernel, (low, high)),
        (*((cutoff_param(),) if cutoff != "none" else ()), *declared),
        cite=cite, doc=doc or (inspect.getdoc(kernel) or "").split("\n")[0], aliases=names[1:], cutoff=cutoff,
        value_range=(low, high), normalised=bool(normalised), truncation_aware=bool(truncation_aware),
        needs_intents=bool(needs_intents), aggregate=_checked(
            lambda: check_choice(aggregate, f"aggregate of measure {name!r}", ("mean", "sum"))),
        **({"depth": depth} if depth is not None else {} if cutoff != "none" else {"depth": lambda p: None}),
    )
    if replace and name in REGISTRY:
        unregister(name)
    return register(spec)


def measure(name: str | None = None, **declaration: Any) -> Callable[[K], K]:
    """Decorator form of :func:`register_measure`: registers the decorated kernel under ``name``
    (default: the function's name) and returns the function unchanged."""

    def decorate(kernel: K) -> K:
        register_measure(kernel.__name__ if name is None else name, kernel, **declaration)
        return kernel

    return decorate


def unregister_measure(name: str) -> MeasureSpec:
    """Remove the measure ``name`` (with its aliases) from the registry and return its spec."""
    if not isinstance(name, str) or name not in REGISTRY:
        raise MeasureError(f"The name of a registered measure must be given. Got {name!r} instead.")
    return unregister(name)


def _error(error: CranfieldError) -> MeasureError:
    return MeasureError(str(error))


def _checked(check: Callable[[], str]) -> str:
    try:
        return check()
    except CranfieldError as exc:
        raise _error(exc) from None


def _value_range(name: str, value_range: Any) -> tuple[float, float]:
    try:
        low, high = value_range
        numeric = all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in (low, high))
    except (TypeError, ValueError):
        numeric = False
    if not numeric or math.isnan(low) or math.isnan(high) or low > high:
        raise _error(invalid(f"value_range of measure {name!r}", "two numbers (low, high) with low <= high "
                             "(math.inf for unbounded)", value_range))
    return float(low), float(high)


def _aliases(name: str, aliases: Iterable[str]) -> tuple[str, ...]:
    out = (aliases,) if isinstance(aliases, str) else tuple(aliases)
    for alias in out:
        if not isinstance(alias, str) or not NAME_PATTERN.fullmatch(alias) or alias == name:
            raise _error(invalid(f"aliases of measure {name!r}", "names other than its own, of letters, digits and "
                                 "_+#-", alias))
    return out


def _check_signature(name: str, kernel: Callable[..., Any], keywords: tuple[str, ...]) -> None:
    """The kernel can be called as ``kernel(batch, cutoff=..., p=...)``."""
    try:
        signature = inspect.signature(kernel)
    except (TypeError, ValueError):  # a builtin without a signature: trust it
        return
    try:
        signature.bind(None, **dict.fromkeys(keywords))
    except TypeError:
        expected = f"kernel(batch, *, {', '.join(keywords)})" if keywords else "kernel(batch)"
        raise _error(invalid(f"kernel of measure {name!r}", f"a function {expected}: it takes the batch and "
                             "the keywords cutoff (unless cutoff='none') and each declared parameter",
                             f"{getattr(kernel, '__name__', 'kernel')}{signature}")) from None


def _checked_kernel(name: str, kernel: Callable[..., np.ndarray], bounds: tuple[float, float]) -> Callable[..., Any]:
    """``kernel`` whose result is checked: shape (S, T), numbers within ``bounds`` (or NaN)."""
    low, high = bounds

    def checked(batch: Batch, **params: Any) -> np.ndarray:
        value = np.asarray(kernel(batch, **params))
        expected = batch.labels.shape[:2]
        if value.shape != expected or value.dtype.kind not in "biuf":
            raise MeasureError(f"The value of measure {name} must be an array of numbers of shape (S, T) = "
                               f"{expected}. Got an array of {value.dtype} of shape {value.shape} instead.")
        value = value.astype(np.float64)
        outside = (value < low) | (value > high)
        if outside.any():
            raise MeasureError(f"The values of measure {name} must lie in its value_range [{low:g}, {high:g}]. "
                               f"Got {value[outside].flat[0].item()!r} instead.")
        return value

    checked.__name__ = getattr(kernel, "__name__", name)
    checked.__doc__ = kernel.__doc__
    checked.__wrapped__ = kernel  # type: ignore[attr-defined]
    return checked


# --------------------------------------------------------------------------- loading
def load_plugin(target: str) -> ModuleType:
    """Import a plugin, which registers its measures on import: a module name
    (``my_package.measures``) or the path of a ``.py`` file. Each plugin is imported once
    (a path is imported as the module named after the file).

    Raises
    ------
    CranfieldError
        Naming the plugin, when it cannot be found or fails while loading.
    """
    if not isinstance(target, str) or not target.strip():
        raise invalid("plugin", "a module name or the path of a .py file", target)
    target = target.strip()
    if target.endswith(".py") or "/" in target or "\\" in target:
        return _load_file(Path(target))
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as exc:
        local = Path(target + ".py")
        if exc.name == target and target.isidentifier() and local.is_file():  # a file of the working directory
            return _load_file(local)
        if exc.name is not None and target.startswith(exc.name) and target[len(exc.name):][:1] in ("", "."):
            raise CranfieldError(f"The plugin {target!r} cannot be found: there is no module {exc.name!r} (give "
                                 "an importable module name or the path of a .py file).") from None
        raise _failed(f"The plugin {target!r}", exc) from exc
    except Exception as exc:
        raise _failed(f"The plugin {target!r}", exc) from exc


def _load_file(path: Path) -> ModuleType:
    if path.suffix != ".py" or not path.is_file():
        raise invalid("plugin file", "an existing .py file", str(path))
    name = path.stem
    loaded = sys.modules.get(name)
    if loaded is not None:
        if getattr(loaded, "__file__", None) and Path(loaded.__file__).resolve() == path.resolve():  # type: ignore[arg-type]
            return loaded  # loaded once
        raise CranfieldError(f"The plugin {str(path)!r} cannot be loaded: a module named {name!r} is already "
                             f"imported (from {getattr(loaded, '__file__', None) or 'a built-in'}); rename the file.")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:  # pragma: no cover - a .py file always has a loader
        raise invalid("plugin file", "a Python source file", str(path))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        del sys.modules[name]
        raise _failed(f"The plugin {str(path)!r}", exc) from exc
    return module


def load_entry_points(group: str = ENTRY_POINT_GROUP) -> list[str]:
    """Load every entry point of ``group`` of the installed packages, each once, and return
    the names newly loaded. An entry point names a module, whose import registers measures
    (``mine = my_package.measures``), or a function called with no arguments
    (``mine = my_package.measures:register``).

    Raises
    ------
    CranfieldError
        Naming the entry point (and its package) that fails to load.
    """
    if not may_declare(group):
        return []
    from importlib.metadata import entry_points

    loaded = []
    for ep in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        key = (ep.name, ep.value)
        if key in _LOADED_ENTRY_POINTS:
            continue
        dist = getattr(ep, "dist", None)
        where = f"The plugin {ep.name!r} (entry point {ep.value!r} of group {group!r}" + \
            (f" in package {dist.name} {dist.version})" if dist is not None else ")")
        try:
            obj = ep.load()
            if callable(obj) and not isinstance(obj, ModuleType):
                obj()
        except Exception as exc:
            raise _failed(where, exc) from exc
        _LOADED_ENTRY_POINTS.add(key)
        loaded.append(ep.name)
    return loaded


def _failed(plugin: str, exc: BaseException) -> CranfieldError:
    reason = str(exc) if isinstance(exc, CranfieldError) else f"{type(exc).__name__}: {exc}"
    return CranfieldError(f"{plugin} failed to load: {reason}")
