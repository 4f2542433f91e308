"""TREC Dynamic Domain input hardening (issue #14): malformed truth XML, integers beyond 64 bits,
repeated passages, --docs-per-iteration, and the limits of --compat dd2017."""

from __future__ import annotations

import gzip
import math
import warnings

import pytest

import cranfield
from cranfield import CranfieldError, InputError
from cranfield.cli.main import main
from cranfield.io.dd import FILL_LIMIT, read_dd_run, read_dd_subtopics, read_dd_truth

PASSAGE = '<passage id="{id}"><docno>{doc}</docno><rating>{rating}</rating><type>MANUAL</type></passage>'


def truth_xml(*subtopics: str) -> str:
    """A one-topic truth XML; each argument is a subtopic's inner XML (its passages)."""
    body = "\n".join(f'<subtopic id="T.{k}" name="s">\n{inner}\n</subtopic>' for k, inner in enumerate(subtopics, 1))
    return (f'<?xml version="1.0"?>\n<trecdd>\n<domain id="1" name="d">\n<topic id="T" name="t">\n{body}\n'
            '</topic>\n</domain>\n</trecdd>\n')


ONE = truth_xml(PASSAGE.format(id=1, doc="d1", rating=2))


def run_cli(capsys, *argv) -> tuple[int, str]:
    code = main(["eval", *map(str, argv)])
    return code, capsys.readouterr().err


# --------------------------------------------------------------------------- the truth XML
def test_truth_xml_is_recognised_by_content_plain_gzip_or_with_a_byte_order_mark(write):
    want = read_dd_truth(write("truth.xml", ONE))
    bare = ONE.split("\n", 1)[1]  # without the XML declaration, which must come first
    for path in (write("truth.txt", "\n  " + bare), write("truth.dat", gzip.compress(ONE.encode())),
                 write("bom.txt", b"\xef\xbb\xbf" + ONE.encode())):
        got = read_dd_truth(path)
        assert (got.docno.tolist(), got.rel.tolist(), got.intent_ids) == (want.docno.tolist(), want.rel.tolist(),
                                                                          want.intent_ids)


@pytest.mark.parametrize("text, line, message", [
    (ONE.replace("</subtopic>", "</subtopik>"), 7, "not well-formed XML: mismatched tag"),
    (ONE[: ONE.index("</topic>")], 8, "not well-formed XML: no element found"),
    (ONE.replace('name="t">', 'name="t">&nbsp;'), 4, "not well-formed XML: undefined entity"),
    ("<trecdd>\n<domain>\n</trecdd>\n", 3, "not well-formed XML"),
])
def test_malformed_xml_is_one_error_naming_file_and_line(write, capsys, text, line, message):
    path = write("truth.xml", text)
    with pytest.raises(InputError) as info:
        read_dd_truth(path)
    assert (info.value.source, info.value.line) == (str(path), line)
    assert str(info.value).startswith(f"{path}:{line}: {message}")
    code, err = run_cli(capsys, "--dd-truth", path, write("run.txt", "T\t0\td1\t1\t1\t\n"))
    assert code == 2 and err.startswith(f"cranfield: error: {path}:{line}: {message}") and err.count("\n") == 1


@pytest.mark.parametrize("text, line, message", [
    (truth_xml('<passage id="1"><rating>2</rating></passage>'), 6, "passage '1' has no <docno>"),
    (truth_xml('<passage id="1"><docno>d1</docno><rating> </rating></passage>'), 6, "passage '1' has no <rating>"),
    (truth_xml('<passage id="1"><docno>d1</docno><rating>two</rating></passage>'), 6, "rating 'two' is not an integer"),
    (truth_xml("<passage><docno>d1</docno><rating>2</rating></passage>"), 6, "<passage> without an id attribute"),
    (truth_xml(PASSAGE.format(id=1, doc="d1", rating=2) + "\n<note>x</note>"), 7, "<note> inside <subtopic>"),
    (ONE.replace('<topic id="T" name="t">', '<topic name="t">'), 4, "<topic> without an id attribute"),
    (ONE.replace("<topic ", "<query ").replace("</topic>", "</query>"), 4, "<query> where a <topic> belongs"),
    (ONE.replace('<subtopic id="T.1" name="s">\n', '<subtopic id="T.1"/>\n<subtopic id="T.1" name="s">\n'),
     6, "subtopic 'T.1' of topic 'T' is declared twice (lines 5 and 6)"),
    (truth_xml(""), None, "no judged passage"),
    (truth_xml(PASSAGE.format(id=1, doc="d1", rating=2) + "\n" + PASSAGE.format(id=1, doc="d1", rating=3)),
     7, "passage 1 of document 'd1' is rated twice for subtopic 'T.1' of topic 'T' (lines 6 and 7)"),
])
def test_truth_xml_structure_errors_name_their_line(write, text, line, message):
    path = write("truth.xml", text)
    with pytest.raises(InputError) as info:
        read_dd_truth(path)
    assert info.value.line == line and message in str(info.value)


def test_a_passage_may_recur_for_another_document_or_subtopic(write):
    """Passage ids are unique per (topic, subtopic, document): the same id elsewhere is no repeat."""
    path = write("truth.xml", truth_xml(PASSAGE.format(id=1, doc="d1", rating=2) + "\n"
                                        + PASSAGE.format(id=1, doc="d2", rating=1),
                                        PASSAGE.format(id=1, doc="d1", rating=0)))
    assert sorted(read_dd_truth(path).rel.tolist()) == [1.0, 1.0, 2.0]
    assert read_dd_subtopics(path).intent == ("T.1", "T.2")


