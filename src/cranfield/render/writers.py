"""The writers of cranfield's own formats, registered in the output registry
(:mod:`cranfield.render.outputs`): the generic ones over a result's rows (table, csv, json) and
each kind's own (its aligned table, its nested JSON, LaTeX, Markdown, HTML). The tool layouts
(trec, ndeval, gdeval, ntcireval) and Parquet register in :mod:`cranfield.compat.formats`.

A writer is ``writer(payload, **settings) -> str``: ``payload`` the result a command computed,
``settings`` how it is shown (``header``: the ``#`` line of settings; ``per_topic``; ...).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from cranfield.analysis.options import REPRO_COLUMNS, SIMILARITY_COLUMNS
from cranfield.render.outputs import register, register_rows
from cranfield.render.tables import (
    aligned,
    collection_table,
    csv_text,
    dss_table,
    judges_table,
    records_csv,
    repro_table,
    similarity_table,
    to_jsonable,
    truncation_table,
)

ROW_KINDS = ("discpower", "correlate", "intuitiveness", "coverage", "topicsize", "axioms")


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _jsonable(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@register_rows(*ROW_KINDS)
def _rows(rows: list[dict[str, Any]], **_: Any) -> list[dict[str, Any]]:
    """Results that are rows already (the meta-evaluation studies)."""
    return rows


@register("*", "json")
def rows_json(rows: list[dict[str, Any]], **_: Any) -> str:
    """Rows as one indented JSON array of objects, NaN and infinities null."""
    return json.dumps([{k: _jsonable(v) for k, v in r.items()} for r in rows], indent=1) + "\n"


@register("*", "jsonl")
def rows_jsonl(rows: list[dict[str, Any]], **_: Any) -> str:
    """Rows as JSON Lines (jsonlines.org): one compact object per line, NaN and infinities null."""
    return "".join(json.dumps({k: _jsonable(v) for k, v in r.items()}) + "\n" for r in rows)


@register("*", "csv")
def rows_csv(rows: list[dict[str, Any]], **_: Any) -> str:
    """Rows as CSV (:func:`~cranfield.render.tables.records_csv`)."""
    return records_csv(rows)


@register("*", "table")
def rows_table(rows: list[dict[str, Any]], header: str = "", **_: Any) -> str:
    """Rows as an aligned table after the ``#`` line ``header``: text columns left-aligned,
    numbers to 4 decimals, ``-`` where undefined."""
    keys = list(rows[0]) if rows else []
    left = [all(isinstance(r[k], str) for r in rows) for k in keys]
    lines = aligned(keys, [[_cell(r[k]) for k in keys] for r in rows], left)
    return "\n".join([header, *lines]) + "\n"


# ---------------------------------------------------------------- compare (a Report)
@register_rows("compare")
def _compare_rows(report: Any, **_: Any) -> list[dict[str, Any]]:
    return list(report.pair_records())


@register("compare", "table")
def compare_table(report: Any, header: str = "", **_: Any) -> str:
    """The results table of :meth:`Report.table` as aligned text: the ``#`` header line, a row per
    run with its letter and mean scores followed by its significance marks, the legend."""
    table = report.table()
    head = ["#", "run", *table["measures"]]
    body = [[label, run, *(f"{v:.4f} {mark}".rstrip() for v, mark in cells)]
            for label, run, cells in zip(table["labels"], table["runs"], table["cells"])]
    return "\n".join([header, *aligned(head, body, [True] * len(head)), f"# {table['legend']}"]) + "\n"


@register("compare", "latex")
def compare_latex(report: Any, header: str = "", caption: str | None = None, label: str | None = None,
                  **_: Any) -> str:
    """The results table as LaTeX, the settings line as a comment first."""
    return "% " + header.lstrip("# ").replace("\n", " ") + "\n" + report.to_latex(caption, label)


@register("compare", "markdown")
def compare_markdown(report: Any, **_: Any) -> str:
    """The report as Markdown."""
    return str(report.to_markdown())


@register("compare", "html")
def compare_html(report: Any, **_: Any) -> str:
    """The report as a self-contained HTML page."""
    return str(report.to_html())


# ---------------------------------------------------------------- a Report, saved (Report.save, cranfield report -o)
@register_rows("report")
def _report_rows(report: Any, **_: Any) -> list[dict[str, Any]]:
    return list(report.records())


register("report", "html")(lambda report, **_: report.to_html())
register("report", "latex")(lambda report, **_: report.to_latex())
register("report", "markdown")(lambda report, **_: report.to_markdown())
register("report", "csv")(lambda report, **_: report.to_csv())
register("report", "json")(lambda report, **_: report.to_json())


@register("report", "parquet")
def _report_parquet(report: Any, path: str, **_: Any) -> str:
    """The per-topic scores of the report's runs (:meth:`Results.to_parquet`)."""
    report.results.to_parquet(path)
    return ""


