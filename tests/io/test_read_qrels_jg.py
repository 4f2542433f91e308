"""Reading trec_eval's multi-judge qrels (``qid jg docno rel``): one qrels per group."""

from __future__ import annotations

import pytest

from cranfield.errors import InputError
from cranfield.io.qrels_jg import read_qrels_jg


def test_groups_named_as_written(tmp_path):
    """``01`` and ``1`` are two groups (trec_eval compares names with strcmp); each group keeps
    only its own topics, in order of first appearance; one document may be judged by several."""
    path = tmp_path / "q.jg"
    path.write_text("2 01 d1 1\n1 1 d1 0\n1 01 d1 2\n1 1 d2 3\n")
    groups = read_qrels_jg(path)
    assert list(groups) == ["01", "1"]
    assert groups["01"].topic_ids == ("2", "1") and groups["1"].topic_ids == ("1",)
    assert groups["1"].rel.tolist() == [0, 3] and not groups["1"].diversity


def test_duplicate_within_a_group_is_an_error(tmp_path):
    path = tmp_path / "q.jg"
    path.write_text("1 a d1 1\n1 b d1 0\n1 a d1 2\n")
    with pytest.raises(InputError, match=r"q\.jg:3: document 'd1' is judged lines 1 and 3 for topic '1'"):
        read_qrels_jg(path)


def test_five_columns_are_an_error(tmp_path):
    path = tmp_path / "q.jg"
    path.write_text("1 a d1 1 x\n")
    with pytest.raises(InputError, match=r"q\.jg:1: expected at most 4 columns, got 5"):
        read_qrels_jg(path)
