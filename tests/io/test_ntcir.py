"""NTCIREVAL's per-topic files: ``<topic>.rel`` (``docID L<n>``) and ``<topic>.res`` (one docID per
line, file order = ranking), single files and directories, checked against pyNTCIREVAL."""

from __future__ import annotations

import gzip
import warnings
from math import log2
from pathlib import Path

import numpy as np
import pytest

import cranfield
from conftest import DATA
from cranfield import InputError
from cranfield.cli.main import main
from cranfield.io import (
    as_qrels,
    as_run,
    looks_like_ntcir_rel,
    looks_like_ntcir_res,
    read_ntcir_rel,
    read_ntcir_res,
)

REL = DATA / "ntcireval" / "sample.rel"
RES = DATA / "ntcireval" / "sample.res"
# NTCIREVAL's printed values for its sample with -g 1:2:3 (res_test_compute.txt)
SAMPLE = {"Q(gains=1:2:3)": 0.0967, "P+(gains=1:2:3)": 0.5000, "AP": 0.1000, "RR": 0.5000}


def ntcireval(rel: Path, res: Path, gains: list[float], cutoff: int) -> dict[str, float]:
    """pyNTCIREVAL's values for one topic, its own readers parsing the same files."""
    pytest.importorskip("pyNTCIREVAL")
    from pyNTCIREVAL.metrics import RR
    from pyNTCIREVAL.utils import read_ranked_list, read_rel_file

    from measures.test_ntcireval_parity import reference

    with open(rel) as f:
        labels = read_rel_file(f, " ")
    with open(res) as f:
        ranked = read_ranked_list(f)
    values = reference(labels, ranked, gains, cutoff)
    values["RR"] = RR().compute([(d, labels.get(d)) for d in ranked])
    return values


def names(gains: list[float], cutoff: int) -> dict[str, str]:
    """cranfield's names of NTCIREVAL's measures (as in tests/measures/test_ntcireval_parity.py)."""
    g = ":".join(f"{x:g}" for x in gains)
    return {"Q": f"Q(gains={g})", "P+": f"P+(gains={g})", "ms": f"nDCG(gains={g})@{cutoff}", "AP": "AP",
            "RR": "RR"}


def per_topic(df) -> dict[tuple[str, str], float]:
    return {(t, m): v for t, m, v in zip(df.topic, df.measure, df.value) if t != "all"}


# --- reading ---------------------------------------------------------------------------------

def test_read_sample_rel():
    q = read_ntcir_rel(REL)
    assert q.topic_ids == ("sample",) and not q.diversity and q.intent_ids == ("0",)
    assert len(q) == 11
    assert q.docno[0] == b"dummy01" and q.docno[-1] == b"dummy11"
    assert q.rel.tolist() == [3, 3, 3, 2, 2, 2, 1, 1, 1, 1, 0]  # L0 is judged non-relevant
    assert q.line.tolist() == list(range(1, 12))


def test_read_sample_res_keeps_file_order():
    run = read_ntcir_res(RES)
    assert run.name == "sample" and run.topic_ids == ("sample",)
    assert run.ranking("sample") == ["dummy11", "dummy01", "dummy12", "dummy04"]  # not sorted
    assert run.score.tolist() == [4.0, 3.0, 2.0, 1.0]  # no scores: n..1, so score order = file order
    assert as_run(RES, order="score").ranking("sample") == run.ranking("sample")


def test_topic_and_name_overrides(write):
    assert read_ntcir_rel(REL, topic="0001").topic_ids == ("0001",)
    run = read_ntcir_res(RES, topic="0001", name="sys")
    assert run.topic_ids == ("0001",) and run.name == "sys"


def test_gzip_stems_and_separators(write):
    rel = write("0007.rel.gz", "a\tL1\n\n  b   L12 \n")  # tabs, runs of spaces, blank lines
    q = read_ntcir_rel(rel)
    assert q.topic_ids == ("0007",) and q.rel.tolist() == [1, 12] and q.line.tolist() == [1, 3]
    res = write("0007.res.gz", "b\n\na\n")
    run = read_ntcir_res(res)
    assert run.topic_ids == ("0007",) and run.name == "0007" and run.ranking("0007") == ["b", "a"]


def test_labelled_ranked_list_is_a_run(write):
    # NTCIREVAL's `label` output: the labels are ignored, the order kept; unlabelled lines allowed
    run = read_ntcir_res(write("0001.lab", "c L0\nd L3\ne\n"))
    assert run.topic_ids == ("0001",) and run.ranking("0001") == ["c", "d", "e"]


