"""Rich display in notebooks (``_repr_html_``, the IPython display protocol) and short reprs:
the HTML parsed back (html.parser) holds the numbers of ``to_frame()``, names escaped, sizes bounded;
one real Jupyter kernel shows ``text/html`` for a bare ``results`` cell."""

from __future__ import annotations

import math
from html.parser import HTMLParser

import numpy as np
import pytest

from cranfield.analysis.similarity import compare_rankings
from cranfield.analysis.truncation import optimal_truncation
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io.examples import example_files
from cranfield.measures.registry import catalogue, iter_specs, lookup
from cranfield.render.report import Report


class _Table(HTMLParser):
    """The rows of the tables of an HTML fragment (header and data cells as text), and whether a
    ``<script>`` element appears."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.tags: set[str] = set()
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.add(tag)
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def _parse(text: str) -> _Table:
    parser = _Table()
    parser.feed(text)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def results():
    files = example_files()
    return Evaluator(files["qrels"], ["AP", "nDCG@10", "P@10", "RR", "ERR@20", "R@1000"]).evaluate(files["runs"])


def test_results_html_holds_the_means_of_to_frame(results) -> None:
    table = _parse(results._repr_html_())
    means = results.to_frame(per_topic=False).pivot(index="run", columns="measure", values="value")
    assert table.rows[0][1:] == results.measures  # the header: one column per measure
    body = [row for row in table.rows if row and row[0] in results.runs]
    assert [row[0] for row in body] == results.runs
    for row in body:
        for measure, cell in zip(results.measures, row[1:]):
            assert float(cell) == pytest.approx(means.loc[row[0], measure], abs=5e-5)


def test_results_repr_is_one_short_line(results) -> None:
    text = repr(results)
    assert text == "Results(2 runs × 6 measures × 50 topics; AP, nDCG@10, P@10, RR, ERR@20, ...)"
    assert len(results._repr_html_()) < 4000  # a table of means, not the 50 topics


def test_results_html_escapes_run_names() -> None:
    files = example_files()
    hostile = {"<script>alert(1)</script>": files["runs"][0], "a&b": files["runs"][1]}
    results = Evaluator(files["qrels"], ["AP"]).evaluate(hostile)
    text = results._repr_html_()
    table = _parse(text)
    assert "script" not in table.tags and "<script>" not in text
    assert [row[0] for row in table.rows if row and row[0] in hostile] == list(hostile)


def test_report_html_shows_means_and_marks(results) -> None:
    report = Report.from_results(results)
    table = _parse(report._repr_html_())
    wide = report.to_frame(wide=True)
    marks = report.markers()
    body = [row for row in table.rows if len(row) == len(results.measures) + 2]
    assert [row[1] for row in body[1:]] == results.runs
    for s, row in enumerate(body[1:]):
        for m, cell in enumerate(row[2:]):
            shown = cell.split("[")[0]  # mean, marks, then the interval
            mark = "".join(marks[s][m])
            assert shown.endswith(mark)
            assert float(shown[:len(shown) - len(mark)]) == pytest.approx(wide.iloc[s, m], abs=5e-4)
    assert report._repr_markdown_() == report.to_markdown()
    against = Report.from_results(results, baseline=0, correction="none", alpha=0.5)
    shown = against._repr_html_()
    marks = [mark for row in against.markers() for cell in row for mark in cell]
    assert "+" in marks and shown.count('class="better"') == marks.count("+")
    assert shown.count('class="worse"') == marks.count("-") and "▲/▼: significantly better/worse" in shown


def test_study_results_show_their_frame() -> None:
    files = example_files()
    study = compare_rankings(files["runs"], ["RBO(p=0.9)", "Jaccard@10"])
    frame = study.to_frame(per_topic=False)
    table = _parse(study._repr_html_())
    assert table.rows[0] == [str(c) for c in frame.columns]
    values = [float(row[list(frame.columns).index("value")]) for row in table.rows[1:]]
    assert values == pytest.approx(frame["value"].tolist(), abs=5e-5)
    assert repr(study).startswith(f"SimilarityResult({len(frame)} rows × {frame.shape[1]} columns: ")

    truncation = optimal_truncation(files["qrels"], files["runs"][:1], ["RBU@10"])
    frame = truncation.to_frame()
    rows = _parse(truncation._repr_html_()).rows
    assert len(rows) == 1 + min(len(frame), 21)  # header + at most 20 rows and the "..." row
    assert len(repr(truncation)) < 200


def test_catalogue_lists_every_measure() -> None:
    listing = catalogue()
    rows = _parse(listing._repr_html_()).rows
    assert [row[0] for row in rows[1:]] == [spec.name for spec in iter_specs()]
    assert repr(listing).startswith(f"Catalogue({len(rows) - 1} measures: P, R, AP")
    ndcg = _parse(lookup("nDCG")._repr_html_()).rows
    assert [row[0] for row in ndcg[1:]] == [p.name for p in lookup("nDCG").params]
    assert dict((row[0], row[1]) for row in ndcg[1:])["gains"] == "linear"


def test_nan_shows_as_a_dash() -> None:
    from cranfield._display import number

    assert number(math.nan) == "—" and number(np.float64(0.25)) == "0.2500" and number(3) == "3"


def test_a_jupyter_kernel_shows_results_as_html() -> None:
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    cell = ("from cranfield.evaluation.evaluator import Evaluator\n"
            "from cranfield.io.examples import example_files\n"
            "f = example_files()\n"
            "results = Evaluator(f['qrels'], ['AP', 'nDCG@10']).evaluate(f['runs'])\n"
            "results")
    book = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(cell)])
    nbclient.NotebookClient(book, timeout=120, kernel_name="python3").execute()
    (output,) = [o for o in book.cells[0].outputs if o["output_type"] == "execute_result"]
    assert "text/html" in output["data"]
    assert output["data"]["text/plain"] == "Results(2 runs × 2 measures × 50 topics; AP, nDCG@10)"
    assert _parse(output["data"]["text/html"]).rows[0][1:] == ["AP", "nDCG@10"]
