"""Issue #14, trec_eval and ndeval parity: the conventions outside checks found cranfield missing.

Each convention is restated from the tool's own source (trec_eval 9.0.8: ``trec_eval.c``,
``meas_init.c``, ``form_res_rels.c``, ``m_relstring.c``, ``m_set_F.c``, ``m_11pt_avg.c``,
``m_iprec_at_recall.c``, ``meas_acc.c``/``meas_avg.c``; ndeval 4.5: ``ndeval.c``) and checked
against pytrec-eval-terrier / pyndeval where they expose it, by hand where they do not.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from test_trec_eval_layout import OFFICIAL, WEB, cranfield_q, relstrings, trec_eval_q

from conftest import DATA, qrels_dict, read_text, run_dict

pytrec_eval = pytest.importorskip("pytrec_eval")

QL = DATA / "web2012" / "ql-filtered.run.gz"


def _main(capsys, *args: str) -> tuple[int, str, str]:
    from cranfield.cli.main import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def _rows(text: str) -> dict[tuple[str, str], str]:
    """{(label, topic): value text} of trec_eval's ``%-22s\\t%s\\t%s`` rows."""
    return {(line.split("\t")[0].strip(), line.split("\t")[1]): line.split("\t")[2] for line in text.splitlines()}


def _run_file(write, run: dict, tag: str = "t", name: str = "run.txt"):
    return write(name, "".join(f"{q} Q0 {d} 0 {s!r} {tag}\n" for q, docs in run.items() for d, s in docs.items()))


# --------------------------------------------------------------------------- item 2: -c prints no missing topic
def test_c_prints_rows_only_for_the_topics_of_the_run(capsys, write):
    """trec_eval.c loops over the run's topics: -c adds the others to the means (as 0, num_q and
    num_rel counting them) but prints no rows for them."""
    run = {q: d for q, d in run_dict(QL).items() if q not in ("160", "199")}
    out = cranfield_q(capsys, WEB, _run_file(write, run), "-c")
    rows = _rows(out)
    topics = {t for _, t in rows} - {"all"}
    assert topics == set(run) and "160" not in topics and "199" not in topics
    assert rows[("num_q", "all")] == "50"
    ref = pytrec_eval.RelevanceEvaluator(qrels_dict(WEB), {"map", "num_rel"}).evaluate(run)
    assert rows[("map", "all")] == f"{sum(v['map'] for v in ref.values()) / 50:6.4f}"
    missing_rel = sum(r >= 1 for q in ("160", "199") for r in qrels_dict(WEB)[q].values())
    assert rows[("num_rel", "all")] == str(int(sum(v["num_rel"] for v in ref.values())) + missing_rel)


def test_c_with_relstring_and_judged_only(capsys, write):
    run = {q: d for q, d in run_dict(QL).items() if q not in ("160", "199")}
    out = cranfield_q(capsys, WEB, _run_file(write, run), "-c", "-J", "-m", "relstring", "-m", "map")
    assert {t for _, t in _rows(out)} == set(run) | {"all"}
    assert out == trec_eval_q(qrels_dict(WEB), run, {"map", "relstring"}, None, complete=True, judged_only=True)


# --------------------------------------------------------------------------- item 3: relstring's name and '.'
@pytest.mark.parametrize(("given", "label", "length"), [
    (["relstring"], "relstring", 10), (["relstring.20"], "relstring_20", 20), (["relstring.3.0"], "relstring_3.0", 3),
    (["all_trec", "relstring.5"], "relstring_5", 5), (["relstring.4", "relstring.7"], "relstring_4", 4),
])
def test_relstring_is_named_as_trec_eval_names_it(capsys, given, label, length):
    """meas_init.c: a measure with parameters is named name_<parameters as given>, else name;
    the first parameter list given is the one used."""
    out = cranfield_q(capsys, WEB, QL, *[a for g in given for a in ("-m", g)])
    lines = [line for line in out.splitlines() if line.startswith("relstring")]
    assert len(lines) == 50 and all(line.startswith(f"{label:<22}\t") for line in lines)
    expected = relstrings(qrels_dict(WEB), run_dict(QL), n=length)
    assert {line.split("\t")[1]: line.split("\t")[2] for line in lines} == {q: f"'{t}'" for q, t in expected.items()}


def test_relstring_name_in_format_trec_too(capsys):
    code, out, _ = _main(capsys, "eval", WEB, QL, "-m", "relstring.20", "-m", "P.5", "--format", "trec", "-q")
    assert code == 0 and f"{'relstring_20':<22}\t151\t'" in out and "\nrelstring " not in out


