"""Issue #14, input reading: no silent wrong number and no traceback, whatever the input files
(or Python objects) hold. Each class of bad input has one rule, tested on a family of cases."""

from __future__ import annotations

import gzip
import re
import sys
import tracemalloc
import types
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cranfield import EvaluationWarning, InputError, evaluate, read_intents, read_qrels, read_run
from cranfield.evaluation.collection import Collection
from cranfield.io import (
    _tokens,
    as_qrels,
    as_run,
    looks_like_ntcir_rel,
    looks_like_ntcir_res,
    qrels_from_dict,
    qrels_from_frame,
    read_intent_types,
    read_ntcir_rel,
    read_ntcir_res,
    run_from_dict,
    run_from_frame,
)
from cranfield.io.dd import looks_like_dd_run, read_dd_run

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
BOM = b"\xef\xbb\xbf"


def write_bytes(tmp_path, name: str, data: bytes, gz: bool = False):
    path = tmp_path / (name + (".gz" if gz else ""))
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


# --- 1. a UTF-8 byte-order mark at the start of any file is skipped --------------------------

FILES = {  # reader, file name, content, the first topic as read
    "run": (lambda p: read_run(p).topic_ids[0], "r.txt", b"q1 Q0 d1 1 1.5 t\n"),
    "as_run": (lambda p: as_run(p).topic_ids[0], "r.txt", b"q1 Q0 d1 1 1.5 t\n"),
    "qrels": (lambda p: read_qrels(p).topic_ids[0], "q.txt", b"q1 0 d1 1\n"),
    "as_qrels": (lambda p: as_qrels(p).topic_ids[0], "q.txt", b"q1 0 d1 1\n"),
    "intents": (lambda p: read_intents(p).topic[0], "i.txt", b"q1 1 1.0 inf\n"),
    "intent types": (lambda p: next(iter(read_intent_types(p)))[0], "t.txt", b"q1 1 nav\n"),
    "ntcir rel": (lambda p: read_ntcir_rel(p, topic="q1").docno[0].decode(), "q1.rel", b"q1 L1\n"),
    "ntcir res": (lambda p: read_ntcir_res(p, topic="q1").ranking("q1")[0], "q1.res", b"q1\nd2\n"),
    "ntcir res sniffed": (lambda p: as_run(p).ranking("x")[0], "x.res", b"q1\nd2\n"),
}


@pytest.mark.parametrize("gz", [False, True], ids=["plain", "gzip"])
@pytest.mark.parametrize("kind", FILES)
def test_bom_is_skipped(tmp_path, kind, gz):
    read, name, text = FILES[kind]
    assert read(write_bytes(tmp_path, name, BOM + text, gz)) == "q1"
    (tmp_path / "crlf").mkdir()
    assert read(write_bytes(tmp_path / "crlf", name, BOM + text.replace(b"\n", b"\r\n"), gz)) == "q1"


def test_bom_only_at_the_start_and_an_xml_intent_file(tmp_path):
    xml = b'<webtrack2009><topic number="1"><subtopic number="1" type="nav"/></topic></webtrack2009>'
    assert read_intent_types(write_bytes(tmp_path, "t.xml", BOM + xml)) == {("1", "1"): "nav"}
    with pytest.raises(InputError, match=r"e\.txt: the file is empty"):
        read_run(write_bytes(tmp_path, "e.txt", BOM + b"\n"))
    # a BOM inside the file is not a file's BOM: it stays part of the field
    middle = write_bytes(tmp_path, "m.txt", b"1 Q0 a 1 1 t\n" + BOM + b"2 Q0 a 1 1 t\n")
    assert read_run(middle).topic_ids[1] == "\ufeff2"


# --- 2. numbers are read as C's strtod reads a complete number ------------------------------

