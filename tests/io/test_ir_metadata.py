"""ir_metadata headers: read as repro_eval writes them (ruamel.yaml's block style behind '# '), written
back so that they read the same, errors at file:line."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from conftest import DATA
from cranfield.errors import InputError
from cranfield.io.ir_metadata import END, START, format_ir_metadata, read_ir_metadata

ANNOTATED = DATA / "similarity" / "ir_metadata.run"
EXPECTED = {
    "tag": "uic0301-rep", "actor": {"team": "cranfield tests"},
    "platform": {"hardware": {"cpu": {"model": "Intel(R) Core(TM) i7", "cores": 8}, "ram": "16 GB"},
                 "software": {"libraries": {"python": ["numpy==1.19", "pyserini==0.9"]}}},
    "research goal": {"venue": {"name": "ECIR", "year": 2021}},
    "method": {"retrieval": [{"name": "bm25", "k1": 0.9, "b": 0.4},
                             {"name": "rm3", "reranks": "bm25", "fb_terms": 10}]},
    "data": {"test_collection": {"name": "TREC 2003 Robust"}},
}


def test_reads_the_header_repro_eval_writes() -> None:
    assert read_ir_metadata(ANNOTATED) == EXPECTED


def test_gzip_and_files_without_a_header(tmp_path: Path) -> None:
    target = tmp_path / "run.gz"
    target.write_bytes(gzip.compress(ANNOTATED.read_bytes()))
    assert read_ir_metadata(target) == EXPECTED
    assert read_ir_metadata(DATA / "robust03" / "input.humR03dc.gz") is None


def test_written_header_reads_back(tmp_path: Path) -> None:
    meta = {**EXPECTED, "quoted": "a: b", "number as text": "123", "flag": True, "nothing": None, "empty": [],
            "dash": "-x", "hash": "a #b"}
    text = format_ir_metadata(meta)
    assert text.startswith(START + "\n") and text.endswith(END + "\n")
    path = tmp_path / "run"
    path.write_text(text + "1 Q0 d 1 1 t\n")
    assert read_ir_metadata(path) == meta


@pytest.mark.parametrize("header, line, message", [
    ("# a: 1\n", None, "no '# ir_metadata.end' line"),
    ("# a: [1, 2]\n# ir_metadata.end\n", 2, "is not read"),
    ("# a: 1\n#     b: 2\n# ir_metadata.end\n", 3, "unexpected indentation"),
    ("# just text\n# ir_metadata.end\n", 2, "expected 'key: value'"),
])
def test_errors_name_file_and_line(tmp_path: Path, header: str, line: int | None, message: str) -> None:
    path = tmp_path / "run"
    path.write_text(START + "\n" + header + "1 Q0 d 1 1 t\n")
    with pytest.raises(InputError) as info:
        read_ir_metadata(path)
    assert message in str(info.value)
    assert (f"{path}:{line}:" in str(info.value)) if line else str(path) in str(info.value)
