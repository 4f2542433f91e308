"""``irds:<dataset-id>`` wherever qrels are accepted (cranfield.io.irds, docs/datasets.md).

The real ir_datasets loads datasets that these tests register from the bundled files
(``ir_datasets.util.LocalDownload``): nothing is downloaded, ``IR_DATASETS_HOME`` points to a
temporary directory and every socket connection fails the test.
"""

from __future__ import annotations

import atexit
import os
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import DATA, run_main
from cranfield.errors import CranfieldError
from cranfield.evaluation.evaluator import Evaluator
from cranfield.io import as_qrels, as_run, read_intent_types, read_irds_intent_types, read_irds_qrels, read_qrels


def _import_ir_datasets():
    """Import ir_datasets with its home in a temporary directory: importing it creates the
    collections' cache directories there (``ir_datasets.util.home_path``)."""
    if "ir_datasets" in sys.modules:
        return pytest.importorskip("ir_datasets")
    home = tempfile.mkdtemp(prefix="cranfield-irds-")
    atexit.register(shutil.rmtree, home, True)
    before = os.environ.get("IR_DATASETS_HOME")
    os.environ["IR_DATASETS_HOME"] = home
    try:
        return pytest.importorskip("ir_datasets")
    finally:
        if before is None:
            del os.environ["IR_DATASETS_HOME"]
        else:
            os.environ["IR_DATASETS_HOME"] = before


ir_datasets = _import_ir_datasets()
from ir_datasets.datasets.base import Dataset  # noqa: E402
from ir_datasets.datasets.clueweb12 import TrecWebTrackQuery  # noqa: E402
from ir_datasets.formats import TrecQrels, TrecSubQrels, TrecXmlQueries  # noqa: E402
from ir_datasets.util import GzipExtract, LocalDownload  # noqa: E402

TINY_QRELS = DATA / "tiny" / "ir_measures-compat.qrels"
TINY_RUN = DATA / "tiny" / "ir_measures-compat.run"
WEB_QRELS = DATA / "web2012" / "qrels-for-ndeval.txt.gz"
WEB_TOPICS = DATA / "web2012" / "full-topics.xml"
WEB_RUN = DATA / "web2012" / "ql-filtered.run.gz"
WEB_ADHOC = DATA / "web2012" / "qrels.adhoc.txt"


def _register(name: str, dataset: Dataset) -> None:
    if name not in set(ir_datasets.registry):
        ir_datasets.registry.register(name, dataset)


@pytest.fixture(scope="module")
def random_qrels(tmp_path_factory) -> Path:
    """The file behind ``cranfield-test/random``, rewritten by the property test."""
    return tmp_path_factory.mktemp("irds") / "random.qrels"


@pytest.fixture(scope="module", autouse=True)
def datasets(random_qrels):
    _register("cranfield-test/tiny", Dataset(TrecQrels(LocalDownload(TINY_QRELS), {})))
    _register("cranfield-test/web2012", Dataset(
        TrecXmlQueries(LocalDownload(WEB_TOPICS), qtype=TrecWebTrackQuery),
        TrecQrels(LocalDownload(WEB_ADHOC), {}),
    ))
    _register("cranfield-test/web2012/diversity", Dataset(
        TrecXmlQueries(LocalDownload(WEB_TOPICS), qtype=TrecWebTrackQuery),
        TrecSubQrels(GzipExtract(LocalDownload(WEB_QRELS)), {}),
    ))
    _register("cranfield-test/topics-only", Dataset(TrecXmlQueries(LocalDownload(WEB_TOPICS), qtype=TrecWebTrackQuery)))
    _register("cranfield-test/missing-file",
              Dataset(TrecQrels(LocalDownload(DATA / "no-such-dir" / "qrels.txt", mkdir=False), {})))
    _register("cranfield-test/random", Dataset(TrecQrels(LocalDownload(random_qrels), {})))


@pytest.fixture(autouse=True)
def offline(tmp_path, monkeypatch):
    """No download: ir_datasets' home is a temporary directory and connecting anywhere fails."""
    monkeypatch.setenv("IR_DATASETS_HOME", str(tmp_path / "ir_datasets"))

    def refuse(*args, **kwargs):
        raise AssertionError("a test tried to use the network")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _same(a, b) -> None:
    assert a.topic_ids == b.topic_ids
    assert a.intent_ids == b.intent_ids
    assert a.diversity == b.diversity
    np.testing.assert_array_equal(a.topic, b.topic)
    np.testing.assert_array_equal(a.intent, b.intent)
    assert a.docno.tolist() == b.docno.tolist()
    np.testing.assert_array_equal(a.rel, b.rel)


