"""The HTML report: one self-contained page a researcher can attach to an e-mail (docs/report-html.md).

:func:`html_report` turns the data of a :class:`~cranfield.render.report.Report` (a
:class:`~cranfield.analysis.report.ReportData`, computed once; nothing is scored here) into one HTML document:
inline CSS, every figure an inline SVG (large raster layers, such as a heat map, are PNG data
inside the SVG), no script, and a Content-Security-Policy that forbids every request (only
``data:`` images and inline styles are allowed), so the page loads nothing from anywhere when it
is opened. Everything taken from the input — run tags, topic ids, intent ids, measure names,
file names, warnings — is escaped with :func:`html.escape` (inside the figures, matplotlib
escapes the text it writes), so a run tagged ``<script>alert(1)</script>`` shows as that text.

Sections: the results table (means, confidence intervals, significance; run labels without a
shared tag or file extension, :func:`short_run_names`), the per-pair tables open;
the system ranking with confidence intervals, the per-topic score distribution of every run and
(with a baseline) the per-topic differences sorted by size, per measure; interpolated
precision–recall curves; for diversity qrels, per-intent coverage and I-rec at depth; for
truncation-aware measures, the run lengths; settings and provenance last. With many runs the long figures are collapsed
(``<details>``) and the per-topic differences are drawn for the best :data:`DIFFERENCE_PANELS`
runs, the others as one overlay.
"""

from __future__ import annotations

import dataclasses
import html
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from cranfield._display import measure_digits, run_letter
from cranfield._version import __version__
from cranfield.analysis.report import ReportData
from cranfield.render import plots

CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
"""The page's Content-Security-Policy: no request of any kind, ``data:`` images and inline styles only."""

DIFFERENCE_PANELS = 6
"""The per-topic difference against the baseline is drawn run by run for this many runs (the best)."""

OPEN_RUNS = 20
"""Figures listing every run are shown open up to this many runs, collapsed beyond."""

PAIR_ROWS = 100
"""The per-pair table of a measure is listed up to this many pairs (all pairs of 14 runs)."""

EXTENSIONS = frozenset({"gz", "bz2", "xz", "zst", "run", "runs", "res", "txt", "trec", "tsv", "csv", "parquet",
                        "jsonl", "out"})
"""File extensions :func:`short_run_names` leaves out of run labels when every run shares them."""

