"""Every output format by name: cranfield's own (``table``, ``csv``, ``json``, from
:mod:`cranfield.render.tables`) and the layouts of the tools users compare with — trec_eval's
``-q`` text, ndeval's and gdeval's CSV, NTCIREVAL's value lines.

Results of risk-sensitive evaluation with a baseline hold TRisk (``Results.trisk``, runs ×
measures): every formatter writes it as ordinary ``MEASURE[TRisk]`` rows of topic ``all``
(columns of the ``amean`` row in ndeval's and gdeval's CSV)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from cranfield._output import atomic_write
from cranfield.analysis.options import REPRO_COLUMNS, SIMILARITY_COLUMNS
from cranfield.compat.trec_order import RELSTRING, trec_eval_key
from cranfield.evaluation.evaluator import Results
from cranfield.io.arrow import require_pyarrow, write_results_parquet, write_rows_parquet
from cranfield.render.outputs import is_binary, register, register_rows
from cranfield.render.tables import (
    format_csv,
    format_json,
    format_table,
    provenance_line,
    result_rows,
    trisk_label,
)


def _summary_only(results: Results) -> set[str]:
    """Measures trec_eval prints only in the ``all`` rows: counts of topics and geometric means."""
    specs = results.measure_specs or [None] * len(results.measures)
    return {label for label, how, spec in zip(results.measures, results.aggregate, specs)
            if how == "geom" or getattr(getattr(spec, "spec", None), "name", None) == "NumQ"}


def _trec_row(measure: str, topic: str, value: float, how: str, undefined: str = "nan") -> str:
    """One row as trec_eval prints it: ``%-22s\t%s\t%6.4f``, or ``%ld`` for its counts;
    ``undefined`` for NaN."""
    text = undefined if math.isnan(value) else str(int(value)) if how == "sum" else f"{value:6.4f}"
    return f"{measure:<22}\t{topic}\t{text}"


def format_trec(results: Results, per_topic: bool = False, *, header: bool = True, runid: bool | None = None,
                relstrings: list[dict[str, str]] | None = None, relstring_label: str = RELSTRING,
                undefined: str = "nan") -> str:
    """trec_eval's ``-q`` layout (trec_eval 9.0.x, ``meas_print_single.c``/``meas_print_final.c``).

    Per run: the per-topic rows (topics in byte order, as trec_eval sorts its qrels; measures
    in trec_eval's table order, cutoffs ascending; ``num_q`` and the geometric means only in
    the summary), then the ``all`` rows, ``runid all <tag>`` first. ``runid`` is printed when
    asked for (``-m runid``, ``-m official``) and, by default (None), when several runs are
    shown. Rows are ``%-22s\t%s\t%6.4f``, counts ``%ld``. ``relstrings`` (one ``{topic: text}``
    per run, :func:`cranfield.compat.presets.relstrings`) adds trec_eval's per-topic ``relstring`` rows,
    ``'%s'``, labelled ``relstring_label`` (``relstring_20``). NaN prints as ``undefined`` (``--compat
    trec_eval``: C's ``  -nan``). ``header`` writes the ``#`` provenance line first
    (docs/conventions.md#output); ``--compat trec_eval`` leaves it out, so the text is trec_eval's
    byte for byte.
    """

    how = dict(zip(results.measures, results.aggregate))
    key = {m: trec_eval_key(m, i) for i, m in enumerate(results.measures)}
    summary_only = _summary_only(results)
    show_runid = len(results.runs) > 1 if runid is None else runid
    lines = [provenance_line(results)] if header else []
    rows = list(results.rows(per_topic))
    for s, run in enumerate(results.runs):
        mine = [(i, r) for i, r in enumerate(rows) if r[0] == run]
        topic_rows = [((r[1].encode(), key[r[2].partition("[")[0]], i),
                       _trec_row(r[2], r[1], r[3], how.get(r[2].partition("[")[0], "mean"), undefined))
                      for i, r in mine if r[1] != "all" and r[2].partition("[")[0] not in summary_only]
        if relstrings is not None:
            topic_rows += [((t.encode(), trec_eval_key(RELSTRING, -1), -1), f"{relstring_label:<22}\t{t}\t'{text}'")
                           for t, text in relstrings[s].items()]
        lines += [line for _, line in sorted(topic_rows)]
        if show_runid:
            lines.append(f"{'runid':<22}\tall\t{run}")
        all_rows = sorted((key[r[2]], r) for i, r in mine if r[1] == "all")
        lines += [_trec_row(m, t, v, how[m], undefined) for _, (_, t, m, v) in all_rows]
    text = "\n".join(lines) + "\n"
    return with_trec_trisk(text, results)


def with_trec_trisk(text: str, results: Results) -> str:
    """trec layout text with each run's ``MEASURE[TRisk]  all  value`` rows after its ``all`` rows
    (the text as it is when the results hold no TRisk).

    A run's ``all`` rows are the contiguous ``all`` lines that start after a per-topic line or at
    its ``runid`` line; when they cannot be told apart (one block for several runs without
    ``runid``), the rows go at the end, each after a ``runid all <run>`` line."""
    trisk = results.trisk
    if trisk is None:
        return text
    lines = text.rstrip("\n").split("\n")
    groups: list[list[int]] = []
    before = False
    for i, line in enumerate(lines):
        fields = line.split("\t")
        is_all = len(fields) >= 3 and fields[1] == "all"
        if is_all and (not before or fields[0].strip() == "runid"):
            groups.append([i, i])
        elif is_all:
            groups[-1][1] = i
        before = is_all
    extra = [[_trec_row(trisk_label(m), "all", float(trisk[s, k]), "mean") for k, m in enumerate(results.measures)]
             for s in range(len(results.runs))]
    if len(groups) != len(results.runs):
        tail = [row for s, run in enumerate(results.runs) for row in [f"{'runid':<22}\tall\t{run}", *extra[s]]]
        return "\n".join(lines + tail) + "\n"
    for s in reversed(range(len(groups))):
        end = groups[s][1] + 1
        lines[end:end] = extra[s]
    return "\n".join(lines) + "\n"


def _csv_with_amean(results: Results, digits: int) -> str:
    """``runid,topic,<measures>``, a row per scored topic, then an ``amean`` row per run (with
    TRisk, columns ``MEASURE[TRisk]``, empty but in the ``amean`` rows)."""
    trisk = results.trisk
    risk = [trisk_label(m) for m in results.measures] if trisk is not None else []
    lines = ["runid,topic," + ",".join([*results.measures, *risk])]
    means = results.summary()
    blank = np.full(len(risk), np.nan)

    def cells(vals: np.ndarray) -> str:
        return ",".join("" if np.isnan(v) else f"{v:.{digits}f}" for v in vals)

    for s, run in enumerate(results.runs):
        for t, topic in enumerate(results.topics):
            vals = results.values[s, :, t]
            if not np.isnan(vals).all():
                lines.append(f"{run},{topic},{cells(np.concatenate([vals, blank]))}")
        lines.append(f"{run},amean,{cells(np.concatenate([means[s], trisk[s] if trisk is not None else blank]))}")
    return "\n".join(lines) + "\n"


def format_ndeval(results: Results, per_topic: bool = True) -> str:
    """ndeval's CSV layout: ``runid,topic,<measures>``, a row per topic, then an ``amean`` row
    (values with 6 decimals, as ndeval prints them); no provenance line, so ndeval's readers work."""
    return _csv_with_amean(results, 6)


def format_gdeval(results: Results, per_topic: bool = True) -> str:
    """gdeval.pl's CSV layout: ``runid,topic,ndcg@20,err@20``, a row per topic, then ``amean``,
    values with 5 decimals (``printf "%.5f"``); no provenance line."""
    return _csv_with_amean(results, 5)


def format_ntcireval(results: Results, per_topic: bool = True) -> str:
    """NTCIREVAL ``compute``'s value lines (``--out <topic>``): ``"<topic> "``, then ``"<name>="``
    padded to 21 characters and the value with 4 decimals, one block per topic, then the ``all``
    block of topic means (with TRisk, then ``MEASURE[TRisk]=`` lines).
    NTCIREVAL's ``# syslen= ... / # r1= ...`` comment lines are not written; with several runs
    each run's blocks open with ``# run=<name>``."""
    lines: list[str] = []
    means, trisk = results.summary(), results.trisk
    for s, run in enumerate(results.runs):
        if len(results.runs) > 1:
            lines.append(f"# run={run}")
        for t, topic in enumerate(results.topics):
            vals = results.values[s, :, t]
            if not np.isnan(vals).all():
                lines += [f"{topic} " + f"{m}=".ljust(21) + f"{v:0.4f}" for m, v in zip(results.measures, vals)]
        lines += ["all " + f"{m}=".ljust(21) + f"{v:0.4f}" for m, v in zip(results.measures, means[s])]
        if trisk is not None:
            lines += ["all " + f"{trisk_label(m)}=".ljust(21) + f"{v:0.4f}" for m, v in zip(results.measures, trisk[s])]
    return "\n".join(lines) + "\n"


FORMATTERS: dict[str, Callable[..., str]] = {
    "table": format_table, "trec": format_trec, "csv": format_csv, "json": format_json, "ndeval": format_ndeval,
    "gdeval": format_gdeval, "ntcireval": format_ntcireval,
}


def render(results: Results, fmt: str = "table", per_topic: bool = False) -> str:
    """Render results in one of the text formats of :data:`FORMATTERS` (Parquet is written by
    :meth:`~cranfield.evaluation.evaluator.Results.to_parquet`); results that hold TRisk
    (:func:`~cranfield.evaluation.risk.risk_adjusted`) get the ``MEASURE[TRisk]`` rows."""
    if is_binary(fmt):
        from cranfield.errors import CranfieldError

        raise CranfieldError(f"{fmt} is a binary format: write it to a file (Results.to_parquet(path), -o FILE)")
    return FORMATTERS[fmt](results, per_topic)


# ---------------------------------------------------------------- the output registry
# Results (eval, nuggets, aspects) in every text format, the trec layout with trec_eval's
# options; Parquet files (binary: the writer writes ``path`` whole and returns no text).
@register_rows("eval", "nuggets", "aspects")
def result_records(results: Results, per_topic: bool = False, **_: Any) -> list[dict[str, Any]]:
    """The rows of ``--format json``: run, topic, measure, value (null where undefined)."""
    return [{"run": run, "topic": topic, "measure": measure, "value": None if math.isnan(value) else value}
            for run, topic, measure, value in result_rows(results, per_topic)]


@register(("eval", "nuggets", "aspects"), "table", "csv", "json", "ndeval", "gdeval", "ntcireval")
def _results_text(results: Results, fmt: str = "table", per_topic: bool = False, **_: Any) -> str:
    return render(results, fmt, per_topic)


@register(("eval", "nuggets", "aspects"), "trec")
def _results_trec(results: Results, per_topic: bool = False, relstrings: Any = None, header: bool = True,
                  runid: bool | None = None, **_: Any) -> str:
    """trec_eval's layout; with ``relstrings`` (:class:`~cranfield.compat.presets.TrecTopics`),
    trec_eval's topic rules and relstring lines."""
    if relstrings is None:
        return render(results, "trec", per_topic)
    return str(relstrings.render(results, per_topic, header=header, runid=runid))


@register(("eval", "nuggets"), "parquet")
def _results_parquet(results: Results, path: str, per_topic: bool = False, **_: Any) -> str:
    """run, topic, measure, value; the provenance in the schema metadata (docs/parquet.md)."""
    write_results_parquet(path, result_rows(results, per_topic), results.provenance)
    return ""


@register("judges", "parquet")
def _judges_parquet(result: Any, path: str, **_: Any) -> str:
    require_pyarrow("writing Parquet")
    frame = result.to_frame()
    with atomic_write(path, "wb") as f:
        frame.to_parquet(f, index=False)
    return ""


@register("similarity", "parquet")
def _similarity_parquet(result: Any, path: str, **_: Any) -> str:
    write_rows_parquet(path, zip(SIMILARITY_COLUMNS, ["string"] * 4 + ["float64"]), result.rows())
    return ""


@register("repro", "parquet")
def _repro_parquet(result: Any, path: str, **_: Any) -> str:
    kinds = ["string"] * 3 + ["int64", "string", "float64"]
    write_rows_parquet(path, zip(REPRO_COLUMNS, kinds), result.rows, result.metadata)
    return ""
