"""``--compat trec_eval10`` prints what trec_eval 10.0 prints, byte for byte; its new measures
(rbp, rbp_resid, unj, yaap) and trec_eval's printed names (``ndcg_cut_10``, ``P_10``) as cranfield
measures.

The expected texts in ``tests/data/trec_eval10/`` are trec_eval 10.0's own output (usnistgov/trec_eval
at its 10.0 release commit f425365, built from source with its Makefile), on TREC 2003 Robust
(qrels graded 0/1/2, run humR03dc; NLPR03vb10 for all_trec) and TREC 2012 Web (labels -2..4,
runs ql and rm). The ``.c.`` cases use the run without two of its topics (Robust 303 and 650,
Web 160 and 199), so that ``-c -q`` prints rows for topics the run lacks. ``*.p05.q`` was made
with ``-D 1`` and its debugging lines (``rbp:...``) removed: trec_eval 10's ``m_rbp.c`` reads two
uninitialised variables (``min``, ``max``) and, with some measure lists, prints values that depend
on what the stack held (docs/migration.md#trec_eval-10); ``-D 1``, ``-m rbp`` alone and ``-m all_trec``
give the defined value, the one cranfield computes.
"""

from __future__ import annotations

import gzip
import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from conftest import DATA, read_text, run_main

EXPECTED = DATA / "trec_eval10"
SOURCES = {  # collection -> (qrels, run, topics left out for the .c. cases)
    "robust03": (DATA / "robust03" / "qrels.txt.gz", DATA / "robust03" / "input.humR03dc.gz", {"303", "650"}),
    "web2012": (DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "ql-filtered.run.gz", {"160", "199"}),
}
CASES = {  # expected file -> trec_eval's options
    "q": ["-q"], "c.q": ["-c", "-q"], "l2.q": ["-l", "2", "-q"],
    "all_trec.q": ["-q", "-m", "all_trec"], "all_trec.c.q": ["-c", "-q", "-m", "all_trec"],
    "all_trec.l2.q": ["-l", "2", "-q", "-m", "all_trec"], "all_trec.cJ.q": ["-c", "-J", "-q", "-m", "all_trec"],
    "new.q": ["-q", "-m", "yaap", "-m", "rbp_resid", "-m", "unj.3,7,50"],
    "new.c.q": ["-c", "-q", "-m", "yaap", "-m", "rbp_resid", "-m", "unj.3,7,50", "-m", "utility"],
    "p05.q": ["-q", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.5"],
}


def _rows(text: str) -> dict[tuple[str, str], str]:
    return {(line[:22].strip(), line.split("\t")[1]): line for line in text.splitlines()}


def _run_file(write, collection: str, case: str):
    _, run, left_out = SOURCES[collection]
    if ".c" not in f".{case}":
        return run
    lines = [line for line in read_text(run).splitlines(keepends=True) if line.split()[0] not in left_out]
    return write("run.txt", "".join(lines))


def _compare(expected: str, got: str) -> None:
    """Byte equality, row by row first (a clearer message), then as a whole."""
    want, have = _rows(expected), _rows(got)
    assert list(want) == list(have), "rows or their order differ from trec_eval 10's"
    differ = [key for key in want if want[key] != have[key]]
    assert not differ, differ[:5]
    assert got == expected


@pytest.mark.parametrize("collection", sorted(SOURCES))
@pytest.mark.parametrize("case", sorted(CASES))
def test_bytes_of_trec_eval10(capsys, write, collection, case):
    qrels = SOURCES[collection][0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = run_main(capsys, ["eval", "--compat", "trec_eval10", *CASES[case], qrels,
                                           _run_file(write, collection, case)])
    assert code == 0, err
    expected = gzip.decompress((EXPECTED / f"{collection}.{case}.gz").read_bytes()).decode()
    _compare(expected, out)


@pytest.mark.parametrize(("expected", "qrels", "run"), [
    ("robust03.NLPR.all_trec.q", DATA / "robust03" / "qrels.txt.gz", DATA / "robust03" / "input.NLPR03vb10.gz"),
    ("web2012.rm.all_trec.q", DATA / "web2012" / "qrels.adhoc.txt", DATA / "web2012" / "rm-filtered.run.gz"),
], ids=["robust03-NLPR03vb10", "web2012-rm"])
def test_all_trec_of_other_runs(capsys, expected, qrels, run):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, _ = run_main(capsys, ["eval", "--compat", "trec_eval10", "-q", "-m", "all_trec", qrels, run])
    assert code == 0
    assert out == gzip.decompress((EXPECTED / f"{expected}.gz").read_bytes()).decode()


IR_METADATA = """# ir_metadata.start
# tag: humR03dc
# platform:
#   hardware: {cpu: x86_64}
# ir_metadata.end
"""


@pytest.mark.parametrize("how", ["header", "stdin", "header-stdin"])
def test_comment_lines_and_stdin_as_trec_eval10(capsys, write, monkeypatch, how):
    """trec_eval 10.0 skips lines starting with '#' (an ir_metadata header) and reads the run from
    stdin when it is '-': the same bytes as the plain file gives it (robust03.q)."""
    import io
    import sys

    qrels, run, _ = SOURCES["robust03"]
    text = (IR_METADATA if "header" in how else "") + read_text(run)
    path = write("run.txt", text)
    if "stdin" in how:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode())))
        path = "-"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = run_main(capsys, ["eval", "--compat", "trec_eval10", "-q", qrels, str(path)])
    assert code == 0, err
    _compare(gzip.decompress((EXPECTED / "robust03.q.gz").read_bytes()).decode(), out)


