"""Reading nugget assignments: nuggetizer's JSONL and the tabular form (docs/nuggets.md)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from conftest import DATA
from cranfield import EvaluationWarning, InputError
from cranfield.io.nuggets import ASSIGNMENTS, IMPORTANCE, read_nuggets

NUGGETS = DATA / "nuggets"


@pytest.fixture(params=["tokenizer", "arrow"])
def reader(request, monkeypatch):
    """Each test twice: files read by cranfield's own readers, and by pyarrow's readers (used on
    large files when installed), which must give the same assignments and the same errors."""
    if request.param == "arrow":
        pytest.importorskip("pyarrow")
        import cranfield.io.nuggets as module

        monkeypatch.setattr(module, "_arrow_worth_it", lambda path: True)
    return request.param


def long_table(path) -> pd.DataFrame:
    """The assignments of a JSONL file as rows qid run nugget_id importance assignment, written
    here from the JSON (independently of the reader)."""
    import gzip

    opener = gzip.open if str(path).endswith(".gz") else open
    rows = []
    with opener(path, "rt") as f:
        for line in f:
            r = json.loads(line)
            rows += [(r["qid"], r["run_id"], str(k), n["importance"], n["assignment"])
                     for k, n in enumerate(r["nuggets"], 1)]
    return pd.DataFrame(rows, columns=["qid", "run", "nugget_id", "importance", "assignment"])


def record(qid="q1", run="r1", nuggets=(("vital", "support"),)) -> str:
    return json.dumps({"qid": qid, "run_id": run, "nuggets": [{"text": "x", "importance": i, "assignment": a}
                                                              for i, a in nuggets]}) + "\n"


def test_jsonl_reads_codes_in_order_of_appearance(write, reader):
    path = write("a.jsonl", record("q2", "r1", [("vital", "support"), ("okay", "partial_support")])
                 + record("q1", "r1", []) + record("q2", "r2", [("okay", "failed")]))
    with pytest.warns(EvaluationWarning, match="1 nugget assignment marked 'failed'"):
        got = read_nuggets(path)
    assert got.runs == ["r1", "r2"] and got.topics == ["q2", "q1"]
    assert got.answer_run.tolist() == [0, 0, 1] and got.answer_topic.tolist() == [0, 1, 0]
    assert [IMPORTANCE[i] for i in got.importance] == ["vital", "okay", "okay"]
    assert [ASSIGNMENTS[a] for a in got.assignment] == ["support", "partial_support", "failed"]
    assert [got.nugget_ids[k] for k in got.nugget] == ["1", "2", "1"]
    counts, present = got.counts()
    assert present.tolist() == [[True, True], [True, False]]  # r1 answers q1 with no nugget
    assert counts.sum() == 3 and counts[1, 3, 1, 0] == 1


def test_one_warning_counts_every_failed(write, recwarn):
    path = write("a.jsonl", record("q1", "r", [("vital", "failed")] * 3) + record("q2", "r", [("okay", "failed")]))
    read_nuggets(path)
    messages = [str(w.message) for w in recwarn if issubclass(w.category, EvaluationWarning)]
    assert len(messages) == 1 and messages[0].startswith("4 nugget assignments marked 'failed'")


def test_run_id_defaults_to_the_file_stem(write):
    path = write("bm25.jsonl", json.dumps({"qid": "1", "nuggets": []}) + "\n")
    assert read_nuggets(path).runs == ["bm25"]


@pytest.mark.parametrize(("name", "text", "message"), [
    ("a.jsonl", record() + record("q2", nuggets=[("vital", "support"), ("important", "support")]),
     r"a\.jsonl:2: unknown importance 'important': expected 'vital' or 'okay'"),
    ("a.jsonl", record() + "\n" + record("q2", nuggets=[("okay", "yes")]),
     r"a\.jsonl:3: unknown assignment 'yes': expected 'support' or 'partial_support' or 'not_support' or 'failed'"),
    ("a.jsonl", record() + record(), r"a\.jsonl:2: a second answer of run 'r1' to topic 'q1'"),
    ("a.jsonl", record() + '{"qid": "q2", "nuggets": [}\n', r"a\.jsonl:2: not a JSON object"),
    ("a.jsonl", record() + '{"run_id": "r", "nuggets": []}\n', r"a\.jsonl:2: the record has no 'qid'"),
    ("a.jsonl", record() + '{"qid": "q3"}\n', r"a\.jsonl:2: the record has no 'nuggets' list"),
    ("a.jsonl", '{"qid": "q3", "nuggets": [{"importance": "vital"}]}\n', r"a\.jsonl:1: nugget 1 is not an object with"),
    ("a.txt", "q1 r1 n1 vital support\nq1 r1 n2 high support\n", r"a\.txt:2: unknown importance 'high'"),
    ("a.txt", "qid run nugget_id importance assignment\nq1 r1 n1 vital support\nq1 r1 n2 okay none\n",
     r"a\.txt:3: unknown assignment 'none'"),
    ("a.txt", "q1 r1 n1 vital support\nq1 r2 n1 vital support\nq1 r1 n1 vital not_support\n",
     r"a\.txt:3: nugget 'n1' is assigned twice to the answer of run 'r1' to topic 'q1'"),
    ("a.txt", "q1 r1 n1 vital\n", r"a\.txt:1: "),
    ("a.tsv", "q1\tr1\tn1\tvital\tsupport\nq 1\tr1\tn1\tvital\tsupport\n", r"a\.tsv:2: "),
])
def test_errors_name_file_and_line(write, reader, name, text, message):
    with pytest.raises(InputError, match=message):
        read_nuggets(write(name, text))


def test_blanks_around_tab_separated_fields_are_separators(write, reader):
    got = read_nuggets(write("a.tsv", "q1\tr1 \tn1\t vital\tsupport\nq1\tr1\tn2\tokay\tsupport\n"))
    assert got.runs == ["r1"] and got.importance.tolist() == [0, 1]


def test_table_text_with_and_without_header(write, reader):
    body = "q1 r1 n1 vital support\nq1 r1 n2 okay partial_support\nq1 r2 n1 vital not_support\n"
    plain = read_nuggets(write("a.tsv", body.replace(" ", "\t")))
    headed = read_nuggets(write("b.txt", "qid run nugget_id importance assignment\n" + body))
    for got in (plain, headed):
        assert got.runs == ["r1", "r2"] and got.topics == ["q1"] and got.nugget_ids == ["n1", "n2"]
        assert got.assignment.tolist() == [0, 1, 2] and got.importance.tolist() == [0, 1, 0]


def test_csv_errors_count_the_header_line(write, reader):
    text = "qid,run,nugget_id,importance,assignment\nq1,r1,n1,vital,support\nq1,r1,n1,okay,support\n"
    with pytest.raises(InputError, match=r"a\.csv:3: nugget 'n1' is assigned twice"):
        read_nuggets(write("a.csv", text))
    with pytest.raises(InputError, match=r"a\.csv:2: unknown importance 'Vital'"):
        read_nuggets(write("a.csv", text.replace(",vital,", ",Vital,")))


def test_every_form_reads_the_same_assignments(tmp_path, reader):
    """JSONL, whitespace text, CSV, Parquet and a DataFrame of the same assignments agree."""
    frame = long_table(NUGGETS / "random.jsonl")
    frame.to_csv(tmp_path / "a.tsv", sep="\t", index=False)
    frame.to_csv(tmp_path / "a.csv", index=False)
    with pytest.warns(EvaluationWarning, match="failed"):
        forms = [read_nuggets(NUGGETS / "random.jsonl"), read_nuggets(tmp_path / "a.tsv"),
                 read_nuggets(tmp_path / "a.csv"), read_nuggets(frame)]
    pytest.importorskip("pyarrow")
    frame.to_parquet(tmp_path / "a.parquet")
    with pytest.warns(EvaluationWarning, match="failed"):
        forms.append(read_nuggets(tmp_path / "a.parquet"))
    want = forms[0].to_frame().astype(str)
    for got in forms[1:]:
        pd.testing.assert_frame_equal(got.to_frame().astype(str), want)


def test_several_files_merge_and_an_answer_given_twice_is_an_error(write):
    a = write("a.jsonl", record("q1", "r1") + record("q2", "r1"))
    b = write("b.txt", "q1 r2 1 okay support\n")
    got = read_nuggets([a, b])
    assert got.runs == ["r1", "r2"] and got.topics == ["q1", "q2"] and got.sources == (str(a), str(b))
    assert got.to_frame()["run"].tolist() == ["r1", "r1", "r2"]
    with pytest.raises(InputError, match=r"c\.txt: the answer of run 'r1' to topic 'q2' is given in .*a\.jsonl too"):
        read_nuggets([a, write("c.txt", "q2 r1 1 okay support\n")])


def test_long_table_for_comparing_assignment_sets():
    """to_frame: one row per (qid, run, nugget_id) with its importance and label."""
    frame = read_nuggets(NUGGETS / "rag.nuggets.jsonl", warn_failed=False).to_frame()
    assert list(frame.columns) == ["qid", "run", "nugget_id", "importance", "label"]
    assert not frame.duplicated(["qid", "run", "nugget_id"]).any()
    first = frame.iloc[0]
    assert (first.qid, first.run, first.nugget_id, first.importance, first.label) == (
        "t1", "bm25_llama", "1", "vital", "support")
    assert set(frame["label"]) <= set(ASSIGNMENTS) and frame["label"].eq("failed").sum() == 1


def test_long_table_reads_back(tmp_path, reader):
    """The long table written as text or CSV (its header says label for assignment) reads back the same."""
    got = read_nuggets(NUGGETS / "random.jsonl", warn_failed=False)
    frame = got.to_frame()
    frame.to_csv(tmp_path / "a.tsv", sep="\t", index=False)
    frame[["label", "run", "qid", "importance", "nugget_id"]].to_csv(tmp_path / "a.csv", index=False)
    for path in (tmp_path / "a.tsv", tmp_path / "a.csv"):
        back = read_nuggets(path, warn_failed=False).to_frame()
        pd.testing.assert_frame_equal(back.astype(str), frame.astype(str))


def test_empty_inputs_are_errors(write):
    with pytest.raises(InputError, match="empty"):
        read_nuggets(write("a.jsonl", "\n\n"))
    with pytest.raises(InputError, match="header line and no assignment"):
        read_nuggets(write("a.txt", "qid run nugget_id importance assignment\n"))
    with pytest.raises(InputError, match="no nugget_id column"):
        read_nuggets(pd.DataFrame({"qid": ["1"], "run": ["r"], "importance": ["vital"], "assignment": ["support"]}))


def test_counts_are_the_histogram_of_the_assignments(reader):
    got = read_nuggets(NUGGETS / "rag24_baselines.jsonl.gz")
    counts, present = got.counts()
    assert counts.sum() == len(got) and present.sum() == got.answer_run.size
    s, t = got.run[0], got.topic[0]
    mine = (got.run == s) & (got.topic == t)
    for i in range(2):
        for a in range(4):
            assert counts[i, a, s, t] == np.count_nonzero(mine & (got.importance == i) & (got.assignment == a))


def test_pyarrow_reads_regular_files_itself(monkeypatch, tmp_path):
    """On regular files the pyarrow readers give the assignments without falling back."""
    pytest.importorskip("pyarrow")
    import cranfield.io.nuggets as module

    monkeypatch.setattr(module, "_arrow_worth_it", lambda path: True)
    for fallback in ("read_nuggets_jsonl", "_read_text", "_read_csv"):
        monkeypatch.setattr(module, fallback, lambda *a: pytest.fail("fell back"))
    frame = long_table(NUGGETS / "random.jsonl")
    frame.to_csv(tmp_path / "a.tsv", sep="\t", index=False, header=False)
    frame.to_csv(tmp_path / "a.csv", index=False)
    with pytest.warns(EvaluationWarning, match="failed"):
        got = [read_nuggets(p) for p in (NUGGETS / "random.jsonl", tmp_path / "a.tsv", tmp_path / "a.csv")]
    assert all(len(g) == len(frame) for g in got)