def test_every_negative_label_is_a_dot(capsys, write):
    """form_res_rels.c: a document in the qrels with a negative label is RELVALUE_UNJUDGED ('.'),
    whatever the label; only a document outside the qrels is RELVALUE_NONPOOL ('-')."""
    qrels = write("q.txt", "1 0 a -1\n1 0 b -2\n1 0 c -5\n1 0 d 12\n1 0 e 3\n1 0 g 0\n")
    run = write("r.txt", "".join(f"1 Q0 {d} {k} {10 - k} t\n" for k, d in enumerate("abcdefg")))
    out = cranfield_q(capsys, qrels, run, "-m", "relstring")
    assert out.splitlines()[0] == f"{'relstring':<22}\t1\t'...>3-0'"


@pytest.mark.parametrize("label", [-1, -2, -3])
def test_negative_labels_on_web2012(capsys, write, label):
    """TREC Web 2012's -2 (spam) labels, and the same qrels with -1 or -3 instead: all '.'."""
    text = read_text(WEB).replace(" -2\n", f" {label}\n")
    qrels = write("q.txt", text)
    out = cranfield_q(capsys, qrels, QL, "-m", "relstring.1000")
    got = {line.split("\t")[1]: line.split("\t")[2] for line in out.splitlines() if line.startswith("relstring")}
    expected = relstrings(qrels_dict(qrels), run_dict(QL), n=1000)
    assert got == {q: f"'{t}'" for q, t in expected.items()}
    assert sum(t.count(".") for t in expected.values()) > 20 and "-" in "".join(expected.values())


# --------------------------------------------------------------------------- item 4: 11pt_avg and set_F parameters
def _per_topic(text: str, label: str) -> dict[str, str]:
    return {t: v for (name, t), v in _rows(text).items() if name == label}


def test_11pt_avg_with_recall_levels(capsys):
    """trec_eval's -m 11pt_avg..25,.5,.75 (its own test/ command line): the name ends at the
    first '.', the rest is the parameter list (atof reads '.25'), printed as given."""
    out = cranfield_q(capsys, WEB, QL, "-m", "11pt_avg..25,.5,.75")
    got = _per_topic(out, "11pt_avg_.25,.5,.75")
    ref = pytrec_eval.RelevanceEvaluator(qrels_dict(WEB), {"11pt_avg.0.25,0.5,0.75"}).evaluate(run_dict(QL))
    assert got == {**{q: f"{v['11pt_avg']:6.4f}" for q, v in ref.items()},
                   "all": f"{np.mean([v['11pt_avg'] for v in ref.values()]):6.4f}"}
    assert len(set(got.values())) > 10


def test_11pt_avg_levels_equal_the_mean_of_iprec(capsys):
    import cranfield

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(WEB, QL, ["11pt(levels=0.2,0.5,0.8)", "IPrec@0.2", "IPrec@0.5", "IPrec@0.8", "11pt"])
    wide = df.pivot_table(index="topic", columns="measure", values="value")
    mean = wide[["IPrec@0.2", "IPrec@0.5", "IPrec@0.8"]].mean(axis=1)
    assert np.allclose(wide["11pt(levels=0.2,0.5,0.8)"], mean, atol=1e-12)


def test_11pt_avg_levels_out_of_order_are_refused(capsys):
    code, _, err = _main(capsys, "eval", "--compat", "trec_eval", WEB, QL, "-m", "11pt_avg.0.5,0.2")
    assert code == 2 and "ascending order" in err and err.count("\n") == 1


@pytest.mark.parametrize("x", ["2", "1.0", "0.25", "0"])
def test_set_F_takes_beta_squared(capsys, x):
    """m_set_F.c: set_F.x = (x + 1)·P·R / (x·P + R), i.e. F_β with β² = x (cranfield's
    F(beta=√x)); pytrec_eval's set_F.x is the oracle."""
    out = cranfield_q(capsys, WEB, QL, "-m", f"set_F.{x}")
    got = _per_topic(out, f"set_F_{x}")
    ref = pytrec_eval.RelevanceEvaluator(qrels_dict(WEB), {f"set_F.{x}"}).evaluate(run_dict(QL))
    assert got == {**{q: f"{v['set_F']:6.4f}" for q, v in ref.items()},
                   "all": f"{np.mean([v['set_F'] for v in ref.values()]):6.4f}"}


def test_set_F_2_by_hand(capsys, write):
    """P = 1/2, R = 1/3: (2 + 1)·P·R / (2·P + R) = 0.375 (F_β, β² = 2); F with β = 2 would be 0.3571."""
    qrels = write("q.txt", "1 0 a 1\n1 0 b 1\n1 0 c 1\n")
    run = write("r.txt", "1 Q0 a 1 2 t\n1 Q0 x 2 1 t\n")
    assert _rows(cranfield_q(capsys, qrels, run, "-m", "set_F.2"))[("set_F_2", "1")] == "0.3750"