DECIMAL = st.from_regex(r"[+-]?([0-9]{1,20}(\.[0-9]{0,20})?|\.[0-9]{1,20})([eE][+-]?[0-9]{1,3})?", fullmatch=True)
INFINITY = st.sampled_from(["inf", "INF", "Inf", "infinity", "Infinity", "INFINITY", "-inf", "+Infinity"])
STRAY = st.sampled_from(list("_xX,;:'aA/#$%~()[]{}=!?*&") + ["\u0663", "\u00e9", "\uff11", "0x", "nan", "d"])


def run_file(tmp_path, scores: list[str]):
    lines = [f"1 Q0 d{k} {k + 1} {s} t" for k, s in enumerate(scores)]
    path = tmp_path / "r.txt"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@SETTINGS
@given(st.lists(DECIMAL | INFINITY, min_size=1, max_size=20))
def test_every_strtod_number_is_read_exactly(tmp_path, scores):
    run = read_run(run_file(tmp_path, scores), order="file")
    assert run.score.tolist() == [float(s) for s in scores]


@SETTINGS
@given(st.lists(DECIMAL, min_size=1, max_size=8), st.data())
def test_a_score_with_a_stray_character_is_an_error_naming_line_and_column(tmp_path, scores, data):
    k = data.draw(st.integers(0, len(scores) - 1))
    at = data.draw(st.integers(0, len(scores[k])))
    bad = scores[k][:at] + data.draw(STRAY) + scores[k][at:]
    scores[k] = bad
    with pytest.raises(InputError) as err:
        read_run(run_file(tmp_path, scores))
    assert err.value.line == k + 1 and f"score {bad!r} in column 5 is not a number" in str(err.value)


@pytest.mark.parametrize("score", ["1_0", "1_000.5", "0x10", "0X1p3", "1e", "1e+", ".", "+", "-", "1.2.3", "--1",
                                   "+-1", "1e5.0", "e5", ".e5", "nan", "NaN", "-nan", "infinit", "infinityy", "1,5",
                                   "1d5", "1f", "\u0661", "\uff11"])
def test_python_number_syntax_is_not_a_c_number(tmp_path, score):
    with pytest.raises(InputError, match=r"r\.txt:1: score .* in column 5 is not a number"):
        read_run(run_file(tmp_path, [score]))


