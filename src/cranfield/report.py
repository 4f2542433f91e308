"""Formatting results: aligned table, trec_eval-style text, CSV and JSON (docs/conventions.md#output).

Every text format except JSON opens with one ``#`` provenance line (version and settings);
JSON is exactly an array of ``{"run", "topic", "measure", "value"}`` objects, undefined
values as ``null``.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Any, Callable

import numpy as np

from .evaluate import Results

FORMATS = ("table", "trec", "csv", "json", "ndeval", "gdeval", "ntcireval")


def provenance_line(results: Results) -> str:
    """``# cranfield 0.1.0 order=score missing=auto ...`` — what produced the numbers."""
    p = results.provenance
    items = [f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in p.items() if k != "cranfield"]
    return f"# cranfield {p.get('cranfield', '')} " + " ".join(items)


def _value(v: float, how: str, digits: int = 4) -> str:
    if math.isnan(v):
        return "nan"
    if how == "sum" or (float(v).is_integer() and abs(v) >= 1e4):
        return str(int(round(v))) if float(v).is_integer() else f"{v:.{digits}f}"
    return f"{v:.{digits}f}"


def _summary_only(results: Results) -> set[str]:
    """Measures trec_eval prints only in the ``all`` rows: counts of topics and geometric means."""
    specs = results.measure_specs or [None] * len(results.measures)
    return {label for label, how, spec in zip(results.measures, results.aggregate, specs)
            if how == "geom" or getattr(getattr(spec, "spec", None), "name", None) == "NumQ"}


def _trec_row(measure: str, topic: str, value: float, how: str) -> str:
    """One row as trec_eval prints it: ``%-22s\t%s\t%6.4f``, or ``%ld`` for its counts."""
    text = "nan" if math.isnan(value) else str(int(value)) if how == "sum" else f"{value:6.4f}"
    return f"{measure:<22}\t{topic}\t{text}"


def format_trec(results: Results, per_topic: bool = False, *, header: bool = True,
                runid: bool | None = None, relstrings: list[dict[str, str]] | None = None) -> str:
    """trec_eval's ``-q`` layout (trec_eval 9.0.x, ``meas_print_single.c``/``meas_print_final.c``).

    Per run: the per-topic rows (topics in byte order, as trec_eval sorts its qrels; measures
    in trec_eval's table order, cutoffs ascending; ``num_q`` and the geometric means only in
    the summary), then the ``all`` rows, ``runid all <tag>`` first. ``runid`` is printed when
    asked for (``-m runid``, ``-m official``) and, by default (None), when several runs are
    shown. Rows are ``%-22s\t%s\t%6.4f``, counts ``%ld``. ``relstrings`` (one ``{topic: text}``
    per run, :func:`cranfield.compat.relstrings`) adds trec_eval's per-topic ``relstring`` rows,
    ``'%s'``. ``header`` writes the ``#`` provenance line first (docs/conventions.md#output); ``--compat trec_eval``
    leaves it out, so the text is trec_eval's byte for byte.
    """
    from .compat import RELSTRING, trec_eval_key

    how = dict(zip(results.measures, results.aggregate))
    key = {m: trec_eval_key(m, i) for i, m in enumerate(results.measures)}
    summary_only = _summary_only(results)
    show_runid = len(results.runs) > 1 if runid is None else runid
    lines = [provenance_line(results)] if header else []
    rows = list(results.rows(per_topic))
    for s, run in enumerate(results.runs):
        mine = [(i, r) for i, r in enumerate(rows) if r[0] == run]
        topic_rows = [((r[1].encode(), key[r[2].partition("[")[0]], i),
                       _trec_row(r[2], r[1], r[3], how.get(r[2].partition("[")[0], "mean")))
                      for i, r in mine if r[1] != "all" and r[2].partition("[")[0] not in summary_only]
        if relstrings is not None:
            topic_rows += [((t.encode(), trec_eval_key(RELSTRING, -1), -1), f"{RELSTRING:<22}\t{t}\t'{text}'")
                           for t, text in relstrings[s].items()]
        lines += [line for _, line in sorted(topic_rows)]
        if show_runid:
            lines.append(f"{'runid':<22}\tall\t{run}")
        all_rows = sorted((key[r[2]], r) for i, r in mine if r[1] == "all")
        lines += [_trec_row(m, t, v, how[m]) for _, (_, t, m, v) in all_rows]
    return "\n".join(lines) + "\n"


def format_csv(results: Results, per_topic: bool = False) -> str:
    """Tidy CSV ``run,topic,measure,value`` with full precision (``#`` line first)."""
    buf = io.StringIO()
    buf.write(provenance_line(results) + "\n")
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["run", "topic", "measure", "value"])
    for run, topic, measure, value in results.rows(per_topic):
        writer.writerow([run, topic, measure, "" if math.isnan(value) else repr(value)])
    return buf.getvalue()


