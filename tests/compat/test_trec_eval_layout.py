"""``cranfield eval --compat trec_eval -q`` prints what ``trec_eval -q`` prints, byte for byte.

No trec_eval binary is available here, so the expected text is built from trec_eval's own
numbers (pytrec-eval-terrier: per-topic values and ``compute_aggregated_measure``) laid out by
trec_eval 9.0.x's printing rules, restated independently below from its sources:
``trec_eval.c`` (topics in qrels order, sorted with strcmp; rows only for the topics the run has,
with -c the others counted in the ``all`` rows only),
``measures.c`` (measures in table order), ``meas_init.c`` (cutoffs sorted ascending),
``meas_print_single.c`` / ``meas_print_final.c`` (``%-22s\\t%s\\t%6.4f``, counts ``%ld``,
``runid``, ``num_q`` and ``gm_map`` only in the summary; a NaN, from 0/0, printed by C as ``-nan``).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from test_trec_eval_parity import random_case

from conftest import DATA, qrels_dict, run_dict

pytrec_eval = pytest.importorskip("pytrec_eval")

TABLE = ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
         "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg",
         "binG", "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P",
         "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret"]
LONGS = {"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"}
SUMMARY_ONLY = {"runid", "num_q", "gm_map", "gm_bpref"}
OFFICIAL = {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
            "iprec_at_recall", "P"}


def _base(key: str) -> tuple[int, float]:
    """(table position, cutoff) of a pytrec_eval result key such as ``P_10``."""
    name = max((n for n in TABLE if key == n or key.startswith(n + "_")), key=len)
    rest = key[len(name) + 1:]
    return TABLE.index(name), float(rest) if rest else 0.0


def _row(name: str, qid: str, value: float) -> str:
    base = TABLE[_base(name)[0]]
    if base in LONGS:
        return f"{name:<22}\t{qid}\t{int(value)}"
    return f"{name:<22}\t{qid}\t{'-nan':>6}" if np.isnan(value) else f"{name:<22}\t{qid}\t{value:6.4f}"


def trec_eval_q(qrels: dict, run: dict, measures: set, tag: str | None, *, rel: int = 1, complete: bool = False,
                judged_only: bool = False) -> str:
    """The text of ``trec_eval -q [-c] [-l rel] [-J] -m ... qrels run``."""
    per = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=rel,
                                         judged_docs_only_flag=judged_only).evaluate(run)
    keys = sorted({k for v in per.values() for k in v if k not in ("runid", "relstring")}, key=_base)
    run_topics = set(per)  # trec_eval prints rows for the topics of the run only
    if complete:  # trec_eval -c: a missing topic counts as 0 (its num_rel as the qrels say) in the all rows
        for qid in set(qrels) - set(per):
            empty = {k: 0.0 for k in keys}
            empty["num_q"] = 1.0
            empty["num_rel"] = float(sum(r >= rel for r in qrels[qid].values()))
            for gm in ("gm_map", "gm_bpref"):  # pytrec_eval reports the logs of geometric-mean measures
                if gm in empty:
                    empty[gm] = float(np.log(1e-5))
            per[qid] = empty
    strings = relstrings(qrels, run, judged_only) if "all_trec" in measures or "relstring" in measures else None
    shown = sorted([*keys, "relstring"], key=_base) if strings is not None else keys
    lines = []
    for qid in sorted(run_topics, key=str.encode):
        lines += [f"{'relstring':<22}\t{qid}\t'{strings.get(qid, '')}'" if k == "relstring"
                  else _row(k, qid, per[qid][k])
                  for k in shown if TABLE[_base(k)[0]] not in SUMMARY_ONLY]
    if tag is not None:
        lines.append(f"{'runid':<22}\tall\t{tag}")
    for k in keys:
        lines.append(_row(k, "all", pytrec_eval.compute_aggregated_measure(k, [v[k] for v in per.values()])))
    return "\n".join(lines) + "\n"


def relstrings(qrels: dict, run: dict, judged_only: bool = False, n: int = 10) -> dict[str, str]:
    """trec_eval's relstring (m_relstring.c): the first n labels of each ranking as characters —
    0-9, '>' above 9, '-' outside the qrels (RELVALUE_NONPOOL), '.' for a negative label (which
    form_res_rels.c turns into RELVALUE_UNJUDGED, whatever its value)."""
    out = {}
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        ranked = sorted(docs.items(), key=lambda x: (-np.float32(x[1]), [-b for b in x[0].encode()]))
        labels = [qrels[qid].get(d) for d, _ in ranked]
        if judged_only:
            labels = [label for label in labels if label is not None and label >= 0]
        out[qid] = "".join("-" if v is None else "." if v < 0 else ">" if v > 9 else str(v) for v in labels[:n])
    return out


def cranfield_q(capsys, *args: str) -> str:
    from cranfield.cli.main import main

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", "--compat", "trec_eval", "-q", *map(str, args)]) == 0
    return capsys.readouterr().out


WEB = DATA / "web2012" / "qrels.adhoc.txt"


@pytest.mark.parametrize("run_path", [DATA / "web2012" / "ql-filtered.run.gz",
                                      *sorted((DATA / "robust03").glob("input.*.gz"))[:2]],
                         ids=lambda p: p.name)
def test_official_measures_on_real_runs(capsys, run_path):
    qrels_path = WEB if "web2012" in str(run_path) else DATA / "robust03" / "qrels.txt.gz"
    tag = next(line.split()[5] for line in __import__("gzip").open(run_path, "rt") if line.strip())
    expected = trec_eval_q(qrels_dict(qrels_path), run_dict(run_path), OFFICIAL, tag)
    assert cranfield_q(capsys, qrels_path, run_path) == expected


MANY = {"map": "map", "P.10,5": "P", "ndcg_cut.10,5": "ndcg_cut", "recall.5": "recall", "success": "success",
        "set_F": "set_F", "infAP": "infAP", "Rprec_mult": "Rprec_mult", "11pt_avg": "11pt_avg", "num_q": "num_q",
        "gm_map": "gm_map", "map_cut.100,5": "map_cut", "ndcg": "ndcg", "set_P": "set_P", "set_recall": "set_recall",
        "set_map": "set_map", "bpref": "bpref", "num_rel_ret": "num_rel_ret"}


def _measure_args(names) -> list[str]:
    return [a for n in names for a in ("-m", n)]


def _reference_set(names) -> set:
    return {n.replace(".10,5", ".5,10").replace(".100,5", ".5,100") for n in names}


@pytest.mark.parametrize("options", [(), ("-l", "2"), ("-J",), ("-c",)], ids=lambda o: " ".join(o) or "plain")
def test_many_measures_and_options_on_web2012(capsys, write, options):
    """trec_eval names given in user order come out in trec_eval's order, with -l, -J and -c."""
    run_path = DATA / "web2012" / "rm-filtered.run.gz"
    qrels, run = qrels_dict(WEB), run_dict(run_path)
    run = {q: d for q, d in run.items() if q not in ("160", "199")}  # two topics missing, for -c
    lines = [f"{q} Q0 {d} 0 {s!r} rm" for q, docs in run.items() for d, s in docs.items()]
    got = cranfield_q(capsys, WEB, write("run.txt", "\n".join(lines) + "\n"), *options, *_measure_args(MANY))
    rel = int(options[1]) if options[:1] == ("-l",) else 1
    expected = trec_eval_q(qrels, run, _reference_set(MANY), None, rel=rel, complete="-c" in options,
                           judged_only="-J" in options)
    assert got == expected