def test_numbers_beyond_the_double_range_are_infinite_as_from_strtod(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run = read_run(run_file(tmp_path, ["1e999", "-1E+400", "1e-999", "0e99999"]), order="file")
    assert run.score.tolist() == [float("inf"), float("-inf"), 0.0, 0.0]


@pytest.mark.parametrize("ids, distinct", [(("1_0", "10"), 2), (("01", "1"), 1), (("+1", "1"), 1), (("\u0661", "1"), 2),
                                           (("1.0", "1"), 2), (("99999999999999999999", "099999999999999999999"), 1)])
def test_intent_ids_are_integers_by_the_file_grammar(tmp_path, ids, distinct):
    text = f"1 {ids[0]} a 1\n1 {ids[1]} b 1\n".encode()
    assert len(read_qrels(write_bytes(tmp_path, "q.txt", text), diversity=True).intent_ids) == distinct
    lines = f"1 {ids[0]} 0.5\n1 {ids[1]} 0.5\n".encode()
    if distinct == 2:
        assert len(set(read_intents(write_bytes(tmp_path, "i.txt", lines)).intent)) == 2
    else:
        with pytest.raises(InputError, match="listed again"):
            read_intents(write_bytes(tmp_path, "i.txt", lines))


INTEGER = st.from_regex(r"[+-]?[0-9]{1,18}", fullmatch=True)


def int_readers(tmp_path, value: str):
    """Every integer column of the file formats, holding ``value`` on line 2: (what, column,
    read), ``read`` giving the values read (ranks: the value when it ranks first)."""
    def rank():
        path = write_bytes(tmp_path, "r.txt", f"1 Q0 d {2**63 - 1} 1 t\n1 Q0 e {value} 1 t\n".encode())
        return [int(value)] if read_run(path, order="rank").ranking("1") == ["e", "d"] else []

    def label():
        return read_qrels(write_bytes(tmp_path, "q.txt", f"1 0 d 1\n1 0 e {value}\n".encode())).rel

    def level():
        return read_ntcir_rel(write_bytes(tmp_path, "1.rel", f"d L0\ne L{value}\n".encode())).rel

    def iteration():
        return read_dd_run(write_bytes(tmp_path, "dd.txt", f"1\t0\td\t1\t1\n1\t{value}\te\t1\t1\n".encode())).iteration

    return [("rank", 4, rank), ("label", 4, label), ("label", 2, level), ("iteration", None, iteration)]


@SETTINGS
@given(INTEGER)
def test_integers_read_exactly(tmp_path, value):
    for what, column, read in int_readers(tmp_path, value):
        if what == "iteration" and int(value) < 0 or column == 2 and not value.isdigit():
            continue  # iterations are never negative, NTCIR levels are L<digits>
        assert int(value) in list(read()), what


@SETTINGS
@given(INTEGER, STRAY | st.sampled_from([".", "e3", ".0", "e"]), st.data())
def test_an_integer_with_a_stray_character_is_an_error(tmp_path, value, stray, data):
    at = data.draw(st.integers(0, len(value)))
    bad = value[:at] + stray + value[at:]
    for what, column, read in int_readers(tmp_path, bad):
        with pytest.raises(InputError) as err:
            read()
        assert err.value.line == 2, what
        assert "is not" in err.value.reason or "not L<digits>" in err.value.reason
        if column == 4:
            assert f"{what} {bad!r} in column 4 is not an integer" in err.value.reason


# --- 3. integers beyond 64 bits are an error, not a traceback --------------------------------

BEYOND = st.integers(min_value=2**63, max_value=10**40).map(str) | st.integers(max_value=-(2**63) - 1,
                                                                               min_value=-(10**40)).map(str)


@SETTINGS
@given(BEYOND)
def test_integers_beyond_int64_are_out_of_range(tmp_path, value):
    for _what, column, read in int_readers(tmp_path, value):
        if column == 2 and value.startswith("-"):
            continue  # a negative NTCIR level is not L<digits> at all
        with pytest.raises(InputError, match=r":2: .*is out of range"):
            read()


def test_int64_bounds_are_in_range(tmp_path):
    for value in (2**63 - 1, -(2**63), 0, -0):
        q = read_qrels(write_bytes(tmp_path, "q.txt", f"1 0 d {value}\n1 0 e 000000000000000000000000001\n".encode()))
        assert q.rel.tolist() == [value, 1]


@pytest.mark.parametrize("label", [10**20, -(10**20), 2**63, float(2**64), "99999999999999999999",
                                   np.uint64(2**64 - 1)])
def test_python_labels_beyond_int64(label):
    with pytest.raises(InputError, match=r"topic '1', document 'a': label .* is not an integer"):
        qrels_from_dict({"1": {"a": label}})
    with pytest.raises(InputError, match=r"topic '1', document 'a': label .* in column 'rel' is not an integer"):
        qrels_from_frame(pd.DataFrame({"qid": ["1"], "docno": ["a"], "rel": [label]}))


# --- 4. a damaged gzip file is one InputError naming it, from readers and sniffers alike ------

GOOD = gzip.compress(b"".join(b"1 Q0 d%d %d %d t\n" % (k, k, 100 - k) for k in range(400)))


def damaged(kind: str, cut: int = 0) -> bytes:
    if kind == "garbage":
        return b"\x1f\x8b" + b"garbage, not deflate data" * 3
    if kind == "bad block":
        return GOOD[:10] + b"\xff" * 40
    if kind == "crc":
        return GOOD[:-8] + bytes([GOOD[-8] ^ 1]) + GOOD[-7:]
    if kind == "trailing":
        return GOOD + b"trailing garbage"
    return GOOD[: max(2, cut % len(GOOD))]  # truncated


READERS = {
    "read_run": read_run, "as_run": as_run, "read_qrels": read_qrels, "as_qrels": as_qrels,
    "read_intents": read_intents, "read_intent_types": read_intent_types, "read_ntcir_rel": read_ntcir_rel,
    "read_ntcir_res": read_ntcir_res, "read_dd_run": read_dd_run,
}
SNIFFERS = {"looks_like_ntcir_rel": looks_like_ntcir_rel, "looks_like_ntcir_res": looks_like_ntcir_res,
            "looks_like_dd_run": looks_like_dd_run}


@pytest.mark.parametrize("kind", ["garbage", "bad block", "crc", "trailing", "truncated"])
@pytest.mark.parametrize("name", ["run.gz", "run.txt", "0001.res.gz", "0001.rel.gz"])
def test_damaged_gzip_is_an_input_error(tmp_path, kind, name):
    path = write_bytes(tmp_path, name, damaged(kind, len(GOOD) // 2))
    for reader, read in READERS.items():
        with pytest.raises(InputError, match=r"(not a valid gzip file|truncated gzip file)") as err:
            read(path)
        assert err.value.source == str(path), reader
    for sniffer, looks in SNIFFERS.items():
        try:
            assert looks(path) in (True, False)
        except InputError as exc:  # a sniffer may say why the file cannot be read
            assert "gzip" in exc.reason, sniffer


@SETTINGS
@given(st.integers(2, len(GOOD) - 9))
def test_gzip_cut_anywhere(tmp_path, cut):
    path = write_bytes(tmp_path, "cut.gz", GOOD[:cut])
    with pytest.raises(InputError, match="gzip file"):
        read_run(path)
    with pytest.raises(InputError, match="gzip file"):
        as_run(path)
    assert looks_like_ntcir_res(path) is False


# --- 5. fields after the run tag are ignored, as trec_eval ignores them -----------------------

@pytest.mark.parametrize("extra", [" x", " x y z", "\tcomment\twith\ttabs", " 1 2 3 4 5 6 7 8 9"])
def test_run_columns_after_the_tag_are_ignored(tmp_path, extra):
    text = f"1 Q0 a 1 0.5 t{extra}\n1 Q0 b 2 0.9 t\n2 Q0 a 1 1 t{extra}\n"
    path = write_bytes(tmp_path, "r.txt", text.encode())
    for run in (read_run(path), as_run(path)):
        assert run.ranking("1") == ["b", "a"] and run.score.tolist() == [0.9, 0.5, 1.0] and run.name == "t"
    assert not looks_like_ntcir_res(path) and not looks_like_dd_run(path)
    assert read_run(path, order="rank").ranking("1") == ["a", "b"]


@pytest.mark.parametrize("text, got", [("1 Q0 a 1 0.5\n", 5), ("1 Q0 a 1 0.5 t\n1 Q0 b\n", 3)])
def test_run_lines_with_fewer_than_six_columns_are_errors(tmp_path, text, got):
    with pytest.raises(InputError, match=rf"expected 6 columns \(qid Q0 docno rank score tag\), got {got}"):
        read_run(write_bytes(tmp_path, "r.txt", text.encode()))


def test_trec_eval_results_trunc_layout(tmp_path):
    # trec_eval's test/results.trunc: the tag followed by more fields
    text = "".join(f"301 Q0 FR9{k} {k} {10 - k}.5 STANDARD extra{k} more\n" for k in range(5))
    assert read_run(write_bytes(tmp_path, "results.trunc", text.encode())).name == "STANDARD"


# --- 6. a header line is not taken for an NTCIREVAL file --------------------------------------

@pytest.mark.parametrize("header", ["qid", "query", "topic", "docno"])  # "#": a comment (test_input_reading)
def test_a_one_word_header_is_an_error_at_line_1(tmp_path, header):
    run = write_bytes(tmp_path, "r.txt", f"{header}\n1 Q0 a 1 0.5 t\n1 Q0 b 2 0.4 t\n".encode())
    assert not looks_like_ntcir_res(run)
    with pytest.raises(InputError, match=r"r\.txt:1: expected 6 columns .*got 1 \(a header line"):
        as_run(run)
    qrels = write_bytes(tmp_path, "q.txt", f"{header}\n1 0 a 1\n".encode())
    assert not looks_like_ntcir_rel(qrels)
    with pytest.raises(InputError, match=r"q\.txt:1: expected 4 columns .*got 1 \(a header line"):
        as_qrels(qrels)


def test_ntcir_files_are_still_sniffed(tmp_path):
    assert looks_like_ntcir_res(write_bytes(tmp_path, "a.txt", b"d1\nd2 L1\nd3\n"))
    assert looks_like_ntcir_rel(write_bytes(tmp_path, "b.txt", b"d1 L1\nd2 L0\n"))
    assert not looks_like_ntcir_rel(write_bytes(tmp_path, "c.txt", b"d1 L1\n1 0 d2 1\n"))
    assert looks_like_ntcir_res(write_bytes(tmp_path, "1.res", b"d1\n"))


# --- 7. a topic named 'all' would collide with the mean over topics ---------------------------

ALL = r"topic id 'all' is reserved for the mean over topics"


@pytest.mark.parametrize("text", ["all Q0 a 1 1 t\n", "1 Q0 a 1 1 t\nall Q0 a 1 1 t\n",
                                  "1 Q0 a 1 1 t\n\nall Q0 b 1 1 t x\n"])
def test_topic_all_in_a_run_file(tmp_path, text):
    line = text.count("\n") if text.startswith("1") else 1
    with pytest.raises(InputError, match=rf"r\.txt:{line}: {ALL}"):
        read_run(write_bytes(tmp_path, "r.txt", text.encode()))


def test_topic_all_everywhere_else(tmp_path):
    with pytest.raises(InputError, match=rf"q\.txt:2: {ALL}"):
        read_qrels(write_bytes(tmp_path, "q.txt", b"1 0 a 1\nall 0 a 1\n"))
    with pytest.raises(InputError, match=rf"all\.res:1: {ALL}"):
        as_run(write_bytes(tmp_path, "all.res", b"a\n"))
    with pytest.raises(InputError, match=rf"all\.rel:1: {ALL}"):
        as_qrels(write_bytes(tmp_path, "all.rel", b"a L1\n"))
    for make in (lambda: run_from_dict({"all": {"a": 1.0}}), lambda: qrels_from_dict({"1": {"a": 1}, "all": {"a": 1}}),
                 lambda: run_from_frame(pd.DataFrame({"qid": ["all"], "docno": ["a"], "score": [1.0]})),
                 lambda: qrels_from_frame(pd.DataFrame({"qid": ["all"], "docno": ["a"], "rel": [1]}))):
        with pytest.raises(InputError, match=ALL):
            make()
    assert read_run(write_bytes(tmp_path, "ok.txt", b"All Q0 a 1 1 t\nall1 Q0 a 1 1 t\n")).topic_ids == ("All", "all1")


# --- 8. NUL bytes are refused, never silently dropped ----------------------------------------

@pytest.mark.parametrize("text", [b"1 Q0 d1\x00 1 1 t\n", b"1 Q0 d1 1 1 t\n1 Q0 \x00d2 2 1 t\n", b"1\x00 Q0 d 1 1 t\n",
                                  b"1 Q0 d 1 1 t\x00\n", b"1 Q0 d 1 1\x00 t\n", b"1 Q0 d 1 1 t\n\x00\n"])
def test_nul_bytes_in_a_run_file(tmp_path, text):
    line = text[: text.index(b"\x00")].count(b"\n") + 1
    with pytest.raises(InputError, match=rf"r\.txt:{line}: a NUL byte"):
        read_run(write_bytes(tmp_path, "r.txt", text))


def test_nul_bytes_in_other_files(tmp_path):
    with pytest.raises(InputError, match=r"q\.txt\.gz:2: a NUL byte"):
        read_qrels(write_bytes(tmp_path, "q.txt", b"1 0 d1 1\n1 0 d1\x00 1\n", gz=True))
    with pytest.raises(InputError, match=r"1\.res:1: a NUL byte"):
        as_run(write_bytes(tmp_path, "1.res", b"d1\x00\n"))


@pytest.mark.parametrize("qid, doc", [("1", "d1\x00"), ("1\x00", "d1"), ("1", "\x00"), ("1", "d\x001")])
def test_nul_bytes_in_python_input(qid, doc):
    named = re.escape(f"topic {qid!r}") + ".*" + re.escape(f"document {doc!r}")
    for make in (lambda: run_from_dict({"1": {"d1": 1.0}, qid: {doc: 0.5}}),
                 lambda: run_from_frame(pd.DataFrame({"qid": ["1", qid], "docno": ["d1", doc], "score": [1.0, 0.5]})),
                 lambda: qrels_from_dict({"1": {"d1": 1}, qid: {doc: 0}}),
                 lambda: qrels_from_frame(pd.DataFrame({"qid": ["1", qid], "docno": ["d1", doc], "rel": [1, 0]}))):
        with pytest.raises(ValueError, match=named):
            make()


def test_python_ids_as_bytes_must_be_utf8():
    assert run_from_dict({b"q1": {b"d1": 1.0}}).ranking("q1") == ["d1"]  # not "b'd1'"
    with pytest.raises(InputError, match=r"topic 'q1', document '\ufffd': ids must be UTF-8 text"):
        run_from_dict({"q1": {b"\xff": 1.0}})
    with pytest.raises(InputError, match=r"topic '\ufffd1', .*: ids must be UTF-8 text"):
        qrels_from_dict({b"\xff1": {"d": 1}})


# --- 9. Python inputs: a dict run is one run; bad scores name topic, document and column ------

@pytest.mark.parametrize("mapping", [dict, types.MappingProxyType])
def test_a_dict_run_is_one_run(mapping):
    from cranfield.evaluation.evaluator import Evaluator

    run = mapping({"q1": {"d1": 1.0, "d2": 0.5}})
    assert as_run(run).ranking("q1") == ["d1", "d2"]
    evaluator = Evaluator({"q1": {"d1": 1}}, ["P@1"])
    for runs in (run, [run], (run, run)):
        assert set(evaluator.evaluate(runs).to_frame()["value"]) == {1.0}
        assert set(evaluate({"q1": {"d1": 1}}, runs, "P@1")["value"]) == {1.0}


@pytest.mark.parametrize("score", ["abc", None, "1_0", "nan", float("nan"), object(), [1.0], "", "0x1p3", b"1\xff"])
def test_bad_python_scores_name_topic_document_and_column(score):
    with pytest.raises(InputError, match=r"topic 'q2', document 'd9': score .* in column 'sim' is not a number"):
        run_from_frame(pd.DataFrame({"qid": ["q1", "q2"], "docno": ["d1", "d9"], "sim": [1.0, score]}))
    with pytest.raises(InputError, match=r"topic 'q2', document 'd9': score .* is not a number"):
        run_from_dict({"q1": {"d1": 1.0}, "q2": {"d9": score}})


def test_python_scores_as_text_follow_the_file_grammar():
    run = run_from_frame(pd.DataFrame({"qid": ["1"] * 4, "docno": list("abcd"), "score": ["1e1", "2", ".5", 3]}))
    assert run.score.tolist() == [10.0, 3.0, 2.0, 0.5]
    assert run_from_dict({"1": {"a": 2**70, "b": np.float32(0.5), "c": True}}).score.tolist() == [2.0**70, 1.0, 0.5]
    with pytest.raises(InputError, match=r"document 'b': rank 'x' in column 'rank' is not an integer"):
        run_from_frame(pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "b"], "score": [1, 2], "rank": ["2", "x"]}),
                       order="rank")