@pytest.mark.parametrize("name", ["set_F.x", "set_F.-1", "set_F.1,2"])
def test_bad_set_F_parameters(capsys, name):
    code, _, err = _main(capsys, "eval", "--compat", "trec_eval", WEB, QL, "-m", name)
    assert code == 2 and "set_F.x takes one number x >= 0" in err


def test_trec_eval_test_meas_params_command(capsys):
    """The measures of trec_eval's own test/out.test.meas_params command line, in its order."""
    args = ["-m", "iprec_at_recall..10,.20,.25,.75,.50", "-m", "P.5,7,3", "-m", "recall.20,2000",
            "-m", "Rprec_mult.5.0,0.2,0.35", "-m", "utility.2,-1,0,0", "-m", "11pt_avg..25,.5,.75",
            "-m", "ndcg.1=3,2=9,4=4.5", "-m", "ndcg_cut.10,20,23.4", "-m", "success.2,5,20"]
    out = cranfield_q(capsys, WEB, QL, *args)
    labels = list(dict.fromkeys(line.split("\t")[0].strip() for line in out.splitlines()))
    assert labels == ["iprec_at_recall_0.10", "iprec_at_recall_0.20", "iprec_at_recall_0.25", "iprec_at_recall_0.50",
                      "iprec_at_recall_0.75", "P_3", "P_5", "P_7", "recall_20", "recall_2000", "Rprec_mult_0.20",
                      "Rprec_mult_0.35", "Rprec_mult_5.00", "utility_2,-1,0,0", "11pt_avg_.25,.5,.75",
                      "ndcg_1=3,2=9,4=4.5", "ndcg_cut_10", "ndcg_cut_20", "ndcg_cut_23", "success_2", "success_5",
                      "success_20"]


# --------------------------------------------------------------------------- item 5: -J and trec_eval's NaN
JUDGED_QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 c 1\n3 0 d 0\n4 0 e 1\n5 0 f 1\n5 0 g 1\n"
# topic 1: nothing judged retrieved (R = 2); 2: fine; 3: R = 0, nothing judged retrieved; 4: not in the run
JUDGED_RUN = {"1": {"x": 1.0, "y": 0.5}, "2": {"c": 1.0}, "3": {"z": 1.0}, "5": {"f": 2.0, "u": 1.0, "g": 0.5}}


def _judged_case(write):
    qrels = {}
    for line in JUDGED_QRELS.splitlines():
        q, _, d, r = line.split()
        qrels.setdefault(q, {})[d] = int(r)
    return qrels, write("q.txt", JUDGED_QRELS), _run_file(write, JUDGED_RUN)


def test_judged_only_empty_ranking_is_nan(capsys, write):
    """m_iprec_at_recall.c: precision = num_rel_ret / num_ret, 0/0 when -J leaves nothing; it is
    kept at every level whose count ⌊level·R + 0.9⌋ is 0 (level 0; all levels when R = 0), and
    11pt_avg sums it. meas_acc.c sums topics, so the all row is NaN too; C prints it '-nan'."""
    qrels, qrels_path, run_path = _judged_case(write)
    measures = {"iprec_at_recall", "11pt_avg", "map", "num_ret", "P"}
    out = cranfield_q(capsys, qrels_path, run_path, "-J", *[a for m in sorted(measures) for a in ("-m", m)])
    assert out == trec_eval_q(qrels, JUDGED_RUN, measures, None, judged_only=True)
    rows = _rows(out)
    assert rows[("iprec_at_recall_0.00", "1")] == "  -nan" and rows[("iprec_at_recall_0.10", "1")] == "0.0000"
    assert all(rows[(f"iprec_at_recall_{k / 10:.2f}", "3")] == "  -nan" for k in range(11))
    assert rows[("11pt_avg", "1")] == rows[("11pt_avg", "all")] == rows[("iprec_at_recall_0.00", "all")] == "  -nan"
    assert rows[("iprec_at_recall_0.20", "all")] == "  -nan" and rows[("map", "all")] != "  -nan"


def test_judged_only_nan_with_c_and_official(capsys, write):
    """With -c the topic missing from the run adds 0, not NaN (trec_eval 9.0.x never evaluates it)."""
    qrels, qrels_path, run_path = _judged_case(write)
    out = cranfield_q(capsys, qrels_path, run_path, "-J", "-c")
    assert out == trec_eval_q(qrels, JUDGED_RUN, OFFICIAL, "t", complete=True, judged_only=True)
    assert "\t4\t" not in out and _rows(out)[("num_q", "all")] == "5"


def test_judged_only_nan_without_q(capsys, write):
    _, qrels_path, run_path = _judged_case(write)
    code, out, _ = _main(capsys, "eval", "--compat", "trec_eval", "-J", qrels_path, run_path, "-m",
                         "iprec_at_recall.0,1", "-m", "11pt_avg.0.5,1")
    assert code == 0 and out == "".join(f"{m:<22}\tall\t  -nan\n" for m in
                                        ("iprec_at_recall_0.00", "iprec_at_recall_1.00", "11pt_avg_0.5,1"))


