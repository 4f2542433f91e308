"""Where the runs of an evaluation are scored: in this process, the next run files parsed ahead on
threads while the current one is scored, or one task per run on a Dask cluster
(docs/scaling.md); either way bit for bit the same scores, and the runs' warnings in run order."""

from __future__ import annotations

import contextlib
import dataclasses
import threading
import warnings
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from cranfield._parallel import map_blocks
from cranfield._progress import progress
from cranfield.evaluation.results import RunScores
from cranfield.io import as_run
from cranfield.io.stochastic import SampledRun, as_sampled_run

if TYPE_CHECKING:
    from cranfield.evaluation.evaluator import Evaluator


class RunSettings(NamedTuple):
    """How :meth:`Evaluator.evaluate` reads and scores each run (sent once to every worker)."""

    order: str
    on_duplicate: str
    score_dtype: str
    per_intent: bool
    per_iteration: bool
    record_warnings: bool
    per_group: bool = False


class Scored(NamedTuple):
    """What one run task returns: its scores, the facts its name needs, and (on a worker) the
    warnings it raised."""

    scores: RunScores
    name: str
    source: str
    warnings: list[Warning | str]
    comments: int = 0
    iterations: bool = False  # whether the run has search iterations (a TREC DD run)


def _score_task(item: tuple[Any, str | None], evaluator: Evaluator, settings: RunSettings,
                columns: Any = None) -> Scored:
    """Read one run (a path is read here, on the worker, unless it was read ahead: ``columns``, its
    columns or the run itself, :func:`~cranfield.io.run.read_run_ahead`), prepare and score it,
    and drop it."""
    obj, label = item
    with warnings.catch_warnings(record=True) if settings.record_warnings else contextlib.nullcontext() as caught:
        if caught is not None:
            warnings.simplefilter("always")
        if evaluator.sampled:
            sampled = (as_sampled_run(obj, order=settings.order, on_duplicate=settings.on_duplicate,  # type: ignore[arg-type]
                                      score_dtype=settings.score_dtype) if evaluator.stochastic else
                       SampledRun.single(as_run(obj, order=settings.order, on_duplicate=settings.on_duplicate,  # type: ignore[arg-type]
                                                score_dtype=settings.score_dtype, columns=columns)))
            sampled = sampled if label is None else sampled.with_name(label)
            scores = evaluator.score_sampled(sampled, settings.per_group)
            name, source, plain = sampled.name, sampled.source, sampled.run
        else:
            run = as_run(obj, order=settings.order, on_duplicate=settings.on_duplicate,  # type: ignore[arg-type]
                         score_dtype=settings.score_dtype, columns=columns)
            run = evaluator.prepare(run if label is None else dataclasses.replace(run, name=label))
            scores = evaluator.score_run(run, settings.per_intent, settings.per_iteration)
            name, source, plain = run.name, run.source, run
    return Scored(scores, name, str(source), [w.message for w in caught] if caught is not None else [],
                   plain.comments, plain.iteration is not None)


READ_AHEAD = 2
"""Run files parsed ahead, on threads, while this process scores the current run."""


def _is_run_file(obj: Any) -> bool:
    """Whether ``obj`` names a regular file that may be a TREC run (not standard input, a pipe, a
    directory or a Parquet file)."""
    from cranfield.io import STDIN
    from cranfield.io.arrow import is_parquet_path

    return isinstance(obj, (str, Path)) and str(obj) != STDIN and not is_parquet_path(obj) and Path(obj).is_file()


def _read_ahead(obj: Any, rules: tuple[str, str, str]) -> Any:
    """What a read-ahead thread reads of ``obj`` under ``rules`` (order, on_duplicate,
    score_dtype): :func:`~cranfield.io.run.read_run_ahead` of a file that may be a TREC run, else
    None (read when it is scored)."""
    from cranfield.io.run import read_run_ahead

    return read_run_ahead(obj, *rules) if _is_run_file(obj) else None  # type: ignore[arg-type]