def format_json(results: Results, per_topic: bool = False) -> str:
    """One JSON array of objects with exactly the keys run, topic, measure, value."""
    rows = [
        {"run": run, "topic": topic, "measure": measure, "value": None if math.isnan(value) else value}
        for run, topic, measure, value in results.rows(per_topic)
    ]
    return json.dumps(rows, indent=1) + "\n"


def format_table(results: Results, per_topic: bool = False) -> str:
    """An aligned table: one row per run (per run and topic with ``per_topic``), one column
    per measure, 4 decimals; with per-intent or per-iteration values, one row per (run, topic,
    measure), so the rows ``measure[intent=i]`` and ``measure[iteration=k]`` have a place."""
    how = dict(zip(results.measures, results.aggregate))
    body: list[list[str]] = []
    if results.intent_values is not None or results.iteration_values is not None:
        head, n_text = ["run", "topic", "measure", "value"], 3
        for run, topic, measure, value in results.rows(True):
            body.append([run, topic, measure, _value(value, how.get(measure, "mean"))])
        return _aligned(results, head, body, n_text)
    head = ["run", "topic", *results.measures] if per_topic else ["run", *results.measures]
    means = results.summary()
    for s, run in enumerate(results.runs):
        if per_topic:
            for t, topic in enumerate(results.topics):
                vals = results.values[s, :, t]
                if not np.isnan(vals).all():
                    body.append([run, topic, *(_value(v, how[m]) for m, v in zip(results.measures, vals))])
        row = [run, "all"] if per_topic else [run]
        body.append(row + [_value(v, how[m]) for m, v in zip(results.measures, means[s])])
    return _aligned(results, head, body, 2 if per_topic else 1)


def _aligned(results: Results, head: list[str], body: list[list[str]], n_text: int) -> str:
    widths = [max(len(r[c]) for r in [head, *body]) for c in range(len(head))]

    def fmt(row: list[str]) -> str:
        return "  ".join(
            cell.ljust(w) if c < n_text else cell.rjust(w) for c, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()

    return "\n".join([provenance_line(results), fmt(head), *map(fmt, body)]) + "\n"


def _csv_with_amean(results: Results, digits: int) -> str:
    """``runid,topic,<measures>``, a row per scored topic, then an ``amean`` row per run."""
    lines = ["runid,topic," + ",".join(results.measures)]
    means = results.summary()

    def cells(vals: np.ndarray) -> str:
        return ",".join("" if np.isnan(v) else f"{v:.{digits}f}" for v in vals)

    for s, run in enumerate(results.runs):
        for t, topic in enumerate(results.topics):
            vals = results.values[s, :, t]
            if not np.isnan(vals).all():
                lines.append(f"{run},{topic},{cells(vals)}")
        lines.append(f"{run},amean,{cells(means[s])}")
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
    block of topic means.
    NTCIREVAL's ``# syslen= ... / # r1= ...`` comment lines are not written; with several runs
    each run's blocks open with ``# run=<name>``."""
    lines: list[str] = []
    means = results.summary()
    for s, run in enumerate(results.runs):
        if len(results.runs) > 1:
            lines.append(f"# run={run}")
        for t, topic in enumerate(results.topics):
            vals = results.values[s, :, t]
            if not np.isnan(vals).all():
                lines += [f"{topic} " + f"{m}=".ljust(21) + f"{v:0.4f}" for m, v in zip(results.measures, vals)]
        lines += ["all " + f"{m}=".ljust(21) + f"{v:0.4f}" for m, v in zip(results.measures, means[s])]
    return "\n".join(lines) + "\n"


FORMATTERS: dict[str, Callable[[Results, bool], str]] = {
    "table": format_table, "trec": format_trec, "csv": format_csv, "json": format_json, "ndeval": format_ndeval,
    "gdeval": format_gdeval, "ntcireval": format_ntcireval,
}


def render(results: Results, fmt: str = "table", per_topic: bool = False) -> str:
    """Render results in one of :data:`FORMATS`."""
    return FORMATTERS[fmt](results, per_topic)


def write_provenance(results: Results, path: str) -> None:
    """Write the provenance as JSON (``--provenance FILE``), whole or not at all."""
    from ._output import write_text

    write_text(path, json.dumps(results.provenance, indent=1) + "\n", "provenance file")


def to_jsonable(value: Any) -> Any:
    """Parameter values for JSON listings (tuples of gains become ``label:gain`` text)."""
    if isinstance(value, tuple):
        return ",".join(f"{k}:{v:g}" for k, v in value)
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value