# ---- ad hoc qrels ----------------------------------------------------------------------------

def test_adhoc_qrels_equal_the_file():
    q = read_irds_qrels("irds:cranfield-test/tiny")
    assert q.source == "irds:cranfield-test/tiny" and not q.diversity
    _same(q, read_qrels(TINY_QRELS))
    assert len(q) == sum(1 for line in TINY_QRELS.read_text().splitlines() if line.strip())


def test_as_qrels_accepts_irds_ids():
    _same(as_qrels("irds:cranfield-test/tiny"), read_qrels(TINY_QRELS))
    _same(as_qrels("irds:cranfield-test/web2012"), read_qrels(WEB_ADHOC))


def test_adhoc_web_dataset_has_no_intent_types_applied():
    """Ad hoc qrels of a dataset whose topics have subtopics: the types are not attached (one intent
    per topic), so nothing is warned about untyped intents."""
    ev = Evaluator("irds:cranfield-test/web2012", ["nDCG@20"])
    assert not ev.collection.diversity and not ev.collection.typed


def test_evaluator_scores_equal_the_file():
    measures = ["AP", "nDCG@10", "P@5", "RR"]
    a = Evaluator("irds:cranfield-test/tiny", measures).evaluate(str(TINY_RUN))
    b = Evaluator(str(TINY_QRELS), measures).evaluate(str(TINY_RUN))
    np.testing.assert_array_equal(a.values, b.values)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "q3"]), st.sampled_from(["d1", "d2", "D-3", "x"]),
                          st.integers(-2, 4)), min_size=1, max_size=12, unique_by=lambda r: r[:2]))
def test_any_adhoc_qrels_round_trip(random_qrels, rows):
    random_qrels.write_text("".join(f"{q} 0 {d} {r}\n" for q, d, r in rows))
    _same(read_irds_qrels("irds:cranfield-test/random"), read_qrels(random_qrels))


# ---- diversity qrels and intent types --------------------------------------------------------

def test_diversity_qrels_equal_the_file():
    q = read_irds_qrels("irds:cranfield-test/web2012/diversity")
    assert q.diversity
    _same(q, read_qrels(WEB_QRELS, diversity=True))
    assert len(q.topic_ids) == 50


def test_subtopic_records_read_as_adhoc_when_asked():
    q = read_irds_qrels("irds:cranfield-test/web2012/diversity", diversity=False, on_duplicate="max")
    _same(q, read_qrels(WEB_QRELS, diversity=False, on_duplicate="max"))


def test_intent_types_equal_the_topics_file():
    types = read_irds_intent_types("irds:cranfield-test/web2012/diversity")
    assert types == read_intent_types(WEB_TOPICS)
    assert set(types.values()) == {"inf", "nav"}
    assert read_irds_intent_types("irds:cranfield-test/tiny") == {}  # no topics at all


def test_evaluator_takes_the_datasets_intent_types():
    ev = Evaluator("irds:cranfield-test/web2012/diversity", ["Ef-P@10"])
    assert ev.collection.diversity and ev.collection.typed
    measures = ["alpha-nDCG@20", "ERR-IA@20", "Ef-P@10", "D#-nDCG@10"]
    a = Evaluator("irds:cranfield-test/web2012/diversity", measures).evaluate(str(WEB_RUN))
    b = Evaluator(str(WEB_QRELS), measures, diversity=True, intent_types=str(WEB_TOPICS)).evaluate(str(WEB_RUN))
    np.testing.assert_array_equal(a.values, b.values)


def test_intent_types_given_as_irds_id():
    a = Evaluator(str(WEB_QRELS), ["Ef-P@10"], diversity=True, intent_types="irds:cranfield-test/web2012/diversity")
    assert a.collection.typed


def test_load_collection_takes_the_datasets_intent_types():
    from cranfield.evaluation.collection import load_collection

    a = load_collection("irds:cranfield-test/web2012/diversity")
    b = load_collection(str(WEB_QRELS), diversity=True, intent_types=str(WEB_TOPICS))
    assert a.diversity and a.typed and a.topic_ids == b.topic_ids
    assert not load_collection("irds:cranfield-test/web2012").typed


