"""Reading runs: ordering and tie rules, duplicates, formats, and every error path (docs/conventions.md#order,
docs/conventions.md#duplicates)."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield import InputError, read_run
from cranfield.io import as_run, run_from_dict, run_from_frame


def test_score_order_breaks_ties_by_docno_descending(write):
    path = write("r.txt", "1 Q0 a 1 0.5 t\n1 Q0 c 2 0.5 t\n1 Q0 b 3 0.9 t\n1 Q0 B 4 0.5 t\n")
    run = read_run(path)
    # b (0.9) first, then the 0.5 ties by docno descending in byte order: c > a > B
    assert run.ranking("1") == ["b", "c", "a", "B"]


def test_scores_tie_as_float32_like_trec_eval(write):
    # 0.5 and 0.5 + 1e-12 differ as doubles but not as C floats: a tie, so docno decides
    path = write("r.txt", "1 Q0 a 1 0.500000000001 t\n1 Q0 b 2 0.5 t\n")
    assert read_run(path).ranking("1") == ["b", "a"]


def test_order_rank_uses_rank_column(write):
    path = write("r.txt", "1 Q0 a 3 0.9 t\n1 Q0 b 1 0.1 t\n1 Q0 c 2 0.5 t\n")
    assert read_run(path, order="rank").ranking("1") == ["b", "c", "a"]
    assert read_run(path, order="file").ranking("1") == ["a", "b", "c"]
    assert read_run(path, order="score").ranking("1") == ["a", "c", "b"]


def test_order_rank_rejects_duplicate_ranks(write):
    path = write("r.txt", "1 Q0 a 1 0.9 t\n1 Q0 b 1 0.1 t\n")
    with pytest.raises(InputError, match=r"r\.txt:2: rank 1 appears lines 1 and 2 for topic '1'"):
        read_run(path, order="rank")


def test_order_rank_needs_integer_ranks(write):
    path = write("r.txt", "1 Q0 a 1 0.9 t\n1 Q0 b x 0.1 t\n")
    with pytest.raises(InputError, match=r"r\.txt:2: rank 'x' in column 4 is not an integer"):
        read_run(path, order="rank")
    read_run(path)  # the rank column is not read under order=score, like trec_eval


def test_topics_interleaved_and_unsorted(write):
    path = write("r.txt", "2 Q0 x 1 1 t\n1 Q0 a 1 1 t\n2 Q0 y 2 2 t\n1 Q0 b 2 2 t\n")
    run = read_run(path)
    assert set(run.topic_ids) == {"1", "2"}
    assert run.ranking("2") == ["y", "x"] and run.ranking("1") == ["b", "a"]


def test_duplicate_document_is_an_error_naming_both_lines(write):
    path = write("r.txt", "1 Q0 a 1 0.9 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.1 t\n")
    with pytest.raises(InputError) as err:
        read_run(path)
    msg = str(err.value)
    assert "r.txt:3" in msg and "lines 1 and 3" in msg and "'a'" in msg and "topic '1'" in msg


def test_duplicate_first_keeps_first_line(write):
    path = write("r.txt", "1 Q0 a 1 0.1 t\n1 Q0 b 2 0.5 t\n1 Q0 a 3 0.9 t\n")
    run = read_run(path, on_duplicate="first")
    assert run.ranking("1") == ["b", "a"]
    assert run.score.tolist() == [0.5, 0.1]


def test_same_docno_in_two_topics_is_fine(write):
    run = read_run(write("r.txt", "1 Q0 a 1 1 t\n2 Q0 a 1 1 t\n"))
    assert run.ranking("1") == ["a"] == run.ranking("2")


@pytest.mark.parametrize("text", [
    "1 Q0 a 1 1 t\r\n1 Q0 b 2 0.5 t\r\n",        # CRLF
    "1 Q0 a 1 1 t   \n1\tQ0\tb\t2\t0.5\tt",      # trailing blanks, tabs, no final newline
    "\n1 Q0 a 1 1 t\n\n1 Q0 b 2 0.5 t\n\n",      # blank lines
])
def test_whitespace_variants(write, text):
    run = read_run(write("r.txt", text))
    assert run.ranking("1") == ["a", "b"]


def test_gzip_by_content(write, tmp_path):
    path = tmp_path / "run.txt"  # no .gz suffix: detected by its magic bytes
    path.write_bytes(gzip.compress(b"1 Q0 a 1 1 t\n"))
    assert read_run(path).ranking("1") == ["a"]
    assert read_run(write("r.gz", "1 Q0 a 1 1 t\n")).ranking("1") == ["a"]


def test_name_is_tag_or_file_name(write):
    assert read_run(write("r.txt", "1 Q0 a 1 1 mytag\n")).name == "mytag"
    assert read_run(write("mixed.txt", "1 Q0 a 1 1 x\n1 Q0 b 1 1 y\n")).name == "mixed.txt"


@pytest.mark.parametrize("text, message", [
    ("1 Q0 a 1 1 t\n1 Q0 b 2 t\n", r"r\.txt:2: expected 6 columns \(qid Q0 docno rank score tag\), got 5"),
    ("1 Q0 a 1 one t\n", r"r\.txt:1: score 'one' in column 5 is not a number"),
    ("1 Q0 a 1 1 t\n1 Q0 b 2 nan t\n", r"r\.txt:2: score 'nan' in column 5 is not a number"),
    ("", r"r\.txt: the file is empty"),
    ("\n  \n", r"r\.txt: the file is empty"),
])
def test_malformed_runs(write, text, message):
    with pytest.raises(InputError, match=message):
        read_run(write("r.txt", text))


def test_undecodable_bytes_name_the_line(write):
    path = write("r.txt", b"1 Q0 a 1 1 t\n1 Q0 \xff\xfe 2 1 t\n")
    with pytest.raises(InputError, match=r"r\.txt:2: bytes that are not UTF-8"):
        read_run(path)


def test_missing_file():
    with pytest.raises(InputError, match="cannot open"):
        read_run("/nonexistent/run.txt")


def test_utf8_docnos_are_fine(write):
    run = read_run(write("r.txt", "1 Q0 café 1 1 t\n1 Q0 b 2 0 t\n"))
    assert run.ranking("1") == ["café", "b"]


def test_large_file_across_blocks(tmp_path, monkeypatch):
    """Lines that straddle the reader's block boundary keep their numbers and fields."""
    from cranfield.io import _tokens

    monkeypatch.setattr(_tokens, "BLOCK_BYTES", 64)
    lines = [f"{t} Q0 doc{t}-{r} {r} {1000 - r} t" for t in range(3) for r in range(40)]
    lines[77] = "1 Q0 broken"
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"r\.txt:78: expected 6 columns"):
        read_run(path)
    lines[77] = "1 Q0 doc1-37 37 963 t"
    path.write_text("\n".join(lines))
    run = read_run(path)
    assert run.lengths.tolist() == [40, 40, 40]
    assert run.ranking("2")[:3] == ["doc2-0", "doc2-1", "doc2-2"]
    assert run.line[run.offsets[1]] == 41