# ---------------------------------------------------------------- measures (the catalogue)
def _param_default(p: Any) -> Any:
    return "file's highest label" if p.default is None and p.name == "max_rel" else to_jsonable(p.default)


@register_rows("measures")
def measure_rows(specs: Sequence[Any], nuggets: Sequence[bool] = (), **_: Any) -> list[dict[str, Any]]:
    """One row per measure: its name, aliases, parameters with defaults and ranges, source."""
    flags = list(nuggets) or [False] * len(specs)
    return [{
        "name": s.name, "aliases": list(s.aliases), "doc": s.doc, "cite": s.cite,
        "cutoff": s.cutoff, "range": [to_jsonable(x) for x in s.value_range],
        "normalised": s.normalised, "needs_intents": s.needs_intents,
        "truncation_aware": s.truncation_aware, "reference": s.reference,
        "lower_is_better": s.lower_is_better, "sampled": s.sampled,
        "input": "nuggets" if nugget else "rankings",
        "params": [{"name": p.name, "default": to_jsonable(p.default), "valid": p.describe(), "doc": p.doc}
                   for p in s.params if p.name != "cutoff"],
    } for s, nugget in zip(specs, flags)]


@register("measures", "json")
def measures_json(specs: Sequence[Any], **settings: Any) -> str:
    """The catalogue as a JSON array (:func:`measure_rows`)."""
    return json.dumps(measure_rows(specs, **settings), indent=1) + "\n"


@register("measures", "table")
def measures_text(specs: Sequence[Any], nuggets: Sequence[bool] = (), **_: Any) -> str:
    """The catalogue for reading: per measure its doc, cutoff, range, properties, parameters, source."""
    lines: list[str] = []
    for s, nugget in zip(specs, list(nuggets) or [False] * len(specs)):
        cut = {"required": "@k required", "optional": "@k optional", "none": "no @k"}[s.cutoff]
        lo, hi = s.value_range
        lines.append(f"{s.name}" + (f"  (aliases: {', '.join(s.aliases)})" if s.aliases else ""))
        lines.append(f"    {s.doc}")
        lines.append(f"    {cut}; range [{lo:g}, {hi:g}]" + ("; ideal ranking scores 1" if s.normalised else "")
                     + ("; needs intents" if s.needs_intents else "")
                     + ("; truncation-aware" if s.truncation_aware else "")
                     + ("; lower is better" if s.lower_is_better else "")
                     + ("; reads stochastic runs (docs/fairness.md)" if s.sampled else "")
                     + ("; scores nugget assignments (cranfield nuggets)" if nugget else ""))
        lines += [f"    {p.name}={_param_default(p)}: {p.doc}; {p.describe()}" for p in s.params if p.name != "cutoff"]
        lines.append(f"    source: {s.cite}" + (f"; agrees with {s.reference}" if s.reference else ""))
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------- collection studies
@register_rows("collection")
def _collection_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    return list(result.to_dict()["topics"])


register("collection", "json")(lambda result, **_: result.to_json())
register("collection", "table")(lambda result, **_: collection_table(result))


PERMUTED_COLUMNS = ("measure", "mean", "sd_runs", "test", "n_resamples", "pairs", "significant", "power")


@register_rows("collection-permuted")
def _permuted_rows(power: Any, **_: Any) -> list[dict[str, Any]]:
    return [{k: r[k] for k in PERMUTED_COLUMNS} for r in power.rows()]


@register(("collection-permuted", "collection-runs"), "json")
def _document_json(result: Any, **_: Any) -> str:
    return json.dumps(result.to_dict(), indent=1) + "\n"


@register_rows("collection-runs")
def _averagings_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    """One table: what is compared (averagings under a measure, or measures under an averaging)."""
    return ([{"compare": "averagings", "under": r["measure"], "a": r["a"], "b": r["b"], "tau": r["tau"]}
             for r in result.rows()]
            + [{"compare": "measures", "under": r["average"], "a": r["a"], "b": r["b"], "tau": r["tau"]}
               for r in result.between_measures()])