# ---- the command line ------------------------------------------------------------------------

def _scores(out: str) -> list[str]:
    return [line for line in out.splitlines() if not line.startswith("#")]


def test_cli_eval_adhoc_equals_the_file(capsys):
    code, out, err = run_main(capsys, ["eval", "irds:cranfield-test/tiny", TINY_RUN, "-m", "AP"])
    assert code == 0, err
    code2, out2, _ = run_main(capsys, ["eval", TINY_QRELS, TINY_RUN, "-m", "AP"])
    assert code2 == 0
    assert _scores(out) == _scores(out2)
    assert "qrels=irds:cranfield-test/tiny" in out + err


def test_cli_eval_diversity_equals_the_files(capsys):
    measures = ["-m", "alpha-nDCG@20", "-m", "Ef-P@10"]
    code, out, err = run_main(capsys, ["eval", "irds:cranfield-test/web2012/diversity", WEB_RUN, *measures])
    assert code == 0, err
    assert "no intent types were given" not in err
    code2, out2, _ = run_main(capsys, ["eval", "--diversity", "--intent-types", WEB_TOPICS, WEB_QRELS, WEB_RUN,
                                       *measures])
    assert code2 == 0
    assert _scores(out) == _scores(out2)
    code3, out3, err3 = run_main(capsys, ["eval", "--diversity", "--intent-types",
                                          "irds:cranfield-test/web2012/diversity", WEB_QRELS, WEB_RUN, *measures])
    assert code3 == 0, err3
    assert _scores(out3) == _scores(out2)


# ---- errors, one line each -------------------------------------------------------------------

def _one_line(capsys, args) -> str:
    code, out, err = run_main(capsys, args)
    assert code == 2, (out, err)
    lines = [line for line in err.splitlines() if line.strip() and not line.startswith("#")]
    assert len(lines) == 1, err
    return lines[0]


def test_unknown_id_names_close_matches(capsys):
    with pytest.raises(CranfieldError, match=r"unknown ir_datasets id 'cranfield-test/tiyn'; did you mean "
                                             r"'cranfield-test/tiny'"):
        read_irds_qrels("irds:cranfield-test/tiyn")
    line = _one_line(capsys, ["eval", "irds:cranfield-test/tiyn", TINY_RUN, "-m", "AP"])
    assert "unknown ir_datasets id 'cranfield-test/tiyn'" in line


def test_unknown_id_without_close_matches():
    with pytest.raises(CranfieldError, match=r"unknown ir_datasets id 'zzzz-qqqq-9'"):
        read_irds_qrels("irds:zzzz-qqqq-9")


def test_dataset_without_qrels(capsys):
    with pytest.raises(CranfieldError, match=r"^ir_datasets dataset 'cranfield-test/topics-only' has no qrels$"):
        as_qrels("irds:cranfield-test/topics-only")
    assert "has no qrels" in _one_line(capsys, ["eval", "irds:cranfield-test/topics-only", TINY_RUN, "-m", "AP"])


def test_empty_id():
    with pytest.raises(CranfieldError, match=r"names no dataset"):
        as_qrels("irds:")


def test_unreadable_qrels_is_one_error(capsys):
    line = _one_line(capsys, ["eval", "irds:cranfield-test/missing-file", TINY_RUN, "-m", "AP"])
    assert "irds:cranfield-test/missing-file: could not load the qrels from ir_datasets" in line


def test_run_given_as_irds_is_refused(capsys):
    with pytest.raises(CranfieldError, match=r"runs cannot be read from ir_datasets"):
        as_run("irds:cranfield-test/tiny")
    line = _one_line(capsys, ["eval", TINY_QRELS, "irds:cranfield-test/tiny", "-m", "AP"])
    assert "runs cannot be read from ir_datasets" in line


def test_ir_datasets_not_installed(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ir_datasets", None)
    with pytest.raises(CranfieldError, match=r"needs ir_datasets: pip install 'cranfield\[datasets\]'"):
        as_qrels("irds:cranfield-test/tiny")
    line = _one_line(capsys, ["eval", "irds:cranfield-test/tiny", TINY_RUN, "-m", "AP"])
    assert "pip install 'cranfield[datasets]'" in line