# --- 10. the duplicate-judgment error names an option that exists ----------------------------

def test_duplicate_qrels_message_names_the_real_option(tmp_path):
    path = write_bytes(tmp_path, "q.txt", b"1 0 a 1\n1 0 a 2\n")
    with pytest.raises(InputError) as err:
        read_qrels(path)
    message = str(err.value)
    assert "qrels_duplicates" not in message and "on_duplicate='max'" in message
    assert read_qrels(path, on_duplicate="max").rel.tolist() == [2]  # the advice works
    frame = pd.DataFrame({"qid": ["1", "1"], "docno": ["a", "a"], "rel": [1, 2]})
    with pytest.raises(InputError, match="on_duplicate='max'"):
        qrels_from_frame(frame)
    assert qrels_from_frame(frame, on_duplicate="max").rel.tolist() == [2]
    rel = write_bytes(tmp_path, "7.rel", b"a L1\na L2\n")
    with pytest.raises(InputError, match="on_duplicate='max'"):
        read_ntcir_rel(rel)
    assert read_ntcir_rel(rel, on_duplicate="max").rel.tolist() == [2]


# --- 11. intent-file topics that the qrels lack are not silently ignored ----------------------

def test_intent_topics_absent_from_the_qrels_warn(tmp_path):
    qrels = read_qrels(write_bytes(tmp_path, "q.txt", b"1 1 a 1\n1 2 b 1\n"), diversity=True)
    lines = b"1 1 0.5\n1 2 0.5\n" + b"".join(b"%d 1 1.0\n" % t for t in range(2, 10))
    intents = read_intents(write_bytes(tmp_path, "i.txt", lines))
    with pytest.warns(EvaluationWarning, match=r"i\.txt: 8 topics of the intent file are not in the qrels and are "
                                               r"ignored: 2, 3, 4, 5, 6 and 3 more"):
        Collection.from_qrels(qrels, intents=intents)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every intent topic judged: no warning
        Collection.from_qrels(qrels, intents=read_intents(write_bytes(tmp_path, "j.txt", lines[:16])))