def test_directories(tmp_path):
    rels, runs = tmp_path / "rel", tmp_path / "sysA"
    rels.mkdir(), runs.mkdir()
    (rels / "0002.rel").write_text("x L1\ny L0\n")
    (rels / "0001.rel.gz").write_bytes(gzip.compress(b"a L2\nb L1\n"))
    (rels / "notes.txt").write_text("ignored\n")
    (runs / "0002.res").write_text("y\nx\n")
    (runs / "0001.res").write_text("b\nz\na\n")
    q = read_ntcir_rel(rels)
    assert q.topic_ids == ("0001", "0002")  # sorted by file name
    assert q.docno.tolist() == [b"a", b"b", b"x", b"y"] and q.rel.tolist() == [2, 1, 1, 0]
    run = read_ntcir_res(runs)
    assert run.name == "sysA" and run.topic_ids == ("0001", "0002")
    assert run.ranking("0001") == ["b", "z", "a"] and run.ranking("0002") == ["y", "x"]
    assert as_qrels(rels).topic_ids == q.topic_ids and as_run(runs).ranking("0002") == ["y", "x"]


# --- agreement with NTCIREVAL ------------------------------------------------------------------

def test_sample_gives_ntcireval_printed_values():
    df = cranfield.evaluate(REL, RES, list(SAMPLE), per_topic=False)
    got = dict(zip(df.measure, df.value))
    for name, printed in SAMPLE.items():
        assert round(got[name], 4) == pytest.approx(printed, abs=1e-12), name


def test_sample_agrees_with_pyntcireval_per_topic():
    ours = names([1, 2, 3], 1000)
    df = cranfield.evaluate(REL, RES, list(ours.values()))
    got = per_topic(df)
    ref = ntcireval(REL, RES, [1, 2, 3], 1000)
    for key, name in ours.items():
        assert got[("sample", name)] == pytest.approx(ref[key], abs=1e-12), key


@pytest.mark.parametrize("seed", range(5))
def test_random_directory_agrees_with_pyntcireval(tmp_path, seed):
    rng = np.random.default_rng(seed)
    gains = [1.0, 2.0, 3.0] if seed % 2 else [1.0, 3.0, 7.0]
    cutoff = int(rng.integers(1, 15))
    (tmp_path / "rel").mkdir(), (tmp_path / "res").mkdir()
    topics = [f"{k:04d}" for k in rng.choice(100, size=3, replace=False)]
    for topic in topics:
        docs = [f"d{k}" for k in range(int(rng.integers(2, 30)))]
        labels = rng.integers(0, len(gains) + 1, size=len(docs))
        labels[0] = len(gains)  # at least one relevant document
        pool = docs + [f"u{k}" for k in range(5)]  # some retrieved documents are unjudged
        ranked = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        (tmp_path / "rel" / f"{topic}.rel").write_text("".join(f"{d} L{v}\n" for d, v in zip(docs, labels)))
        (tmp_path / "res" / f"{topic}.res").write_text("".join(f"{d}\n" for d in ranked))
    ours = names(gains, cutoff)
    got = per_topic(cranfield.evaluate(tmp_path / "rel", tmp_path / "res", list(ours.values())))
    assert {t for t, _ in got} == set(topics)
    for topic in topics:
        ref = ntcireval(tmp_path / "rel" / f"{topic}.rel", tmp_path / "res" / f"{topic}.res", gains, cutoff)
        for key, name in ours.items():
            assert got[(topic, name)] == pytest.approx(ref[key], abs=1e-9), (seed, topic, key)


# --- the command line ------------------------------------------------------------------------

def test_cli_on_the_sample(capsys):
    code = main(["eval", str(REL), str(RES), *[a for m in SAMPLE for a in ("-m", m)]])
    out = capsys.readouterr().out
    assert code == 0
    row = next(line.split() for line in out.splitlines() if line.startswith("sample"))
    assert row == ["sample", "0.0967", "0.5000", "0.1000", "0.5000"]


def test_cli_on_directories(capsys, tmp_path):
    (tmp_path / "rel").mkdir(), (tmp_path / "run").mkdir()
    (tmp_path / "rel" / "sample.rel").write_bytes(REL.read_bytes())
    (tmp_path / "run" / "sample.res").write_bytes(RES.read_bytes())
    code = main(["eval", str(tmp_path / "rel"), str(tmp_path / "run"), "-m", "AP", "-q"])
    out = capsys.readouterr().out
    assert code == 0 and ["run", "sample", "0.1000"] in [line.split() for line in out.splitlines()]


