"""Parquet files and Arrow tables as runs and qrels, Parquet results, and named runs
(cranfield.io.arrow, Results.to_parquet, ``eval --format parquet``, docs/parquet.md).

The real pyarrow writes and reads every file; the one stand-in is ``sys.modules['pyarrow'] = None``
to show the error a user without pyarrow gets.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, run_main
from cranfield import evaluate
from cranfield.compat.formats import render
from cranfield.errors import CranfieldError, InputError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import as_qrels, as_run
from cranfield.io.arrow import write_results_parquet
from cranfield.render.outputs import formats_for, render_output

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROBUST = DATA / "robust03"
QRELS = ROBUST / "qrels.txt.gz"
RUNS = sorted(ROBUST.glob("input.*.gz"))[:2]
MEASURES = ["AP", "nDCG@10", "P@10", "RR", "R@1000", "bpref", "NumRelRet"]

# ir_measures' and PyTerrier's column names for the same columns
RUN_NAMES = {"ir_measures": ("query_id", "doc_id", "score"), "pyterrier": ("qid", "docno", "score")}
QRELS_NAMES = {"ir_measures": ("query_id", "iteration", "doc_id", "relevance"),
               "pyterrier": ("qid", "iteration", "docno", "label")}


def _lines(path: Path) -> list[list[str]]:
    with gzip.open(path, "rt") as f:
        return [line.split() for line in f if line.strip()]


def run_frame(path: Path, convention: str, tag: bool = True) -> pd.DataFrame:
    """A TREC run file as a frame in one column convention (parsed here, not by cranfield)."""
    qid, doc, score = RUN_NAMES[convention]
    rows = _lines(path)
    df = pd.DataFrame({qid: [r[0] for r in rows], doc: [r[2] for r in rows], "rank": [int(r[3]) for r in rows],
                       score: [float(r[4]) for r in rows]})
    if tag:
        df["tag"] = [r[5] for r in rows]
    return df


def qrels_frame(path: Path, convention: str) -> pd.DataFrame:
    qid, it, doc, rel = QRELS_NAMES[convention]
    rows = _lines(path)
    return pd.DataFrame({qid: [r[0] for r in rows], it: [r[1] for r in rows], doc: [r[2] for r in rows],
                         rel: [int(r[3]) for r in rows]})


def to_parquet(df: pd.DataFrame, path: Path) -> Path:
    pq.write_table(pa.Table.from_pandas(df, preserve_index=False), path)
    return path


@pytest.fixture(scope="module")
def text_results():
    return Evaluator(QRELS, MEASURES).evaluate(RUNS)


@pytest.mark.parametrize("convention", ["ir_measures", "pyterrier"])
def test_parquet_files_score_as_the_text_files(tmp_path, text_results, convention):
    qrels = to_parquet(qrels_frame(QRELS, convention), tmp_path / "qrels.parquet")
    runs = [to_parquet(run_frame(r, convention), tmp_path / f"{r.name}.parquet") for r in RUNS]
    results = Evaluator(qrels, MEASURES).evaluate(runs)
    assert results.runs == text_results.runs  # named by their tag column
    assert results.topics == text_results.topics
    np.testing.assert_array_equal(results.values, text_results.values)
    np.testing.assert_array_equal(results.summary(), text_results.summary())


@pytest.mark.parametrize("convention", ["ir_measures", "pyterrier"])
def test_tables_and_frames_score_as_the_text_files(text_results, convention):
    qrels = qrels_frame(QRELS, convention)
    frames = [run_frame(r, convention) for r in RUNS]
    for q, runs in ((qrels, frames), (pa.Table.from_pandas(qrels), [pa.Table.from_pandas(f) for f in frames])):
        results = Evaluator(q, MEASURES).evaluate(runs)
        assert results.runs == text_results.runs
        np.testing.assert_array_equal(results.values, text_results.values)


def test_order_rank_uses_the_rank_column(tmp_path):
    frame = run_frame(RUNS[0], "pyterrier")
    path = to_parquet(frame, tmp_path / "r.parquet")
    by_rank = as_run(path, order="rank")
    assert by_rank.ranking("303") == list(frame.loc[frame.qid == "303"].sort_values("rank").docno)
    assert by_rank.source == str(path)


def test_cli_reads_parquet_qrels_and_runs(tmp_path, capsys):
    qrels = to_parquet(qrels_frame(QRELS, "ir_measures"), tmp_path / "qrels.parquet")
    runs = [to_parquet(run_frame(r, "pyterrier"), tmp_path / f"{r.name}.parquet") for r in RUNS]
    code, out, _ = run_main(capsys, ["eval", qrels, *runs, "-m", "AP,nDCG@10", "-q", "--format", "csv"])
    code_text, out_text, _ = run_main(capsys, ["eval", QRELS, *RUNS, "-m", "AP,nDCG@10", "-q", "--format", "csv"])
    assert code == code_text == 0
    assert out.splitlines()[1:] == out_text.splitlines()[1:]  # all but the # line, which names the qrels


def test_a_parquet_run_without_a_tag_is_named_by_its_file(tmp_path):
    path = to_parquet(run_frame(RUNS[0], "ir_measures", tag=False), tmp_path / "bm25.parquet")
    assert as_run(path).name == "bm25.parquet"
    assert as_run(path, name="given").name == "given"


# --- bad values: named as the frame readers name them --------------------------------------------------------------

def test_a_score_that_is_not_a_number_names_topic_and_document(tmp_path):
    path = to_parquet(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": ["0.5", "high"]}),
                      tmp_path / "r.parquet")
    with pytest.raises(InputError, match=r"r\.parquet: topic '1', document 'b': score 'high' in column 'score'"):
        as_run(path)


def test_a_null_score_names_topic_and_document():
    table = pa.table({"query_id": ["1", "2"], "doc_id": ["a", "b"], "score": [1.0, None]})
    with pytest.raises(InputError, match=r"<Table>: topic '2', document 'b': score nan .*\(NaN\)"):
        as_run(table)


def test_a_null_id_names_its_row(tmp_path):
    path = to_parquet(pd.DataFrame({"qid": ["1", "1", "1"], "docno": ["a", None, "c"], "label": [1, 0, 2]}),
                      tmp_path / "q.parquet")
    with pytest.raises(InputError, match=r"q\.parquet: row 2: column 'docno' is null"):
        as_qrels(path)
    with pytest.raises(InputError, match=r"<DataFrame>: row 2: the document id is missing"):
        as_qrels(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", None], "label": [1, 0]}))


def test_a_label_that_is_not_an_integer_names_topic_and_document():
    table = pa.table({"query_id": ["7"], "doc_id": ["d"], "relevance": [1.5]})
    with pytest.raises(InputError, match=r"topic '7', document 'd': label 1\.5 in column 'relevance'"):
        as_qrels(table)


def test_a_missing_column_lists_the_accepted_names():
    with pytest.raises(InputError, match=r"no score column: expected one of \('score', 'sim'\)"):
        as_run(pa.table({"qid": ["1"], "docno": ["a"]}))


def test_a_duplicate_document_is_refused_as_in_frames():
    table = pa.table({"qid": ["1", "1"], "docno": ["a", "a"], "score": [2.0, 1.0]})
    with pytest.raises(InputError, match="document 'a' appears twice for topic '1'"):
        as_run(table)
    assert as_run(table, on_duplicate="first").ranking("1") == ["a"]


def test_a_file_that_is_not_parquet(tmp_path):
    path = tmp_path / "run.parquet"
    path.write_text("1 Q0 a 1 1.0 t\n")
    with pytest.raises(InputError, match=r"run\.parquet: cannot read it as Parquet"):
        as_run(path)
    with pytest.raises(InputError, match="no such file"):
        as_qrels(tmp_path / "absent.parquet")


# --- Parquet output ------------------------------------------------------------------------------------------------

def test_to_parquet_reads_back_as_to_frame(tmp_path, text_results):
    path = tmp_path / "out.parquet"
    text_results.to_parquet(path)
    back = pd.read_parquet(path)
    pd.testing.assert_frame_equal(back, text_results.to_frame(), check_dtype=False)
    schema = pq.read_schema(path)
    assert [(f.name, str(f.type)) for f in schema] == [("run", "string"), ("topic", "string"),
                                                        ("measure", "string"), ("value", "double")]
    assert json.loads(schema.metadata[b"cranfield.provenance"])["measures"] == text_results.provenance["measures"]
    assert not list(tmp_path.glob("*.part"))  # written beside the target, then renamed


def test_nan_is_written_as_null(tmp_path):
    path = tmp_path / "nan.parquet"
    write_results_parquet(path, [("r", "1", "AP", 0.5), ("r", "all", "AP", math.nan)])
    table = pq.read_table(path)
    assert table.column("value").to_pylist() == [0.5, None]


def test_an_unwritable_parquet_path_fails_and_leaves_nothing(tmp_path, text_results):
    with pytest.raises(CranfieldError, match="does not exist"):
        text_results.to_parquet(tmp_path / "no" / "out.parquet")
    assert list(tmp_path.iterdir()) == []


def test_cli_format_parquet_writes_the_json_rows(tmp_path, capsys):
    out = tmp_path / "scores.parquet"
    code, stdout, _ = run_main(capsys, ["eval", QRELS, *RUNS[:2], "-m", "AP,P@10", "-q", "--format", "parquet",
                                        "-o", out])
    assert code == 0 and stdout == ""
    _, text, _ = run_main(capsys, ["eval", QRELS, *RUNS[:2], "-m", "AP,P@10", "-q", "--format", "json"])
    expected = pd.DataFrame(json.loads(text))
    pd.testing.assert_frame_equal(pd.read_parquet(out), expected, check_dtype=False)


def test_cli_format_parquet_with_a_baseline_has_trisk_rows(tmp_path, capsys):
    out = tmp_path / "risk.parquet"
    code, _, _ = run_main(capsys, ["eval", QRELS, RUNS[0], "-m", "AP", "--baseline", RUNS[1], "--format", "parquet",
                                   "-o", out])
    assert code == 0
    assert list(pd.read_parquet(out).measure) == ["AP", "AP[TRisk]"]


def test_cli_format_parquet_without_output_is_refused(capsys):
    code, out, err = run_main(capsys, ["eval", QRELS, RUNS[0], "--format", "parquet"])
    assert code == 2 and out == ""
    assert "--format parquet writes a binary file: give it with -o FILE" in err
    assert len(err.strip().splitlines()) == 1


def test_render_refuses_parquet(text_results):
    with pytest.raises(CranfieldError, match="binary format"):
        render(text_results, "parquet")


# --- pyarrow missing -----------------------------------------------------------------------------------------------

def test_without_pyarrow_one_clear_error(tmp_path, monkeypatch, capsys, text_results):
    path = to_parquet(run_frame(RUNS[0], "pyterrier"), tmp_path / "r.parquet")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    missing = r"need pyarrow, which is not installed: pip install 'cranfield\[parquet\]'"
    with pytest.raises(CranfieldError, match=missing):
        as_run(path)
    with pytest.raises(CranfieldError, match=r"pip install 'cranfield\[parquet\]'"):
        text_results.to_parquet(tmp_path / "out.parquet")
    code, _, err = run_main(capsys, ["eval", QRELS, path])
    assert code == 2 and len(err.strip().splitlines()) == 1 and "cranfield[parquet]" in err
    code, _, err = run_main(capsys, ["eval", QRELS, RUNS[0], "--format", "parquet", "-o", tmp_path / "o.parquet"])
    assert code == 2 and "cranfield[parquet]" in err and not (tmp_path / "o.parquet").exists()


# --- named runs ----------------------------------------------------------------------------------------------------

QRELS_DICT = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"a": 0, "d": 1}}
RUN_A = {"1": {"a": 0.9, "b": 0.8, "c": 0.1}, "2": {"d": 1.0}}
RUN_B = pd.DataFrame({"qid": ["1", "1", "2"], "docno": ["c", "a", "a"], "score": [3.0, 2.0, 1.0]})


def test_a_dict_of_runs_names_them_in_every_text_format():
    results = Evaluator(QRELS_DICT, ["AP", "P@2"]).evaluate({"bm25": RUN_A, "dense": RUN_B})
    assert results.runs == ["bm25", "dense"]
    assert list(results.to_frame().run.unique()) == ["bm25", "dense"]
    import cranfield.render.writers  # noqa: F401  (the registry's writers)

    for fmt in formats_for("eval"):
        if fmt == "parquet":
            continue
        text = render_output("eval", fmt, results, per_topic=True)
        assert "bm25" in text and "dense" in text and "run#" not in text, fmt


def test_names_argument_in_every_output(tmp_path):
    runs = [RUN_A, pa.Table.from_pandas(RUN_B)]
    df = evaluate(QRELS_DICT, runs, ["AP"], names=["bm25", "dense"])
    assert list(df.run.unique()) == ["bm25", "dense"]
    results = Evaluator(QRELS_DICT, ["AP"]).evaluate(runs, names=["bm25", "dense"])
    results.to_parquet(tmp_path / "o.parquet")
    assert list(pd.read_parquet(tmp_path / "o.parquet").run.unique()) == ["bm25", "dense"]
    assert [r["run"] for r in results.to_dict()["rows"]][-1] == "dense"


def test_named_runs_score_as_unnamed_ones():
    named = evaluate(QRELS_DICT, {"x": RUN_A, "y": RUN_B}, ["AP", "nDCG@10"])
    plain = evaluate(QRELS_DICT, [RUN_A, RUN_B], ["AP", "nDCG@10"])
    assert list(plain.run.unique()) == ["run1", "run2"]
    np.testing.assert_array_equal(named.value, plain.value)


def test_default_names():
    tagged = RUN_B.assign(tag="dense")
    results = Evaluator(QRELS_DICT, ["AP"]).evaluate([RUN_A, tagged, RUN_B])
    assert results.runs == ["run1", "dense", "run3"]  # position in the list; a single-valued tag names the frame
    assert Evaluator(QRELS_DICT, ["AP"]).evaluate(RUN_A).runs == ["run"]  # a lone run
    assert Evaluator(QRELS_DICT, ["AP"]).evaluate(pa.Table.from_pandas(tagged)).runs == ["dense"]
    mixed = Evaluator(QRELS, ["AP"]).evaluate([RUNS[0], run_frame(RUNS[1], "ir_measures", tag=False)])
    assert mixed.runs == [RUNS[0].name.split(".")[1], "run2"]  # a file keeps its tag


@pytest.mark.parametrize("runs, names, message", [
    ([RUN_A, RUN_B], ["x", "x"], "the run name 'x' is given twice"),
    ([RUN_A, RUN_B], ["x"], "1 run names given for 2 runs"),
    ([RUN_A, RUN_B], ["x", ""], "run names must be non-empty strings"),
    ({"x": RUN_A, "y": RUN_B}, ["a", "b"], "named by its keys"),
])
def test_bad_names(runs, names, message):
    with pytest.raises(CranfieldError, match=message):
        Evaluator(QRELS_DICT, ["AP"]).evaluate(runs, names=names)


def test_names_must_be_a_list():
    with pytest.raises(TypeError, match="names must be a list of run names"):
        evaluate(QRELS_DICT, [RUN_A], ["AP"], names="bm25")


def test_a_pytrec_eval_run_is_not_taken_for_named_runs():
    # {qid: {docno: score}}: its values are rankings, not runs
    assert Evaluator(QRELS_DICT, ["AP"]).evaluate(RUN_A).runs == ["run"]


# --- property: a frame, its Arrow table and its Parquet file are the same run ---------------------------------------

ids = st.text(alphabet="abcxyz019-", min_size=1, max_size=4).filter(lambda s: s != "all")


@settings(max_examples=20, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), ids, st.floats(-5, 5, allow_nan=False)),
                min_size=1, max_size=25, unique_by=lambda r: (r[0], r[1])),
       st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), ids, st.integers(-2, 3)),
                min_size=1, max_size=25, unique_by=lambda r: (r[0], r[1])))
def test_frame_table_and_parquet_agree(tmp_path_factory, run_rows, qrels_rows):
    run = pd.DataFrame(run_rows, columns=["query_id", "doc_id", "score"])
    qrels = pd.DataFrame(qrels_rows, columns=["qid", "docno", "label"])
    if not set(run.query_id) & set(qrels.qid):
        return  # no common topic: refused whatever the input form (tested elsewhere)
    folder = tmp_path_factory.mktemp("p")
    forms = [(qrels, run), (pa.Table.from_pandas(qrels), pa.Table.from_pandas(run)),
             (to_parquet(qrels, folder / "q.parquet"), to_parquet(run, folder / "r.parquet"))]
    frames = [evaluate(q, r, ["AP", "nDCG@5", "P@3"], names=["r"], missing="zero") for q, r in forms]
    for other in frames[1:]:
        pd.testing.assert_frame_equal(other, frames[0])