# --- 12. memory is bounded by the bytes read, not lines × the longest field -------------------

def huge_field_run(tmp_path, huge: int, lines: int = 3000, at: int = 1500):
    """A run whose line ``at`` has a docno of ``huge`` characters (``doc<at>`` when 0)."""
    rows = [f"{k // 100 + 1} Q0 doc{k} {k % 100 + 1} {100 - k % 100}.5 tag" for k in range(lines)]
    if huge:
        rows[at] = rows[at].replace(f"doc{at}", "x" * huge)
    path = tmp_path / f"huge{huge}.run"
    path.write_text("\n".join(rows) + "\n")
    return path


def deep_size(values: np.ndarray) -> int:
    """Bytes held by an array, counting the objects of an object array."""
    return values.nbytes + (sum(map(sys.getsizeof, values.tolist())) if values.dtype.kind == "O" else 0)


def traced_peak(read, *args, **kwargs):
    """(result, peak bytes allocated while reading): tracemalloc sees numpy's buffers too."""
    tracemalloc.start()
    try:
        out = read(*args, **kwargs)
        return out, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("block", [None, 4096])
def test_one_huge_docno_costs_its_bytes_not_lines_times_its_length(tmp_path, monkeypatch, block):
    if block:  # the long docno arrives in a later block, after narrow ones
        monkeypatch.setattr(_tokens, "BLOCK_BYTES", block)
    huge = 60_000
    _, base = traced_peak(read_run, huge_field_run(tmp_path, 0))
    path = huge_field_run(tmp_path, huge)
    run, peak = traced_peak(read_run, path)
    # padding every docno to the longest would cost 3000 × 60 KB = 180 MB; reading costs a few
    # times the bytes of the block holding the long docno, whatever the threads' timing
    assert peak - base < 100 * huge and deep_size(run.docno) < 4 * path.stat().st_size
    assert "x" * huge in run.ranking("16") and run.ranking("1")[:2] == ["doc0", "doc1"]


