"""The data behind a report, computed once: the runs evaluated, every pair compared on every
measure (:func:`cranfield.analysis.comparison.compare_runs`: differences, intervals, p-values,
effect sizes, wins/ties/losses), the significance marks, the provenance of the inputs (bytes and
SHA-256 of each file, a run's ir_metadata header) and the data of every figure of the HTML page
(docs/report.md).

:func:`report_data` builds a :class:`ReportData` from qrels and runs, :func:`report_from_evaluator`
from an :class:`~cranfield.Evaluator` already built, :func:`report_from_results` from
:class:`~cranfield.Results`. :class:`cranfield.render.report.Report` presents it (text, LaTeX,
Markdown, CSV, JSON, HTML); nothing here formats text.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._display import run_letter
from cranfield._numeric import equal
from cranfield.analysis import report_data as figure_data
from cranfield.analysis.comparison import BOOTSTRAP_CI_RESAMPLES, Comparison, compare_runs, default_correction
from cranfield.errors import CranfieldError, EvaluationWarning, listing
from cranfield.evaluation.evaluator import Evaluator, Results, named_runs, run_labels
from cranfield.io import as_run
from cranfield.io.ir_metadata import read_ir_metadata
from cranfield.io.stochastic import as_sampled_run
from cranfield.meta.registry import lookup

__all__ = ["ReportData", "FigureData", "report_data", "report_from_evaluator", "report_from_results",
           "EVALUATOR_OPTIONS", "EVALUATE_OPTIONS", "ord_index"]

EVALUATOR_OPTIONS = ("missing", "norel", "diversity", "intents", "intent_types", "empty_intents", "depth",
                     "judged_only", "average", "strip_topic_prefix", "dd_depth")
"""Keyword arguments of ``Evaluator(...)`` a report accepts."""

EVALUATE_OPTIONS = ("order", "on_duplicate", "score_dtype", "names")
"""Keyword arguments of ``Evaluator.evaluate(...)`` a report accepts."""


def ord_index(letter: str) -> int:
    """The run index of a label of :func:`~cranfield._display.run_letter` (``"a"`` → 0, ``"aa"`` → 26)."""
    k = 0
    for ch in letter:
        k = k * 26 + (ord(ch) - ord("a") + 1)
    return k - 1


@dataclass(frozen=True, eq=False)
class FigureData:
    """The data of the HTML report's figures that need the qrels and the runs, not only the scores
    (:mod:`cranfield.analysis.report_data`), each run scored once for them.

    Attributes
    ----------
    recall_levels : ndarray, shape (L,)
    precision : ndarray, shape (S, L)
        Interpolated precision at each recall level, mean over topics.
    diversity : bool
        Whether the qrels have intents (then the three fields below are set).
    coverage_depth : int
    coverage_labels : tuple of str
        ``topic:intent`` of each intent column, with ``(nav)``/``(inf)`` when intent types are known.
    coverage : ndarray, shape (S, N) or None
    irec_depths : ndarray, shape (D,)
    irec : ndarray, shape (S, D) or None
    lengths : ndarray of int, shape (S, T) or None
        Documents returned per topic, when a measure is truncation-aware.
    """

    recall_levels: np.ndarray
    precision: np.ndarray
    diversity: bool
    coverage_depth: int
    coverage_labels: tuple[str, ...]
    coverage: np.ndarray | None
    irec_depths: np.ndarray
    irec: np.ndarray | None
    lengths: np.ndarray | None


def figures_of(evaluator: Evaluator, runs: Sequence[Any], results: Results) -> FigureData:
    """The :class:`FigureData` of ``runs`` (as read) on ``evaluator``."""
    levels, depths = np.array(figure_data.RECALL_LEVELS), np.array(figure_data.IREC_DEPTHS)
    diversity = bool(evaluator.collection.diversity)
    labels: tuple[str, ...] = ()
    coverage = irec = None
    if diversity:
        found, coverage = figure_data.intent_coverage(evaluator, runs, figure_data.COVERAGE_DEPTH)
        labels = tuple(intent_labels(evaluator, found))
        irec = figure_data.intent_recall(evaluator, runs)
    truncation = figure_data.has_truncation_measures(results.measure_specs)
    return FigureData(recall_levels=levels, precision=figure_data.precision_recall(evaluator, runs),
                      diversity=diversity, coverage_depth=figure_data.COVERAGE_DEPTH, coverage_labels=labels,
                      coverage=coverage, irec_depths=depths, irec=irec,
                      lengths=figure_data.run_lengths(evaluator, runs) if truncation else None)


def intent_labels(evaluator: Evaluator, labels: Sequence[str]) -> list[str]:
    """``topic:intent`` labels of :func:`~cranfield.analysis.report_data.intent_coverage` with the
    intent's type appended, ``(nav)`` or ``(inf)``, when the evaluator was given intent types
    (navigational intents, Sakai, SIGIR 2011 "Evaluating diversified search results using
    per-intent graded relevance"); as given otherwise."""
    coll = evaluator.collection
    if not coll.typed:
        return list(labels)
    keep = np.flatnonzero(evaluator.topic_mask)
    t_idx, i_idx = np.nonzero(coll.weights[keep] > 0)
    return [f"{label} ({'nav' if coll.nav[keep[t], i] else 'inf'})" for label, t, i in zip(labels, t_idx, i_idx)]


@dataclass(frozen=True, eq=False)
class ReportData:
    """Runs evaluated and compared on several measures: everything a report shows, computed once.

    Attributes
    ----------
    results : Results
    comparisons : tuple of Comparison
        One per measure, in measure order.
    baselines : tuple of str
        Every baseline's run name (empty for all pairs).
    settings : dict
        test, correction, alpha, B, seed, confidence, bootstrap_resamples, baseline and
        ``evaluation`` (the Results' provenance).
    inputs : tuple of dict
        Per input file: role, path, name, bytes, sha256 and a run's ``ir_metadata``.
    warnings : tuple of str
        The :class:`~cranfield.EvaluationWarning` messages raised while evaluating and comparing.
    evaluator : Evaluator or None
    runs : tuple of Run or None
        The runs as read (the first sample of a stochastic run); None from :func:`report_from_results`.
    judges : JudgeComparison or None
        Other judges' qrels compared (:meth:`with_judges`).
    """

    results: Results
    comparisons: tuple[Comparison, ...]
    baselines: tuple[str, ...]
    settings: dict[str, Any]
    inputs: tuple[dict[str, Any], ...]
    warnings: tuple[str, ...]
    evaluator: Evaluator | None = None
    runs: tuple[Any, ...] | None = None
    judges: Any = None

    @property
    def baseline(self) -> str | None:
        """The baseline's run name: None for all pairs and for several baselines (marked with letters)."""
        return self.baselines[0] if len(self.baselines) == 1 else None

    @property
    def test_title(self) -> str:
        """The display name of the significance test (its declaration in :mod:`cranfield.meta.registry`)."""
        return lookup(self.settings["test"]).title

    @functools.cached_property
    def figures(self) -> FigureData | None:
        """The data of the figures drawn from the qrels and the runs, computed on first use (the text
        formats need none of it); None without the evaluator and runs."""
        if self.evaluator is None or not self.runs:
            return None
        return figures_of(self.evaluator, self.runs, self.results)

    def group_exposure(self) -> tuple[np.ndarray, np.ndarray] | None:
        """:func:`cranfield.analysis.report_data.group_exposure` of the results."""
        return figure_data.group_exposure(self.results)

    def lower_is_better(self, m: int) -> bool:
        """Whether the smaller mean is the better on measure ``m`` (a loss such as EE-L)."""
        specs = self.results.measure_specs
        return bool(specs and getattr(specs[m], "spec", None) is not None and specs[m].spec.lower_is_better)

    def markers(self) -> list[list[list[str]]]:
        """``markers[s][m]``: run s's significance marks on measure m. All pairs: the letters
        (:func:`~cranfield._display.run_letter`) of the runs it is significantly better than; with a
        baseline ``"+"`` (significantly better than the baseline) or ``"-"`` (significantly worse)."""
        out: list[list[list[str]]] = [[[] for _ in self.comparisons] for _ in self.results.runs]
        baseline = self.baseline
        for m, c in enumerate(self.comparisons):
            sign = -1.0 if self.lower_is_better(m) else 1.0  # a loss: the smaller mean is the better
            for (i, j), diff, sig in zip(c.pairs.tolist(), c.difference, c.significant):
                if not sig:
                    continue
                if baseline is not None:
                    out[i][m].append("+" if sign * diff > 0 else "-")
                else:
                    winner, loser = (i, j) if sign * diff > 0 else (j, i)
                    out[winner][m].append(run_letter(loser))
        if baseline is None:
            for row in out:
                for cell in row:
                    cell.sort(key=lambda x: (len(x), x))
        return out

    def best(self) -> np.ndarray:
        """Which runs have the best mean on each measure (the highest; the lowest for a loss such
        as EE-L), shape (S, M), ties (docs/conventions.md#equality) all best; none when there is one run."""
        means = np.array([c.means for c in self.comparisons]).T.reshape(len(self.results.runs), -1)
        flip = np.array([-1.0 if self.lower_is_better(m) else 1.0 for m in range(means.shape[1])])
        means = means * flip
        with np.errstate(invalid="ignore"):
            top = np.nanmax(np.where(np.isnan(means), -np.inf, means), axis=0) if means.size else np.array([])
        return np.asarray(equal(means, top[None, :]) & np.isfinite(means) & (means.shape[0] > 1))

    def records(self) -> list[dict[str, Any]]:
        """One row per run and measure: ``run, measure, mean, ci_low, ci_high``, then all pairs
        ``label, better_than`` or, with a baseline, ``baseline, difference, pvalue,
        pvalue_adjusted, significant``; then ``marker``, the ``test`` and the ``correction``."""
        marks = self.markers()
        runs, baseline = self.results.runs, self.baseline
        rows = []
        for m, c in enumerate(self.comparisons):
            at = {} if baseline is None else {int(i): k for k, (i, _) in enumerate(c.pairs.tolist())}
            for s, run in enumerate(runs):
                row: dict[str, Any] = {"run": run, "measure": c.measure, "mean": float(c.means[s]),
                                       "ci_low": float(c.ci[s, 0]), "ci_high": float(c.ci[s, 1])}
                if baseline is None:
                    row["label"] = run_letter(s)
                    row["better_than"] = " ".join(runs[ord_index(x)] for x in marks[s][m])
                else:
                    k = at.get(s)
                    row["baseline"] = baseline
                    row["difference"] = float(c.difference[k]) if k is not None else 0.0
                    row["pvalue"] = float(c.pvalue[k]) if k is not None else float("nan")
                    row["pvalue_adjusted"] = float(c.pvalue_adjusted[k]) if k is not None else float("nan")
                    row["significant"] = bool(c.significant[k]) if k is not None else False
                row["marker"] = ("," if len(runs) > 26 else "").join(marks[s][m])
                row["test"], row["correction"] = c.test, c.correction
                rows.append(row)
        return rows

    def pair_records(self) -> list[dict[str, Any]]:
        """Every pair on every measure (:meth:`Comparison.records` stacked)."""
        return [row for c in self.comparisons for row in c.records()]

    def with_judges(self, judges: Any, **options: Any) -> ReportData:
        """This report with other judges' qrels compared with its own on its runs and measures, with
        its test, correction, α, B and seed (:func:`cranfield.analysis.judges.compare_judges`)."""
        from cranfield.analysis.judges import compare_judges

        if self.evaluator is None or self.runs is None:
            raise CranfieldError("comparing judges needs a report built from qrels and runs, not from_results")
        s = self.settings
        found = compare_judges(self.evaluator.qrels, judges, list(self.runs), list(self.results.measures),
                               test=s["test"], correction=s["correction"], alpha=s["alpha"], n_resamples=s["B"],
                               seed=s["seed"], **options)
        return dataclasses.replace(self, judges=found)

    def judge_tables(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """The judges' section as (title, rows) tables: the pooled label statistics per judge, the
        leaderboard and the significance statistics per judge and measure; empty without judges."""
        if self.judges is None:
            return []
        tables: list[tuple[str, list[dict[str, Any]]]] = []
        for part, key, title in (("labels", None, "Labels, pooled over topics"), ("leaderboard", "measure",
                                 "Leaderboards"), ("significance", "measure", "Significance")):
            rows: dict[tuple[str, str], dict[str, Any]] = {}
            for r in self.judges.records():
                if r["part"] == part and r["topic"] == "all" and "[" not in r["statistic"]:
                    name = (r["judge"], r[key] if key else "")
                    rows.setdefault(name, {"judge": r["judge"], **({key: r[key]} if key else {})})[r["statistic"]] = \
                        r["value"]
            tables.append((title, list(rows.values())))
        return tables


class _Captured:
    """Record the :class:`EvaluationWarning` messages raised inside the block and show every
    warning again when it ends (so they are kept in the report and still seen)."""

    def __init__(self, into: list[str]) -> None:
        self.into = into
        self._ctx = warnings.catch_warnings(record=True)

    def __enter__(self) -> _Captured:
        self._caught = self._ctx.__enter__()
        warnings.simplefilter("always", EvaluationWarning)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._ctx.__exit__(*exc)
        for w in self._caught or []:
            if issubclass(w.category, EvaluationWarning):
                self.into.append(str(w.message))
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno, source=w.source)


def file_record(role: str, obj: Any) -> dict[str, Any] | None:
    """role, path, name, bytes and SHA-256 of an input file (None for in-memory data), and the
    fields of a run file's ir_metadata header when it has one (docs/reproducibility.md#ir_metadata)."""
    if not isinstance(obj, (str, Path)) or not Path(obj).is_file():
        return None
    path = Path(obj)
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    record = {"role": role, "path": str(path), "name": path.name, "bytes": path.stat().st_size,
              "sha256": digest.hexdigest()}
    header = read_ir_metadata(path) if role == "run" else None
    if header is not None:
        record["ir_metadata"] = header
    return record


def report_data(qrels: Any, runs: Any, measures: Any, *, baseline: Any = None, test: str = "t",
                correction: str | None = None, alpha: float = 0.05, n_resamples: int | None = None, seed: int = 0,
                confidence: float = 0.95, bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None,
                **options: Any) -> ReportData:
    """Evaluate ``runs`` on ``qrels`` with ``measures`` and compare them (the arguments of
    :class:`cranfield.render.report.Report`)."""
    unknown = sorted(set(options) - set(EVALUATOR_OPTIONS) - set(EVALUATE_OPTIONS))
    if unknown:
        raise TypeError(f"Report() got unexpected keyword arguments: {', '.join(unknown)}")
    found: list[str] = []
    with _Captured(found):
        evaluator = Evaluator(qrels, measures, **{k: v for k, v in options.items() if k in EVALUATOR_OPTIONS})
    return _from_evaluator(evaluator, runs, qrels=qrels, found=found, baseline=baseline, test=test,
                           correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed,
                           confidence=confidence, bootstrap_resamples=bootstrap_resamples, client=client,
                           **{k: v for k, v in options.items() if k in EVALUATE_OPTIONS})


def report_from_evaluator(evaluator: Evaluator, runs: Any, *, baseline: Any = None, test: str = "t",
                          correction: str | None = None, alpha: float = 0.05, n_resamples: int | None = None,
                          seed: int = 0, confidence: float = 0.95,
                          bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, order: str = "score",
                          on_duplicate: str = "error", score_dtype: str = "float32",
                          names: Sequence[str] | None = None, client: Any = None) -> ReportData:
    """``runs`` scored by an :class:`~cranfield.Evaluator` already built and compared (its qrels
    file, when it has one, is listed in the inputs)."""
    return _from_evaluator(evaluator, runs, qrels=evaluator.qrels.source, found=[], baseline=baseline, test=test,
                           correction=correction, alpha=alpha, n_resamples=n_resamples, seed=seed,
                           confidence=confidence, bootstrap_resamples=bootstrap_resamples, order=order,
                           on_duplicate=on_duplicate, score_dtype=score_dtype, names=names, client=client)


def _from_evaluator(evaluator: Evaluator, runs: Any, *, qrels: Any, found: list[str], order: str = "score",
                    on_duplicate: str = "error", score_dtype: str = "float32", names: Sequence[str] | None = None,
                    client: Any = None, **compare: Any) -> ReportData:
    items, given = named_runs(runs, names)

    def read(quiet: bool) -> list[Any]:
        reader = as_sampled_run if evaluator.stochastic else as_run  # stochastic runs: docs/fairness.md
        with warnings.catch_warnings():
            if quiet:  # said already, by the evaluation on the cluster
                warnings.simplefilter("ignore", EvaluationWarning)
            return [reader(obj, order=order, on_duplicate=on_duplicate,  # type: ignore[arg-type]
                           score_dtype=score_dtype, name=label)
                    for obj, label in zip(items, run_labels(items, None))]

    grouped = evaluator.fairness.groups is not None  # the figure of exposure per group (docs/fairness.md)
    with _Captured(found):
        if client is None:
            parsed = read(quiet=False)
            results = evaluator.evaluate(parsed, order=order, on_duplicate=on_duplicate,
                                         score_dtype=score_dtype, names=given, per_group=grouped)
        else:  # the workers read and score the run files; this process reads them for the figures
            results = evaluator.evaluate(items, order=order, on_duplicate=on_duplicate,
                                         score_dtype=score_dtype, names=given, client=client, per_group=grouped)
            parsed = read(quiet=True)
    baselines = _baseline_names(compare.pop("baseline"), items, results.runs)
    inputs = [r for r in [file_record("qrels", qrels), *(file_record("run", obj) for obj in items)] if r]
    data = _compared(results, baselines, found=found, inputs=inputs, client=client, **compare)
    # the curves and run lengths of a stochastic run are those of its first samples (docs/fairness.md#report)
    parsed = [r.samples()[0] if hasattr(r, "samples") else r for r in parsed]
    return dataclasses.replace(data, evaluator=evaluator, runs=tuple(parsed))


def report_from_results(results: Results, *, baseline: Any = None, test: str = "t", correction: str | None = None,
                        alpha: float = 0.05, n_resamples: int | None = None, seed: int = 0,
                        confidence: float = 0.95, bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES,
                        client: Any = None, files: Sequence[tuple[str, Any]] = ()) -> ReportData:
    """Runs already evaluated, compared (no evaluator and no runs; ``files`` are (role, path) pairs
    listed as inputs, such as ``("nuggets", path)``)."""
    return _compared(results, _baseline_names(baseline, [], results.runs), test=test, correction=correction,
                     alpha=alpha, n_resamples=n_resamples, seed=seed, confidence=confidence,
                     bootstrap_resamples=bootstrap_resamples, found=[], client=client,
                     inputs=[r for r in (file_record(role, path) for role, path in files) if r])


def _compared(results: Results, baselines: tuple[str, ...], *, test: str, correction: str | None, alpha: float,
              n_resamples: int | None, seed: int, confidence: float, bootstrap_resamples: int, found: list[str],
              inputs: list[dict[str, Any]], client: Any = None) -> ReportData:
    """Every measure's :class:`Comparison` of ``results`` and the settings, as a :class:`ReportData`."""
    correction = default_correction(test) if correction is None else correction
    if not results.runs:
        raise CranfieldError("a report needs at least one run")
    with _Captured(found):
        comparisons = tuple(compare_runs(results, m, test=test, correction=correction, alpha=alpha,
                                         baseline=baselines or None, n_resamples=n_resamples, seed=seed,
                                         confidence=confidence, bootstrap_resamples=bootstrap_resamples,
                                         client=client)
                            for m in results.measures)
    first = comparisons[0] if comparisons else None
    settings = {
        "test": test, "correction": correction, "alpha": alpha,
        "B": first.n_resamples if first is not None else n_resamples, "seed": seed,
        "confidence": confidence, "bootstrap_resamples": bootstrap_resamples,
        "baseline": list(baselines) if len(baselines) > 1 else (baselines[0] if baselines else None),
        "evaluation": dict(results.provenance),
    }
    return ReportData(results=results, comparisons=comparisons, baselines=baselines, settings=settings,
                      inputs=tuple(inputs), warnings=tuple(found))


def _baseline_names(given: Any, items: Sequence[Any], names: Sequence[str]) -> tuple[str, ...]:
    """The baselines' run names (:func:`_baseline_name`): none, one, or each of a list or tuple."""
    many = list(given) if isinstance(given, (list, tuple)) else [] if given is None else [given]
    return tuple(dict.fromkeys(str(_baseline_name(g, items, names)) for g in many))


def _baseline_name(given: str | int | None, items: Sequence[Any], names: Sequence[str]) -> str | None:
    """The baseline's run name, given as a run name, one of the run files given, or an index."""
    if given is None:
        return None
    if isinstance(given, (int, np.integer)) and not isinstance(given, bool):
        if not -len(names) <= given < len(names):
            raise CranfieldError(f"the baseline index {given} is out of range: there are {len(names)} runs")
        return names[int(given)]
    if isinstance(given, (str, Path)):
        text = str(given)
        if text in names:
            return text
        paths = [str(x) if isinstance(x, (str, Path)) else None for x in items]
        if text in paths:
            return names[paths.index(text)]
        resolved = [str(Path(p).resolve()) if p else None for p in paths]
        if str(Path(text).resolve()) in resolved:
            return names[resolved.index(str(Path(text).resolve()))]
    raise CranfieldError(f"the baseline {given!r} is neither a run name ({listing(list(names))}), a run file "
                         "given nor a run index")
