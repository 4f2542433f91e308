"""Reading qrels, diversity qrels and intent files (docs/conventions.md#files)."""

from __future__ import annotations

import pandas as pd
import pytest

from conftest import DATA
from cranfield import EvaluationWarning, InputError, read_intents, read_qrels
from cranfield.io import as_qrels, qrels_from_dict, qrels_from_frame


def test_adhoc_qrels(write):
    q = read_qrels(write("q.txt", "1 0 a 1\n1 0 b 0\n2 0 a -2\n2 0 c L3\n"))
    assert not q.diversity and q.topic_ids == ("1", "2")
    assert q.rel.tolist() == [1, 0, -2, 3]
    assert q.intent_ids == ("0",)


def test_adhoc_iter_column_is_ignored(write):
    q = read_qrels(write("q.txt", "1 0 a 1\n2 1 a 1\n"))  # one value per topic: still ad hoc
    assert not q.diversity


def test_diversity_detected_with_warning(write):
    path = write("q.txt", "1 1 a 1\n1 2 b 1\n1 01 c 0\n")
    with pytest.warns(EvaluationWarning, match="read as diversity qrels"):
        q = read_qrels(path)
    assert q.diversity and set(q.intent_ids) == {"1", "2"}  # "01" is intent 1


def test_diversity_forced_either_way(write):
    path = write("q.txt", "1 1 a 1\n1 2 b 1\n")
    assert read_qrels(path, diversity=True).diversity
    assert not read_qrels(path, diversity=False).diversity


def test_same_document_for_two_intents_is_not_a_duplicate(write):
    q = read_qrels(write("q.txt", "1 1 a 1\n1 2 a 1\n"), diversity=True)
    assert len(q) == 2


def test_duplicate_judgment_is_an_error(write):
    path = write("q.txt", "1 0 a 1\n1 0 b 1\n1 0 a 2\n")
    with pytest.raises(InputError, match=r"q\.txt:3: document 'a' is judged lines 1 and 3 for topic '1'"):
        read_qrels(path)
    q = read_qrels(path, on_duplicate="max")
    assert dict(zip([d.decode() for d in q.docno.tolist()], q.rel.tolist())) == {"a": 2, "b": 1}


@pytest.mark.parametrize("text, message", [
    ("1 0 a\n", r"q\.txt:1: expected 4 columns \(qid iter docno rel\), got 3"),
    ("1 0 a 1\n1 0 b x\n", r"q\.txt:2: label 'x' in column 4 is not an integer \(labels are integers or L<d>\)"),
    ("1 0 a 1.5\n", r"q\.txt:1: label '1.5' in column 4 is not an integer"),
    ("", r"q\.txt: the file is empty"),
])
def test_malformed_qrels(write, text, message):
    with pytest.raises(InputError, match=message):
        read_qrels(write("q.txt", text))


def test_real_files_are_detected(monkeypatch):
    import warnings

    import cranfield.io.qrels

    monkeypatch.setattr(cranfield.io.qrels, "_NOTED", set())  # the note is said once per file and process

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an ad hoc file raises no detection warning
        q = read_qrels(DATA / "robust03" / "qrels.txt.gz")
    assert not q.diversity and len(q.topic_ids) == 100 and len(q) == 128796
    with pytest.warns(EvaluationWarning, match="diversity"):
        d = read_qrels(DATA / "web2009" / "qrels.diversity.gz")
    # TREC Web 2009 marks documents relevant to no subtopic with intent 0: an ordinary intent
    assert d.diversity and "0" in d.intent_ids and len(d.topic_ids) == 50


def test_dict_and_frame():
    a = qrels_from_dict({"1": {"a": 1, "b": 0}})
    b = qrels_from_frame(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "relevance": [1, 0]}))
    c = qrels_from_dict({"1": {"x": {"a": 1}, "y": {"b": 1}}})
    assert a.rel.tolist() == b.rel.tolist() == [1, 0]
    assert c.diversity and set(c.intent_ids) == {"x", "y"}
    assert as_qrels({"1": {"a": 1}}).topic_ids == ("1",)
    with pytest.raises(InputError, match="not an integer"):
        qrels_from_dict({"1": {"a": "high"}})
    with pytest.raises(InputError, match="no rel column"):
        qrels_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"]}))


def test_intent_file(write):
    i = read_intents(write("i.txt", "1 1 0.7 inf\n1 2 0.3 NAV\n2 01 1\n"))
    assert i.intent == ("1", "2", "1") and i.kind == ("inf", "nav", None)
    assert i.probability.tolist() == [0.7, 0.3, 1.0]


@pytest.mark.parametrize("text, message", [
    ("1 1 0.5 both\n", r"i\.txt:1: intent type 'both' is not inf or nav"),
    ("1 1 1.5\n", r"i\.txt:1: probability 1.5 is not in \[0, 1\]"),
    ("1 1 x\n", r"i\.txt:1: probability 'x' in column 3 is not a number"),
    ("1 1\n", r"i\.txt:1: expected 3 or 4 columns"),
    ("1 1 0.5\n1 01 0.5\n", r"i\.txt:2: intent '1' of topic '1' is listed again \(first at line 1\)"),
])
def test_malformed_intents(write, text, message):
    with pytest.raises(InputError, match=message):
        read_intents(write("i.txt", text))