@pytest.mark.parametrize("column", ["topic", "docno", "tag", "score"])
def test_a_huge_field_in_any_column_costs_its_bytes(tmp_path, column):
    huge = 50_000
    rows = "".join(f"{k // 100} Q0 d{k} {k} {k}.25 t\n" for k in range(3000))
    old, new = {"topic": ("\n7 Q0", f"\n{'y' * huge} Q0"), "docno": (" d7 ", f" {'y' * huge} "),
                "tag": (" t\n", f" {'y' * huge}\n"), "score": (" 7.25 ", f" 7.{'0' * huge} ")}[column]
    _, base = traced_peak(read_run, write_bytes(tmp_path, "base.txt", rows.encode()))
    run, peak = traced_peak(read_run, write_bytes(tmp_path, "r.txt", rows.replace(old, new, 1).encode()))
    assert peak - base < 100 * huge and run.docno.size == 3000


def test_a_huge_docno_in_qrels_and_python_input(tmp_path):
    huge = "y" * 50_000
    text = "".join(f"{k // 50} 0 d{k} {k % 3}\n" for k in range(3000))
    _, base = traced_peak(read_qrels, write_bytes(tmp_path, "base.txt", text.encode()))
    path = write_bytes(tmp_path, "q.txt", text.replace(" d7 ", f" {huge} ").encode())
    q, peak = traced_peak(read_qrels, path)
    assert peak - base < 100 * len(huge) and deep_size(q.docno) < 4 * path.stat().st_size
    run = {"1": {f"d{k}": float(k) for k in range(3000)}}
    run["1"][huge] = 0.5
    assert deep_size(run_from_dict(run).docno) < 20 * 3000 * 8 + 4 * len(huge)
    assert deep_size(qrels_from_dict(run | {"1": {huge: 1, **{f"d{k}": 0 for k in range(3000)}}}).docno) < 1_000_000


