"""A results report: mean scores, confidence intervals and significance for several runs and
measures, exported as a DataFrame, paper-ready LaTeX, Markdown, HTML, CSV, JSON or Parquet
(docs/report.md).

:class:`Report` evaluates runs (or takes :class:`~cranfield.Results`) and compares every pair
of runs, or every run with a baseline, on each measure with
:func:`cranfield.analysis.comparison.compare_runs`. Everything taken from the input (run
names, measure names, topic ids, file names) is escaped in LaTeX (:func:`escape_latex`) and
Markdown (:func:`escape_markdown`), so a run tagged ``\\input{/etc/passwd}`` or
``<script>alert(1)</script>`` is printed as text.
"""

from __future__ import annotations

import hashlib
import json
import math
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._numeric import equal
from cranfield._version import __version__
from cranfield.analysis.comparison import BOOTSTRAP_CI_RESAMPLES, Comparison, compare_runs, default_correction
from cranfield.errors import CranfieldError, EvaluationWarning, listing
from cranfield.evaluation.evaluator import Evaluator, Results
from cranfield.evaluation.options import EVALUATOR_OPTIONS, RUN_OPTIONS
from cranfield.io.ir_metadata import read_ir_metadata

__all__ = ["Report", "escape_latex", "escape_markdown", "measure_digits", "run_letter", "SAVE_FORMATS"]

SAVE_FORMATS = (".tex", ".md", ".html", ".csv", ".json", ".parquet")

# keyword arguments of Evaluator(...) and of Evaluator.evaluate(...) a Report accepts
_EVALUATOR_OPTIONS = EVALUATOR_OPTIONS
_EVALUATE_OPTIONS = (*RUN_OPTIONS, "names")

_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " "}
_MD_SPECIAL = set("\\`*_{}[]()<>#|!~&$")


def escape_latex(text: Any) -> str:
    """``text`` as LaTeX text: ``\\ { } & % $ # _ ~ ^ < > |`` become their text commands, line
    breaks spaces, so ``\\input{/etc/passwd}`` prints as itself and runs nothing."""
    return "".join(_TEX_SPECIAL.get(ch, ch) for ch in str(text))


def escape_markdown(text: Any) -> str:
    """``text`` as Markdown text (CommonMark and GitHub tables): every character with a meaning
    in Markdown or inline HTML (``\\ ` * _ { } [ ] ( ) < > # | ! ~ & $``) is backslash-escaped,
    line breaks become spaces; ``<script>`` then renders as the text ``<script>``."""
    return "".join("\\" + ch if ch in _MD_SPECIAL else " " if ch in "\r\n" else ch for ch in str(text))


def _comment(text: str) -> str:
    """One line of text that cannot leave a comment (line breaks become spaces)."""
    return text.replace("\r", " ").replace("\n", " ")


def measure_digits(values: Any) -> int:
    """Decimals shown for a measure whose run means are ``values``: 4 when every |mean| ≤ 1 (the
    [0, 1] measures), then one fewer per power of ten: 3 below 10, 2 below 100, 1 below 1,000,
    0 from 1,000 on (so every mean shows about four significant digits)."""
    finite = np.abs(np.asarray(values, dtype=np.float64))
    finite = finite[np.isfinite(finite)]
    top = float(finite.max()) if finite.size else 0.0
    for digits, bound in ((4, 1.0), (3, 10.0), (2, 100.0), (1, 1000.0)):
        if top < bound or (digits == 4 and top <= bound):
            return digits
    return 0


def run_letter(k: int) -> str:
    """a, b, ..., z, aa, ab, ...: the label of the k-th run (from 0)."""
    out = ""
    k += 1
    while k:
        k, rest = divmod(k - 1, 26)
        out = chr(ord("a") + rest) + out
    return out


def _number(value: float, digits: int) -> str:
    return "--" if not math.isfinite(value) else f"{value:.{digits}f}"


def _file_record(role: str, obj: Any) -> dict[str, Any] | None:
    """role, path, name, bytes and SHA-256 of an input file (None for in-memory data), and the
    fields of a run file's ir_metadata header when it has one."""
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
    if header is not None:  # the run's own provenance (docs/reproducibility.md#ir_metadata)
        record["ir_metadata"] = header
    return record


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


