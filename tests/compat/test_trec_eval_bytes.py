"""``cranfield eval --compat trec_eval -q -m all_trec`` prints trec_eval 9.0.8's bytes.

The expected files in ``tests/data/trec_eval9/`` are what trec_eval 9.0.8 (usnistgov/trec_eval,
tag v9.0.8, built with its Makefile) printed on x86-64 Linux for ``trec_eval -q -m all_trec
[options] qrels run``: on its own test files (``test/qrels.test``, ``results.test``,
``results.trunc``, ``qrels.rel_level``), the TREC 2003 Robust runs, the TREC 2012 Web runs and
ir_measures' fixture, each with the options of ``cases.tsv`` (-J, -c, -l 2, -M 100 and
combinations), and six generated cases (``random/``) where the order of a sum shows in a 4th decimal
(a mean's ``P_100``/``P_500``, a topic's ``bpref``). Every value is compared as printed, 4 decimals:
the arithmetic follows trec_eval's order of operations (docs/conventions.md#fixed-order).
"""

from __future__ import annotations

import gzip
import warnings

import pytest

from conftest import DATA

HERE = DATA / "trec_eval9"
CASES = [line.split("\t") for line in (HERE / "cases.tsv").read_text().splitlines()]


@pytest.mark.parametrize(("name", "qrels", "run", "options"), CASES, ids=[f"{c[0]} {c[2]} {c[3]}" for c in CASES])
def test_all_trec_bytes(capsys, name, qrels, run, options):
    from cranfield.cli.main import main

    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["eval", "--compat", "trec_eval", "-q", "-m", "all_trec", *options.split(),
                     str(DATA / qrels), str(DATA / run)])
    assert code == 0
    expected = gzip.decompress((HERE / f"expected-{name}.gz").read_bytes()).decode()
    got = capsys.readouterr().out
    assert got == expected, next((f"{a!r} != {b!r}" for a, b in zip(got.splitlines(), expected.splitlines())
                                  if a != b), "lengths differ")


def test_c_counts_a_missing_topic_as_zero(capsys, write):
    """trec_eval 9 with ``-c`` counts a qrels topic the run lacks as 0 in every ``all`` row (but
    num_q's), also where an empty ranking's value is not 0: ``yaap`` (log 1/(1+R)) and ``utility``
    with a weight on relevant unretrieved documents. Expected: trec_eval 9.0.x's output for the
    Robust 2003 run humR03dc without topics 303 and 650 (``robust03-c-missing.yaap-utility.gz``)."""
    from cranfield.cli.main import main

    with gzip.open(DATA / "robust03" / "input.humR03dc.gz", "rt") as f:
        run = write("run.txt", "".join(line for line in f if line.split()[0] not in ("303", "650")))
    capsys.readouterr()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(["eval", "--compat", "trec_eval", "-c", "-q", "-m", "yaap", "-m", "utility.1,-1,2,0", "-m", "num_q",
                     str(DATA / "robust03" / "qrels.txt.gz"), str(run)])
    assert code == 0
    expected = gzip.decompress((HERE / "robust03-c-missing.yaap-utility.gz").read_bytes()).decode()
    assert capsys.readouterr().out == expected