def test_a_huge_field_does_not_change_any_result(tmp_path):
    long_doc = "z" * 20_000
    qrels = {"1": {long_doc: 1, "b": 1, "c": 0}, "2": {"a": 2}}
    lines = f"1 Q0 a 1 3 t\n1 Q0 {long_doc} 2 2 t\n1 Q0 b 3 2 t\n2 Q0 a 1 1 t\n"
    path = write_bytes(tmp_path, "r.txt", lines.encode())
    run = read_run(path)
    assert run.docno.dtype.kind == "O" and run.ranking("1") == ["a", long_doc, "b"]  # tie: docno descending
    expected = {"1": 0.5 * (1 / 2 + 2 / 3), "2": 1.0}
    frame = evaluate(qrels, path, "AP", per_topic=True)
    assert dict(zip(frame["topic"], frame["value"])) == pytest.approx({**expected, "all": 0.5 * sum(expected.values())})
    with pytest.raises(InputError, match=r"document 'z{60}\.\.\.' \(20000 characters\) appears lines 2 and 3"):
        read_run(write_bytes(tmp_path, "d.txt", f"1 Q0 a 1 3 t\n1 Q0 {long_doc} 2 2 t\n1 Q0 {long_doc} 3 1 t\n"
                                                .encode()))


# --- bad option values get the validators' message --------------------------------------------

@pytest.mark.parametrize("read, option, message", [
    (read_run, {"order": "ranks"}, "The order option must be one of 'score', 'rank', 'file'. Got 'ranks' instead."),
    (read_run, {"on_duplicate": "max"}, "The on_duplicate option must be one of 'error', 'first'. Got 'max'"),
    (read_run, {"score_dtype": "float16"}, "The score_dtype option must be one of 'float32', 'float64'."),
    (read_qrels, {"on_duplicate": "first"}, "The on_duplicate option must be one of 'error', 'max'. Got 'first'"),
])
def test_bad_option_values(tmp_path, read, option, message):
    path = write_bytes(tmp_path, "f.txt", b"1 Q0 a 1 1 t\n" if read is read_run else b"1 0 a 1\n")
    with pytest.raises(ValueError, match=re.escape(message)):
        read(path, **option)
