"""`cranfield similarity` and `cranfield repro`: every format, the rows the issue names, clear errors."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pandas as pd
import pytest

from conftest import DATA
from cranfield.cli.main import main

ROBUST = DATA / "robust03"
QRELS = str(ROBUST / "qrels.txt.gz")
RUNS = [str(ROBUST / f"input.{name}.gz") for name in ("uic0301", "NLPR03vb10", "humR03dc", "pircRBa1")]
REPRO = ["repro", "--qrels", QRELS, "--orig-baseline", RUNS[0], "--orig-advanced", RUNS[1],
         "--rep-baseline", RUNS[2], "--rep-advanced", RUNS[3], "--cutoffs", "5,10"]


def run(argv: list[str]) -> int:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return main(argv)


def test_similarity_csv_rows_for_every_pair(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["similarity", *RUNS[:3], "-m", "RBO(p=0.9),KTU@10", "-m", "Jaccard@10", "--format", "csv",
                "-o", str(tmp_path / "s.csv")]) == 0
    frame = pd.read_csv(tmp_path / "s.csv", dtype={"topic": str})
    assert list(frame.columns) == ["run_a", "run_b", "topic", "measure", "value"]
    assert len(frame.groupby(["run_a", "run_b"])) == 3
    assert set(frame.measure) == {"RBO(p=0.9)", "KTU@10", "Jaccard@10"}
    means = frame[frame.topic == "all"]
    per_topic = frame[frame.topic != "all"].groupby(["run_a", "run_b", "measure"]).value.mean()
    for row in means.itertuples():
        assert row.value == pytest.approx(per_topic[(row.run_a, row.run_b, row.measure)])


def test_similarity_reference_table_json_and_parquet(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["similarity", *RUNS[1:3], "--reference", RUNS[0], "-m", "RBO(variant=min,ties=w)"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["run_a", "run_b", "RBO(variant=min,ties=w)"] and len(lines) == 3
    assert run(["similarity", *RUNS[:2], "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert set(rows[0]) == {"run_a", "run_b", "topic", "measure", "value"}
    pytest.importorskip("pyarrow")
    assert run(["similarity", *RUNS[:2], "--format", "parquet", "-o", str(tmp_path / "s.parquet")]) == 0
    assert len(pd.read_parquet(tmp_path / "s.parquet")) == len(rows)


def test_repro_every_format_agrees(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*REPRO, "-m", "AP,nDCG@10", "--format", "csv", "-o", str(tmp_path / "r.csv")]) == 0
    frame = pd.read_csv(tmp_path / "r.csv", dtype={"topic": str, "measure": str, "run": str})
    assert list(frame.columns) == ["statistic", "measure", "run", "cutoff", "topic", "value"]
    assert set(frame.statistic) == {"KTU", "RBO", "RMSE", "ER", "DeltaRI", "p"}
    assert run([*REPRO, "-m", "AP,nDCG@10", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == len(frame)
    assert {r["cutoff"] for r in rows if r["statistic"] == "KTU"} == {5, 10}
    assert all(r["measure"] is None for r in rows if r["statistic"] in ("KTU", "RBO"))
    assert run([*REPRO, "-m", "AP", "--plot", str(tmp_path / "r.png")]) == 0
    assert (tmp_path / "r.png").stat().st_size > 0
    assert "ER" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["similarity", RUNS[0], RUNS[1], "-m", "KTU"], "KTU needs a cutoff"),
    (["similarity", RUNS[0], RUNS[1], "-m", "RBO(ties=x)"], "'ties' parameter of RBO"),
    (["similarity", RUNS[0]], "two runs or more"),
    (["similarity", RUNS[0], RUNS[1], "--format", "parquet"], "give it with -o FILE"),
    ([*REPRO, "--cutoffs", "5,x"], "--cutoffs"),
    ([*REPRO, "--cutoffs", "0"], "cutoff"),
])
def test_errors_are_one_line(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("cranfield: error:") and message in err and err.count("\n") == 1


def test_repro_reads_a_run_with_an_ir_metadata_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    annotated = str(DATA / "similarity" / "ir_metadata.run")
    argv = ["repro", "--qrels", QRELS, "--orig-baseline", RUNS[0], "--orig-advanced", RUNS[1], "--rep-baseline",
            annotated, "--rep-advanced", RUNS[3], "-m", "AP", "--cutoffs", "10", "--provenance",
            str(tmp_path / "prov.txt")]
    assert run(argv) == 0
    from cranfield.io.ir_metadata import read_ir_metadata

    provenance = read_ir_metadata(tmp_path / "prov.txt")
    assert provenance is not None
    assert provenance["runs"]["rep_baseline"]["ir_metadata"]["tag"] == "uic0301-rep"


def test_repro_provenance_is_an_ir_metadata_header(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run([*REPRO, "-m", "AP", "--provenance", str(tmp_path / "prov.txt")]) == 0
    from cranfield.io.ir_metadata import read_ir_metadata

    provenance = read_ir_metadata(tmp_path / "prov.txt")
    assert provenance is not None and provenance["kind"] == "reproducibility"
    assert provenance["runs"]["orig_baseline"] == {"source": RUNS[0], "ir_metadata": None}


def test_repro_html_page_is_self_contained_and_escapes_the_headers(tmp_path: Path) -> None:
    from cranfield.analysis.repro import ReproResult
    from cranfield.render.html import CSP, esc, repro_html

    result = ReproResult("reproducibility", (("KTU", None, "baseline", 10, "all", 0.5), ("RMSE", "AP", "baseline",
                         None, "1", 0.1), ("RMSE", "AP", "baseline", None, "all", 0.1), ("p", "AP", "baseline", None,
                         "all", 1e-9)), ("AP",), (10,),
                         {"kind": "reproducibility", "runs": {"rep_baseline": {"source": "b.run", "ir_metadata": {
                             "tag": "<script>alert(1)</script>", "method": {"k1": 0.9}}}}})
    page = repro_html(result)
    assert "<script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert esc(CSP) in page and "method.k1" in page and "&lt; 0.0001" in page and "<svg" in page


def test_the_report_lists_a_run_files_ir_metadata() -> None:
    from cranfield.analysis.report import file_record

    record = file_record("run", DATA / "similarity" / "ir_metadata.run")
    assert record is not None and record["ir_metadata"]["tag"] == "uic0301-rep"
    plain = file_record("run", RUNS[0])
    assert plain is not None and "ir_metadata" not in plain
