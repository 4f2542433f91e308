"""``cranfield eval --compat trec_eval -q -R qrels_jg`` prints trec_eval 9.0.x's bytes.

``tests/data/qrels_jg/expected-*.gz`` are what trec_eval 9.0.8 (usnistgov/trec_eval, tag v9.0.8,
built with its Makefile on x86-64 Linux) printed for ``trec_eval -q -R qrels_jg [options] qrels
run`` on the cases of ``cases.tsv``: a generated file of five groups (``nist``, ``01``, ``1``,
``crowd-b``, ``z``; topics judged by one to five of them, grades -1 to 3, a topic no document of
which is relevant) with two generated runs (tied scores, a topic the run lacks, a topic no group
judges), the Robust 2003 runs with two groups, each with ``-c``, ``-J``, ``-l 2``, ``-M`` and
trec_eval's three measures with their own cutoffs, and a hand-made file (``edge.*``) where ``-J``
empties a group's ranking, a group judges a topic only with a negative label, a topic has no
relevant document.
"""

from __future__ import annotations

import gzip
import warnings

import pytest

from conftest import DATA

HERE = DATA / "qrels_jg"
CASES = [line.split("\t") for line in (HERE / "cases.tsv").read_text().splitlines()]


def expected(name: str) -> str:
    return gzip.decompress((HERE / f"expected-{name}.gz").read_bytes()).decode()


def printed(capsys, *argv: str) -> str:
    """What ``cranfield eval ARGV`` prints (warnings silenced), checking it exits 0."""
    from cranfield.cli.main import main

    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("name", "qrels", "run", "options"), CASES, ids=[f"{c[0]} {c[2]} {c[3]}" for c in CASES])
def test_qrels_jg_bytes(capsys, name, qrels, run, options):
    argv = ["--compat", "trec_eval", "-q", "-R", "qrels_jg", *options.split(), str(DATA / qrels), str(DATA / run)]
    assert printed(capsys, *argv) == expected(name)


def test_long_option_and_default_measures(capsys):
    """``--qrels-format qrels_jg`` is ``-R qrels_jg``; without -m, --compat trec_eval prints
    ``-m qrels_jg`` (trec_eval's default measures cannot read the file: it stops)."""
    qrels, run = str(HERE / "groups.qrels_jg"), str(HERE / "groups.run1")
    assert printed(capsys, "--compat", "trec_eval", "-q", "--qrels-format", "qrels_jg", qrels, run) == expected("008")


def test_native_names_and_formats(capsys):
    """Without --compat, any measure is averaged over the groups, in any format."""
    qrels, run = str(HERE / "groups.qrels_jg"), str(HERE / "groups.run1")
    rows = [line.split(",") for line in printed(capsys, "-R", "qrels_jg", "-m", "AP,P@5", "--format", "csv", "-q",
                                                 qrels, run).splitlines()[1:]]
    trec = {(f[1], f[0].strip()): float(f[2]) for f in (line.split("\t") for line in expected("008").splitlines())
            if f[0].strip() in ("map_avgjg", "P_avgjg_5")}
    got = {(r[1], {"AP": "map_avgjg", "P@5": "P_avgjg_5"}[r[2]]): float(r[3]) for r in rows}
    assert got.keys() == trec.keys()
    assert all(abs(got[k] - trec[k]) <= 5e-5 for k in trec)


@pytest.mark.parametrize(("argv", "message"), [
    (["-m", "map_avgjg"], "map_avgjg averages over judgment groups: it needs"),
    (["-R", "qrels_jg", "-m", "relstring"], "relstring prints one qrels' labels"),
    (["-R", "qrels_jg", "--diversity"], "--diversity does not apply"),
])
def test_refused(capsys, argv, message):
    from cranfield.cli.main import main

    assert main(["eval", *argv, str(HERE / "groups.qrels_jg"), str(HERE / "groups.run1")]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