class Report:
    """Runs evaluated and compared on several measures, ready to read, share and publish.

    ``Report(qrels, runs, measures, ...)`` takes the first arguments of :func:`cranfield.evaluate`;
    :meth:`from_results` starts from :class:`~cranfield.Results`.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`cranfield.evaluate` (paths, dicts, DataFrames, Runs; a dict ``{name: run}``
        names the runs).
    baseline : str or int, or a list of them, optional
        Compare every run with this one (a run name, one of the run files given, or its index)
        instead of every pair of runs; with several baselines every run with each of them, the
        correction over all those pairs, marked with letters as for all pairs.
    test : {"t", "wilcoxon", "randomization", "bootstrap", "tukey", "tukey-randomised"}
        The significance test (:func:`cranfield.meta.pairwise_test`; default the paired t-test).
    correction : {"none", "holm", "bonferroni", "hommel", "bh", "by"}, optional
        Multiple-comparison correction over the pairs of each measure; default Holm (Holm, Scand.
        J. Stat. 1979), none for Tukey HSD, which controls the family-wise error itself.
    alpha : float
        Significance level (default 0.05).
    n_resamples : int, optional
        B of the resampling tests (default: the test's own, 10,000 / 1,000 / 5,000).
    seed : int
        Seeds the resampling tests and the bootstrap intervals (default 0).
    confidence : float
        Level of the confidence intervals (default 0.95).
    bootstrap_resamples : int
        B of the percentile bootstrap intervals of the differences (default 2,000).
    client : dask.distributed.Client, optional
        Evaluate the run files and run the resampling test on a Dask cluster, with the same
        numbers (docs/scaling.md); the figures' data are computed in this process.
    **options
        The options of :class:`~cranfield.Evaluator` (``missing``, ``norel``, ``diversity``,
        ``intents``, ``intent_types``, ``empty_intents``, ``depth``, ``judged_only``, ``average``,
        ``strip_topic_prefix``, ``dd_depth``) and of :meth:`~cranfield.Evaluator.evaluate`
        (``order``, ``on_duplicate``, ``score_dtype``, ``names``).

    Attributes
    ----------
    results : Results
    comparisons : list of Comparison
        One per measure, in measure order (:class:`cranfield.analysis.comparison.Comparison`).
    baseline : str or None
        The baseline's run name (None for all pairs and for several baselines).
    baselines : tuple of str
        Every baseline's run name (empty for all pairs).
    settings : dict
        test, correction, alpha, B, seed, confidence, bootstrap_resamples, baseline and
        ``evaluation`` (the Results' provenance).
    inputs : list of dict
        Per input file: role (``"qrels"`` or ``"run"``), path, name, bytes, sha256 (nothing for
        in-memory data).
    warnings : list of str
        The :class:`~cranfield.EvaluationWarning` messages raised while evaluating and comparing
        (they are shown as well).
    evaluator : Evaluator or None
    runs : list of Run or None
        The runs as read (None for :meth:`from_results`).
    """

    results: Results
    comparisons: list[Comparison]
    baseline: str | None
    baselines: tuple[str, ...]
    settings: dict[str, Any]
    inputs: list[dict[str, Any]]
    warnings: list[str]
    evaluator: Evaluator | None
    runs: list[Any] | None
    judges: Any = None  # a JudgeComparison after compare_judges

    def __init__(self, qrels: Any, runs: Any, measures: Any, *, baseline: Any = None,
                 test: str = "t", correction: str | None = None, alpha: float = 0.05,
                 n_resamples: int | None = None, seed: int = 0, confidence: float = 0.95,
                 bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None, **options: Any) -> None:
        unknown = sorted(set(options) - set(_EVALUATOR_OPTIONS) - set(_EVALUATE_OPTIONS))
        if unknown:
            raise TypeError(f"Report() got unexpected keyword arguments: {', '.join(unknown)}")
        found: list[str] = []
        with _Captured(found):
            evaluator = Evaluator(qrels, measures, **{k: v for k, v in options.items() if k in _EVALUATOR_OPTIONS})
        self._build_from_evaluator(evaluator, runs, baseline=baseline, test=test, correction=correction, alpha=alpha,
                                   n_resamples=n_resamples, seed=seed, confidence=confidence,
                                   bootstrap_resamples=bootstrap_resamples, found=found, qrels=qrels, client=client,
                                   **{k: v for k, v in options.items() if k in _EVALUATE_OPTIONS})

    @classmethod
    def from_evaluator(cls, evaluator: Evaluator, runs: Any, *, baseline: Any = None,
                       test: str = "t", correction: str | None = None, alpha: float = 0.05,
                       n_resamples: int | None = None, seed: int = 0, confidence: float = 0.95,
                       bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, order: str = "score",
                       on_duplicate: str = "error", score_dtype: str = "float32",
                       names: Sequence[str] | None = None, client: Any = None) -> Report:
        """A report on ``runs`` scored by an :class:`~cranfield.Evaluator` already built (its
        qrels file, when it has one, is listed in :attr:`inputs`)."""
        report = cls.__new__(cls)
        report._build_from_evaluator(evaluator, runs, baseline=baseline, test=test, correction=correction,
                                     alpha=alpha, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                     bootstrap_resamples=bootstrap_resamples, found=[],
                                     qrels=evaluator.qrels.source, order=order, on_duplicate=on_duplicate,
                                     score_dtype=score_dtype, names=names, client=client)
        return report

    def _build_from_evaluator(self, evaluator: Evaluator, runs: Any, *, baseline: Any, test: str,
                              correction: str | None, alpha: float, n_resamples: int | None, seed: int,
                              confidence: float, bootstrap_resamples: int, found: list[str], qrels: Any,
                              order: str = "score", on_duplicate: str = "error", score_dtype: str = "float32",
                              names: Sequence[str] | None = None, client: Any = None) -> None:
        from cranfield.evaluation.evaluator import named_runs, run_labels
        from cranfield.io import as_run

        items, given = named_runs(runs, names)

        def read(quiet: bool) -> list[Any]:
            from cranfield.io.stochastic import as_sampled_run

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
        name = _baseline_names(baseline, items, results.runs)
        inputs = [r for r in [_file_record("qrels", qrels), *(_file_record("run", obj) for obj in items)] if r]
        self._compare(results, name, test=test, correction=correction, alpha=alpha, n_resamples=n_resamples,
                      seed=seed, confidence=confidence, bootstrap_resamples=bootstrap_resamples, found=found,
                      client=client)
        # the curves and run lengths of a stochastic run are those of its first samples (docs/fairness.md#report)
        parsed = [r.samples()[0] if hasattr(r, "samples") else r for r in parsed]
        self.evaluator, self.runs, self.inputs = evaluator, parsed, inputs

    @classmethod
    def from_results(cls, results: Results, *, baseline: Any = None, test: str = "t",
                     correction: str | None = None, alpha: float = 0.05, n_resamples: int | None = None,
                     seed: int = 0, confidence: float = 0.95,
                     bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None,
                     files: Sequence[tuple[str, Any]] = ()) -> Report:
        """A report on runs already evaluated (``evaluator`` and ``runs`` are then None, and
        ``inputs`` lists the ``files``, (role, path) pairs such as ``("nuggets", path)``); the
        options are those of :class:`Report`."""
        report = cls.__new__(cls)
        report._compare(results, _baseline_names(baseline, [], results.runs), test=test, correction=correction,
                        alpha=alpha, n_resamples=n_resamples, seed=seed, confidence=confidence,
                        bootstrap_resamples=bootstrap_resamples, found=[], client=client)
        report.evaluator, report.runs = None, None
        report.inputs = [r for r in (_file_record(role, path) for role, path in files) if r]
        return report

    def _compare(self, results: Results, baselines: tuple[str, ...], *, test: str, correction: str | None,
                 alpha: float,
                 n_resamples: int | None, seed: int, confidence: float, bootstrap_resamples: int,
                 found: list[str], client: Any = None) -> None:
        correction = default_correction(test) if correction is None else correction
        if not results.runs:
            raise CranfieldError("a report needs at least one run")
        baseline = baselines[0] if len(baselines) == 1 else None  # several: letters, as for all pairs
        with _Captured(found):
            comparisons = [compare_runs(results, m, test=test, correction=correction, alpha=alpha,
                                        baseline=baselines or None, n_resamples=n_resamples, seed=seed,
                                        confidence=confidence, bootstrap_resamples=bootstrap_resamples,
                                        client=client)
                           for m in results.measures]
        self.results, self.comparisons, self.baseline, self.warnings = results, comparisons, baseline, found
        self.baselines = baselines
        first = comparisons[0] if comparisons else None
        self.settings = {
            "test": test, "correction": correction, "alpha": alpha,
            "B": first.n_resamples if first is not None else n_resamples, "seed": seed,
            "confidence": confidence, "bootstrap_resamples": bootstrap_resamples,
            "baseline": baseline if len(baselines) < 2 else list(baselines),
            "evaluation": dict(results.provenance),
        }

    # ------------------------------------------------------------------ tables
    @property
    def measures(self) -> list[str]:
        """The measures, in order."""
        return list(self.results.measures)

    @property
    def run_names(self) -> list[str]:
        """The run names, in order."""
        return list(self.results.runs)

    def markers(self) -> list[list[list[str]]]:
        """``markers[s][m]``: run s's significance marks on measure m. All pairs: the letters
        (:func:`run_letter`) of the runs it is significantly better than; with a baseline ``"+"``
        (significantly better than the baseline) or ``"-"`` (significantly worse)."""
        out: list[list[list[str]]] = [[[] for _ in self.comparisons] for _ in self.results.runs]
        for m, c in enumerate(self.comparisons):
            sign = -1.0 if self._lower_is_better(m) else 1.0  # a loss: the smaller mean is the better
            for (i, j), diff, sig in zip(c.pairs.tolist(), c.difference, c.significant):
                if not sig:
                    continue
                if self.baseline is not None:
                    out[i][m].append("+" if sign * diff > 0 else "-")
                else:
                    winner, loser = (i, j) if sign * diff > 0 else (j, i)
                    out[winner][m].append(run_letter(loser))
        for row in out:
            for cell in row:
                if self.baseline is None:
                    cell.sort(key=lambda x: (len(x), x))
        return out

    def _lower_is_better(self, m: int) -> bool:
        specs = self.results.measure_specs
        return bool(specs and getattr(specs[m], "spec", None) is not None and specs[m].spec.lower_is_better)

    def best(self) -> np.ndarray:
        """Which runs have the best mean on each measure (the highest; the lowest for a loss such
        as EE-L), shape (S, M), ties (docs/conventions.md#equality) all best; none when there is one run."""
        means = np.array([c.means for c in self.comparisons]).T.reshape(len(self.results.runs), -1)
        flip = np.array([-1.0 if self._lower_is_better(m) else 1.0 for m in range(means.shape[1])])
        means = means * flip
        with np.errstate(invalid="ignore"):
            top = np.nanmax(np.where(np.isnan(means), -np.inf, means), axis=0) if means.size else np.array([])
        return np.asarray(equal(means, top[None, :]) & np.isfinite(means) & (means.shape[0] > 1))

    def legend(self, fmt: str = "text") -> str:
        """What the marks mean: the test, B, correction and α; ``fmt`` (``"text"``, ``"latex"``,
        ``"markdown"``, ``"html"``: ▲/▼, escaped by the page) decides the marks shown and how the
        baseline's name is escaped."""
        escape = {"latex": escape_latex, "markdown": escape_markdown}.get(fmt, str)
        how = self._how()
        level = f"$p < {self.settings['alpha']:g}$" if fmt == "latex" else f"p < {self.settings['alpha']:g}"
        if self.baseline is None:
            kind = "letters" if fmt == "text" else "Superscript letters"
            against = f", each run against the baselines {', '.join(map(escape, self.baselines))}" if \
                len(self.baselines) > 1 else ""
            return f"{kind}: the runs a run is significantly better than ({how}, {level}{against})."
        marks = {"latex": "$^\\dagger$/$^\\ddagger$", "html": "▲/▼"}.get(fmt, "+/-")
        return f"{marks}: significantly better/worse than the baseline {escape(self.baseline)} ({how}, {level})."

    def _how(self) -> str:
        names = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test", "randomization":
                 "randomisation test", "bootstrap": "paired bootstrap test", "tukey": "Tukey HSD",
                 "tukey-randomised": "randomised Tukey HSD"}
        s = self.settings
        how = names.get(s["test"], s["test"])
        if s["B"]:
            how += f", B = {s['B']}"
        if s["correction"] != "none":
            how += f", {s['correction'].capitalize()} correction"
        return how

    def table(self) -> dict[str, Any]:
        """The results table: ``{"labels", "runs", "measures", "cells", "legend", "baseline"}`` with
        ``cells[s][m] = (mean, marker text)`` (the ``table`` layout of ``cranfield compare``)."""
        marks = self.markers()
        joiner = "," if len(self.results.runs) > 26 else ""  # two-letter labels need a separator
        return {
            "labels": [run_letter(s) for s in range(len(self.results.runs))],
            "runs": [f"{r} (baseline)" if r in self.baselines else r for r in self.results.runs],
            "measures": self.measures,
            "cells": [[(float(c.means[s]), joiner.join(marks[s][m])) for m, c in enumerate(self.comparisons)]
                      for s in range(len(self.results.runs))],
            "legend": self.legend(),
            "baseline": self.baseline,
        }

    def pairs_frame(self) -> Any:
        """Every pair on every measure (:meth:`Comparison.to_frame` stacked), a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.pair_records())

    def pair_records(self) -> list[dict[str, Any]]:
        """The rows of :meth:`pairs_frame` as plain Python values."""
        return [row for c in self.comparisons for row in c.records()]

    def records(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame` (tidy) as plain Python values."""
        marks = self.markers()
        rows = []
        for m, c in enumerate(self.comparisons):
            at = {} if self.baseline is None else {int(i): k for k, (i, _) in enumerate(c.pairs.tolist())}
            for s, run in enumerate(self.results.runs):
                row: dict[str, Any] = {"run": run, "measure": c.measure, "mean": float(c.means[s]),
                                       "ci_low": float(c.ci[s, 0]), "ci_high": float(c.ci[s, 1])}
                if self.baseline is None:
                    row["label"] = run_letter(s)
                    row["better_than"] = " ".join(self.results.runs[ord_index(x)] for x in marks[s][m])
                else:
                    k = at.get(s)
                    row["baseline"] = self.baseline
                    row["difference"] = float(c.difference[k]) if k is not None else 0.0
                    row["pvalue"] = float(c.pvalue[k]) if k is not None else math.nan
                    row["pvalue_adjusted"] = float(c.pvalue_adjusted[k]) if k is not None else math.nan
                    row["significant"] = bool(c.significant[k]) if k is not None else False
                row["marker"] = ("," if len(self.results.runs) > 26 else "").join(marks[s][m])
                rows.append(row)
        return rows

    def to_frame(self, wide: bool = False) -> Any:
        """The report as a pandas DataFrame. Tidy (default): one row per run and measure with
        ``run, measure, mean, ci_low, ci_high``, then the significance: all pairs ``label`` (the
        run's letter), ``better_than`` (the runs it is significantly better than, space-separated)
        and ``marker``; with a baseline ``baseline, difference, pvalue, pvalue_adjusted,
        significant, marker``. Wide: runs (index) × measures (columns) of the means."""
        import pandas as pd

        frame = pd.DataFrame(self.records())
        if not wide:
            return frame
        out = frame.pivot(index="run", columns="measure", values="mean")
        return out.loc[list(self.results.runs), self.measures].rename_axis(columns=None)

    # ------------------------------------------------------------------ formats
    def _digits(self, digits: int | None) -> list[int]:
        return [measure_digits(c.means) if digits is None else int(digits) for c in self.comparisons]

    def to_latex(self, caption: str | None = None, label: str | None = None, digits: int | None = None) -> str:
        """A LaTeX ``table`` with a booktabs ``tabular`` (needs ``\\usepackage{booktabs}``): one row
        per run, one column per measure; the best mean per measure in bold; significance as
        superscript letters (all pairs: the runs a run is significantly better than) or
        †/‡ (significantly better/worse than the baseline); the legend below the table; the
        ``caption`` (default: what the numbers are) and ``label``, both LaTeX as given. ``digits``
        fixes the decimals, else :func:`measure_digits` chooses them per measure. Run and
        measure names are escaped (:func:`escape_latex`)."""
        table, best, places = self.table(), self.best(), self._digits(digits)
        letters = self.baseline is None
        n_topics = len(self.results.topics)
        if caption is None:
            caption = (f"Mean scores over {n_topics} topics; the best per measure in bold.")
        lines = ["\\begin{table}", "\\centering", f"\\caption{{{_comment(caption)}}}"]
        if label:
            lines.append(f"\\label{{{_comment(label)}}}")
        lines += ["\\begin{tabular}{" + ("l" if letters else "") + "l" + "r" * len(table["measures"]) + "}",
                  "\\toprule",
                  (" & " if letters else "") + "Run & " + " & ".join(escape_latex(m) for m in table["measures"])
                  + " \\\\", "\\midrule"]
        marks = [[_latex_mark(mark, letters) for _, mark in cells] for cells in table["cells"]]
        widest = [max((row[m] for row in marks), key=len, default="") for m in range(len(table["measures"]))]
        for s, (letter, run, cells) in enumerate(zip(table["labels"], table["runs"], table["cells"])):
            values = []
            for m, (value, _) in enumerate(cells):
                text = _number(value, places[m])
                if best[s, m]:
                    text = f"\\textbf{{{text}}}"
                if widest[m]:  # marks in a zero-width box, the column's widest mark as a phantom: digits align
                    text += (f"\\rlap{{{marks[s][m]}}}" if marks[s][m] else "") + f"\\phantom{{{widest[m]}}}"
                values.append(text)
            lines.append((f"{letter} & " if letters else "") + f"{escape_latex(run)} & " + " & ".join(values)
                         + " \\\\")
        lines += ["\\bottomrule", "\\end{tabular}", "",
                  f"\\smallskip{{\\footnotesize {self.legend('latex')}}}",
                  "\\end{table}"]
        return "\n".join(lines) + "\n"

    def to_markdown(self, digits: int | None = None) -> str:
        """A Markdown (GitHub) table: the best mean per measure in bold, significance marks as
        ``<sup>`` (letters, or +/- against the baseline), the legend below. Input names are
        escaped (:func:`escape_markdown`)."""
        table, best, places = self.table(), self.best(), self._digits(digits)
        letters = self.baseline is None
        head = (["", "Run"] if letters else ["Run"]) + [escape_markdown(m) for m in table["measures"]]
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join(["---"] * (2 if letters else 1) + ["---:"] * len(table["measures"])) + "|"]
        for s, (letter, run, cells) in enumerate(zip(table["labels"], table["runs"], table["cells"])):
            values = []
            for m, (value, mark) in enumerate(cells):
                text = _number(value, places[m])
                text = f"**{text}**" if best[s, m] else text
                values.append(text + (f"<sup>{mark}</sup>" if mark else ""))
            row = ([letter] if letters else []) + [escape_markdown(run)] + values
            lines.append("| " + " | ".join(row) + " |")
        lines += ["", self.legend("markdown") + f" Bold: the best mean per measure over "
                  f"{len(self.results.topics)} topics."]
        return "\n".join(lines + self._judges_markdown()) + "\n"

    def compare_judges(self, judges: Any, **options: Any) -> Any:
        """Compare other judges' qrels with this report's on its runs and measures, with its test,
        correction, α, B and seed (:func:`cranfield.analysis.judges.compare_judges`; docs/judges.md);
        the comparison (returned) becomes a section of the Markdown, HTML and JSON outputs."""
        from cranfield.analysis.judges import compare_judges

        if self.evaluator is None or self.runs is None:
            raise CranfieldError("comparing judges needs a report built from qrels and runs, not from_results")
        s = self.settings
        self.judges = compare_judges(self.evaluator.qrels, judges, self.runs, list(self.results.measures),
                                     test=s["test"], correction=s["correction"], alpha=s["alpha"],
                                     n_resamples=s["B"], seed=s["seed"], **options)
        return self.judges

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

    def _judges_markdown(self) -> list[str]:
        lines: list[str] = []
        for title, rows in self.judge_tables():
            if not rows:
                continue
            keys = list(rows[0])
            lines += ["", f"**Judges: {title.lower()}** (reference {escape_markdown(self.judges.reference)})", "",
                      "| " + " | ".join(escape_markdown(k) for k in keys) + " |",
                      "|" + "|".join("---" if isinstance(rows[0][k], str) else "---:" for k in keys) + "|"]
            lines += ["| " + " | ".join(_judge_cell(r[k]) for k in keys) + " |" for r in rows]
        return lines

    def to_html(self) -> str:
        """One self-contained HTML page (:func:`cranfield.render.html.html_report`)."""
        import importlib

        html = importlib.import_module("cranfield.render.html")  # the HTML writer, beside this module
        return str(html.html_report(self))

    def _repr_html_(self) -> str:
        """What a notebook shows: the results table with significance marks and intervals
        (:func:`cranfield.render.html.notebook_html`)."""
        import importlib

        html = importlib.import_module("cranfield.render.html")
        return str(html.notebook_html(self))

    def _repr_markdown_(self) -> str:
        """The Markdown table (:meth:`to_markdown`), for front ends that show Markdown."""
        return self.to_markdown()

    def to_json(self) -> str:
        """The report as one JSON object: cranfield's version, settings, inputs, warnings,
        ``table`` (the rows of :meth:`to_frame`) and ``pairs`` (of :meth:`pairs_frame`);
        undefined numbers as null."""
        doc = {"cranfield": __version__, "settings": self.settings, "baseline": self.baseline,
               "inputs": self.inputs, "warnings": self.warnings, "table": self.records(),
               "pairs": self.pair_records(), **({"judges": self.judges.records()} if self.judges else {})}
        return json.dumps(_jsonable(doc), indent=1, default=str) + "\n"

    def to_csv(self) -> str:
        """The tidy :meth:`to_frame` as CSV, header and data rows only, by the one CSV writer of
        cranfield (:func:`~cranfield.render.tables.csv_text`: names that a spreadsheet would run as
        formulas are neutralised)."""
        from cranfield.render.tables import csv_text

        frame = self.to_frame()
        return csv_text(list(frame.columns), frame.itertuples(index=False, name=None))

    def save(self, path: str | Path) -> None:
        """Write the report to ``path`` in the format of its extension: ``.tex`` (:meth:`to_latex`),
        ``.md`` (:meth:`to_markdown`), ``.html`` (:meth:`to_html`), ``.csv`` (:meth:`to_csv`),
        ``.json`` (:meth:`to_json`) or ``.parquet`` (the per-topic scores, :meth:`Results.to_parquet`);
        whole or not at all."""
        from cranfield._output import check_writable, write_text

        suffix = Path(path).suffix.lower()
        if suffix not in SAVE_FORMATS:
            raise CranfieldError(f"The report file must be named with one of the extensions "
                                 f"{', '.join(SAVE_FORMATS)}. Got {str(path)!r} instead.")
        check_writable(path, "report file")
        if suffix == ".parquet":
            self.results.to_parquet(path)
            return
        writers: dict[str, Callable[[], str]] = {
            ".tex": self.to_latex, ".md": self.to_markdown, ".html": self.to_html, ".json": self.to_json,
            ".csv": self.to_csv,
        }
        write_text(path, writers[suffix](), "report file")

    def __repr__(self) -> str:
        return (f"Report({len(self.results.runs)} runs × {len(self.results.measures)} measures × "
                f"{len(self.results.topics)} topics, test={self.settings['test']!r}, baseline={self.baseline!r})")


def _latex_mark(mark: str, letters: bool) -> str:
    """A cell's significance mark in LaTeX: superscript letters, or † (better than the baseline)
    and ‡ (worse); empty without a mark."""
    if not mark:
        return ""
    if letters:
        return f"$^{{\\mathrm{{{mark}}}}}$"
    return "$^{" + "".join("\\dagger" if x == "+" else "\\ddagger" for x in mark) + "}$"


def ord_index(letter: str) -> int:
    """The run index of a label of :func:`run_letter` (``"a"`` → 0, ``"aa"`` → 26)."""
    k = 0
    for ch in letter:
        k = k * 26 + (ord(ch) - ord("a") + 1)
    return k - 1


def _judge_cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return escape_markdown(value)
    return str(value) if isinstance(value, int) else f"{value:.4f}"


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


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value