@pytest.mark.parametrize("seed", range(0, 200, 5))
def test_random_cases(capsys, write, seed):
    """Topic ids that sort differently as text and as numbers, ties, duplicates, missing topics."""
    qrels_text, run_text, qrels, run = random_case(seed)
    qrels_path, run_path = write("q.txt", qrels_text), write("r.txt", run_text)
    if not set(qrels) & set(run):
        pytest.skip("no topic on both sides: trec_eval stops with an error")
    got = cranfield_q(capsys, qrels_path, run_path, "--on-duplicate", "first", "-m", "official")
    assert got == trec_eval_q(qrels, run, OFFICIAL, f"tag{seed}")


def test_topics_in_strcmp_order(capsys, write):
    qrels = write("q.txt", "".join(f"{t} 0 d{t} 1\n" for t in (2, 10, 1, 100)))
    run = write("r.txt", "".join(f"{t} Q0 d{t} 1 1.0 x\n" for t in (2, 10, 1, 100)))
    out = cranfield_q(capsys, qrels, run, "-m", "recip_rank")
    assert [line.split("\t")[1] for line in out.splitlines()] == ["1", "10", "100", "2", "all"]


def test_format_trec_keeps_the_provenance_line(capsys):
    """Outside --compat trec_eval, --format trec opens with cranfield's # line (docs/conventions.md#output) and
    prints runid only when asked or when several runs are shown."""
    from cranfield.cli.main import main

    runs = [DATA / "web2012" / "ql-filtered.run.gz", DATA / "web2012" / "rm-filtered.run.gz"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", str(WEB), str(runs[0]), "-m", "P.10", "-m", "map", "--format", "trec"]) == 0
        one = capsys.readouterr().out.splitlines()
        assert main(["eval", str(WEB), *map(str, runs), "-m", "P@10", "--format", "trec"]) == 0
        two = capsys.readouterr().out.splitlines()
    assert one[0].startswith("# cranfield") and [line.split("\t")[0].strip() for line in one[1:]] == ["map", "P_10"]
    assert [line.split("\t")[2] for line in two if line.startswith("runid")] == ["indri#ql-filtered.run.gz",
                                                                               "indri#rm-filtered.run.gz"]


def test_measure_sets_cranfield_cannot_complete(capsys):
    from cranfield.cli.main import main

    assert main(["eval", str(WEB), str(DATA / "web2012" / "ql-filtered.run.gz"), "-m", "qrels_jg"]) == 2
    err = capsys.readouterr().err
    assert "'qrels_jg' includes measures cranfield does not compute" in err and "map_avgjg" in err


@pytest.mark.parametrize("options", [(), ("-l", "2"), ("-J",), ("-c",)], ids=lambda o: " ".join(o) or "plain")
def test_all_trec(capsys, write, options):
    """``-m all_trec``: every measure, relstring included (two topics missing, for -c)."""
    from cranfield.cli.main import main

    run = {q: d for q, d in run_dict(DATA / "web2012" / "ql-filtered.run.gz").items() if q not in ("160", "199")}
    run_path = write("run.txt", "".join(f"{q} Q0 {d} 0 {s!r} indri\n"
                                        for q, docs in run.items() for d, s in docs.items()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["eval", "--compat", "trec_eval", "-q", *options, "-m", "all_trec", str(WEB), str(run_path)]) == 0
    out, _ = capsys.readouterr()
    rel = int(options[1]) if options[:1] == ("-l",) else 1
    assert out == trec_eval_q(qrels_dict(WEB), run, {"all_trec"}, "indri", rel=rel, complete="-c" in options,
                              judged_only="-J" in options)
    assert f"{'relstring':<22}\t151\t'" in out


@pytest.mark.parametrize("seed", range(0, 200, 10))
def test_all_trec_random_cases(capsys, write, seed):
    qrels_text, run_text, qrels, run = random_case(seed)
    if not set(qrels) & set(run):
        pytest.skip("no topic on both sides")
    got = cranfield_q(capsys, write("q.txt", qrels_text), write("r.txt", run_text), "--on-duplicate", "first",
                      "-m", "all_trec")
    assert got == trec_eval_q(qrels, run, {"all_trec"}, f"tag{seed}")


def test_trec_eval_parameters_of_the_experimental_measures(capsys):
    run_path = DATA / "web2012" / "ql-filtered.run.gz"
    args = ["-m", "utility.2,-1,0.5,0", "-m", "G.1=3,2=7", "-m", "relative_P.20,5", "-m", "Rndcg.2=5", "-m", "binG"]
    out = cranfield_q(capsys, WEB, run_path, *args)
    labels = list(dict.fromkeys(line.split("\t")[0].strip() for line in out.splitlines()))
    assert labels == ["utility_2,-1,0.5,0", "binG", "G_1=3,2=7", "Rndcg_2=5", "relative_P_5", "relative_P_20"]
    qrels, run = qrels_dict(WEB), run_dict(run_path)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"num_rel_ret", "num_ret", "num_rel"}).evaluate(run)
    rows = {(line.split("\t")[0].strip(), line.split("\t")[1]): float(line.split("\t")[2]) for line in out.splitlines()}
    for topic, v in ref.items():
        expected = 2 * v["num_rel_ret"] - (v["num_ret"] - v["num_rel_ret"]) + 0.5 * (v["num_rel"] - v["num_rel_ret"])
        assert rows[("utility_2,-1,0.5,0", topic)] == pytest.approx(expected, abs=5e-5)


def test_relstring_is_text_for_the_trec_layout_only(capsys):
    from cranfield.cli.main import main

    run_path = DATA / "web2012" / "ql-filtered.run.gz"
    assert main(["eval", str(WEB), str(run_path), "-m", "relstring.3", "-m", "P.5", "--format", "json"]) == 0
    out, err = capsys.readouterr()
    assert "relstring" not in out and "printed only with --format trec -q" in err
    out = cranfield_q(capsys, WEB, run_path, "-m", "relstring.3")
    expected = relstrings(qrels_dict(WEB), run_dict(run_path), n=3)
    assert out.splitlines()[0] == f"{'relstring_3':<22}\t151\t'{expected['151']}'" and len(expected["151"]) == 3