_PREFETCHED: dict[tuple[str, tuple[str, str, str]], tuple[tuple[int, int, int], Future[Any]]] = {}
"""Run files being read since :func:`prefetch`, by path and rules, with the file's
:func:`_version` then, until a run of them is scored."""


def _version(path: Any) -> tuple[int, int, int]:
    """What tells one content of the file at ``path`` from another: inode, size, modification time."""
    st = Path(path).stat()
    return st.st_ino, st.st_size, st.st_mtime_ns


def prefetch(runs: list[Any], order: str, on_duplicate: str = "error", score_dtype: str = "float32") -> None:
    """Start reading the first :data:`READ_AHEAD` run files of ``runs`` now, each on a thread,
    for the evaluation of these runs in this process that follows (:func:`_score_here` takes
    them): the command line calls this before it reads the qrels, so that the qrels and the
    first runs are read at once, on both cores."""
    rules = (order, on_duplicate, score_dtype)
    for obj in runs[:READ_AHEAD]:
        if _is_run_file(obj):
            future: Future[Any] = Future()
            _PREFETCHED[(str(obj), rules)] = _version(obj), future
            threading.Thread(target=lambda o=obj, f=future: f.set_result(_read_ahead(o, rules)), daemon=True).start()


def forget_prefetched() -> None:
    """Drop every reading that :func:`prefetch` started and no evaluation took (the command line
    calls this when its command ends, however it ends)."""
    _PREFETCHED.clear()


def _prefetched(obj: Any, rules: tuple[str, str, str]) -> Future[Any] | None:
    """The reading of ``obj`` that :func:`prefetch` started (taken: once), or None; None too
    when the file has changed since (a command that stopped before its evaluation left it)."""
    if not isinstance(obj, (str, Path)):
        return None
    version, future = _PREFETCHED.pop((str(obj), rules), (None, None))
    return future if version is not None and _is_run_file(obj) and _version(obj) == version else None


def _score_here(evaluator: Evaluator, items: list[tuple[Any, str | None]], settings: RunSettings,
                progress_bar: bool | None) -> list[Scored]:
    """The runs scored in this process, in order, while the next :data:`READ_AHEAD` run files are
    read on threads (numpy releases the GIL), so at most READ_AHEAD + 1 runs are held at
    once. A file that the read-ahead cannot read as a TREC run (a damaged file, another layout)
    is read again on this thread, which raises or reads it as it would without read-ahead: every
    warning and error comes from this thread, in run order."""
    rules = (settings.order, settings.on_duplicate, settings.score_dtype)
    overlap = not evaluator.stochastic and sum(_is_run_file(obj) for obj, _ in items) >= 2
    with ThreadPoolExecutor(READ_AHEAD) if overlap else contextlib.nullcontext() as pool:
        def ahead(obj: Any) -> Future[Any] | None:  # None: the run is read when it is scored
            started = None if evaluator.stochastic else _prefetched(obj, rules)
            return started or (None if pool is None else pool.submit(_read_ahead, obj, rules))

        pending = [ahead(obj) for obj, _ in items[:READ_AHEAD]]
        out = []
        for k, item in enumerate(progress(items, len(items), "evaluating", progress_bar)):
            if k + READ_AHEAD < len(items):
                pending.append(ahead(items[k + READ_AHEAD][0]))
            started, pending[k] = pending[k], None
            out.append(_score_task(item, evaluator, settings, None if started is None else started.result()))
    return out


def score_runs(evaluator: Evaluator, items: list[tuple[Any, str | None]], settings: RunSettings, client: Any,
               progress_bar: bool | None) -> list[Scored]:
    """Every run of ``items`` (a run and the name it takes, or None) read, scored and dropped, in
    order: in this process (``client`` None; :func:`_score_here`) or one task per run on a Dask
    cluster (:func:`cranfield._parallel.map_blocks`; the evaluator is sent to each worker once,
    paths are read there, only the scores come back)."""
    if client is None:
        return _score_here(evaluator, items, settings, progress_bar)
    return map_blocks(_score_task, items, client=client, shared={"evaluator": evaluator, "settings": settings},
                      label="evaluating", progress_bar=progress_bar)
