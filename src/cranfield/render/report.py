"""A results report: mean scores, confidence intervals and significance for several runs and
measures, exported as a DataFrame, paper-ready LaTeX, Markdown, HTML, CSV, JSON or Parquet
(docs/report.md).

:class:`Report` presents a :class:`~cranfield.analysis.report.ReportData`, the comparison of every
pair of runs (or every run with a baseline) on each measure, computed once by
:mod:`cranfield.analysis.report`; this module only turns it into text and files. Everything taken
from the input (run names, measure names, topic ids, file names) is escaped in LaTeX
(:func:`escape_latex`) and Markdown (:func:`escape_markdown`), so a run tagged
``\\input{/etc/passwd}`` or ``<script>alert(1)</script>`` is printed as text.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield._display import measure_digits, run_letter
from cranfield._version import __version__
from cranfield.analysis.comparison import BOOTSTRAP_CI_RESAMPLES, Comparison
from cranfield.analysis.report import (
    ReportData,
    ord_index,
    report_data,
    report_from_evaluator,
    report_from_results,
)
from cranfield.errors import CranfieldError
from cranfield.evaluation.evaluator import Results
from cranfield.render import html

if TYPE_CHECKING:
    from cranfield.evaluation.evaluator import Evaluator

__all__ = ["Report", "escape_latex", "escape_markdown", "measure_digits", "run_letter", "ord_index",
           "SAVE_FORMATS"]

SAVE_FORMATS = (".tex", ".md", ".html", ".csv", ".json", ".parquet")

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


def _number(value: float, digits: int) -> str:
    return "--" if not math.isfinite(value) else f"{value:.{digits}f}"


class Report:
    """Runs evaluated and compared on several measures, ready to read, share and publish.

    ``Report(qrels, runs, measures, ...)`` takes the first arguments of :func:`cranfield.evaluate`;
    :meth:`from_evaluator` starts from an :class:`~cranfield.Evaluator`, :meth:`from_results` from
    :class:`~cranfield.Results`, :meth:`from_data` from a
    :class:`~cranfield.analysis.report.ReportData`. The numbers are computed once, when the report is
    built (:mod:`cranfield.analysis.report`); every format presents the same :attr:`data`.

    Parameters
    ----------
    qrels, runs, measures
        As for :func:`cranfield.evaluate` (paths, dicts, DataFrames, Runs; a dict ``{name: run}``
        names the runs).
    baseline : str or int, or a list of them, optional
        Compare every run with this one (a run name, one of the run files given, or its index)
        instead of every pair of runs; with several baselines every run with each of them, the
        correction over all those pairs, marked with letters as for all pairs.
    test : str
        The significance test (:func:`cranfield.meta.pairwise_test`; default the paired t-test).
    correction : {"none", "holm", "bonferroni", "hommel", "bh", "by"}, optional
        Multiple-comparison correction over the pairs of each measure; default Holm (Holm, Scand.
        J. Stat. 1979; docs/meta.md), none for Tukey HSD, which controls the family-wise error itself.
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
    data : ReportData
        Everything the report shows, computed once; its fields are read through the properties
        ``results``, ``comparisons`` (a list), ``baseline`` (None for all pairs and for several
        baselines), ``baselines``, ``settings``, ``inputs`` (a list), ``warnings`` (a list; the
        :class:`~cranfield.EvaluationWarning` messages, also shown), ``evaluator``, ``runs`` (a
        list; None with :meth:`from_results`) and ``judges`` (after :meth:`compare_judges`).
    """

    data: ReportData

    def __init__(self, qrels: Any, runs: Any, measures: Any, *, baseline: Any = None,
                 test: str = "t", correction: str | None = None, alpha: float = 0.05,
                 n_resamples: int | None = None, seed: int = 0, confidence: float = 0.95,
                 bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None, **options: Any) -> None:
        self.data = report_data(qrels, runs, measures, baseline=baseline, test=test, correction=correction,
                                alpha=alpha, n_resamples=n_resamples, seed=seed, confidence=confidence,
                                bootstrap_resamples=bootstrap_resamples, client=client, **options)

    @classmethod
    def from_data(cls, data: ReportData) -> Report:
        """The report presenting ``data`` (the other constructors compute it first)."""
        report = cls.__new__(cls)
        report.data = data
        return report

    @classmethod
    def from_evaluator(cls, evaluator: Evaluator, runs: Any, *, baseline: Any = None,
                       test: str = "t", correction: str | None = None, alpha: float = 0.05,
                       n_resamples: int | None = None, seed: int = 0, confidence: float = 0.95,
                       bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, order: str = "score",
                       on_duplicate: str = "error", score_dtype: str = "float32",
                       names: Sequence[str] | None = None, client: Any = None) -> Report:
        """A report on ``runs`` scored by an :class:`~cranfield.Evaluator` already built (its
        qrels file, when it has one, is listed in :attr:`inputs`)."""
        return cls.from_data(report_from_evaluator(
            evaluator, runs, baseline=baseline, test=test, correction=correction, alpha=alpha,
            n_resamples=n_resamples, seed=seed, confidence=confidence, bootstrap_resamples=bootstrap_resamples,
            order=order, on_duplicate=on_duplicate, score_dtype=score_dtype, names=names, client=client))

    @classmethod
    def from_results(cls, results: Results, *, baseline: Any = None, test: str = "t",
                     correction: str | None = None, alpha: float = 0.05, n_resamples: int | None = None,
                     seed: int = 0, confidence: float = 0.95,
                     bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None,
                     files: Sequence[tuple[str, Any]] = ()) -> Report:
        """A report on runs already evaluated (``evaluator`` and ``runs`` are then None, and
        ``inputs`` lists the ``files``, (role, path) pairs such as ``("nuggets", path)``); the
        options are those of :class:`Report`."""
        return cls.from_data(report_from_results(
            results, baseline=baseline, test=test, correction=correction, alpha=alpha, n_resamples=n_resamples,
            seed=seed, confidence=confidence, bootstrap_resamples=bootstrap_resamples, client=client, files=files))

    # ------------------------------------------------------------------ the data
    @property
    def results(self) -> Results:
        return self.data.results

    @property
    def comparisons(self) -> list[Comparison]:
        return list(self.data.comparisons)

    @property
    def baseline(self) -> str | None:
        return self.data.baseline

    @property
    def baselines(self) -> tuple[str, ...]:
        return self.data.baselines

    @property
    def settings(self) -> dict[str, Any]:
        return self.data.settings

    @property
    def inputs(self) -> list[dict[str, Any]]:
        return list(self.data.inputs)

    @property
    def warnings(self) -> list[str]:
        return list(self.data.warnings)

    @property
    def evaluator(self) -> Evaluator | None:
        return self.data.evaluator

    @property
    def runs(self) -> list[Any] | None:
        return None if self.data.runs is None else list(self.data.runs)

    @property
    def judges(self) -> Any:
        return self.data.judges

    @property
    def measures(self) -> list[str]:
        """The measures, in order."""
        return list(self.results.measures)

    @property
    def run_names(self) -> list[str]:
        """The run names, in order."""
        return list(self.results.runs)

    def markers(self) -> list[list[list[str]]]:
        """``markers[s][m]``: run s's significance marks on measure m (:meth:`ReportData.markers`)."""
        return self.data.markers()

    def best(self) -> np.ndarray:
        """Which runs have the best mean on each measure, shape (S, M) (:meth:`ReportData.best`)."""
        return self.data.best()

    # ------------------------------------------------------------------ tables
    def legend(self, fmt: str = "text", labels: Mapping[str, str] | None = None) -> str:
        """What the marks mean: the test, B, correction and α; ``fmt`` (``"text"``, ``"latex"``,
        ``"markdown"``, ``"html"``: ▲/▼, escaped by the page) decides the marks shown and how the
        baseline's name is escaped; ``labels`` maps run names to the labels the table shows."""
        label = dict(labels or {})
        plain = {"latex": escape_latex, "markdown": escape_markdown}.get(fmt, str)

        def escape(name: str) -> str:
            return plain(label.get(name, name))

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
        s = self.settings
        how = self.data.test_title
        if s["B"]:
            how += f", B = {s['B']}"
        if s["correction"] != "none":
            how += f", {s['correction'].capitalize()} correction"
        elif not s["test"].startswith("tukey"):  # a Tukey HSD test is one family already
            how += ", no correction"
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
        return self.data.pair_records()

    def records(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame` (tidy) as plain Python values (:meth:`ReportData.records`)."""
        return self.data.records()

    def to_frame(self, wide: bool = False) -> Any:
        """The report as a pandas DataFrame. Tidy (default): one row per run and measure with
        ``run, measure, mean, ci_low, ci_high``, then the significance: all pairs ``label`` (the
        run's letter), ``better_than`` (the runs it is significantly better than, space-separated)
        and ``marker``; with a baseline ``baseline, difference, pvalue, pvalue_adjusted,
        significant, marker``; last the ``test`` and the ``correction`` applied. Wide: runs (index)
        × measures (columns) of the means."""
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
        correction, α, B and seed (:meth:`ReportData.with_judges`; docs/judges.md); the comparison
        (returned) becomes a section of the Markdown, HTML and JSON outputs."""
        self.data = self.data.with_judges(judges, **options)
        return self.data.judges

    def judge_tables(self) -> list[tuple[str, list[dict[str, Any]]]]:
        """The judges' section as (title, rows) tables (:meth:`ReportData.judge_tables`)."""
        return self.data.judge_tables()

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
        """One self-contained HTML page (:func:`cranfield.render.html.html_report`), the baseline
        named in the legend as in the table (:func:`cranfield.render.html.short_run_names`)."""
        runs = self.results.runs
        return html.html_report(self.data, self.legend("html", dict(zip(runs, html.short_run_names(runs)))))

    def _repr_html_(self) -> str:
        """What a notebook shows: the results table with significance marks and intervals
        (:func:`cranfield.render.html.notebook_html`)."""
        return html.notebook_html(self.data, self.legend("html"))

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


def _judge_cell(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, str):
        return escape_markdown(value)
    return str(value) if isinstance(value, int) else f"{value:.4f}"


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