def test_cranfields_own_value_is_nan_too(write):
    """Outside --compat trec_eval too, the empty condensed list's precision is 0/0: NaN, left out of
    the mean with a warning (docs/conventions.md#judged-only), never a silent 0."""
    import cranfield

    _, qrels_path, run_path = _judged_case(write)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = cranfield.Evaluator(qrels_path, ["IPrec@0", "11pt"], judged_only=True, missing="skip").evaluate(run_path)
    assert np.isnan(res.values[0, :, res.topics.index("1")]).all()


# --------------------------------------------------------------------------- item 6: ndeval's orders
def test_compat_help_names_ndevals_orders(capsys):
    from cranfield.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices["eval"]
    text = " ".join(sub.format_help().split())
    assert "-traditional" in text and "--order rank" in text


def _rank_order_case(write):
    """Web 2012's baseline with the rank column reversing the score order in every topic."""
    lines = [line.split() for line in read_text(QL).splitlines() if line.strip()]
    by_topic: dict[str, list[list[str]]] = {}
    for row in lines:
        by_topic.setdefault(row[0], []).append(row)
    out = []
    for rows in by_topic.values():
        rows.sort(key=lambda r: -float(r[4]))
        out += [f"{q} Q0 {d} {len(rows) - k} {s} {tag}" for k, (q, _, d, _, s, tag) in enumerate(rows)]
    return write("run.txt", "\n".join(out) + "\n"), by_topic


def _ndeval_rows(text: str) -> dict[str, list[float]]:
    return {r[1]: [float(v) for v in r[2:]] for r in (line.split(",") for line in text.splitlines()[1:])}


@pytest.mark.parametrize("order", ["score", "rank"])
def test_compat_ndeval_orders(capsys, write, order):
    """ndeval.c sorts a run by its rank column (resultSortByRank) unless -traditional, which
    re-ranks by score descending, ties by docno descending (forceTraditionalRanks). --compat
    ndeval is -traditional; --order rank is ndeval's default."""
    pyndeval = pytest.importorskip("pyndeval")
    qrels_path = DATA / "web2012" / "qrels-for-ndeval.txt.gz"
    run_path, by_topic = _rank_order_case(write)
    code, out, _ = _main(capsys, "eval", "--compat", "ndeval", "--order", order, qrels_path, run_path)
    assert code == 0
    # ndeval's order: -traditional's comparator (score as a double descending, docno descending),
    # else the rank column; pyndeval sorts by score, so it gets scores that encode that order
    if order == "score":
        ranked = {q: sorted(rows, key=lambda r: (-float(r[4]), [-b for b in r[2].encode()]))
                  for q, rows in by_topic.items()}
    else:
        ranked = {q: list(reversed(rows)) for q, rows in by_topic.items()}
    oracle = [(q, r[2], -float(k)) for q, rows in ranked.items() for k, r in enumerate(rows)]
    qrels = [(q, i, d, int(r)) for q, i, d, r in (line.split() for line in read_text(qrels_path).splitlines())]
    ref = pyndeval.ndeval(qrels, oracle, list(pyndeval.DEFAULT_MEASURES))
    got = _ndeval_rows(out)
    for topic, values in ref.items():
        assert got[topic] == pytest.approx([values[m] for m in pyndeval.DEFAULT_MEASURES], abs=1e-6), topic
    other = _main(capsys, "eval", "--compat", "ndeval", "--order", "rank" if order == "score" else "score",
                  qrels_path, run_path)[1]
    assert _ndeval_rows(other)["amean"] != got["amean"]


def test_compat_ndeval_order_rank_by_hand(capsys, write):
    """One topic, two intents: a (both intents) ranked 1 by the rank column but last by score."""
    qrels = write("q.txt", "1 1 a 1\n1 2 a 1\n1 1 b 1\n1 1 c 0\n")
    run = write("r.txt", "1 Q0 a 1 0.1 x\n1 Q0 b 3 0.9 x\n1 Q0 c 2 0.7 x\n")
    by_rank = _main(capsys, "eval", "--compat", "ndeval", "--order", "rank", "-m", "strec@1,P-IA@1", qrels, run)[1]
    by_score = _main(capsys, "eval", "--compat", "ndeval", "-m", "strec@1,P-IA@1", qrels, run)[1]
    assert by_rank.splitlines()[1] == "x,1,1.000000,1.000000"
    assert by_score.splitlines()[1] == "x,1,0.500000,0.500000"
    assert math.isclose(_ndeval_rows(by_rank)["amean"][0], 1.0)
