"""Formatting results: aligned table, trec_eval-style text, CSV and JSON (docs/conventions.md#output).

The aligned table and the trec layout open with one ``#`` provenance line (version and
settings); CSV is a header row and data rows only, so ``pandas.read_csv(path)`` reads it as it
is (the provenance goes to ``--provenance FILE``); JSON is exactly an array of
``{"run", "topic", "measure", "value"}`` objects, undefined values as ``null``.

With risk-sensitive evaluation (``--baseline``), the results hold TRisk (``Results.trisk``, runs ×
measures), which appears in every format as ordinary ``all`` rows ``MEASURE[TRisk]`` after each
run's ``all`` rows (:func:`result_rows`); the aligned table gives them as columns.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # the studies' result types, for the annotations only: `eval` need not import them
    from cranfield.analysis.diversity import CollectionDiversity
    from cranfield.analysis.dss import DSSResult
    from cranfield.analysis.repro import ReproResult
    from cranfield.analysis.similarity import SimilarityResult
    from cranfield.analysis.truncation import TruncationResult
    from cranfield.evaluation.evaluator import Results


def provenance_line(results: Results) -> str:
    """``# cranfield 1.0.0rc1 order=score missing=auto ...`` — what produced the numbers."""
    p = results.provenance
    items = [f"{k}={','.join(v) if isinstance(v, list) else v}" for k, v in p.items() if k != "cranfield"]
    return f"# cranfield {p.get('cranfield', '')} " + " ".join(items)


def _value(v: float, how: str, digits: int = 4) -> str:
    v = float(v)
    if v != v:
        return "nan"
    if (how == "sum" or abs(v) >= 1e4) and v.is_integer():
        return str(int(v))
    return f"{v:.{digits}f}"


def format_column(values: np.ndarray, how: str, digits: int = 4) -> list[str]:
    """:func:`_value` of each of ``values`` (one measure's column), formatted in one pass: most
    cells are plain ``digits``-decimal numbers; the integers it writes without decimals (every
    integer of a summed measure, those of at least 1e4 of the others) are found at once."""
    texts = [f"{v:.{digits}f}" for v in values.tolist()]  # NaN gives "nan", as _value does
    with np.errstate(invalid="ignore"):
        whole = np.isfinite(values) & (values == np.trunc(values))
        if how != "sum":
            whole &= np.abs(values) >= 1e4
    for i in np.flatnonzero(whole).tolist():
        texts[i] = str(int(values[i]))
    return texts


def trisk_label(measure: str) -> str:
    """The name of a measure's TRisk row: ``MEASURE[TRisk]`` (docs/parquet.md)."""
    return f"{measure}[TRisk]"


def result_rows(results: Results, per_topic: bool = False) -> Iterator[tuple[str, str, str, float]]:
    """:meth:`Results.rows`, with each run's ``MEASURE[TRisk]`` rows (topic ``all``) right after
    its ``all`` rows when the results hold TRisk (``trisk``, shape (S, M))."""
    trisk = results.trisk
    if trisk is None:
        yield from results.rows(per_topic)
        return
    seen = 0
    s = 0
    n = len(results.measures)
    for row in results.rows(per_topic):
        yield row
        if row[1] == "all":
            seen += 1
            if seen == n:
                yield from ((results.runs[s], "all", trisk_label(m), float(trisk[s, k]))
                            for k, m in enumerate(results.measures))
                seen, s = 0, s + 1


FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def csv_cell(value: Any) -> Any:
    """One CSV cell: None and NaN empty, floats in full (``repr``), and text that a spreadsheet
    would run as a formula neutralised (OWASP, "CSV Injection"): a text cell starting with
    ``= + - @``, a tab or a carriage return gets a leading ``'``, unless it is a plain decimal
    number (``-1``, ``+0.5``, ``-2e-3``), which a spreadsheet reads as that number."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return repr(float(value))
    if isinstance(value, str) and value.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(value):
        return "'" + value
    return value


def csv_text(head: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A header row and data rows, quoted as needed (RFC 4180, ``\n`` line ends): what
    ``pandas.read_csv(path)`` reads as it is, ``#`` and commas inside names included; every cell,
    the header's too, as :func:`csv_cell` writes it. The one CSV writer of cranfield's own formats
    (the ``--compat`` formats reproduce their tool's bytes)."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([csv_cell(v) for v in head])
    writer.writerows([csv_cell(v) for v in row] for row in rows)
    return buf.getvalue()


def records_csv(rows: Sequence[Mapping[str, Any]]) -> str:
    """Rows of one shape (flat dicts, the keys of the first in order) as :func:`csv_text`;
    infinities are empty cells like NaN."""
    keys = list(rows[0]) if rows else []
    return csv_text(keys, ([None if isinstance(v := r[k], float) and math.isinf(v) else v for k in keys]
                           for r in rows))


def format_csv(results: Results, per_topic: bool = False) -> str:
    """Tidy CSV ``run,topic,measure,value`` with full precision: the header row and data rows only
    (the provenance goes to ``--provenance FILE``)."""
    return csv_text(["run", "topic", "measure", "value"], result_rows(results, per_topic))


def format_json(results: Results, per_topic: bool = False) -> str:
    """One JSON array of objects with exactly the keys run, topic, measure, value."""
    rows = [
        {"run": run, "topic": topic, "measure": measure, "value": None if math.isnan(value) else value}
        for run, topic, measure, value in result_rows(results, per_topic)
    ]
    return json.dumps(rows, indent=1) + "\n"


def format_table(results: Results, per_topic: bool = False) -> str:
    """An aligned table: one row per run (per run and topic with ``per_topic``), one column
    per measure (then one per ``MEASURE[TRisk]``, filled in the ``all`` rows), 4 decimals; with
    per-intent or per-iteration values, one row per (run, topic, measure), so the rows
    ``measure[intent=i]``, ``measure[iteration=k]`` and ``MEASURE[TRisk]`` have a place."""
    how = dict(zip(results.measures, results.aggregate))
    trisk = results.trisk
    body: list[list[str]] = []
    if results.intent_values is not None or results.iteration_values is not None:
        head, n_text = ["run", "topic", "measure", "value"], 3
        for run, topic, measure, value in result_rows(results, True):
            body.append([run, topic, measure, _value(value, how.get(measure, "mean"))])
        return _aligned(results, head, body, n_text)
    risk = [trisk_label(m) for m in results.measures] if trisk is not None else []
    head = ["run", "topic", *results.measures, *risk] if per_topic else ["run", *results.measures, *risk]
    means = results.summary()
    for s, run in enumerate(results.runs):
        if per_topic:  # one measure's column at a time; rows without any score are left out
            scored = np.flatnonzero(~np.isnan(results.values[s]).all(axis=0))
            columns = [format_column(row, how[m]) for m, row in zip(results.measures, results.values[s][:, scored])]
            topics = [results.topics[t] for t in scored.tolist()]
            body.extend(map(list, zip(itertools.repeat(run), topics, *columns, *([""] * len(scored),) * len(risk))))
        row = [run, "all"] if per_topic else [run]
        body.append(row + [_value(v, how[m]) for m, v in zip(results.measures, means[s])]
                    + ([_value(float(v), "mean") for v in trisk[s]] if trisk is not None else []))
    return _aligned(results, head, body, 2 if per_topic else 1)


def _aligned(results: Results, head: list[str], body: list[list[str]], n_text: int) -> str:
    left = [c < n_text for c in range(len(head))]
    return "\n".join([provenance_line(results), *aligned(head, body, left)]) + "\n"


def write_provenance(results: Results, path: str) -> None:
    """Write the provenance as JSON (``--provenance FILE``), whole or not at all."""
    from cranfield._output import write_text

    write_text(path, json.dumps(results.provenance, indent=1) + "\n", "provenance file")


def to_jsonable(value: Any) -> Any:
    """Parameter values for JSON listings (tuples of gains become ``label:gain`` text)."""
    if isinstance(value, tuple):
        return ",".join(f"{k}:{v:g}" for k, v in value)
    if isinstance(value, float) and math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return value


def aligned(head: Sequence[str], body: Sequence[Sequence[str]], left: Sequence[bool]) -> list[str]:
    """Rows of cells as aligned lines; ``left[c]`` left-aligns column c, else right-aligns it."""
    columns = []
    for c, column in enumerate(zip(*[head, *body])):  # column by column: one width, one justification
        width = max(map(len, column))
        columns.append([cell.ljust(width) for cell in column] if left[c] else [cell.rjust(width) for cell in column])
    return ["  ".join(row).rstrip() for row in zip(*columns)]


def truncation_table(result: TruncationResult) -> str:
    """The distribution (percent of run × topic pairs per length bin) and the τ table."""
    labels, counts = result.distribution()
    frac = 100 * counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    lines = ["optimal length n* (% of run × topic pairs per bin)",
             _first_left(["measure", *labels],
                         [[m, *(f"{v:.1f}" for v in row)] for m, row in zip(result.measures, frac)])]
    if len(result.runs) >= 2:
        tau = result.kendall()
        lines += ["", "Kendall's tau: full-ranking measure (rows) vs truncation measure at its optimum (columns)",
                  _first_left(["full \\ truncated", *result.measures],
                        [[f, *(f"{v:.2f}" for v in row)] for f, row in zip(result.full_measures, tau)])]
    return "\n".join(lines) + "\n"


def collection_table(result: CollectionDiversity) -> str:
    """Aligned text: one row per topic (R_i and smr as ``intent:value`` lists), then the
    min/max/mean of dd."""
    head = ["topic", "M", "R", "R_i", "xi", "k", "d_max", "d_mean", "dd", "smr"]
    rows = [[r["topic"], str(r["intents"]), str(r["R"]), " ".join(f"{i}:{n}" for i, n in r["R_i"].items()),
             str(r["xi"]), str(r["depth"]), f"{r['d_max']:.3f}", f"{r['d_mean']:.3f}", f"{r['dd']:.3f}",
             " ".join(f"{i}:{v:.3f}" for i, v in r["smr"].items())] for r in result.records()]
    lines = aligned(head, rows, [c in (0, 3, 9) for c in range(len(head))])
    s = result.summary()
    lines.append(f"dd over {s['topics']} topics with relevant documents (depth {result.depth}): "
                 f"min {s['min']:.3f}  max {s['max']:.3f}  mean {s['mean']:.3f}")
    return "\n".join(lines) + "\n"


def dss_table(result: DSSResult) -> str:
    """Measures (rows) × cutoffs (columns) of the averaged DSS."""
    head = ["measure", *(f"DSS@{k}" for k in result.ks)]
    body = [[m, *(f"{v:.4f}" for v in row)] for m, row in zip(result.measures, result.averaged)]
    lines = [result.provenance(), *aligned(head, body, [True] + [False] * (len(head) - 1))]
    return "\n".join(lines) + "\n"


def _first_left(head: list[str], rows: list[list[str]]) -> str:
    """Aligned lines with the first column left-aligned and the others right-aligned."""
    return "\n".join(aligned(head, rows, [True] + [False] * (len(head) - 1)))


def judges_table(rows: Sequence[Mapping[str, Any]], header: str) -> str:
    """The long rows of :class:`~cranfield.analysis.judges.JudgeComparison` grouped for reading:
    per judge, the label statistics (topics as rows, statistics as columns, ``all`` last), then
    the leaderboard and the significance statistics (measures as rows); ``-`` where undefined."""
    def cell(v: Any) -> str:
        if v is None:
            return "-"
        return str(v) if isinstance(v, int) else f"{v:.4f}"

    lines = [header]
    for judge, of_judge in itertools.groupby(rows, key=lambda r: r["judge"]):
        for part, of_part in itertools.groupby(of_judge, key=lambda r: r["part"]):
            group = list(of_part)
            key = "topic" if part == "labels" else "measure"
            statistics = list(dict.fromkeys(r["statistic"] for r in group))
            keys = list(dict.fromkeys(r[key] for r in group))
            grid = {(r[key], r["statistic"]): r["value"] for r in group}
            body = [[k, *(cell(grid.get((k, s))) for s in statistics)] for k in keys]
            if lines[-1] != header or len(lines) > 1:
                lines.append("")
            lines += [f"## {judge}: {part}", *aligned([key, *statistics], body, [True] + [False] * len(statistics))]
    return "\n".join(lines) + "\n"


def similarity_table(result: SimilarityResult, per_topic: bool = False) -> str:
    """One row per pair of runs (per pair and topic with ``per_topic``, the mean last), one column
    per similarity, 4 decimals."""
    head = ["run_a", "run_b", *(["topic"] if per_topic else []), *result.measures]
    cells: dict[tuple[str, str, str], dict[str, float]] = {}
    for a, b, topic, measure, value in result.rows(per_topic):
        cells.setdefault((a, b, topic), {})[measure] = value
    body = [[a, b, *([topic] if per_topic else []), *(_value(row[m], "mean") for m in result.measures)]
            for (a, b, topic), row in cells.items()]
    n_text = 3 if per_topic else 2
    return "\n".join(aligned(head, body, [c < n_text for c in range(len(head))])) + "\n"


def repro_table(result: ReproResult, per_topic: bool = False) -> str:
    """The rows of a reproduction as aligned text (only the ``all`` rows unless ``per_topic``),
    a title line naming the kind of study first."""
    head = ["statistic", "measure", "run", "cutoff", "topic", "value"]
    body = [[stat, measure or "", run or "", "" if cutoff is None else str(cutoff), topic,
             f"{value:.3g}" if stat == "p" else _value(value, "mean")]
            for stat, measure, run, cutoff, topic, value in result.rows if per_topic or topic == "all"]
    lines = [f"# {result.kind}: original vs {'replicated' if result.kind == 'replicability' else 'reproduced'} runs",
             *aligned(head, body, [True, True, True, False, True, False])]
    return "\n".join(lines) + "\n"
