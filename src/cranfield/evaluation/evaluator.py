"""Evaluate runs against qrels: the driver from inputs to a (runs × measures × topics) result.

:class:`Evaluator` compiles the qrels once and scores any number of runs, each in blocks of
topics small enough to keep the dense batch within a memory budget; :func:`evaluate` is the
one-call form returning a tidy DataFrame. Topic-set rules (missing topics, topics without
relevant documents, topics only in the run) follow docs/conventions.md#topics and are announced as warnings.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._numeric import EVAL_CELL_BUDGET
from cranfield._version import __version__
from cranfield.errors import CranfieldError, check_bool, listing, warn
from cranfield.evaluation.collection import Collection, is_intent_scheme
from cranfield.evaluation.inputs import (
    is_run_dict,
    measure_list,
    named_runs,
    run_labels,
    run_list,
    unique_names,
    unique_run_names,
)
from cranfield.evaluation.options import (
    EMPTY_INTENTS,
    MISSING,
    NOREL,
    ON_DUPLICATE,
    SCORE_DTYPES,
    EvalOptions,
    check_option,
)
from cranfield.evaluation.results import Results, RunScores
from cranfield.evaluation.risk import risk_adjusted, trisk
from cranfield.evaluation.sampling import Fairness, block_topics, relevant_groups, sampled_batch
from cranfield.evaluation.scheduling import RunSettings, score_runs
from cranfield.io import Qrels, Run, as_intent_types, as_qrels, check_stdin_once, read_intents
from cranfield.io.stochastic import SampledRun
from cranfield.measures.fairness import group_shares, needs_groups
from cranfield.measures.registry import Measure, parse_measure

__all__ = [  # the names of the modules split from this one are kept importable from here
    "Evaluator", "evaluate", "deepest_cutoff", "Results", "RunScores", "risk_adjusted", "trisk", "measure_list",
    "run_list", "is_run_dict", "named_runs", "run_labels", "unique_names", "unique_run_names",
    "MISSING", "NOREL", "EMPTY_INTENTS", "ON_DUPLICATE", "SCORE_DTYPES",
]

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
        self.options = options = EvalOptions(
            dd_depth=dd_depth, missing=missing, norel=norel, average=average, empty_intents=empty_intents,
            diversity=diversity, intents=intents, intent_types=intent_types, depth=depth, judged_only=judged_only,
            strip_topic_prefix=strip_topic_prefix, stochastic=stochastic, groups=groups, target=target)
        self.dd_depth, self.missing, self.norel, self.average = (options.dd_depth, options.missing, options.norel,
                                                                 options.average)
        self.max_depth, self.judged_only = options.depth, options.judged_only
        self.strip_topic_prefix, self.stochastic = options.strip_topic_prefix, options.stochastic
        measures = measure_list(measures)
        self.names = [str(m) for m in (measures if names is None else names)]
        if len(self.names) != len(measures):
            raise CranfieldError(f"{len(self.names)} names given for {len(measures)} measures")
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
        shallow_first = sorted(range(len(self.measures)), key=lambda m: self.measures[m].depth or longest + 1)
        for a in range(0, coll.n_topics, size):
            block = slice(a, min(a + size, coll.n_topics))
            sb = sampled_batch(coll, sampled, where, self.fairness, relevant, target, depth=self.depth,
                               topics=block)
            present[block] = sb.n_samples[0] > 0
            for m in shallow_first:  # what a deeper cutoff shares with a shallower one is continued
                out[m, block] = self.measures[m](sb)[0]
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
        for option, value in (("order", order), ("on_duplicate", on_duplicate), ("score_dtype", score_dtype)):
            check_option(option, value)
        per_intent = check_bool(per_intent, "per_intent option")
        per_iteration = check_bool(per_iteration, "per_iteration option")
        labels = run_labels(runs, given)
        if self.sampled and (per_intent or per_iteration):
            raise CranfieldError("per-intent and per-iteration rows are not available for stochastic runs and "
                                 "exposure measures (docs/fairness.md)")
        settings = RunSettings(order, on_duplicate, score_dtype, per_intent, per_iteration, client is not None,
                               per_group)
        done = score_runs(self, list(zip(runs, labels)), settings, client, progress_bar)
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


def deepest_cutoff(measures: Sequence[Measure]) -> int | None:
    """The depth a batch needs for ``measures``: their largest cutoff, None (the whole ranking)
    when one of them has none."""
    depths = [m.depth for m in measures]
    return None if any(d is None for d in depths) else max(d for d in depths if d is not None)


def evaluate(
    qrels: Any, runs: Any, measures: Sequence[str | Measure] | str | Measure, *, missing: str = "auto",
    norel: str = "include", order: str = "score", on_duplicate: str = "error",
    per_topic: bool = True, per_intent: bool = False, per_iteration: bool = False,
    diversity: bool | None = None, intents: Any = None,
    intent_types: Any = None, empty_intents: str = "drop", average: str = "avg",
    names: Sequence[str] | None = None, dd_depth: Any = "xi", client: Any = None, stochastic: bool = False,
    groups: Any = None, target: Any = None, per_group: bool = False, depth: int | None = None,
    judged_only: bool = False, strip_topic_prefix: bool = False, score_dtype: str = "float32",
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
    depth, judged_only, strip_topic_prefix : see :class:`Evaluator` (trec_eval ``-M``, ``-J``)
    score_dtype : {"float32", "float64"}
        Compare run scores as C floats (trec_eval) or doubles (gdeval); see :meth:`Evaluator.evaluate`.
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
                          average=average, dd_depth=dd_depth, stochastic=stochastic, groups=groups, target=target,
                          depth=depth, judged_only=judged_only, strip_topic_prefix=strip_topic_prefix)
    results = evaluator.evaluate(runs, order=order, on_duplicate=on_duplicate, per_intent=per_intent,
                                 per_iteration=per_iteration, names=names, client=client, per_group=per_group,
                                 score_dtype=score_dtype)
    return results.to_frame(per_topic or per_intent or per_iteration or per_group)