def test_from_dict_and_frame_agree_with_file(write):
    path = write("r.txt", "1 Q0 a 1 0.5 t\n1 Q0 c 2 0.5 t\n1 Q0 b 3 0.9 t\n2 Q0 z 1 1 t\n")
    from_file = read_run(path)
    from_dict = run_from_dict({"1": {"a": 0.5, "c": 0.5, "b": 0.9}, "2": {"z": 1.0}})
    frame = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "c", "b", "z"],
                          "score": [0.5, 0.5, 0.9, 1.0]})
    for other in (from_dict, run_from_frame(frame), as_run(frame),
                  as_run({"1": {"a": 0.5, "c": 0.5, "b": 0.9}, "2": {"z": 1.0}})):
        assert other.ranking("1") == from_file.ranking("1") == ["b", "c", "a"]


def test_frame_errors():
    with pytest.raises(InputError, match="no score column"):
        run_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"]}))
    with pytest.raises(InputError, match="NaN"):
        run_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"], "score": [np.nan]}))
    with pytest.raises(TypeError, match="a run must be"):
        as_run(42)


def test_tag_that_changes_in_a_later_block(tmp_path, monkeypatch):
    from cranfield.io import _tokens

    monkeypatch.setattr(_tokens, "BLOCK_BYTES", 64)
    lines = [f"1 Q0 d{k} {k} {100 - k} same" for k in range(30)]
    path = tmp_path / "tags.txt"
    path.write_text("\n".join(lines) + "\n")
    assert read_run(path).name == "same"
    lines[25] = "1 Q0 d25 25 75 other"
    path.write_text("\n".join(lines) + "\n")
    assert read_run(path).name == "tags.txt"
    lines[25] = "1 Q0 d25 25 75 samf"  # same length, different bytes
    path.write_text("\n".join(lines) + "\n")
    assert read_run(path).name == "tags.txt"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "3"]), st.text("abAB01-", min_size=1, max_size=12),
                          st.sampled_from([0.5, 0.25, 1.0, 0.5 + 1e-12, 2.0])), min_size=1, max_size=60,
                unique_by=lambda r: (r[0], r[1])))
def test_score_order_matches_a_plain_sort(rows):
    """Ties of every size (pairs take a vectorised path, larger groups a sort) are ranked as
    trec_eval ranks them: score as a C float descending, then docno descending in byte order."""
    run = run_from_frame(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))
    for q in dict.fromkeys(t for t, _, _ in rows):
        tied: dict[float, list[str]] = {}
        for t, d, s in rows:
            if t == q:
                tied.setdefault(float(np.float32(s)), []).append(d)
        expected = [d for score in sorted(tied, reverse=True)
                    for d in sorted(tied[score], key=str.encode, reverse=True)]
        assert run.ranking(q) == expected


def test_read_ahead_gives_the_run_only_when_reading_it_says_nothing(write):
    """read_run_ahead (a read-ahead thread's reader): the run read_run reads; only the columns
    when making the run raises or warns, so that the scoring thread says it; None for a file
    the tokenizer does not read as a TREC run."""
    from cranfield.io.run import Columns, read_run_ahead

    plain = write("plain.txt", "1 Q0 a 1 0.5 t\n1 Q0 c 2 0.5 t\n2 Q0 b 1 0.9 t\n")
    ahead = read_run_ahead(plain, "score", "error", "float32")
    alone = read_run(plain)
    assert not isinstance(ahead, Columns) and ahead is not None
    assert ahead.name == alone.name and ahead.ranking("1") == alone.ranking("1") == ["c", "a"]
    assert np.array_equal(ahead.offsets, alone.offsets) and np.array_equal(ahead.score, alone.score)
    duplicate = write("dup.txt", "1 Q0 a 1 0.5 t\n1 Q0 a 2 0.4 t\n")
    assert isinstance(read_run_ahead(duplicate, "score", "error", "float32"), Columns)
    assert read_run_ahead(duplicate, "score", "first", "float32").ranking("1") == ["a"]
    huge = write("huge.txt", "1 Q0 a 1 1e39 t\n1 Q0 b 2 0.5 t\n")
    assert isinstance(read_run_ahead(huge, "score", "error", "float32"), Columns)  # as_c_floats warns
    assert read_run_ahead(huge, "score", "error", "float64").ranking("1") == ["a", "b"]
    assert read_run_ahead(write("bad.txt", "1 Q0 a 1 high t\n"), "score", "error", "float32") is None
