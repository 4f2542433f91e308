"""Intents in the batch (docs/conventions.md#intents) and the intent-aware wrapper IA(X) = Σ_i w_i X_i."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import cranfield
from conftest import DATA, read_text
from cranfield import Collection, CranfieldError, EvaluationWarning, InputError
from cranfield.cli.main import main
from cranfield.io import qrels_from_dict, read_intents
from cranfield.io.examples import example_files

pytrec_eval = pytest.importorskip("pytrec_eval")

QRELS = {"1": {"a": {"x": 1, "y": 0}, "b": {"y": 2, "z": 1}, "c": {"w": 0}}, "2": {"a": {"x": 0}}}
RUN = {"1": {"x": 3.0, "y": 2.0, "z": 1.0}, "2": {"x": 1.0}}


def test_ia_equals_trec_eval_on_each_intent():
    """IA(X) on the Web 2012 diversity qrels = mean over intents of trec_eval's X on each intent."""
    split: dict = {}
    intents: dict = {}
    for line in read_text(DATA / "web2012" / "qrels-for-ndeval.txt.gz").splitlines():
        q, i, d, r = line.split()
        split.setdefault(f"{q}/{i}", {})[d] = int(r)
        if int(r) > 0:
            intents.setdefault(q, set()).add(i)
    run = cranfield.read_run(example_files()["runs"][0])
    oracle_run = {}
    for t, q in enumerate(run.topic_ids):
        docs = run.docno[run.offsets[t]:run.offsets[t + 1]].tolist()
        for i in intents.get(q, ()):
            oracle_run[f"{q}/{i}"] = {d.decode(): float(len(docs) - k) for k, d in enumerate(docs)}
    ref = pytrec_eval.RelevanceEvaluator(split, {"ndcg_cut_20", "map", "P_10", "recip_rank"}).evaluate(oracle_run)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(DATA / "web2012" / "qrels-for-ndeval.txt.gz", run,
                                ["nDCG_IA@20", "AP_IA", "P_IA@10", "RR_IA", "IA(nDCG@20)"], diversity=True)
    got = {(r.topic, r.measure): r.value for r in df.itertuples()}
    for q, its in intents.items():
        for trec, ours in [("ndcg_cut_20", "nDCG_IA@20"), ("map", "AP_IA"), ("P_10", "P_IA@10"),
                           ("recip_rank", "RR_IA"), ("ndcg_cut_20", "IA(nDCG@20)")]:
            expected = np.mean([ref[f"{q}/{i}"][trec] for i in its])
            assert got[(q, ours)] == pytest.approx(expected, abs=1e-12), (q, ours)


def test_intents_without_relevant_documents_are_dropped_or_kept():
    with pytest.warns(EvaluationWarning, match="dropped: 1/c, 2/a"):
        coll = Collection.from_qrels(qrels_from_dict(QRELS))
    assert coll.intent_ids == (("a", "b"), ())
    assert coll.weights[0].tolist() == [0.5, 0.5]
    keep = Collection.from_qrels(qrels_from_dict(QRELS), empty_intents="keep")
    assert keep.intent_ids == (("a", "b", "c"), ("a",))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dropped = cranfield.evaluate(QRELS, RUN, ["I-rec@3", "nDCG_IA@3"], per_topic=True)
        kept = cranfield.evaluate(QRELS, RUN, ["I-rec@3", "nDCG_IA@3"], empty_intents="keep")
    one = dropped[dropped.topic == "1"].set_index("measure").value
    assert one["I-rec@3"] == 1.0
    assert kept[kept.topic == "1"].set_index("measure").value["I-rec@3"] == pytest.approx(2 / 3)
    # M' = 0: every diversity measure is 0
    assert (dropped[dropped.topic == "2"].value == 0).all()


def test_intent_file_weights_and_types(write):
    intents = write("i.txt", "1 a 0.75 nav\n1 b 0.25 inf\n1 c 0 inf\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(QRELS, RUN, ["IA(P@1)"], intents=intents, per_topic=True)
        coll = Collection.from_qrels(qrels_from_dict(QRELS), intents=read_intents(intents))
    # P_a@1 = 1 (x relevant to a), P_b@1 = 0
    assert df[df.topic == "1"].value.iloc[0] == pytest.approx(0.75)
    assert coll.nav[0].tolist() == [True, False] and coll.typed


@pytest.mark.parametrize("text, message", [
    ("1 a 0.5\n1 b 0.4\n", "sum to 0.9, not 1"),
    ("1 a 1.0\n", "intents b have relevant documents but are not in the intent file"),
])
def test_intent_file_errors(write, text, message):
    with pytest.raises(InputError, match=message):
        Collection.from_qrels(qrels_from_dict(QRELS), intents=read_intents(write("i.txt", text)))


def test_intent_file_nearly_summing_to_one_is_renormalised(write):
    intents = read_intents(write("i.txt", "1 a 0.6 inf\n1 b 0.4004 inf\n"))
    with pytest.warns(EvaluationWarning, match="renormalised"):
        coll = Collection.from_qrels(qrels_from_dict(QRELS), intents=intents)
    assert coll.weights[0].sum() == pytest.approx(1.0)


def test_topics_xml_types():
    from cranfield.io import read_intent_types

    types = read_intent_types(DATA / "web2012" / "full-topics.xml")
    assert set(types.values()) == {"inf", "nav"} and types[("151", "1")] in ("inf", "nav")


def test_wrapper_spellings_agree():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(QRELS, RUN, ["IA(nDCG@3)", "IA(nDCG)@3", "nDCG_IA@3", "nDCG-IA@3"], per_topic=False)
    assert np.ptp(df.value) == 0


def test_per_intent_rows_cli(capsys, write):
    qrels = write("q.txt", "1 a x 1\n1 b y 2\n1 b z 1\n")
    run = write("r.txt", "1 Q0 x 1 3 t\n1 Q0 y 2 2 t\n")
    assert main(["eval", str(qrels), str(run), "-m", "nDCG_IA@2", "--per-intent", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    measures = [r["measure"] for r in rows if r["topic"] == "1"]
    assert measures == ["nDCG_IA@2", "nDCG_IA@2[intent=a]", "nDCG_IA@2[intent=a].w",
                        "nDCG_IA@2[intent=b]", "nDCG_IA@2[intent=b].w"]
    values = {r["measure"]: r["value"] for r in rows if r["topic"] == "1"}
    assert values["nDCG_IA@2[intent=a]"] == 1.0 and values["nDCG_IA@2[intent=b].w"] == 0.5
    assert values["nDCG_IA@2"] == pytest.approx(0.5 * 1.0 + 0.5 * values["nDCG_IA@2[intent=b]"])


def test_ad_hoc_qrels_with_a_diversity_measure_warn():
    with pytest.warns(EvaluationWarning, match="need intents but the qrels are ad hoc"):
        cranfield.evaluate({"1": {"x": 1}}, {"1": {"x": 1.0}}, ["alpha-nDCG@5"])


def test_bad_empty_intents_option():
    with pytest.raises(CranfieldError, match="empty_intents"):
        Collection.from_qrels(qrels_from_dict(QRELS), empty_intents="maybe")
