"""trec_eval's multi-judge qrels_jg format: reading it, scores averaged over judgment groups equal
to trec_eval 9.0.x's (-R qrels_jg -q -m qrels_jg; values stored in tests/data/qrels_jg/trec_eval.tsv,
printed to 4 decimals), and each group as a judge of `cranfield judges`."""

from __future__ import annotations

import warnings

import pandas as pd

from conftest import DATA
from cranfield import EvaluationWarning
from cranfield.analysis.judges import compare_judges
from cranfield.evaluation.judgment_groups import evaluate_judgment_groups
from cranfield.io.qrels_jg import read_qrels_jg

JG = DATA / "qrels_jg" / "robust03.qrels_jg.gz"
RUNS = sorted((DATA / "robust03").glob("input.*"))
NAMES = {"map_avgjg": "AP", **{f"P_avgjg_{k}": f"P@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
         **{f"Rprec_mult_avgjg_{m:.2f}": f"Rprec(mult={m:g})" for m in
            (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)}}


def test_groups_are_read_as_separate_qrels():
    groups = read_qrels_jg(JG)
    assert list(groups) == ["ref", "llm"]
    assert len(groups["ref"].topic_ids) == 12 and len(groups["llm"].topic_ids) == 11
    assert "303" not in groups["llm"].topic_ids


def test_scores_averaged_over_groups_equal_trec_eval():
    expected = pd.read_csv(DATA / "qrels_jg" / "trec_eval.tsv", sep="\t", comment="#", header=None,
                           names=["run", "measure", "topic", "value"], dtype={"topic": str})
    expected = expected[expected["measure"] != "num_q"]
    expected["measure"] = expected["measure"].map(NAMES)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)  # the runs' topics outside the 12
        got = evaluate_judgment_groups(str(JG), [str(p) for p in RUNS], sorted(set(NAMES.values()))).to_frame()
    merged = expected.merge(got, on=["run", "topic", "measure"], suffixes=("_trec", ""))
    assert len(merged) == len(expected) == 4 * 13 * len(NAMES)
    assert (merged["value"] - merged["value_trec"].astype(float)).abs().max() <= 5e-5 + 1e-12


def test_each_group_is_a_judge():
    groups = read_qrels_jg(JG)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EvaluationWarning)
        r = compare_judges(groups["ref"], {"llm": groups["llm"]})
    labels = r.labels["llm"]
    assert labels.n_reference_only[0] > 0 and labels.n_both[0] == 0  # topic 303: the llm group is silent
    assert 0 < labels.pooled("agreement") < 1
    assert r.topic_names[0] == "303"


def test_cli_takes_the_groups_as_judges(capsys):
    from cranfield.cli.main import main

    assert main(["judges", str(JG), "--jg", "--format", "csv"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("llm,labels,,303,n_both,0")
    assert main(["judges", str(JG), "--jg", "--reference-group", "nobody"]) == 2
    assert "no judgment group 'nobody'; its groups are ref, llm" in capsys.readouterr().err
