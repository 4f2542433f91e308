"""The inputs of an evaluation as lists: measures (:func:`measure_list`), runs (:func:`run_list`,
:func:`named_runs`) and the names the runs take in every output (:func:`run_labels`,
:func:`unique_run_names`; docs/parquet.md#names, docs/conventions.md#output)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from cranfield.errors import CranfieldError
from cranfield.io import Run, needs_run_name
from cranfield.measures.ir_measures_names import is_ir_measure  # ir_measures objects (nDCG@10) are names too
from cranfield.measures.registry import Measure


def measure_list(measures: Any) -> list[str | Measure]:
    """``measures`` as a list: one name (``"AP"``) or Measure is a list of one, not its letters.

    Raises TypeError for anything that is not a name, a Measure or an iterable of them, and
    :class:`CranfieldError` for an empty list.
    """
    if isinstance(measures, (str, Measure)) or is_ir_measure(measures):
        return [measures]
    expected = "a measure name such as 'AP', a Measure, or a list of them"
    if isinstance(measures, (bytes, Mapping)) or not isinstance(measures, Iterable):
        raise TypeError(f"measures must be {expected}; got {type(measures).__name__}")
    items = list(measures)
    wrong = [type(m).__name__ for m in items if not (isinstance(m, (str, Measure)) or is_ir_measure(m))]
    if wrong:
        raise TypeError(f"measures must be {expected}; got a list holding {wrong[0]}")
    if not items:
        raise CranfieldError("no measures given")
    return items


def run_list(runs: Any) -> list[Any]:
    """``runs`` as a list: one run (a path, a dict, a DataFrame or a Run) is a list of one.

    Raises TypeError for ``None`` and other objects that are neither a run nor a list of runs.
    """
    if isinstance(runs, (str, Path, Run, Mapping)) or hasattr(runs, "columns"):
        return [runs]
    if not isinstance(runs, Iterable):
        raise TypeError("runs must be a run (a path, a dict {qid: {docno: score}}, a DataFrame or a Run) "
                        f"or a list of runs; got {type(runs).__name__}")
    return list(runs)


def is_run_dict(runs: Any) -> bool:
    """Whether ``runs`` is a dict of named runs ``{name: run}`` rather than one pytrec_eval run
    ``{qid: {docno: score}}``: every value is a run itself (a path, a Run, a DataFrame or Arrow
    table, or a non-empty dict of dicts)."""
    if not isinstance(runs, Mapping) or not runs:
        return False
    return all(isinstance(v, (str, Path, Run)) or hasattr(v, "columns")
               or (isinstance(v, Mapping) and bool(v) and all(isinstance(x, Mapping) for x in v.values()))
               for v in runs.values())


def named_runs(runs: Any, names: Sequence[str] | None = None) -> tuple[list[Any], list[str] | None]:
    """The runs as a list, and their names when given: the keys of a dict ``{name: run}``
    (:func:`is_run_dict`) or ``names`` (a list as long as the runs). Names must be unique,
    non-empty strings (docs/parquet.md#names)."""
    if is_run_dict(runs):
        if names is not None:
            raise CranfieldError("runs given as a dict {name: run} are named by its keys; leave out names=")
        items, given = list(runs.values()), list(runs.keys())
    else:
        items = run_list(runs)
        if names is None:
            return items, None
        if isinstance(names, (str, bytes)) or not isinstance(names, Iterable):
            raise TypeError(f"names must be a list of run names, one per run; got {type(names).__name__}")
        given = list(names)
        if len(given) != len(items):
            raise CranfieldError(f"{len(given)} run names given for {len(items)} runs")
    wrong = [n for n in given if not isinstance(n, str) or not n.strip()]
    if wrong:
        raise CranfieldError(f"run names must be non-empty strings; got {wrong[0]!r}")
    twice = next((n for k, n in enumerate(given) if n in given[:k]), None)
    if twice is not None:
        raise CranfieldError(f"the run name {twice!r} is given twice; run names must be unique")
    return items, given


def run_labels(runs: Sequence[Any], given: Sequence[str] | None) -> list[str | None]:
    """The name each run takes: its given name, else ``run<k>`` (its place in the list) for an
    in-memory run without a name of its own among several, else None (its own name; docs/parquet.md#names)."""
    return [given[k] if given else f"run{k + 1}" if len(runs) > 1 and needs_run_name(obj) else None
            for k, obj in enumerate(runs)]


def unique_names(runs: Sequence[Run]) -> list[str]:
    """Run names, with ``tag#filename`` for runs that share a tag (docs/conventions.md#output)."""
    return unique_run_names([r.name for r in runs], [str(r.source) for r in runs])


def unique_run_names(names: Sequence[str], sources: Sequence[str]) -> list[str]:
    """:func:`unique_names` from the runs' names and sources alone (the runs may be gone)."""
    out = []
    for name, source in zip(names, sources):
        if names.count(name) > 1:
            out.append(f"{name}#{Path(source).name}")
        else:
            out.append(name)
    for k, name in enumerate(out):
        if out.count(name) > 1:
            out[k] = f"{name}#{k + 1}"
    return out
