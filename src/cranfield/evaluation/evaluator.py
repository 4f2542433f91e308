"""Evaluate runs against qrels: the driver from inputs to a (runs × measures × topics) result.

:class:`Evaluator` compiles the qrels once and scores any number of runs, each in blocks of
topics small enough to keep the dense batch within a memory budget; :func:`evaluate` is the
one-call form returning a tidy DataFrame. Topic-set rules (missing topics, topics without
relevant documents, topics only in the run) follow docs/conventions.md#topics and are announced as warnings.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from cranfield._display import first_names, html_table
from cranfield._numeric import EVAL_CELL_BUDGET
from cranfield._parallel import map_blocks
from cranfield._progress import progress
from cranfield._version import __version__
from cranfield.errors import CranfieldError, check_bool, check_choice, check_float, check_int, listing, warn
from cranfield.evaluation.collection import Collection, is_intent_scheme
from cranfield.evaluation.sampling import Fairness, block_topics, relevant_groups, sampled_batch
from cranfield.io import (
    Intents,
    Qrels,
    Run,
    as_intent_types,
    as_qrels,
    as_run,
    check_stdin_once,
    needs_run_name,
    read_intents,
)
from cranfield.io.run import ORDERS
from cranfield.io.stochastic import SampledRun, as_sampled_run
from cranfield.measures.fairness import group_shares, needs_groups
from cranfield.measures.registry import Measure, parse_measure

MISSING = ("auto", "zero", "empty", "skip")
NOREL = ("include", "exclude")
EMPTY_INTENTS = ("drop", "keep")
ON_DUPLICATE = ("error", "first")
SCORE_DTYPES = ("float32", "float64")


def _check_type(value: Any, what: str, types: tuple[type, ...], expected: str) -> None:
    """A TypeError saying what was expected when ``value`` is none of ``types``."""
    if not isinstance(value, types):
        raise TypeError(f"{what} must be {expected}; got {type(value).__name__}")


def measure_list(measures: Any) -> list[str | Measure]:
    """``measures`` as a list: one name (``"AP"``) or Measure is a list of one, not its letters.

    Raises TypeError for anything that is not a name, a Measure or an iterable of them, and
    :class:`CranfieldError` for an empty list.
    """
    from cranfield.measures.ir_measures_names import is_ir_measure  # ir_measures objects (nDCG@10) are names too

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


@dataclass(frozen=True)
class Results:
    """Scores of runs × measures × topics, with the settings that produced them.

    Attributes
    ----------
    runs : list of str
        Run names, unique (``tag#filename`` when two runs share a tag).
    measures : list of str
        Measure names as the user wrote them.
    topics : list of str
        The evaluated topics.
    values : ndarray of float64, shape (S, M, T)
        NaN where a topic is not scored (``missing="skip"``).
    aggregate : list of str
        ``"mean"``, ``"sum"`` (trec_eval sums its counts) or ``"geom"`` (the geometric mean
        whatever ``average`` says: trec_eval's ``gm_map``) per measure.
    provenance : dict
        Version and settings, written as a ``#`` header or with ``--provenance``.
    intent_values : ndarray of float64, shape (S, M, T, I), optional
        Each intent's score of the intent-aware measures (NaN elsewhere), with ``per_intent``.
    intent_ids, intent_weights
        The intents of each topic and their probabilities (T, I).
    iteration_values : ndarray of float64, shape (S, M, T, C), optional
        For iteration measures (the Cube Test family), the value after each iteration 1..C,
        with ``per_iteration``.
    average : {"avg", "geom", "dd"}
        How the ``all`` row averages topics (:func:`cranfield.evaluation.averaging.average`); counts are
        always summed.
    topic_weights : ndarray, shape (T,), optional
        1 − dd(t) for ``average="dd"``.
    unscored : ndarray of bool, shape (S, T), optional
        The topics each run leaves out by a rule already announced (``missing="skip"``); every
        other NaN value left out of an ``all`` row is named in a warning.
    group_ids, group_values, group_target
        With ``per_group`` (docs/fairness.md#per-group): the groups, each group's share of the
        attention per run and topic (S, T, G), and the target distribution (T, G).
    """

    runs: list[str]
    measures: list[str]
    topics: list[str]
    values: np.ndarray
    aggregate: list[str]
    provenance: dict[str, Any]
    intent_values: np.ndarray | None = None
    intent_ids: list[tuple[str, ...]] | None = None
    intent_weights: np.ndarray | None = None
    iteration_values: np.ndarray | None = None
    average: str = "avg"
    topic_weights: np.ndarray | None = None
    measure_specs: list[Any] | None = None
    unscored: np.ndarray | None = None
    group_ids: list[str] | None = None
    group_values: np.ndarray | None = None
    group_target: np.ndarray | None = None

    def summary(self) -> np.ndarray:
        """The ``all`` row per run and measure, shape (S, M): the topic average (``average``)
        over scored topics, the sum for trec_eval's counts, the geometric mean for ``geom``.
        NaN values are left out, with a warning unless ``unscored`` says they were announced."""
        from cranfield.evaluation.averaging import average, total

        out = np.empty(self.values.shape[:2])
        for m, how in enumerate(self.aggregate):
            label, x = self.measures[m], self.values[:, m]
            if how == "sum":
                out[:, m] = total(x, topics=self.topics, name=label, announced=self.unscored)
            else:
                out[:, m] = average(x, "geom" if how == "geom" else self.average, weights=self.topic_weights,
                                    topics=self.topics, measure=self.measure_specs[m] if self.measure_specs else None,
                                    name=label, announced=self.unscored)
        return out

    def rows(self, per_topic: bool = True) -> Iterator[tuple[str, str, str, float]]:
        """(run, topic, measure, value) rows: per topic when asked, then ``all`` per run.

        With per-intent values, each topic row of an intent-aware measure is followed by
        ``measure[intent=i]`` (X_i) and ``measure[intent=i].w`` (w_i) rows (docs/conventions.md#output).
        """
        means = self.summary()
        for s, run in enumerate(self.runs):
            if per_topic:
                for t, topic in enumerate(self.topics):
                    for m, measure in enumerate(self.measures):
                        v = self.values[s, m, t]
                        if not np.isnan(v):
                            yield run, topic, measure, float(v)
                            yield from self._intent_rows(s, m, t, run, topic, measure)
                    yield from self._group_rows(s, t, run, topic)
            for m, measure in enumerate(self.measures):
                yield run, "all", measure, float(means[s, m])

    def _intent_rows(self, s: int, m: int, t: int, run: str, topic: str, measure: str
                     ) -> Iterator[tuple[str, str, str, float]]:
        if self.iteration_values is not None:
            for c, v in enumerate(self.iteration_values[s, m, t].tolist(), start=1):
                if not np.isnan(v):
                    yield run, topic, f"{measure}[iteration={c}]", float(v)
        if self.intent_values is None or self.intent_ids is None or self.intent_weights is None:
            return
        for i, name in enumerate(self.intent_ids[t]):
            v = self.intent_values[s, m, t, i]
            if not np.isnan(v):
                yield run, topic, f"{measure}[intent={name}]", float(v)
                yield run, topic, f"{measure}[intent={name}].w", float(self.intent_weights[t, i])

    def _group_rows(self, s: int, t: int, run: str, topic: str) -> Iterator[tuple[str, str, str, float]]:
        """``exposure[group=g]`` (the group's share of the attention), ``.target`` and ``.ratio``
        (share / target, where the target is positive) rows of one run and topic."""
        if self.group_values is None or self.group_ids is None or self.group_target is None:
            return
        for g, name in enumerate(self.group_ids):
            share, target = float(self.group_values[s, t, g]), float(self.group_target[t, g])
            if np.isnan(share) or np.isnan(target):
                continue
            yield run, topic, f"exposure[group={name}]", share
            yield run, topic, f"exposure[group={name}].target", target
            if target > 0:
                yield run, topic, f"exposure[group={name}].ratio", share / target

    def to_dict(self, per_topic: bool = True) -> dict[str, Any]:
        """Plain Python values: ``runs``, ``measures``, ``topics``, ``average`` and ``rows``, the
        ``{run, topic, measure, value}`` objects of :meth:`rows` (``--format json``; None for NaN)."""
        rows = [{"run": run, "topic": topic, "measure": measure, "value": None if np.isnan(value) else value}
                for run, topic, measure, value in self.rows(per_topic)]
        return {"runs": list(self.runs), "measures": list(self.measures), "topics": list(self.topics),
                "average": self.average, "rows": rows}

    def to_frame(self, per_topic: bool = True) -> Any:
        """A tidy pandas DataFrame with columns ``run``, ``topic``, ``measure``, ``value``."""
        import pandas as pd

        return pd.DataFrame(list(self.rows(per_topic)), columns=["run", "topic", "measure", "value"])

    def to_parquet(self, path: str | Path, per_topic: bool = True) -> None:
        """Write :meth:`rows` as a Parquet file with columns ``run``, ``topic``, ``measure`` (strings)
        and ``value`` (float64, null where undefined), atomically; the provenance is kept in the
        schema metadata (docs/parquet.md). Needs pyarrow (``pip install 'cranfield[parquet]'``)."""
        from cranfield.io.arrow import write_results_parquet

        write_results_parquet(path, self.rows(per_topic), self.provenance)

    def __repr__(self) -> str:
        """``Results(2 runs × 2 measures × 50 topics; AP, nDCG@10)``: the shape, not the numbers."""
        return (f"Results({len(self.runs)} runs × {len(self.measures)} measures × {len(self.topics)} topics; "
                f"{first_names(self.measures)})")

    def _repr_html_(self) -> str:
        """What a notebook shows: the ``all`` row (:meth:`summary`) as runs × measures, the
        settings (the provenance) below (:func:`cranfield._display.html_table`)."""
        import pandas as pd

        frame = pd.DataFrame(self.summary(), index=pd.Index(self.runs, name="run"), columns=self.measures)
        how = {"avg": "mean", "geom": "geometric mean", "dd": "dd-weighted mean"}.get(self.average, self.average)
        settings = {k: v for k, v in self.provenance.items() if k != "measures"}
        return html_table(frame, f"{len(self.runs)} runs × {len(self.measures)} measures, {how} over "
                          f"{len(self.topics)} topics", settings)


class RunScores(NamedTuple):
    """One run's scores over the collection's topics (:meth:`Evaluator.score_run`)."""

    values: np.ndarray
    """Shape (M, T); NaN where a topic is not scored (``missing="skip"``) or a measure is undefined."""
    intents: np.ndarray | None
    """With ``per_intent``: each intent's score of the intent-aware measures, (M, T, I)."""
    iterations: list[np.ndarray] | None
    """With ``per_iteration``: each iteration measure's value after every iteration, M × (T, C)."""
    unscored: np.ndarray | None
    """With ``missing="skip"``: the topics left out (absent from the run), shape (T,)."""
    groups: np.ndarray | None = None
    """With ``per_group``: each group's share of the attention, (T, G)."""


class _RunSettings(NamedTuple):
    """How :meth:`Evaluator.evaluate` reads and scores each run (sent once to every worker)."""

    order: str
    on_duplicate: str
    score_dtype: str
    per_intent: bool
    per_iteration: bool
    record_warnings: bool
    per_group: bool = False


class _Scored(NamedTuple):
    """What one run task returns: its scores, the facts its name needs, and (on a worker) the
    warnings it raised."""

    scores: RunScores
    name: str
    source: str
    warnings: list[Warning | str]
    comments: int = 0
    iterations: bool = False  # whether the run has search iterations (a TREC DD run)


def _score_task(item: tuple[Any, str | None], evaluator: Evaluator, settings: _RunSettings,
                columns: Any = None) -> _Scored:
    """Read one run (a path is read here, on the worker, unless its ``columns`` were read ahead),
    prepare and score it, and drop it."""
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
    return _Scored(scores, name, str(source), [w.message for w in caught] if caught is not None else [],
                   plain.comments, plain.iteration is not None)


READ_AHEAD = 2
"""Run files parsed ahead, on threads, while this process scores the current run."""


def _score_here(evaluator: Evaluator, items: list[tuple[Any, str | None]], settings: _RunSettings,
                progress_bar: bool | None) -> list[_Scored]:
    """The runs scored in this process, in order, while the next :data:`READ_AHEAD` run files are
    parsed on threads (pyarrow's reader and numpy release the GIL), so at most READ_AHEAD + 1
    runs are held at once. Only the column reader, which neither warns nor raises
    (:func:`~cranfield.io.fastcsv.read_run_columns`), runs on the threads: every warning and
    error comes from this thread, in run order."""
    from concurrent.futures import Future, ThreadPoolExecutor

    from cranfield.io.arrow import is_parquet_path
    from cranfield.io.fastcsv import read_run_columns, worth_it

    def plain(obj: Any) -> bool:  # a TREC run file that the column reader would take
        return (isinstance(obj, (str, Path)) and settings.order != "rank" and not is_parquet_path(obj)
                and not evaluator.stochastic and worth_it(obj))

    def ahead(obj: Any) -> Any:
        return read_run_columns(obj, threads=False) if plain(obj) else None  # the files are the parallel units

    if sum(plain(obj) for obj, _ in items) < 2:  # nothing to overlap
        return [_score_task(item, evaluator, settings) for item in progress(items, len(items), "evaluating",
                                                                            progress_bar)]
    out: list[_Scored] = []
    with ThreadPoolExecutor(READ_AHEAD) as pool:
        pending: list[Future[Any] | None] = [pool.submit(ahead, obj) for obj, _ in items[:READ_AHEAD]]
        for k, item in enumerate(progress(items, len(items), "evaluating", progress_bar)):
            if k + READ_AHEAD < len(items):
                pending.append(pool.submit(ahead, items[k + READ_AHEAD][0]))
            columns, pending[k] = pending[k].result(), None  # type: ignore[union-attr]
            out.append(_score_task(item, evaluator, settings, columns))
    return out


class Evaluator:
    """Qrels and measures compiled once, applied to many runs (ir_measures' ``evaluator``).

    Parameters
    ----------
    qrels : path, irds:<dataset-id>, dict, DataFrame or Qrels
    measures : str, Measure, or a sequence of them
        ir_measures-style names (``P@10``, ``nDCG(gains=exp)@20``); see ``cranfield measures``.
        One name is one measure (``"AP"``, not the letters A and P); wrong types raise TypeError.
    missing : {"auto", "zero", "empty", "skip"}
        Topics of the qrels absent from a run (docs/conventions.md#missing): ``auto`` scores the empty ranking for
        truncation-aware measures and 0 for the others; ``zero`` and ``empty`` apply one rule
        to all; ``skip`` leaves them out of the mean (trec_eval without ``-c``).
    norel : {"include", "exclude"}
        Topics without any relevant document: scored by each measure's definition (trec_eval),
        or dropped (gdeval). Either way they are listed in a warning.
    diversity : bool, optional
        Force reading a qrels file as diversity (True) or ad hoc (False) qrels.
    intents : path or Intents, optional
        An intent file ``qid intent probability [inf|nav]`` (implies diversity qrels), or a name:
        ``"uniform"`` (1/M', the default) or ``"nonuniform"`` (Sakai, WWW 2012, Table 1: the j-th of M'
        intents, in intent-id order, gets 2^(M'−j+1)/Σ_k 2^k).
    intent_types : path or dict, optional
        Intent types: ``qid intent inf|nav`` lines or a TREC Web topics XML file.
    empty_intents : {"drop", "keep"}
        Intents without relevant documents: dropped (ndeval, default) or kept (docs/conventions.md#intents).
    depth : int, optional
        Only the first ``depth`` documents of each ranking count (trec_eval ``-M``); an integer >= 1.
    judged_only : bool
        Remove documents that are not judged (or judged with a negative label) from the rankings
        before scoring: condensed lists (trec_eval ``-J``).
    names : sequence of str, optional
        Display names of the measures (default: as given).
    strip_topic_prefix : bool
        Read run topic ids such as ``wt09-1`` as ``1`` (ndeval, gdeval).
    average : {"avg", "geom", "dd"}
        Topic average of the ``all`` row: arithmetic (default), geometric (trec_eval's gm_map,
        ε = 1e-5) or weighted by 1 − dd(t) (Golbus, Aslam & Clarke, Inf. Retr. 2013, §6.3; diversity qrels).
    dd_depth : {"xi", "xi+1"} or int
        The depth of dd for ``average="dd"`` (default ξ, the minimum cover; Table 10's dd rows use ξ + 1).
    stochastic : bool
        Read runs as stochastic runs ``qid sample docno rank score tag`` (a DataFrame: a ``sample``
        column), several sampled rankings per topic (docs/fairness.md); every measure is then
        the expected value over the samples, the exposure measures their own.
    groups : path or Groups, optional
        Document groups, ``docno group [weight]`` lines (AWRF, nDCG*AWRF, group-level EE).
    target : {"uniform", "relevant"}, path or Target
        The target group distribution: uniform over the groups (default), that of the relevant
        documents, or ``[qid] group weight`` lines.
    """

    def __init__(
        self, qrels: Any, measures: Sequence[str | Measure] | str | Measure, *, missing: str = "auto",
        norel: str = "include", diversity: bool | None = None, intents: Any = None,
        intent_types: Any = None, empty_intents: str = "drop", depth: int | None = None,
        judged_only: bool = False, names: Sequence[str] | None = None, average: str = "avg",
        strip_topic_prefix: bool = False, dd_depth: Any = "xi", stochastic: bool = False, groups: Any = None,
        target: Any = None,
    ) -> None:
        from cranfield.evaluation.averaging import AVERAGES
        from cranfield.measures.topics import check_depth

        self.dd_depth = check_depth(dd_depth)

        self.missing = check_choice(missing, "missing option", MISSING)
        self.norel = check_choice(norel, "norel option", NOREL)
        self.average = check_choice(average, "average option", AVERAGES)
        check_choice(empty_intents, "empty_intents option", EMPTY_INTENTS)
        _check_type(diversity, "diversity", (bool, type(None)), "True, False or None")
        _check_type(intents, "intents", (str, Path, Intents, type(None)),
                    "a path, an Intents, 'uniform' or 'nonuniform'")
        _check_type(intent_types, "intent_types", (str, Path, Mapping, type(None)),
                    "a path or a dict {(qid, intent): 'inf' or 'nav'}")
        measures = measure_list(measures)
        self.names = [str(m) for m in (measures if names is None else names)]
        if len(self.names) != len(measures):
            raise CranfieldError(f"{len(self.names)} names given for {len(measures)} measures")
        self.max_depth = None if depth is None else check_int(depth, "depth", low=1, text=False)
        self.judged_only = check_bool(judged_only, "judged_only option")
        self.strip_topic_prefix = check_bool(strip_topic_prefix, "strip_topic_prefix option")
        self.measures = [parse_measure(m) for m in measures]
        if intents is not None and diversity is None and not is_intent_scheme(intents):
            diversity = True
        self.qrels: Qrels = as_qrels(qrels, diversity=diversity)
        self.intent_scheme = intents if is_intent_scheme(intents) else None
        if isinstance(intents, (str, Path)) and not is_intent_scheme(intents):
            intents = read_intents(intents)
        intent_types = as_intent_types(intent_types, self.qrels)  # a path, irds:<id>, or the dataset's own
        self.collection = Collection.from_qrels(
            self.qrels, intents=intents, intent_types=intent_types, empty_intents=empty_intents
        )
        needs = [str(m) for m in self.measures if m.spec.needs_intents]
        if needs and not self.collection.diversity:
            warn(f"{', '.join(needs)} need intents but the qrels are ad hoc: each topic has one intent")
        typed = [str(m) for m in self.measures if m.spec.needs_types]
        if typed and not self.collection.typed:
            warn(f"{', '.join(typed)} tell navigational from informational intents, but no intent "
                 "types were given (--intents with a type column, or --intent-types): all are informational")
        self.depth = deepest_cutoff(self.measures)
        self.topic_mask = self._norel_rule()
        self._warn_nothing_relevant()
        self.stochastic = bool(stochastic)
        self.fairness = Fairness.of(groups, target)
        self.sampled = self.stochastic or any(m.spec.sampled for m in self.measures) or groups is not None
        self._check_groups()

    def with_measures(self, measures: Sequence[str | Measure]) -> Evaluator:
        """This evaluator — its compiled qrels, topic rules and options — scoring ``measures``
        instead: nothing is compiled again and no warning about the qrels is repeated."""
        other = copy.copy(self)
        other.measures = [parse_measure(m) for m in measure_list(measures)]
        other.names = [str(m) for m in other.measures]
        other.depth = deepest_cutoff(other.measures)
        other.sampled = other.stochastic or any(m.spec.sampled for m in other.measures) or \
            other.fairness.groups is not None
        other._check_groups()
        return other

    def _check_groups(self) -> None:
        """AWRF, nDCG*AWRF and group-level EE without document groups are an error, not a number."""
        lacking = [name for name, m in zip(self.names, self.measures) if needs_groups(m)]
        if lacking and self.fairness.groups is None:
            raise CranfieldError(f"{listing(lacking)} need document groups: --groups FILE (groups= in Python; "
                                 "docs/fairness.md)")

    def __getstate__(self) -> dict[str, Any]:
        """Pickled (sent to Dask workers) with its measures by name: their specs hold functions
        that plain pickle cannot send; a measure whose name does not parse back to it is kept
        as it is (Dask then sends it with cloudpickle)."""
        state = dict(self.__dict__)
        state["measures"] = [str(m) if _named(m) else m for m in self.measures]
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        state["measures"] = [parse_measure(m) for m in state["measures"]]
        self.__dict__.update(state)

    def _norel_rule(self) -> np.ndarray:
        """The topics evaluated, shape (T,): all, or (``norel="exclude"``) those with a relevant
        document; either way the topics without one are named in a warning."""
        coll = self.collection
        norel_topics = np.flatnonzero(coll.topics.num_rel(1) == 0)
        mask = np.ones(coll.n_topics, dtype=bool)
        if not norel_topics.size:
            return mask
        names = [coll.topic_ids[t] for t in norel_topics]
        if self.norel == "include":
            warn(f"{len(names)} topics have no relevant documents and are scored by each "
                 f"measure's definition (mostly 0): {listing(names)}")
            return mask
        if norel_topics.size == coll.n_topics:
            raise CranfieldError(f"no topic is left to evaluate: none of the {coll.n_topics} qrels topics has a "
                                 "relevant document, and topics without one are excluded (norel='exclude')")
        mask[norel_topics] = False
        warn(f"{len(names)} topics without relevant documents are excluded: {listing(names)}")
        return mask

    def _warn_nothing_relevant(self) -> None:
        """Warn when no evaluated topic has a document at a measure's relevance level (``rel``,
        trec_eval -l; 1 for the others): such a measure scores every topic by its no-relevant
        case (mostly 0), which is almost never what was meant."""
        coll = self.collection
        levels: dict[int, list[str]] = {}
        for name, measure in zip(self.names, self.measures):
            levels.setdefault(int(measure.params.get("rel", 1)), []).append(name)
        for level, names in sorted(levels.items()):
            if not (coll.topics.num_rel(level)[self.topic_mask] > 0).any():
                warn(f"no evaluated topic has a relevant document at label >= {level} (the highest label in the "
                     f"qrels is {coll.max_rel}): every topic scores as if nothing were relevant (mostly 0) for "
                     f"{listing(names, 5)}")

    def _topic_weights(self, keep: np.ndarray) -> np.ndarray | None:
        if self.average != "dd":
            return None
        from cranfield.evaluation.averaging import dd_weights

        return dd_weights(self.collection.topics, self.dd_depth)[keep]

    def prepare(self, run: Run, check: bool = True, strip: bool = True) -> Run:
        """Apply ``strip_topic_prefix`` (with ``strip``), ``depth`` (trec_eval -M) and ``judged_only``
        (-J) to a run (and, with ``check``, refuse a run none of whose topics is in the qrels)."""
        if self.strip_topic_prefix and strip:
            stripped = tuple(t.rsplit("-", 1)[-1] for t in run.topic_ids)
            if len(set(stripped)) < len(stripped):
                raise CranfieldError(f"{run.source}: stripping topic prefixes makes two topics the same")
            run = dataclasses.replace(run, topic_ids=stripped)
        if check:
            self._check_topics(run)
        if self.max_depth is not None:
            run = run.head(self.max_depth)
        if self.judged_only:
            coll = self.collection
            where = coll.topic_index(run)
            topic = np.repeat(where, run.lengths)
            row = coll.lookup(np.maximum(topic, 0), run.doc_key, run.docno)
            run = run.select((topic >= 0) & (row >= 0) & (coll.labels[np.maximum(row, 0)] >= 0))
        return run

    def _say_iterations(self, plain: list[str]) -> None:
        """Warn once when iteration measures (the Cube Test family) score runs without search
        iterations (``plain``: their names) and no ``docs_per_iteration`` says what one is."""
        measures = [str(m) for m in self.measures if "docs_per_iteration" in m.params
                    and m.params["docs_per_iteration"] is None]
        if plain and measures:
            warn(f"{listing(measures, 5)} on runs without search iterations ({listing(plain, 5)}: not TREC Dynamic "
                 "Domain runs): each topic's whole ranking is taken as one iteration; pass --docs-per-iteration N "
                 "(docs_per_iteration=N) to make every N documents an iteration")

    def _check_topics(self, run: Run) -> None:
        """No topic of ``run`` in the qrels is an error, whatever ``missing`` says: the ids
        usually differ, by a prefix or a year (some topics not in the qrels: :meth:`score_run`
        warns)."""
        coll = self.collection
        if not (coll.topic_index(run) >= 0).any():
            theirs = list(run.topic_ids) or ["(none: the run is empty)"]
            raise CranfieldError(f"{run.source}: no topic of the run has judgments in the qrels, so nothing can be "
                                 f"scored; the run's topics are {listing(theirs, 5)}, the qrels' "
                                 f"{listing(list(coll.topic_ids), 5)} ({_mismatch_hint(theirs, coll.topic_ids)})")

    def topic_blocks(self, run: Run) -> list[slice]:
        """Blocks of topics whose batch for ``run`` stays within the memory budget."""
        longest = int(run.lengths.max()) if run.lengths.size else 0
        depth = longest if self.depth is None else min(self.depth, longest)
        per_topic = max(depth, 1) * self.collection.grades.shape[1]
        size = max(1, EVAL_CELL_BUDGET // per_topic)
        n = self.collection.n_topics
        return [slice(a, min(a + size, n)) for a in range(0, n, size)]

    def score_run(self, run: Run, per_intent: bool = False, per_iteration: bool = False) -> RunScores:
        """Scores of one run over the collection's topics (a prepared run, :meth:`prepare`)."""
        coll = self.collection
        out = np.empty((len(self.measures), coll.n_topics))
        detail = np.full(out.shape + (coll.weights.shape[1],), np.nan) if per_intent else None
        steps: list[list[np.ndarray]] | None = [[] for _ in self.measures] if per_iteration else None
        present = np.zeros(coll.n_topics, dtype=bool)
        for block in self.topic_blocks(run):
            batch = coll.batch([run], depth=self.depth, topics=block)
            present[block] = batch.present[0]
            for m, measure in enumerate(self.measures):
                out[m, block] = measure(batch)[0]
                if detail is not None and (x := measure.per_intent(batch)) is not None:
                    detail[m, block] = np.where(coll.weights[block] > 0, x[0], np.nan)
                if steps is not None:
                    x = measure.per_iteration(batch)
                    steps[m].append(x[0] if x is not None else np.full((batch.length.shape[1], 0), np.nan))
        self._apply_missing(out, present, run)
        gone = np.isnan(out) | ((out == 0) & ~present)
        if detail is not None:
            detail[np.broadcast_to(gone[..., None], detail.shape)] = np.nan
        iterations = None if steps is None else [_stack_ragged(parts, g) for parts, g in zip(steps, gone)]
        return RunScores(out, detail, iterations, ~present & self.topic_mask if self.missing == "skip" else None)

    @functools.cached_property
    def _fair_topics(self) -> tuple[np.ndarray, np.ndarray]:
        """The relevant documents' groups (T, K, G) and the target distributions (T, G), once."""
        relevant = relevant_groups(self.collection, self.fairness)
        return relevant, self.fairness.targets(self.collection, relevant)

    def score_sampled(self, sampled: SampledRun, per_group: bool = False) -> RunScores:
        """Scores of a stochastic run over the collection's topics (docs/fairness.md): each block
        of topics is one :class:`~cranfield.batch.SampledBatch` of all the samples."""
        coll = self.collection
        run = sampled.run  # the topics, stripped and checked as a run's (an empty run: no copy of the rows)
        no_rows = np.zeros(len(sampled.topic_ids) + 1, np.int64)
        whole = self.prepare(Run(run.name, run.source, sampled.topic_ids, no_rows, run.docno[:0], run.score[:0], None,
                                 run.doc_key[:0]))
        # the ranked lists as one run (list k: a sample of topic sampled.topic[k]), cut as prepare cuts a run
        lists = self.prepare(dataclasses.replace(run, topic_ids=tuple(whole.topic_ids[t] for t in sampled.topic)),
                             check=False, strip=False)
        where = coll.topic_index(whole)[sampled.topic]
        sampled = dataclasses.replace(sampled, run=lists)
        relevant, target = self._fair_topics
        out = np.empty((len(self.measures), coll.n_topics))
        shares = np.full((coll.n_topics, len(self.fairness.group_ids)), np.nan) if per_group else None
        present = np.zeros(coll.n_topics, dtype=bool)
        longest = int(lists.lengths.max()) if lists.lengths.size else 0
        depth = longest if self.depth is None else min(self.depth, longest)
        size = block_topics(depth, sampled.n_samples, coll.grades.shape[1])
        for a in range(0, coll.n_topics, size):
            block = slice(a, min(a + size, coll.n_topics))
            sb = sampled_batch(coll, sampled, where, self.fairness, relevant, target, depth=self.depth,
                               topics=block)
            present[block] = sb.n_samples[0] > 0
            for m, measure in enumerate(self.measures):
                out[m, block] = measure(sb)[0]
            if shares is not None:
                shares[block] = group_shares(sb)[0]
        self._apply_missing(out, present, whole)
        return RunScores(out, None, None, ~present & self.topic_mask if self.missing == "skip" else None, shares)

    def _apply_missing(self, out: np.ndarray, present: np.ndarray, run: Run) -> None:
        unknown = np.flatnonzero(self.collection.topic_index(run) < 0)
        if unknown.size:
            names = [run.topic_ids[t] for t in unknown]
            warn(f"{run.name}: {len(names)} topics are not in the qrels and are ignored: {listing(names)}")
        absent = np.flatnonzero(~present & self.topic_mask)
        if not absent.size:
            return
        names = [self.collection.topic_ids[t] for t in absent]
        rule = {"auto": "scored 0 (the empty ranking for truncation-aware measures)", "zero": "scored 0",
                "empty": "scored as the empty ranking", "skip": "left out of the mean"}[self.missing]
        warn(f"{run.name}: {len(names)} qrels topics are missing from the run, {rule}: {listing(names)}")
        for m, measure in enumerate(self.measures):
            if self.missing == "skip":
                out[m, absent] = np.nan
            elif self.missing == "zero" or (self.missing == "auto" and not measure.spec.truncation_aware):
                out[m, absent] = 0.0

    def evaluate(self, runs: Any, *, order: str = "score", on_duplicate: str = "error",
                 per_intent: bool = False, per_iteration: bool = False, progress_bar: bool | None = None,
                 score_dtype: str = "float32", names: Sequence[str] | None = None, client: Any = None,
                 per_group: bool = False) -> Results:
        """Score ``runs`` (a run or a list of runs: paths, dicts, DataFrames, Arrow tables or
        :class:`~cranfield.io.Run`; or a dict ``{name: run}``); with ``per_intent`` keep each intent's score of the
        intent-aware measures, with ``per_iteration`` each iteration measure's value after every
        iteration. ``names`` (one per run, unique) name the runs in every output; without names, an
        in-memory run without a name of its own is ``run<k>``, its place in the list (``run`` when it
        is the only one; docs/parquet.md#names).

        Each run is read, scored and dropped in turn: memory holds one run and the scores of all.
        With ``client`` (a ``dask.distributed.Client``, docs/scaling.md) every run is one task: the
        worker reads the file itself (paths are sent, never run contents; in-memory runs are sent
        as they are), the evaluator is sent to each worker once, and only the scores come back,
        bit for bit those of ``client=None``; the runs' warnings are repeated here, in run order.
        """
        runs, given = named_runs(runs, names)
        check_stdin_once([self.qrels.source, *(getattr(r, "source", r) for r in runs)])
        check_choice(order, "order option", ORDERS)
        check_choice(on_duplicate, "on_duplicate option", ON_DUPLICATE)
        check_choice(score_dtype, "score_dtype option", SCORE_DTYPES)
        per_intent = check_bool(per_intent, "per_intent option")
        per_iteration = check_bool(per_iteration, "per_iteration option")
        labels = run_labels(runs, given)
        if self.sampled and (per_intent or per_iteration):
            raise CranfieldError("per-intent and per-iteration rows are not available for stochastic runs and "
                                 "exposure measures (docs/fairness.md)")
        settings = _RunSettings(order, on_duplicate, score_dtype, per_intent, per_iteration, client is not None,
                                per_group)
        items = list(zip(runs, labels))
        done = (_score_here(self, items, settings, progress_bar) if client is None else
                map_blocks(_score_task, items, client=client, shared={"evaluator": self, "settings": settings},
                           label="evaluating", progress_bar=progress_bar))
        for item in done:
            for message in item.warnings:
                warnings.warn(message, stacklevel=2)
        self._say_iterations(list(dict.fromkeys(item.name for item in done if not item.iterations)))
        scored = [item.scores for item in done]
        values = [r.values for r in scored]
        keep = np.flatnonzero(self.topic_mask)
        coll = self.collection
        grouped = per_group and bool(scored) and self.sampled
        return Results(
            runs=given or unique_run_names([item.name for item in done], [item.source for item in done]),
            measures=self.names,
            topics=[self.collection.topic_ids[t] for t in keep],
            values=np.stack(values)[:, :, keep] if values else np.zeros((0, len(self.names), keep.size)),
            aggregate=[m.spec.aggregate for m in self.measures],
            intent_values=np.stack([r.intents for r in scored if r.intents is not None])[:, :, keep]
            if per_intent and scored else None,
            iteration_values=_iteration_array([r.iterations for r in scored], keep)
            if per_iteration and scored else None,
            unscored=np.stack([np.zeros(keep.size, dtype=bool) if r.unscored is None else r.unscored[keep]
                               for r in scored]) if scored else None,
            average=self.average, topic_weights=self._topic_weights(keep), measure_specs=list(self.measures),
            intent_ids=[coll.intent_ids[t] for t in keep],
            intent_weights=coll.weights[keep],
            group_ids=list(self.fairness.group_ids) if grouped else None,
            group_values=np.stack([r.groups for r in scored if r.groups is not None])[:, keep] if grouped else None,
            group_target=self._fair_topics[1][keep] if grouped else None,
            provenance={
                "cranfield": __version__,
                "qrels": self.qrels.source,
                "measures": [_written(name, m) for name, m in zip(self.names, self.measures)],
                "order": order, "score_dtype": score_dtype, "missing": self.missing, "norel": self.norel,
                "on_duplicate": on_duplicate, "max_rel": self.collection.max_rel,
                "depth": self.max_depth, "judged_only": self.judged_only, "average": self.average,
                "diversity": self.collection.diversity,
                **({"stochastic": self.stochastic, **self.fairness.provenance()} if self.sampled else {}),
                **({"intents": self.intent_scheme} if self.intent_scheme == "nonuniform" else {}),
                **_skipped_comments([(self.qrels.source, self.qrels.comments)]
                                    + [(item.source, item.comments) for item in done]),
            },
        )


def _skipped_comments(counts: list[tuple[str, int]]) -> dict[str, list[str]]:
    """The provenance entry of the comment lines (``#``) skipped in the input files:
    ``{"comment_lines": ["run.txt(3)", ...]}``, or nothing when no file had one."""
    said = [f"{source}({n})" for source, n in counts if n]
    return {"comment_lines": said} if said else {}


def risk_adjusted(results: Results, baseline: Results, alpha: float = 0.0) -> Results:
    """Risk-sensitive scores against a baseline run (Dinçer, Macdonald, Ounis SIGIR 2014; TREC Web
    2013–14; ndeval ``-baseline -riskAlpha``): per topic Δ = run − baseline when it is not negative,
    else (1 + α)·Δ. The ``all`` row is then URisk; ``TRisk`` = URisk / (sd(Δ')/√n) (sample sd)
    is returned in ``trisk`` (S, M). A topic left out of either run (NaN) is left out of Δ."""
    alpha = check_float(alpha, "risk alpha", low=0)
    if baseline.values.shape[0] != 1 or baseline.topics != results.topics or baseline.measures != results.measures:
        raise CranfieldError("the baseline must be one run scored with the same measures and topics")
    delta = results.values - baseline.values[0]
    adjusted = np.where(delta >= 0, delta, (1.0 + alpha) * delta)
    unscored = np.zeros(results.values.shape[::2], dtype=bool)  # (S, T): announced when each was evaluated
    for known in (results.unscored, None if baseline.unscored is None else baseline.unscored[0]):
        unscored = unscored if known is None else unscored | known
    out = dataclasses.replace(results, values=adjusted, aggregate=["mean"] * len(results.measures),
                              unscored=unscored,
                              provenance={**results.provenance, "baseline": baseline.runs[0], "risk_alpha": alpha})
    return out


def trisk(adjusted: Results) -> np.ndarray:
    """TRisk = URisk / (sample sd of the risk-adjusted differences / √n), shape (S, M).

    0 when every difference is 0; NaN, with a warning, where it is undefined: fewer than two
    scored topics, or differences that are all equal but not 0 (sd = 0)."""
    v = adjusted.values
    scored = ~np.isnan(v)
    n = scored.sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):  # n < 2 and sd = 0 are masked below
        mean = np.where(scored, v, 0.0).sum(axis=2) / n
        sd = np.sqrt((np.where(scored, v - mean[..., None], 0.0) ** 2).sum(axis=2) / (n - 1))
        t = mean / (sd / np.sqrt(n))
    zero = (n > 1) & (sd == 0) & (mean == 0)
    defined = (n > 1) & (sd > 0)
    undefined = ~(defined | zero)
    for s, m in zip(*np.nonzero(undefined)):
        why = "fewer than 2 topics are scored" if n[s, m] < 2 else "every topic has the same difference (sd = 0)"
        warn(f"{adjusted.runs[s]}: TRisk of {adjusted.measures[m]} is undefined (NaN): {why}")
    return np.where(defined, t, np.where(zero, 0.0, np.nan))


def _named(measure: Measure) -> bool:
    """Whether ``measure`` is the one its canonical name parses to (a registered measure)."""
    try:
        return parse_measure(str(measure)) == measure
    except CranfieldError:
        return False


def _written(name: str, measure: Measure) -> str:
    """A measure's name for the provenance: as the user wrote it when that reads back as the
    measure (``RBP(p=0.8)`` keeps the parameter its canonical name leaves out as the default;
    a future default cannot change what the line means), else the canonical name (a label
    given with ``names=``)."""
    try:
        return name if parse_measure(name) == measure else str(measure)
    except CranfieldError:
        return str(measure)


def _mismatch_hint(run_topics: Sequence[str], qrels_topics: Sequence[str]) -> str:
    """Why a run's topic ids may match none of the qrels': a prefix to strip, or other qrels."""
    known = set(qrels_topics)
    for topic in run_topics:
        prefix, dash, rest = topic.rpartition("-")
        if dash and rest in known:
            return (f"they match once the prefix {prefix + dash!r} is dropped: --strip-topic-prefix, "
                    "strip_topic_prefix=True")
    return "are these the qrels of the run's track and year?"


def _stack_ragged(parts: list[np.ndarray], gone: np.ndarray) -> np.ndarray:
    """Join topic blocks of per-iteration values (T, C_block) into (T, C), NaN-padded."""
    width = max((p.shape[1] for p in parts), default=0)
    out = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1])), constant_values=np.nan) for p in parts])
    out[gone] = np.nan
    return out