@register("collection-runs", "table")
def _averagings_table(result: Any, header: str = "", **_: Any) -> str:
    """Kendall's tau between averagings per measure, then between measures per averaging."""
    text = rows_table(result.rows(), header)
    if result.measure_pairs:
        text += "\n" + rows_table(result.between_measures(), "# Kendall's tau between two measures' run orderings "
                                                              "under each topic averaging (Table 8)")
    return text


@register_rows("dss")
def _dss_rows(result: Any, per_topic: bool = False, **_: Any) -> list[dict[str, Any]]:
    return list(result.rows(per_topic))


register("dss", "json")(lambda result, per_topic=False, **_: result.to_json(per_topic))
register("dss", "table")(lambda result, **_: dss_table(result))


@register_rows("truncation")
def _truncation_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    return list(result.to_dict()["optimal"])


register("truncation", "json")(lambda result, **_: result.to_json())
register("truncation", "table")(lambda result, **_: truncation_table(result))


# ---------------------------------------------------------------- judges, similarity, reproduction
@register_rows("judges")
def _judges_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    return list(result.records())


@register("judges", "json")
def _judges_json(result: Any, **_: Any) -> str:
    return json.dumps(result.records(), indent=1) + "\n"


register("judges", "table")(lambda result, header="", **_: judges_table(result.records(), header))


@register_rows("similarity")
def _similarity_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    return list(result.to_dict()["rows"])


@register(("similarity", "repro"), "json")
def _rows_document_json(result: Any, **_: Any) -> str:
    return json.dumps(result.to_dict()["rows"], indent=1) + "\n"


# The studies' modules are imported by the writers that use them: every command loads this module, and
# theirs (for repro's HTML page: the report's analysis and the meta-evaluation) cost ~50 ms of its start-up.
@register("similarity", "csv")
def _similarity_csv(result: Any, **_: Any) -> str:
    return csv_text(SIMILARITY_COLUMNS, result.rows())


register("similarity", "table")(lambda result, per_topic=False, **_: similarity_table(result, per_topic))


@register_rows("repro")
def _repro_rows(result: Any, **_: Any) -> list[dict[str, Any]]:
    return list(result.to_dict()["rows"])


@register("repro", "csv")
def _repro_csv(result: Any, **_: Any) -> str:
    return csv_text(REPRO_COLUMNS, result.rows)


@register("repro", "html")
def _repro_html(result: Any, **_: Any) -> str:
    from cranfield.render.html import repro_html

    return repro_html(result)


register("repro", "table")(lambda result, per_topic=False, **_: repro_table(result, per_topic))


# ---------------------------------------------------------------- axioms
def axioms_grid(rows: list[dict[str, Any]], measures: list[str], wanted: list[str]) -> str:
    """Measures × properties, ✓ where the property holds (Amigó, Mizzaro & Spina, SIGIR 2022, Table 1)."""
    cell = {(r["measure"], r["property"]): "✓" if r["holds"] else "✗" for r in rows}
    width = max([len("measure"), *map(len, measures)])
    lines = [f"{'measure':<{width}}" + "".join(f"  {p}" for p in wanted)]
    for m in measures:
        lines.append(f"{m:<{width}}" + "".join(f"  {cell.get((m, p), '?'):<{len(p)}}" for p in wanted))
    return "".join(line.rstrip() + "\n" for line in lines)


def axioms_details(rows: list[dict[str, Any]]) -> str:
    """One line per check: ✓/✗, what was counted, cases, violations (for Shallowness: the candidate m that are not
    witnesses, as the property holds iff one m is) and an example."""
    from cranfield.analysis.axioms import EXISTENTIAL

    width = max([len("measure"), *(len(r["measure"]) for r in rows)])
    lines = [f"{'measure':<{width}}  {'property':<18}holds  {'counted':<16}{'applicable':>11}{'violations':>11}"
             f"{'rate':>8}  example"]
    for r in rows:
        shown = r["examples"][0] if r["examples"] and (r["violations"] or r["property"] in EXISTENTIAL) else ""
        lines.append(f"{r['measure']:<{width}}  {r['property']:<18}{'✓' if r['holds'] else '✗':<5}  "
                     f"{r['counted']:<16}{r['applicable']:>11}{r['violations']:>11}{r['rate']:>8.3f}  {shown}")
    return "".join(line.rstrip() + "\n" for line in lines)


@register("axioms", "table")
def axioms_table(rows: list[dict[str, Any]], measures: Sequence[str] = (), properties: Sequence[str] = (),
                 **_: Any) -> str:
    """The grid of measures × properties, then one line per check."""
    return axioms_grid(rows, list(measures), list(properties)) + "\n" + axioms_details(rows)