def test_trec_eval_9_is_unchanged(capsys):
    """--compat trec_eval stays 9.0.x: no rbp/unj in all_trec, recall levels ⌊r·R + 0.9⌋ (iprec
    differs from 10's on this run), scores as floats."""
    qrels, run, _ = SOURCES["web2012"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, nine, _ = run_main(capsys, ["eval", "--compat", "trec_eval", "-q", "-m", "all_trec", qrels, run])
    ten = gzip.decompress((EXPECTED / "web2012.all_trec.q.gz").read_bytes()).decode()
    assert "rbp" not in nine and "unj_5" not in nine
    nine_rows, ten_rows = _rows(nine), _rows(ten)
    changed = {m for key, line in nine_rows.items() if ten_rows[key] != line for m in [key[0]]}
    assert changed and all(m.startswith(("iprec_at_recall", "11pt_avg")) for m in changed)


# --------------------------------------------------------------------------- trec_eval's printed names
def test_every_printed_name_is_a_measure(capsys):
    """Each name trec_eval 10 prints for -m all_trec, given to -m as it is printed, gives the value
    trec_eval printed under it (runid, relstring and the geometric means are not measures)."""
    qrels, run, _ = SOURCES["web2012"]
    expected = gzip.decompress((EXPECTED / "web2012.all_trec.q.gz").read_bytes()).decode()
    skip = ("runid", "relstring", "gm_map", "gm_bpref")
    kept = [line for line in expected.splitlines() if line[:22].strip() not in skip]
    names = list(dict.fromkeys(line[:22].strip() for line in kept))
    assert {"ndcg_cut_10", "P_10", "recall_100", "iprec_at_recall_0.50", "map", "set_F", "unj_5"} <= set(names)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = run_main(capsys, ["eval", "--compat", "trec_eval10", "-q", *[a for n in names
                                                                                      for a in ("-m", n)], qrels, run])
    assert code == 0, err
    assert out == "\n".join(kept) + "\n"


@pytest.mark.parametrize(("printed", "native"), [
    ("ndcg_cut_10", "nDCG@10"), ("P_10", "P@10"), ("recall_100", "R@100"), ("iprec_at_recall_0.50", "IPrec@0.5"),
    ("map", "AP"), ("Rprec", "Rprec"), ("bpref", "Bpref"), ("recip_rank", "RR"), ("set_F", "F"),
    ("map_cut_5", "AP@5"), ("success_1", "Success@1"), ("Rprec_mult_0.20", "Rprec(mult=0.2)"),
    ("unj_5", "unj@5"), ("rbp_p=0.5", "rbp(p=0.5)"), ("num_rel_ret", "NumRelRet"), ("relative_P_5", "relative_P@5"),
])
def test_printed_names_everywhere(capsys, printed, native):
    from cranfield.measures.registry import lookup, parse_measure

    assert parse_measure(printed) == parse_measure(native)
    assert lookup(printed) is parse_measure(native).spec
    frame = cranfield.evaluate({"q": {"a": 1, "b": 0}}, {"q": {"a": 1.0, "b": 0.5}}, [printed], per_topic=False)
    assert frame.measure.tolist() == [printed]
    code, out, _ = run_main(capsys, ["measures", printed])
    assert code == 0 and parse_measure(native).spec.name in out


@pytest.mark.parametrize(("name", "says"), [
    ("ndcg_cut", "ndcg_cut_10 (cranfield: nDCG@10)"), ("ndcg_cut_x", "ndcg_cut_10"),
    ("P_ten", "P_10 (cranfield: P@10)"),
    ("iprec_at_recall_5", "iprec_at_recall_0.50 (cranfield: IPrec@0.50)"), ("gm_map", "--average geom"),
])
def test_near_misses_of_printed_names_are_explained(name, says):
    """(On the command line ``ndcg_cut`` and ``gm_map`` are trec_eval's -m names and work.)"""
    from cranfield.errors import MeasureError
    from cranfield.measures.registry import parse_measure

    with pytest.raises(MeasureError) as caught:
        parse_measure(name)
    assert says in str(caught.value) and "ndcg_rel" not in str(caught.value)  # not the old suggestion


def test_a_near_miss_on_the_command_line(capsys):
    qrels, run, _ = SOURCES["web2012"]
    code, _, err = run_main(capsys, ["eval", qrels, run, "-m", "ndcg_cut_1O"])
    assert code == 2 and err.count("\n") == 1
    assert "trec_eval prints ndcg_cut with its parameter, e.g. ndcg_cut_10 (cranfield: nDCG@10)" in err


# --------------------------------------------------------------------------- the measures, by hand
# topic q: a 2, b 0, c 1, e -1 (in the pool, unjudged); the run ranks a, x (not in the qrels), b, e, c
QRELS = {"q": {"a": 2, "b": 0, "c": 1, "e": -1}}
RUN = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "e": 2.0, "c": 1.0}}