def _iteration_array(steps: list[list[np.ndarray] | None], keep: np.ndarray) -> np.ndarray:
    """(S, M, T, C) from each run's per-measure (T, C_m) arrays."""
    width = max((a.shape[1] for run in steps if run for a in run), default=0)
    return np.stack([
        np.stack([np.pad(a, ((0, 0), (0, width - a.shape[1])), constant_values=np.nan)[keep] for a in run])
        for run in steps if run is not None
    ])


def run_labels(runs: Sequence[Any], given: Sequence[str] | None) -> list[str | None]:
    """The name each run takes: its given name, else ``run<k>`` (its place in the list) for an
    in-memory run without a name of its own among several, else None (its own name; docs/parquet.md#names)."""
    return [given[k] if given else f"run{k + 1}" if len(runs) > 1 and needs_run_name(obj) else None
            for k, obj in enumerate(runs)]


def deepest_cutoff(measures: Sequence[Measure]) -> int | None:
    """The depth a batch needs for ``measures``: their largest cutoff, None (the whole ranking)
    when one of them has none."""
    depths = [m.depth for m in measures]
    return None if any(d is None for d in depths) else max(d for d in depths if d is not None)


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


def evaluate(
    qrels: Any, runs: Any, measures: Sequence[str | Measure] | str | Measure, *, missing: str = "auto",
    norel: str = "include", order: str = "score", on_duplicate: str = "error",
    per_topic: bool = True, per_intent: bool = False, per_iteration: bool = False,
    diversity: bool | None = None, intents: Any = None,
    intent_types: Any = None, empty_intents: str = "drop", average: str = "avg",
    names: Sequence[str] | None = None, dd_depth: Any = "xi", client: Any = None, stochastic: bool = False,
    groups: Any = None, target: Any = None, per_group: bool = False,
) -> Any:
    """Evaluate runs against qrels; a tidy DataFrame with columns run, topic, measure, value.

    Parameters
    ----------
    qrels : path, dict ``{qid: {docno: rel}}``, DataFrame or Qrels
    runs : a run or a list of runs (paths, dicts ``{qid: {docno: score}}``, DataFrames, Arrow
        tables, Runs), or a dict ``{name: run}`` of named runs
    measures : str or list of str
        ir_measures-style names such as ``"P@10"``, ``"nDCG(gains=exp)@20"``, ``"RBP(p=0.8)"``;
        one name is one measure (``"AP"``, not the letters A and P).
    missing, norel : see :class:`Evaluator`
    order : {"score", "rank", "file"}
        How run lines are ranked (docs/conventions.md#order); ``"score"`` is trec_eval's rule.
    on_duplicate : {"error", "first"}
    diversity, intents, intent_types, empty_intents : see :class:`Evaluator`
    per_topic : bool
        Include per-topic rows; the ``all`` rows (mean over topics; sums for counts) are
        always there.
    per_intent : bool
        Also each intent's score and probability for intent-aware measures (``IA(X)``,
        ``nDCG_IA``, ...), as rows ``measure[intent=i]`` and ``measure[intent=i].w``.
    per_iteration : bool
        Also the Cube Test family's value after each iteration, as rows ``CT@5[iteration=2]``.
    average : {"avg", "geom", "dd"}
        How the ``all`` row averages topics (see :class:`Evaluator`).
    dd_depth : {"xi", "xi+1"} or int
        The depth of the collection-diversity weights of ``average="dd"`` (Golbus, Aslam &
        Clarke, Inf. Retr. 2013, Eq. 4; Table 10 uses ξ+1); see :class:`Evaluator`.
    names : list of str, optional
        The runs' names (one per run, unique), kept in the ``run`` column (docs/parquet.md#names).
    client : dask.distributed.Client, optional
        Score the runs on a Dask cluster, one task per run, bit for bit as in this process
        (:meth:`Evaluator.evaluate`; docs/scaling.md).
    stochastic, groups, target : see :class:`Evaluator` (docs/fairness.md)
    per_group : bool
        Also each group's share of the attention, its target and their ratio, as rows
        ``exposure[group=g]``, ``exposure[group=g].target`` and ``exposure[group=g].ratio``.

    Examples
    --------
    >>> qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}}
    >>> run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.1}}
    >>> evaluate(qrels, run, ["P@2", "AP"], per_topic=False)
       run topic measure     value
    0  run   all     P@2  0.500000
    1  run   all      AP  0.833333
    """
    check_bool(per_topic, "per_topic option")  # per_intent and per_iteration: by Evaluator.evaluate
    evaluator = Evaluator(qrels, measures, missing=missing, norel=norel, diversity=diversity,
                          intents=intents, intent_types=intent_types, empty_intents=empty_intents,
                          average=average, dd_depth=dd_depth, stochastic=stochastic, groups=groups, target=target)
    results = evaluator.evaluate(runs, order=order, on_duplicate=on_duplicate, per_intent=per_intent,
                                 per_iteration=per_iteration, names=names, client=client, per_group=per_group)
    return results.to_frame(per_topic or per_intent or per_iteration or per_group)