# --- errors ----------------------------------------------------------------------------------

@pytest.mark.parametrize("name, text, message", [
    ("0001.rel", "a L1\nb 1\n", r"0001\.rel:2: relevance level '1' is not L<digits>"),
    ("0001.rel", "a L1\nb Lx\n", r"0001\.rel:2: relevance level 'Lx' is not L<digits>"),
    ("0001.rel", "a L1\nb L\n", r"0001\.rel:2: relevance level 'L' is not L<digits>"),
    ("0001.rel", "a L-1\n", r"0001\.rel:1: relevance level 'L-1' is not L<digits>"),
    ("0001.rel", "a L1\nb\n", r"0001\.rel:2: expected 2 columns \(docID L<n>\), got 1"),
    ("0001.rel", "a L1 x\n", r"0001\.rel:1: expected at most 2 columns, got 3"),
    ("0001.rel", "a L1\nb L2\na L0\n", r"0001\.rel:3: document 'a' is judged lines 1 and 3 for topic '0001'"),
    ("0001.rel", "\n\n", r"0001\.rel: the file is empty"),
    ("0001.res", "a\nb c d\n", r"0001\.res:2: expected at most 2 columns, got 3"),
    ("0001.res", "a\nb 0.5\n", r"0001\.res:2: relevance level '0\.5' is not L<digits>"),
    ("0001.res", "a\nb\n\na\n", r"0001\.res:4: document 'a' appears lines 1 and 4 for topic '0001'"),
    ("0001.res", "", r"0001\.res: the file is empty"),
])
def test_malformed_files(write, name, text, message):
    read = read_ntcir_rel if name.endswith(".rel") else read_ntcir_res
    with pytest.raises(InputError, match=message):
        read(write(name, text))


def test_duplicate_in_a_directory_names_the_file(tmp_path):
    (tmp_path / "0001.res").write_text("a\nb\n")
    (tmp_path / "0002.res").write_text("a\nc\nc\n")
    with pytest.raises(InputError, match=r"0002\.res:3: document 'c' appears lines 2 and 3 for topic '0002'"):
        read_ntcir_res(tmp_path)
    assert read_ntcir_res(tmp_path, on_duplicate="first").ranking("0002") == ["a", "c"]


def test_empty_directory_and_other_directory_errors(tmp_path):
    with pytest.raises(InputError, match=r": no \*\.rel or \*\.rel\.gz files in the directory"):
        read_ntcir_rel(tmp_path)
    with pytest.raises(InputError, match=r": no \*\.res or \*\.res\.gz files in the directory"):
        read_ntcir_res(tmp_path)
    with pytest.raises(InputError, match=r"no \*\.rel"):
        as_qrels(tmp_path)  # a directory is never a TREC file
    (tmp_path / "1.rel").write_text("a L1\n")
    (tmp_path / "1.rel.gz").write_bytes(gzip.compress(b"b L1\n"))
    with pytest.raises(InputError, match=r"1\.rel\.gz: topic '1' is also given by 1\.rel"):
        read_ntcir_rel(tmp_path)
    with pytest.raises(InputError, match="topic= names the topic of one file"):
        read_ntcir_rel(tmp_path, topic="1")
    with pytest.raises(InputError, match="cannot open"):
        read_ntcir_rel(tmp_path / "missing.rel")


# --- sniffing --------------------------------------------------------------------------------

# The bundled TREC collections (the other folders hold reference outputs, nugget and fairness cases).
TREC_DIRS = ("robust03", "tiny", "trec-dd", "web2009", "web2010", "web2011", "web2012", "web2013", "web2014")
TREC_FILES = sorted(p for d in TREC_DIRS for p in (DATA / d).glob("*") if p.suffix not in (".md", ".xml", ".json"))


def test_trec_files_are_not_ntcir():
    assert len(TREC_FILES) >= 15
    for path in TREC_FILES:
        assert not looks_like_ntcir_rel(path) and not looks_like_ntcir_res(path), path
    for name in ("robust03", "web2012", "tiny"):
        assert not looks_like_ntcir_rel(DATA / name) and not looks_like_ntcir_res(DATA / name)