# --------------------------------------------------------------------------- integers beyond int64
BIG = "99999999999999999999"  # > 2**63


@pytest.mark.parametrize("name, text, line, what", [
    ("truth.txt", f"T\tS\td1\t1\t2\nT\tS\td2\t{BIG}\t1\n", 2, "passage id"),
    ("truth.txt", f"T\tS\td1\t1\t{BIG}\n", 1, "rating"),
    ("truth.xml", truth_xml(PASSAGE.format(id=BIG, doc="d1", rating=2)), 6, "passage id"),
])
def test_truth_integers_beyond_64_bits_are_input_errors(write, name, text, line, what):
    with pytest.raises(InputError) as info:
        read_dd_truth(write(name, text))
    assert info.value.line == line and f"{what} '{BIG}'" in str(info.value) and "64-bit" in str(info.value)


def test_passage_ids_are_integers(write):
    with pytest.raises(InputError, match=r":1: passage id 'p1' is not an integer"):
        read_dd_truth(write("truth.txt", "T\tS\td1\tp1\t2\n"))


@pytest.mark.parametrize("compat", [None, "dd2017"])
def test_an_iteration_beyond_64_bits_is_an_input_error(write, capsys, compat):
    run = write("run.txt", f"T\t0\td1\t1.0\t1\t\nT\t{BIG}\td2\t1.0\t1\t\n")
    with pytest.raises(InputError) as info:
        read_dd_run(run, compat=compat)
    assert info.value.line == 2 and f"iteration '{BIG}'" in str(info.value) and "64-bit" in str(info.value)
    code, err = run_cli(capsys, "--dd-truth", write("t.txt", "T\tS\td1\t1\t2\n"), run,
                        *(["--compat", compat] if compat else []))
    assert code == 2 and err.startswith(f"cranfield: error: {run}:2: iteration '{BIG}'")


def test_huge_iteration_numbers_need_no_memory_per_iteration(write):
    """An iteration number of 10**15 leaves CT's time at 10**15 + 1; nCT's bound no longer
    allocates an array per iteration (it did, and failed)."""
    truth = write("t.txt", "T\tS\td1\t1\t2\nT\tS\td2\t2\t1\n")
    run = read_dd_run(write("r.txt", f"T\t0\td1\t1.0\t1\t\nT\t{10**15}\td2\t1.0\t1\t\n"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = cranfield.evaluate(read_dd_truth(truth), run, ["CT", "nCT", "nCT(bound=jig2017)", "ACT"],
                                 per_topic=False).value.tolist()
    assert all(math.isfinite(v) for v in got)
    assert got[0] == pytest.approx((2 * 0.5 + 1 * 0.25) / 5 / (10**15 + 1))


def test_dd2017_refuses_to_fill_more_than_its_limit(write):
    run = write("r.txt", f"T\t0\td1\t1.0\t1\t\nT\t{FILL_LIMIT + 5}\td2\t1.0\t1\t\n")
    with pytest.raises(InputError, match=rf":2: iteration {FILL_LIMIT + 5}: the run skips more than 1,000,000"):
        read_dd_run(run, compat="dd2017")
    assert read_dd_run(run).iteration.tolist() == [0, FILL_LIMIT + 5]  # the default reads it as it is


# --------------------------------------------------------------------------- options
@pytest.mark.parametrize("value", ["0", "-3", "2.5", "many"])
def test_docs_per_iteration_must_be_a_positive_integer(write, capsys, value):
    code, err = run_cli(capsys, write("q.txt", "1 a d1 1\n1 b d2 1\n"), write("r.txt", "1 Q0 d1 1 1.0 x\n"),
                        "-m", "CT", "--docs-per-iteration", value)
    assert code == 2
    assert err == (f"cranfield: error: The value of --docs-per-iteration must be an integer >= 1. "
                   f"Got {value!r} instead.\n")


def test_python_values_are_checked_with_the_validators(write):
    truth = write("t.txt", "T\tS\td1\t1\t2\n")
    run = write("r.txt", "T\t0\td1\t1.0\t1\t\n")
    with pytest.raises(CranfieldError, match=r"^The combine must be one of 'sum', 'dcg'. Got 'max' instead."):
        read_dd_truth(truth, combine="max")
    with pytest.raises(CranfieldError, match=r"^The compat must be one of 'dd2017'. Got 'dd2016' instead."):
        read_dd_run(run, compat="dd2016")
    with pytest.raises(CranfieldError, match=r"^The dup must be one of 'nonrel', 'error'. Got 'keep' instead."):
        read_dd_run(run, dup="keep")
    with pytest.raises(CranfieldError, match="docs_per_iteration"):
        cranfield.parse_measure("CT(docs_per_iteration=0)")


def test_dd_truth_declares_the_subtopics_so_intents_do_not_apply(write, capsys):
    truth = write("t.txt", "T\tS\td1\t1\t2\n")
    code, err = run_cli(capsys, "--dd-truth", truth, write("r.txt", "T\t0\td1\t1.0\t1\t\n"),
                        "--intents", write("i.txt", "T S 1\n"))
    assert code == 2 and "--intents does not apply" in err