@pytest.mark.parametrize(("measure", "value"), [
    ("rbp(p=0.5)", 0.5 * (1.0 + 0.5 * 0.5 ** 4)),  # gains a 2/2, c 1/2 (the topic's top label is 2)
    ("rbp", 0.1 * (1.0 + 0.5 * 0.9 ** 4)),
    ("rbp_resid(p=0.5)", 0.5 ** 5 + 0.5 * (0.5 + 0.5 ** 3)),  # x at rank 2, e at rank 4, then p^5
    ("unj@2", 1 / 2), ("unj@4", 2 / 4), ("unj@10", 2 / 10),  # beyond the run: judged
    ("yaap", math.log((1 + 1 + 2 / 5) / (1 + 2 - 1 - 2 / 5))),  # a at 1 (1/1), c at 5 (2/5); R = 2
    ("yaap(rel=2)", math.log((1 + 1) / (1 + 1 - 1))),
    ("rbp@3", 0.1 * 1.0), ("rbp_resid@3", 0.9 ** 3 + 0.1 * 0.9),
])
def test_hand_computed(measure, value):
    frame = cranfield.evaluate(QRELS, RUN, [measure], per_topic=False)
    assert frame.value.iloc[0] == pytest.approx(value, abs=1e-15)


def test_rbp_gains_of_a_binary_topic_and_resid_without_unjudged():
    qrels = {"q": {"a": 1, "b": 0}}
    frame = cranfield.evaluate(qrels, {"q": {"b": 2.0, "a": 1.0}}, ["rbp(p=0.5)", "rbp_resid", "unj@5"],
                               per_topic=False)
    assert frame.value.tolist() == pytest.approx([0.5 * 0.5, 0.0, 0.0])  # no unjudged: resid 0, not p^n


def test_unjudged_and_judged_at_agree_on_full_rankings():
    """unj@k = 1 − Judged@k when the ranking has k documents and no negative label."""
    rng = np.random.default_rng(7)
    qrels = {"q": {f"d{i}": int(rng.integers(0, 3)) for i in range(0, 40, 2)}}
    run = {"q": {f"d{i}": float(-i) for i in range(30)}}
    frame = cranfield.evaluate(qrels, run, ["unj@10", "Judged@10"], per_topic=False)
    assert frame.value.iloc[0] == pytest.approx(1 - frame.value.iloc[1])


# --------------------------------------------------------------------------- cases never seen
RANDOM = json.loads(gzip.decompress((EXPECTED / "random.json.gz").read_bytes()))  # "seed options" -> text


@pytest.mark.parametrize("key", sorted(RANDOM, key=lambda k: (int(k.split()[0]), k)))
def test_random_cases(capsys, write, key):
    """40 random qrels/run pairs (tests/compat/test_trec_eval_parity.random_case: ties, doubles equal only
    as floats, unjudged documents, negative labels, topics on one side only), each with -q,
    -c -q and -J -q, -m all_trec; trec_eval 10.0 refuses the ones without -c where the run lacks
    a qrels topic (None), and so does cranfield."""
    from test_trec_eval_parity import random_case

    seed, *options = key.split()
    qrels_text, _, _, run = random_case(int(seed))
    run_text = "".join(f"{q} Q0 {d} 0 {s!r} tag{seed}\n" for q, docs in run.items() for d, s in docs.items())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code, out, err = run_main(capsys, ["eval", "--compat", "trec_eval10", *options,
                                           write("q.txt", qrels_text), write("r.txt", run_text)])
    if RANDOM[key] is None:
        assert code == 2 and "trec_eval 10.0 stops there without -c" in err
    else:
        assert code == 0, err
        assert out == RANDOM[key]


# --------------------------------------------------------------------------- invariants
@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([-1, 0, 0, 1, 2, None]), min_size=1, max_size=30),
       st.floats(min_value=0.05, max_value=0.95))
def test_rbp_and_its_residual_share_the_unit_mass(labels, p):
    """Gains are at most 1, so the judged ranks' RBP and the residual (unjudged ranks and the
    tail p^n, Moffat & Zobel, TOIS 2008, §4) add up to at most 1; and yaap is AP's log-odds form,
    log((1 + AP·R)/(1 + R − AP·R)) (Robertson, ECIR 2012)."""
    docs = [f"d{i}" for i in range(len(labels))]
    qrels = {"q": {d: g for d, g in zip(docs, labels) if g is not None} | {"extra": 1}}
    run = {"q": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    frame = cranfield.evaluate(qrels, run, [f"rbp(p={p!r})", f"rbp_resid(p={p!r})", "yaap", "AP", "NumRel"],
                               per_topic=False)
    rbp, resid, value, ap, big_r = frame.value.tolist()
    assert 0 <= rbp and 0 <= resid and rbp + resid <= 1 + 1e-12
    assert value == pytest.approx(math.log((1 + ap * big_r) / (1 + big_r - ap * big_r)), abs=1e-12)