def test_sniffing(write, tmp_path):
    assert looks_like_ntcir_rel(REL) and not looks_like_ntcir_rel(RES)
    assert looks_like_ntcir_res(RES)
    assert looks_like_ntcir_rel(DATA / "ntcireval") and looks_like_ntcir_res(DATA / "ntcireval")
    assert looks_like_ntcir_rel(write("judged.txt", "\n\nd1 L2\n"))  # by content
    assert looks_like_ntcir_res(write("ranked.txt", "\nd1\n"))
    assert looks_like_ntcir_res(write("labelled.txt", "d1 L0\n"))
    assert not looks_like_ntcir_rel(write("pair.txt", "d1 2\n"))  # not an L<n> level
    assert looks_like_ntcir_rel(write("bad.rel", "d1 2\n"))  # named .rel: the reader reports the error
    assert not looks_like_ntcir_rel(write("trec.rel", "1 0 d1 1\n"))  # named .rel but TREC qrels
    assert not looks_like_ntcir_res(write("trec.res", "1 Q0 d1 1 2.5 tag\n"))
    assert looks_like_ntcir_rel(write("0001.rel.gz", "d1 L1\n")) and looks_like_ntcir_res(write("e.res", ""))
    assert not looks_like_ntcir_rel(tmp_path / "missing.rel") and not looks_like_ntcir_res(tmp_path / "nope")
    assert not looks_like_ntcir_res(write("binary.res", b"\x1f\x8bnot gzip"))


def test_trec_paths_still_read_as_trec():
    assert as_qrels(DATA / "web2012" / "qrels.adhoc.txt").topic_ids[0] == "151"
    assert as_run(DATA / "tiny" / "trectools-r1.run").topic_ids[0] == "1"


# --- NTCIR diversity files: Dqrels, Iprob and DIN ----------------------------------------------

# NTCIR Dqrels: topicID intentnum docID L<n>; read by the TREC diversity qrels reader
DQRELS = "0001 1 d1 L2\n0001 1 d2 L1\n0001 2 d2 L1\n0001 2 d3 L3\n"


def test_dqrels_with_iprob(write, tmp_path):
    qrels = write("0001.Dqrels", DQRELS)
    iprob = write("0001.Iprob", "0001 1 0.7\n0001 2 0.3\n")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "0001.res").write_text("d1\nd4\n")  # d4 unjudged; d2, d3 not retrieved
    # exp gains L1 1, L2 3, L3 7: GG(d1) = 0.7·3 = 2.1, GG(d2) = 0.7·1 + 0.3·1 = 1, GG(d3) = 0.3·7 = 2.1
    # DCG = 2.1/log2(2) = 2.1; ideal 2.1, 2.1, 1 → 2.1 + 2.1/log2(3) + 1/2; I-rec@10 = 1/2 (intent 1)
    d_ndcg = 2.1 / (2.6 + 2.1 / log2(3))
    df = cranfield.evaluate(qrels, tmp_path / "run", ["D-nDCG@10", "D#-nDCG@10", "I-rec@10"],
                            intents=iprob, per_topic=False)
    got = dict(zip(df.measure, df.value))
    assert got["D-nDCG@10"] == pytest.approx(d_ndcg, abs=1e-12)
    assert got["I-rec@10"] == pytest.approx(0.5, abs=1e-12)
    assert got["D#-nDCG@10"] == pytest.approx(0.5 * 0.5 + 0.5 * d_ndcg, abs=1e-12)


def test_dqrels_with_din(write):
    qrels = write("0001.Dqrels", "0001 1 d1 L2\n0001 2 d2 L1\n0001 2 d3 L2\n")
    din = write("0001.DIN", "0001 1 0.5 inf\n0001 2 0.5 nav\n")
    run = write("0001.res", "d2\nd3\nd1\n")
    # GG: d1 = 0.5·3 = 1.5, d2 = 0.5·1 = 0.5, d3 = 0.5·3 = 1.5. Intent 2 is navigational, so only
    # its first hit (d2, rank 1) gains: DIN gains 0.5, 0, 1.5 → DCG = 0.5 + 1.5/log2(4) = 1.25;
    # the ideal stays D-nDCG's: 1.5, 1.5, 0.5 → 1.5 + 1.5/log2(3) + 0.5/2
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the types come from the DIN file: no warning
        df = cranfield.evaluate(qrels, run, ["DIN-nDCG@10", "D-nDCG@10"], intents=din, per_topic=False)
    got = dict(zip(df.measure, df.value))
    ideal = 1.75 + 1.5 / log2(3)
    assert got["DIN-nDCG@10"] == pytest.approx(1.25 / ideal, abs=1e-12)
    assert got["D-nDCG@10"] == pytest.approx((0.5 + 1.5 / log2(3) + 0.75) / ideal, abs=1e-12)