STYLE = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;margin:0;color:#1b1b1b;
background:#fafafa}
main{max-width:1180px;margin:0 auto;padding:1.2em 1.5em 3em;background:#fff}
h1{font-size:1.6em;margin:.2em 0}h2{font-size:1.3em;border-bottom:1px solid #ddd;padding-bottom:.2em;margin-top:1.8em}
h3{font-size:1.05em;margin:1.2em 0 .4em}
nav ul{columns:3;list-style:none;padding:0;font-size:.92em}nav a{color:#0550ae;text-decoration:none}
table{border-collapse:collapse;font-size:.9em;margin:.5em 0}
th,td{padding:.25em .6em;border-bottom:1px solid #e5e5e5;text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
thead th{border-bottom:2px solid #999;position:sticky;top:0;background:#fff}
.ci{color:#666;font-size:.85em}sup{color:#0550ae}.best{font-weight:700}.sig{font-weight:700}
.better{color:#1a7f37;font-weight:700}.worse{color:#cf222e;font-weight:700}
.wrap{overflow-x:auto;max-width:100%}.hash{font-family:ui-monospace,monospace;font-size:.8em;word-break:break-all}
figure{margin:.6em 0 1.2em}figure svg,figure img{max-width:100%;height:auto;display:block}
figcaption{font-size:.88em;color:#444;margin-top:.3em}
details{margin:.4em 0}summary{cursor:pointer;color:#0550ae}
.warn{background:#fff8e1;border-left:4px solid #f0b400;padding:.3em .8em}
.note{color:#555;font-size:.9em}footer{margin-top:3em;font-size:.85em;color:#666}
"""


def esc(value: Any) -> str:
    """``value`` as HTML text or attribute value: ``& < > " '`` escaped (:func:`html.escape`)."""
    return html.escape(str(value), quote=True)


def _number(value: Any, digits: int) -> str:
    value = float(value)
    return "–" if not math.isfinite(value) else f"{value:.{digits}f}"


def _pvalue(p: float) -> str:
    if not math.isfinite(p):
        return "–"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}"


def size_text(n: int) -> str:
    """A number of bytes as people read it: ``812 bytes``, ``209.4 KiB``, ``3.7 MiB``."""
    units = ("bytes", "KiB", "MiB", "GiB")
    k = 0
    while n >= 1024 ** (k + 1) and k < len(units) - 1:
        k += 1
    return f"{n:,} bytes" if k == 0 else f"{n / 1024 ** k:,.1f} {units[k]}"


def _figure(fig: Any, ident: str, caption: str) -> str:
    """A ``<figure>`` holding ``fig`` as inline SVG; ``caption`` is HTML already escaped."""
    svg = plots.figure_svg(fig)
    return (f'<figure class="plot" id="{esc(ident)}">{svg}<figcaption>{caption}</figcaption></figure>')


def _collapsible(summary: str, body: str, open_: bool) -> str:
    return f"<details{' open' if open_ else ''}><summary>{summary}</summary>{body}</details>"


def _settings(report: ReportData) -> str:
    s = dict(report.settings)
    evaluation = dict(s.pop("evaluation", {}) or {})
    rows = [("cranfield", __version__)]
    rows += [(k, v) for k, v in s.items() if v is not None]
    rows += [(f"evaluation: {k}", v) for k, v in evaluation.items() if k != "cranfield" and v is not None]
    table = ['<div class="wrap"><table><tbody>']
    table += [f"<tr><th>{esc(k)}</th><td>{esc(', '.join(map(str, v)) if isinstance(v, (list, tuple)) else v)}</td>"
              "</tr>" for k, v in rows]
    table.append("</tbody></table></div>")
    inputs = list(report.inputs or [])
    gist = (f"cranfield {esc(__version__)}, test {esc(s.get('test'))}, correction {esc(s.get('correction'))}, "
            f"alpha {esc(s.get('alpha'))}, {len(inputs)} input file{'s' * (len(inputs) != 1)} with SHA-256")
    out = ['<section id="settings"><h2>Settings and provenance</h2>', _collapsible(gist, "".join(table), False)]
    if inputs:
        out.append('<h3>Input files</h3><div class="wrap"><table><thead><tr><th>role</th><th>file</th>'
                   '<th class="n">size</th><th>SHA-256</th></tr></thead><tbody>')
        for f in inputs:
            out.append(f"<tr><td>{esc(f.get('role', ''))}</td><td title=\"{esc(f.get('path', ''))}\">"
                       f"{esc(f.get('name', ''))}</td><td class=\"n\">{esc(size_text(int(f.get('bytes', 0))))}</td>"
                       f"<td class=\"hash\">{esc(f.get('sha256', ''))}</td></tr>")
        out.append("</tbody></table></div>")
        out += [_collapsible(f"ir_metadata of {esc(f.get('name', ''))}", _fields(f["ir_metadata"]), False)
                for f in inputs if f.get("ir_metadata")]
    else:
        out.append('<p class="note">The runs were given in memory: no input file is listed.</p>')
    found = list(report.warnings or [])
    if found:
        items = "".join(f"<li>{esc(w)}</li>" for w in found)
        out.append(_collapsible(f"{len(found)} warning{'s' * (len(found) != 1)} (topic sets, qrels)",
                                f'<ul class="warn">{items}</ul>', len(found) <= 5))
    out.append("</section>")
    return "\n".join(out)


def short_run_names(runs: Sequence[str]) -> list[str]:
    """Run labels for a reader: the ``tag#`` left out when every run has the same tag, then the
    file extensions every label shares (``.run.gz``, :data:`EXTENSIONS`); the names as they are
    when that would make two alike or one empty (``indri#web2012.ql.run.gz`` → ``web2012.ql``)."""
    names = list(runs)
    if names and all("#" in n for n in names) and len({n.partition("#")[0] for n in names}) == 1:
        names = [n.partition("#")[2] for n in names]
    parts = [n.split(".") for n in names]
    while parts and all(len(p) > 1 for p in parts) and len({p[-1] for p in parts}) == 1 \
            and parts[0][-1].lower() in EXTENSIONS:
        parts = [p[:-1] for p in parts]
    short = [".".join(p) for p in parts]
    return short if all(short) and len(set(short)) == len(short) else list(runs)


def _mark(report: ReportData, mark: list[str], many: bool) -> str:
    """A cell's significance mark: with a baseline ▲ (significantly better) or ▼ (worse), in
    colour with a title; else the letters of the runs it beats, as a superscript."""
    if not mark:
        return ""
    if report.baseline is not None:
        better = mark[0] == "+"
        word = "better" if better else "worse"
        return (f'<span class="{word}" title="significantly {word} than the baseline" '
                f'aria-label="significantly {word} than the baseline">{"▲" if better else "▼"}</span>')
    shown = ("," if many else "").join(mark)
    if len(mark) > 8:
        shown = f"{len(mark)} runs"
    say = f"significantly better than {esc(' '.join(mark))}"
    return f'<sup title="{say}" aria-label="{say}">{esc(shown)}</sup>'


def _results_table(report: ReportData, legend: str, pairs: bool = True, names: Sequence[str] | None = None) -> str:
    """The results table: a row per run, per measure its mean, significance mark and interval; the
    ``legend`` below it; then (``pairs``) the per-pair tables."""
    results, comparisons = report.results, report.comparisons
    names = list(results.runs) if names is None else list(names)
    means = results.summary()
    marks = report.markers()
    best = report.best()
    letters = report.baseline is None
    confidence = float(report.settings.get("confidence", 0.95))
    digits = [measure_digits(means[:, m]) for m in range(len(results.measures))]
    head = (["", "run"] if letters else ["run"]) + list(results.measures)
    out = ['<section id="results"><h2>Results</h2><div class="wrap"><table class="results"><thead><tr>']
    out += [f'<th{" class=n" if k >= (2 if letters else 1) else ""}>{esc(h)}</th>' for k, h in enumerate(head)]
    out.append("</tr></thead><tbody>")
    for s, run in enumerate(results.runs):
        cells = [f"<td>{run_letter(s)}</td>"] if letters else []
        name = f'<span title="{esc(run)}">{esc(names[s])}</span>' + (
            ' <span class="note">(baseline)</span>' if run == report.baseline else "")
        cells.append(f"<td>{name}</td>")
        for m, c in enumerate(comparisons):
            sup = _mark(report, marks[s][m], len(results.runs) > 26)
            lo, hi = c.ci[s]
            value = f'<span class="{"best" if best[s, m] else "v"}">{_number(means[s, m], digits[m])}</span>'
            cells.append(f'<td class="n" data-run="{s}" data-measure="{m}">{value}{sup}<br>'
                         f'<span class="ci">[{_number(lo, digits[m])}, {_number(hi, digits[m])}]</span></td>')
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table></div>")
    out.append(f'<p class="note">{esc(legend)} Bold: the best mean per measure over '
               f"{len(results.topics)} topics; below each mean its {confidence:.0%} t confidence interval.</p>")
    if pairs:
        out.append(_pairs(report, digits, names))
    out.append("</section>")
    return "\n".join(out)


def notebook_html(report: ReportData, legend: str) -> str:
    """What a notebook shows for a :class:`~cranfield.render.report.Report` (its ``_repr_html_``):
    the results table of the page (means, significance marks, intervals, the legend), styled
    in its own ``div``, without the page, the figures and the per-pair tables."""
    style = ("<style>.cranfield-report .best{font-weight:700}.cranfield-report .ci{color:#666;font-size:.85em}"
             ".cranfield-report .n{text-align:right}.cranfield-report sup{color:#0550ae}"
             ".cranfield-report .better{color:#1a7f37}.cranfield-report .worse{color:#cf222e}</style>")
    return f'<div class="cranfield-report">{style}{_results_table(report, legend, pairs=False)}</div>'


def _pairs(report: ReportData, digits: list[int], names: Sequence[str]) -> str:
    """Per measure, the pairs compared: difference, intervals, effect size, wins/ties/losses,
    p-values; a significant pair's difference marked ▲ (the first run is better) or ▼ (worse)."""
    out = []
    marks = report.markers()
    for m, c in enumerate(report.comparisons):
        n = len(c.pairs)
        if n == 0:
            continue
        if n > PAIR_ROWS:
            out.append(f'<p class="note">{esc(c.measure)}: {int(np.sum(c.significant))} of {n} pairs significant '
                       f"(the pairs are listed by <code>cranfield compare</code> or <code>Report.pairs_frame()</code>"
                       ").</p>")
            continue
        rows = ['<div class="wrap"><table><thead><tr><th>run</th><th>vs</th><th class="n">Δ mean</th>'
                '<th class="n">t CI</th><th class="n">bootstrap CI</th><th class="n">effect size</th>'
                '<th class="n">W/T/L</th><th class="n">p</th><th class="n">p adjusted</th></tr></thead><tbody>']
        d = digits[m]
        for k, (i, j) in enumerate(c.pairs.tolist()):
            sig = ' class="sig"' if c.significant[k] else ""
            better = ("+" in marks[i][m]) if report.baseline is not None else (run_letter(j) in marks[i][m])
            word = "better" if better else "worse"
            say = f"{esc(names[i])} is significantly {word} than {esc(names[j])}"
            arrow = (f' <span class="{word}" title="{say}" aria-label="{say}">'
                     f'{"▲" if better else "▼"}</span>') if c.significant[k] else ""
            rows.append(
                f'<tr{sig}><td title="{esc(c.runs[i])}">{esc(names[i])}</td>'
                f'<td title="{esc(c.runs[j])}">{esc(names[j])}</td>'
                f'<td class="n">{_number(c.difference[k], d)}{arrow}</td>'
                f'<td class="n">[{_number(c.ci_t[k, 0], d)}, {_number(c.ci_t[k, 1], d)}]</td>'
                f'<td class="n">[{_number(c.ci_bootstrap[k, 0], d)}, {_number(c.ci_bootstrap[k, 1], d)}]</td>'
                f'<td class="n">{_number(c.effect_size[k], 2)}</td>'
                f'<td class="n">{int(c.wins[k])}/{int(c.ties[k])}/{int(c.losses[k])}</td>'
                f'<td class="n">{_pvalue(float(c.pvalue[k]))}</td><td class="n">{_pvalue(float(c.pvalue_adjusted[k]))}'
                "</td></tr>")
        rows.append("</tbody></table></div>")
        out.append(_collapsible(f"{esc(c.measure)}: {n} pair{'s' * (n != 1)}, {int(np.sum(c.significant))} "
                                "significant (bold; ▲ first run better, ▼ worse)", "".join(rows), True))
    return "\n".join(out)


def _measure_section(report: ReportData, m: int, means: np.ndarray, order_by: np.ndarray, results: Any) -> str:
    """The figures of measure ``m``; ``results`` is the report's, its runs named for the reader."""
    name = results.measures[m]
    many = len(results.runs) > OPEN_RUNS
    c = report.comparisons[m]
    confidence = float(report.settings.get("confidence", 0.95))
    out = [f'<section id="measure-{m}"><h2>{esc(name)}</h2>']
    ranking = plots.new_figure(figsize=(7, plots.run_height(len(results.runs))), layout="constrained")
    plots.draw_ranking(ranking.subplots(), means[:, m], c.ci, results.runs, name, confidence)
    out.append(_collapsible("System ranking with confidence intervals", _figure(
        ranking, f"ranking-{m}", f"Runs sorted by {esc(name)}, with the {confidence:.0%} t interval of each mean."),
        True))
    out.append(_collapsible("Per-topic score distribution of every run", _figure(
        plots.distribution_figure(results, m), f"distribution-{m}",
        f"{esc(name)} over {len(results.topics)} topics: box (quartiles), whiskers (1.5 IQR), median (orange), "
        "mean (red diamond); best run on top."), not many))
    if report.baseline is not None and len(results.runs) > 1:
        b = report.results.runs.index(report.baseline)
        baseline = results.runs[b]
        others = [int(s) for s in plots.run_order(means[:, m]) if s != b]
        shown = others[:DIFFERENCE_PANELS]
        caption = (f"Per-topic difference in {esc(name)} against the baseline {esc(baseline)}, topics "
                   "sorted by size (as TREC overview papers draw it)")
        if len(others) > len(shown):
            caption += f"; the best {len(shown)} of {len(others)} runs by mean"
        body = _figure(plots.difference_figure(results, m, b, runs=shown), f"difference-{m}", caption + ".")
        if len(others) > len(shown):
            fig = plots.new_figure(figsize=(8, 4.5), layout="constrained")
            plots.draw_differences(fig.subplots(), results.values[others, m] - results.values[b, m], results.topics,
                                   [results.runs[s] for s in others], baseline, name)
            body += _figure(fig, f"difference-all-{m}", f"Every run's sorted per-topic differences against "
                            f"{esc(baseline)} (the best {plots.TOP_RUNS} named).")
        body += _collapsible(f"Per-topic table: {esc(name)} of the baseline and each run's difference",
                             _topic_table(results, m, b, shown), False)
        out.append(_collapsible("Per-topic difference against the baseline", body, True))
    out.append("</section>")
    return "\n".join(out)


def _topic_table(results: Any, m: int, b: int, runs: Sequence[int]) -> str:
    """Per topic (in the results' order), the baseline's score on measure ``m`` and each of ``runs``'
    difference from it: ▲ and green where the run scores higher, ▼ and red where lower (for a loss
    such as EE-L the signs are the measure's, not better or worse)."""
    values = results.values[:, m, :]
    digits = measure_digits(results.summary()[:, m])
    head = "".join(f'<th class="n" title="{esc(results.runs[s])}">Δ {esc(results.runs[s])}</th>' for s in runs)
    rows = []
    for t, topic in enumerate(results.topics):
        cells = [f"<td>{esc(topic)}</td>", f'<td class="n">{_number(values[b, t], digits)}</td>']
        for s in runs:
            d = float(values[s, t] - values[b, t])
            up = d > 0
            sign = "" if not math.isfinite(d) or d == 0 else (
                f' <span class="{"better" if up else "worse"}" aria-label="{"higher" if up else "lower"} than the '
                f'baseline">{"▲" if up else "▼"}</span>')
            cells.append(f'<td class="n">{_number(d, digits)}{sign}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="wrap"><table class="topics"><thead><tr><th>topic</th><th class="n">'
            f'{esc(results.runs[b])}</th>{head}</tr></thead><tbody>{"".join(rows)}</tbody></table></div>')


def _data_sections(report: ReportData, order: np.ndarray, results: Any) -> tuple[list[str], list[tuple[str, str]]]:
    """Sections of the figures drawn from the qrels and the runs (precision–recall, diversity, run
    lengths), from the report's figure data; ``results`` is the report's, its runs named for the reader."""
    figures = report.figures
    if figures is None:
        return ['<section id="curves"><h2>Curves</h2><p class="note">The precision–recall curves, intent coverage '
                "and run lengths need the qrels and runs: build the report with <code>Report(qrels, runs, "
                "measures)</code> rather than <code>Report.from_results</code>.</p></section>"], []
    names = list(results.runs)
    out, toc = [], []
    out.append('<section id="precision-recall"><h2>Interpolated precision–recall</h2>' + _figure(
        plots.precision_recall_figure(figures.recall_levels, figures.precision, names, order),
        "precision-recall", "Interpolated precision at the 11 recall levels (trec_eval's iprec_at_recall, "
        "IPrec@r), mean over topics.") + "</section>")
    toc.append(("precision-recall", "Precision–recall"))
    if figures.coverage is not None and figures.irec is not None:
        depth = figures.coverage_depth
        typed = ", then (nav) or (inf), its type" if any(x.endswith(("(nav)", "(inf)"))
                                                              for x in figures.coverage_labels) else ""
        body = _figure(plots.coverage_figure(figures.coverage, names, figures.coverage_labels, depth, order),
                       "intent-coverage",
                       f"Per-intent coverage: each intent (topic:intent{typed}; hover a column for its label) "
                       f"covered by a document relevant to it in the first {depth} ranks (IA(Success@{depth})'s "
                       "per-intent value), best run on top.")
        body += _figure(plots.intent_recall_figure(figures.irec_depths, figures.irec, names, order),
                        "intent-recall", "I-rec (subtopic recall) at depths 1–20, mean over topics.")
        out.append('<section id="diversity"><h2>Intents</h2>'
                   + _collapsible("Per-intent coverage and I-rec at depth", body, len(names) <= OPEN_RUNS * 2)
                   + "</section>")
        toc.append(("diversity", "Intents"))
    groups = report.group_exposure()
    if groups is not None:
        out.append('<section id="group-exposure"><h2>Exposure per group</h2>' + _figure(
            plots.group_exposure_figure(groups[0], groups[1], names, list(results.group_ids or []), order),
            "group-exposure", "Each group's share of the attention 1/log2(max(rank, 2)), mean over samples and "
            "topics, against the target distribution (AWRF compares the two per ranking).") + "</section>")
        toc.append(("group-exposure", "Exposure per group"))
    if figures.lengths is not None:
        lengths = figures.lengths
        out.append('<section id="run-lengths"><h2>Run lengths</h2>' + _collapsible(
            "Documents returned per topic", _figure(
                plots.run_lengths_figure(lengths, names, order), "run-lengths",
                "Documents returned per topic by each run: truncation-aware measures reward stopping early."),
            len(names) <= OPEN_RUNS) + "</section>")
        toc.append(("run-lengths", "Run lengths"))
    return out, toc


def _page_head(title: str) -> list[str]:
    """The opening lines of a page: the Content-Security-Policy, the title, the style."""
    return ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{esc(CSP)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">', f"<title>{esc(title)}</title>",
            f"<style>{STYLE}</style></head><body><main>"]


def _page_foot() -> list[str]:
    """The closing lines of a page."""
    return [f'<footer>cranfield {esc(__version__)}. This page loads nothing: Content-Security-Policy '
            f"<code>{esc(CSP)}</code>.</footer>", "</main></body></html>"]


def html_report(report: ReportData, legend: str) -> str:
    """A report's data as one self-contained HTML page (see the module docstring): the results
    table with significance and confidence intervals (``legend`` says what the marks mean: the
    test and the correction), per measure the ranking, score distributions and per-topic
    differences, the precision–recall curves, intent coverage and I-rec (diversity qrels) and run
    lengths (truncation-aware measures), settings and provenance last. Nothing is loaded at view time."""
    results = dataclasses.replace(report.results, runs=short_run_names(report.results.runs))
    means = report.results.summary()
    order = plots.run_order(means[:, 0]) if results.measures else np.arange(len(results.runs))
    title = f"cranfield report: {len(results.runs)} runs × {len(results.measures)} measures"
    data, data_toc = _data_sections(report, order, results)
    toc = [("results", "Results")]
    toc += [(f"measure-{m}", name) for m, name in enumerate(results.measures)]
    toc += data_toc
    judges = _judges_section(report)
    toc += [("judges", "Judges")] if judges else []
    toc.append(("settings", "Settings and provenance"))
    parts = [
        *_page_head(title),
        f"<header><h1>{esc(title)}</h1>",
        f'<p class="note">{len(results.topics)} topics; runs: {esc(_short_list(results.runs))}. Made by cranfield '
        f"{esc(__version__)}.</p>",
        "<nav><ul>" + "".join(f'<li><a href="#{esc(k)}">{esc(v)}</a></li>' for k, v in toc) + "</ul></nav></header>",
        _results_table(report, legend, names=results.runs),
        *[_measure_section(report, m, means, order, results) for m in range(len(results.measures))],
        *data,
        judges,
        _settings(report),
        *_page_foot(),
    ]
    return "\n".join(parts) + "\n"


def _judges_section(report: ReportData) -> str:
    """The agreement of other judges' qrels with the report's (docs/judges.md), as tables; empty
    without judges."""
    tables = report.judge_tables()
    if not any(rows for _, rows in tables):
        return ""
    out = ['<section id="judges"><h2>Judges</h2>',
           f'<p class="note">Other qrels against {esc(report.judges.reference)} (docs/judges.md).</p>']
    for title, rows in tables:
        if not rows:
            continue
        keys = list(rows[0])
        head = "".join(f"<th>{esc(k)}</th>" for k in keys)
        body = "".join("<tr>" + "".join(
            f"<td>{esc(r[k])}</td>" if isinstance(r[k], str) else
            f'<td class="n">{"–" if r[k] is None else r[k] if isinstance(r[k], int) else _number(r[k], 4)}</td>'
            for k in keys) + "</tr>" for r in rows)
        out.append(_collapsible(esc(title), f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>",
                                True))
    out.append("</section>")
    return "".join(out)


def _short_list(names: Sequence[str], limit: int = 8) -> str:
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _flat(value: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Nested dicts and lists as ``("a.b.0.c", value)`` rows."""
    if isinstance(value, dict):
        return [row for k, v in value.items() for row in _flat(v, f"{prefix}{k}.")]
    if isinstance(value, list) and any(isinstance(v, (dict, list)) for v in value):
        return [row for k, v in enumerate(value) for row in _flat(v, f"{prefix}{k}.")]
    return [(prefix.rstrip("."), ", ".join(map(str, value)) if isinstance(value, list) else value)]


def _fields(header: Any) -> str:
    """The fields of an ir_metadata header as a two-column table."""
    rows = "".join(f"<tr><td>{esc(k)}</td><td>{esc(v)}</td></tr>" for k, v in _flat(header))
    return f'<div class="wrap"><table><tbody>{rows}</tbody></table></div>'


def repro_html(result: Any) -> str:
    """A :class:`~cranfield.analysis.repro.ReproResult` as one self-contained HTML page, with the same
    guarantees as :func:`html_report` (inline SVG, no request): the provenance (settings, run files and
    the fields of their ir_metadata headers), the statistics' means, and
    :func:`~cranfield.render.plots.repro_figure`."""
    meta = dict(result.metadata)
    runs = meta.pop("runs", {})
    title = f"cranfield repro: {result.kind} of {len(result.measures)} measure{'s' * (len(result.measures) != 1)}"
    settings = "".join(f"<tr><th>{esc(k)}</th><td>{esc(v)}</td></tr>" for k, v in _flat(meta) if v is not None)
    files = []
    for role, info in runs.items():
        header = info.get("ir_metadata")
        files.append(f"<h3>{esc(role)}: {esc(info.get('source', ''))}</h3>"
                     + (_fields(header) if header else '<p class="note">no ir_metadata header</p>'))
    head = ["statistic", "measure", "run", "cutoff", "value"]
    body = "".join(
        "<tr>" + "".join(f"<td>{esc('' if v is None else v)}</td>" for v in (stat, measure, run, cutoff))
        + f'<td class="n">{esc(_pvalue(value) if stat == "p" else _number(value, 4))}</td></tr>'
        for stat, measure, run, cutoff, topic, value in result.rows if topic == "all")
    table = ('<div class="wrap"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head)
             + f"</tr></thead><tbody>{body}</tbody></table></div>")
    caption = ("Per measure, |original − reproduced| per topic (their root mean square is the RMSE); KTU and RBO "
               "against the cutoff." if result.kind == "reproducibility" else "ER against ΔRI, one point per measure.")
    parts = [
        *_page_head(title),
        f"<header><h1>{esc(title)}</h1><p class=note>Breuer et al., SIGIR 2020; made by cranfield "
        f"{esc(__version__)}.</p></header>",
        '<section id="settings"><h2>Settings and provenance</h2><div class="wrap"><table><tbody>'
        f"{settings}</tbody></table></div>{''.join(files)}</section>",
        f'<section id="statistics"><h2>Statistics (means over topics)</h2>{table}</section>',
        f'<section id="figures"><h2>Figures</h2>{_figure(plots.repro_figure(result), "repro", esc(caption))}</section>',
        *_page_foot(),
    ]
    return "\n".join(parts) + "\n"
