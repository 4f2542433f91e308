"""cranfield as an ir_measures provider, and ir_measures measure objects in cranfield (docs/ir_measures.md).

Oracles: ir_measures' own providers as shipped (pytrec_eval for the trec_eval measures, pyndeval
for the diversity ones), on the real data of tests/data (robust03, web2012, tiny/ir_measures-compat).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import cranfield
from cranfield import MeasureError
from cranfield.compat.ir_measures import ir_measure, ir_measures_name

im = pytest.importorskip("ir_measures")

DATA = Path(__file__).resolve().parents[1] / "data"
ROBUST = DATA / "robust03"
RUNS = sorted(ROBUST.glob("input.*.gz"))
TINY_QRELS = DATA / "tiny" / "ir_measures-compat.qrels"
TINY_RUN = DATA / "tiny" / "ir_measures-compat.run"

SHARED = [
    im.AP, im.AP @ 100, im.AP(rel=2), im.P @ 5, im.P @ 10, im.P(rel=2) @ 10, im.P @ 1000, im.nDCG, im.nDCG @ 10,
    im.nDCG @ 20, im.nDCG(gains={0: 0, 1: 1, 2: 3}) @ 10, im.RR, im.RR(rel=2), im.R @ 100, im.R @ 1000, im.Rprec,
    im.Bpref, im.infAP, im.NumRel, im.NumRet, im.NumRet(rel=1), im.NumQ, im.SetP, im.SetP(relative=True), im.SetR,
    im.SetF, im.SetAP, im.Success @ 10, im.IPrec @ 0.2, im.AP(judged_only=True), im.P(judged_only=True) @ 10,
    im.nDCG(judged_only=True) @ 10,
]


@pytest.fixture
def provider():
    """The provider, with ir_measures' default pipeline restored afterwards (other tests use it as an oracle)."""
    saved = list(im.DefaultPipeline.providers)
    yield cranfield.as_ir_measures_provider(pipeline="none")
    im.DefaultPipeline.providers[:] = saved


def per_topic(metrics):
    return {(m.query_id, str(m.measure)): m.value for m in metrics}


@pytest.fixture(scope="module")
def robust():
    qrels = list(im.read_trec_qrels(str(ROBUST / "qrels.txt.gz")))
    runs = [list(im.read_trec_run(str(path))) for path in RUNS]
    return qrels, runs


def test_registered_under_its_name(provider):
    assert im.providers.registry["cranfield"] is provider
    assert cranfield.as_ir_measures_provider(pipeline="none") is provider
    assert provider not in im.DefaultPipeline.providers


@pytest.mark.slow
def test_per_topic_parity_with_pytrec_eval_on_robust03(provider, robust):
    """Every shared trec_eval measure, every topic of the four robust03 runs, as pytrec_eval computes it."""
    qrels, runs = robust
    compared, worst = 0, 0.0
    for run in runs:
        ours = per_topic(provider.iter_calc(SHARED, qrels, run))
        theirs = per_topic(im.pytrec_eval.iter_calc(SHARED, qrels, run))
        assert ours.keys() == theirs.keys()
        for key, expected in theirs.items():
            assert ours[key] == pytest.approx(expected, rel=1e-12, abs=1e-12), key
            worst = max(worst, abs(ours[key] - expected))
        compared += len(theirs)
    assert compared == 4 * 100 * len(SHARED)
    assert worst < 1e-12


@pytest.mark.slow
def test_calc_aggregate_agrees(provider, robust):
    qrels, runs = robust
    for run in runs:
        ours = provider.calc_aggregate(SHARED, qrels, run)
        theirs = im.pytrec_eval.calc_aggregate(SHARED, qrels, run)
        for measure, expected in theirs.items():
            assert ours[measure] == pytest.approx(expected, rel=1e-12, abs=1e-12), measure


def test_default_pipeline_routes_through_the_provider(robust):
    """pipeline="prepend": ir_measures.iter_calc (PyTerrier's path) computes with cranfield."""
    qrels, runs = robust
    saved = list(im.DefaultPipeline.providers)
    try:
        provider = cranfield.as_ir_measures_provider(pipeline="prepend")
        assert im.DefaultPipeline.providers[0] is provider
        evaluator = im.evaluator([im.nDCG @ 10, im.AP], qrels)
        assert "Cranfield" in type(evaluator).__name__
        ours = per_topic(im.iter_calc([im.nDCG @ 10, im.AP], qrels, runs[0]))
    finally:
        im.DefaultPipeline.providers[:] = saved
    theirs = per_topic(im.pytrec_eval.iter_calc([im.nDCG @ 10, im.AP], qrels, runs[0]))
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


def test_append_computes_only_what_others_cannot(robust):
    """pipeline="append": pytrec_eval keeps AP; cranfield computes the measures nobody else has."""
    qrels, runs = robust
    saved = list(im.DefaultPipeline.providers)
    try:
        cranfield.as_ir_measures_provider()
        assert im.DefaultPipeline.providers[-1] is im.providers.registry["cranfield"]
        rbu, ndcgt = im.parse_measure("RBU(p=0.8)@100"), im.parse_measure("NDCGT@10")
        got = im.calc_aggregate([im.AP, rbu, ndcgt], qrels, runs[0])
    finally:
        im.DefaultPipeline.providers[:] = saved
    expected = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[0], ["AP", "RBU(p=0.8)@100", "NDCGT@10"])
    means = expected[expected.topic == "all"].set_index("measure").value
    assert got[im.AP] == pytest.approx(means["AP"], rel=1e-12)
    assert got[rbu] == pytest.approx(means["RBU(p=0.8)@100"], rel=1e-12)
    assert got[ndcgt] == pytest.approx(means["NDCGT@10"], rel=1e-12)


def test_tiny_compat_data(provider):
    qrels, run = list(im.read_trec_qrels(str(TINY_QRELS))), list(im.read_trec_run(str(TINY_RUN)))
    measures = [im.AP, im.nDCG @ 10, im.P @ 5, im.RR, im.R @ 1000, im.Rprec, im.Bpref]
    ours = per_topic(provider.iter_calc(measures, qrels, run))
    theirs = per_topic(im.pytrec_eval.iter_calc(measures, qrels, run))
    assert ours == pytest.approx(theirs, rel=1e-12, abs=1e-12)


def test_diversity_measures_match_pyndeval(provider):
    """alpha-nDCG@20, ERR-IA@20, S-recall@20, NRBP on TREC 2012 Web diversity qrels: ndeval's values."""
    qrels = list(im.read_trec_qrels(str(DATA / "web2012" / "qrels-for-ndeval.txt.gz")))
    run = list(im.read_trec_run(str(DATA / "web2012" / "ql-filtered.run.gz")))
    measures = [im.alpha_nDCG @ 20, im.ERR_IA @ 20, im.StRecall @ 20, im.NRBP, im.P_IA @ 10]
    ours = per_topic(provider.iter_calc(measures, qrels, run))
    theirs = per_topic(im.pyndeval.iter_calc(measures, qrels, run))
    assert ours.keys() == theirs.keys()
    assert len(theirs) == 50 * len(measures)
    # Topics 152 and 186 have documents tied on score in their first 20 (152: -5.55601 at ranks 6-7):
    # cranfield breaks ties by trec_eval's rule, docno descending (docs/conventions.md#order), pyndeval
    # otherwise. Every other topic agrees.
    scores: dict[str, list[float]] = {}
    for doc in run:
        scores.setdefault(doc.query_id, []).append(doc.score)
    tied = {q for q, s in scores.items() if len(set(sorted(s, reverse=True)[:20])) < min(20, len(s))}
    differ = {key for key, value in theirs.items() if abs(ours[key] - value) > 1e-9}
    assert {topic for topic, _ in differ} == {"152", "186"} <= tied
    assert len(theirs) - len(differ) == 244


def test_cranfield_only_measures_as_ir_measures_objects(provider, robust):
    qrels, runs = robust
    names = ["RBU(p=0.8)@100", "NDCGT@10", "Q@10", "nERR@20", "RRT@10"]
    objects = [ir_measure(n) for n in names]
    assert [str(o) for o in objects] == ["RBU@100", "NDCGT@10", "Q@10", "nERR@20", "RRT@10"]
    assert im.parse_measure("D_sharp_nDCG@10") == ir_measure("D#-nDCG@10")
    got = provider.calc_aggregate(objects, qrels, runs[1])
    expected = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[1], names)
    means = expected[expected.topic == "all"].set_index("measure").value
    for name, obj in zip(names, objects):
        assert got[obj] == pytest.approx(means[name], rel=1e-12, abs=1e-15), name


def test_identifiers():
    from cranfield.measures.registry import lookup

    assert ir_measures_name(lookup("D#-nDCG")) == "D_sharp_nDCG"
    assert ir_measures_name(lookup("P+Q#")) == "PplusQ_sharp"
    assert ir_measures_name(lookup("alpha#-IA")) == "alpha_sharp_IA"
    assert ir_measures_name(lookup("Ef-P")) == "EfP"


@pytest.mark.parametrize(("obj", "name"), [
    (im.nDCG @ 10, "nDCG@10"), (im.AP(rel=2), "AP(rel=2)"), (im.P @ 5, "P@5"), (im.RR, "RR"), (im.R @ 1000, "R@1000"),
    (im.nDCG(dcg="exp-log2") @ 5, "nDCG(gains=exp)@5"), (im.nDCG(gains={0: 0, 1: 1, 2: 3}), "nDCG(gains=0:0,1:1,2:3)"),
    (im.SetP(relative=True), "set_relative_P"), (im.NumRet(rel=1), "NumRelRet"), (im.SetF(beta=2.0), "F(beta=2)"),
    (im.IPrec @ 0.2, "IPrec@0.2"), (im.alpha_nDCG(alpha=0.25) @ 20, "alpha_nDCG(alpha=0.25)@20"),
])
def test_parse_measure_maps_names_and_parameters(obj, name):
    assert cranfield.parse_measure(obj) == cranfield.parse_measure(name)


def test_evaluate_takes_ir_measures_objects():
    objects = [im.nDCG @ 10, im.AP(rel=2), im.P @ 5, im.RR, im.R @ 1000, im.Bpref]
    names = ["nDCG@10", "AP(rel=2)", "P@5", "RR", "R@1000", "Bpref"]
    a = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[2], objects)
    b = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[2], names)
    assert list(a.measure.unique()) == [str(o) for o in objects]
    assert a.value.tolist() == b.value.tolist()
    one = cranfield.Evaluator(ROBUST / "qrels.txt.gz", im.nDCG @ 10).evaluate(RUNS[2])
    assert one.measures == ["nDCG@10"]
    assert one.values.tolist() == b[b.measure == "nDCG@10"].value.iloc[:-1].to_numpy()[None, None].tolist()


@pytest.mark.parametrize(("obj", "words"), [
    (im.RBP(rel=1), "rel parameter of ir_measures' RBP"),
    (im.nDCG(judged_only=True) @ 10, "judged_only=True"),
    (im.nDCG(dcg="exp-log2", gains={1: 1}), "cannot be combined with gains"),
    (im.Accuracy, "no equivalent of ir_measures' Accuracy"),
    (im.SDCG(dcg="log2", max_rel=2, min_rel=2) @ 10, "min_rel < max_rel"),
])
def test_unsupported_parameters_are_refused_clearly(obj, words):
    with pytest.raises(MeasureError, match=words.replace("(", r"\(")):
        cranfield.evaluate(TINY_QRELS, TINY_RUN, [obj])


def test_compat_and_judged_objects_are_cranfields_measures():
    """ir_measures' Compat(p, normalize) and Judged@k are the measures of the same names here; the values
    agree with ir_measures' own providers in tests/measures/test_extra_parity.py."""
    assert str(cranfield.parse_measure(im.Compat(p=0.8))) == "Compat(p=0.8)"
    unnormalised = cranfield.parse_measure("Compat(normalize=false)")
    assert str(cranfield.parse_measure(im.Compat(normalize=False))) == str(unnormalised)
    assert str(cranfield.parse_measure(im.Judged @ 10)) == "Judged@10"
    a = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[0], [im.Compat(p=0.8), im.Judged @ 10])
    b = cranfield.evaluate(ROBUST / "qrels.txt.gz", RUNS[0], ["Compat(p=0.8)", "Judged@10"])
    assert a.value.tolist() == b.value.tolist()


def test_provider_does_not_support_what_it_cannot_honour(provider):
    assert provider.supports(im.nDCG(judged_only=True) @ 10)  # the provider honours -J
    assert not provider.supports(im.RBP(rel=1))
    assert provider.supports(im.INST(max_rel=2))
    with pytest.raises(ValueError, match="cranfield"):
        provider.evaluator([im.RBP(rel=1)], list(im.read_trec_qrels(str(TINY_QRELS))))


def test_a_run_without_qrels_topics_gets_ir_measures_defaults(provider):
    qrels = list(im.read_trec_qrels(str(TINY_QRELS)))
    metrics = list(provider.iter_calc([im.AP, im.P @ 5], qrels, {}))
    assert {m.value for m in metrics} == {0.0}
    assert len(metrics) == 2 * len({q.query_id for q in qrels})
    assert not any(math.isnan(m.value) for m in metrics)


def test_pyterrier_experiment_uses_the_provider():
    """PyTerrier's pt.Experiment on DataFrame results (no Java needed) computes cranfield's measures.
    python-terrier is not a test extra: this runs where it is installed (checked with pyterrier 1.1.2)."""
    pt = pytest.importorskip("pyterrier")
    pd = pytest.importorskip("pandas")
    saved = list(im.DefaultPipeline.providers)
    try:
        cranfield.as_ir_measures_provider()
        qrels = pd.DataFrame(im.read_trec_qrels(str(TINY_QRELS))).rename(
            columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"})
        res = pd.DataFrame(im.read_trec_run(str(TINY_RUN))).rename(columns={"query_id": "qid", "doc_id": "docno"})
        topics = pd.DataFrame({"qid": sorted(res.qid.unique()), "query": "q"})
        rbu = ir_measure("RBU(p=0.8)@10")
        table = pt.Experiment([res], topics, qrels, eval_metrics=[im.AP, rbu], names=["run"])
    finally:
        im.DefaultPipeline.providers[:] = saved
    expected = cranfield.evaluate(TINY_QRELS, TINY_RUN, ["AP", "RBU(p=0.8)@10"])
    means = expected[expected.topic == "all"].set_index("measure").value
    assert table["AP"].iloc[0] == pytest.approx(means["AP"], rel=1e-12)
    assert table[str(rbu)].iloc[0] == pytest.approx(means["RBU(p=0.8)@10"], rel=1e-12)


# --------------------------------------------------------------------------- C/W/L measures with max_rel
CWL = [
    im.INST(max_rel=2), im.INST(T=3.0, max_rel=2), im.INSQ(max_rel=2), im.INSQ(T=2.0, max_rel=2, min_rel=1),
    im.BPM(max_rel=2) @ 10, im.BPM(T=2.0, max_rel=2) @ 20, im.SDCG(max_rel=2) @ 10, im.SDCG(max_rel=1) @ 5,
    im.NERR8(max_rel=2) @ 10, im.NERR9(max_rel=2) @ 10, im.NERR10(max_rel=2), im.NERR10(p=0.5, max_rel=2),
    im.NERR11(max_rel=2), im.NERR11(T=2.0, max_rel=2, min_rel=1),
]


def _by_rank(run: list) -> dict[str, dict[str, float]]:
    """The run as a dict whose scores are minus cranfield's rank (score descending, ties by docno
    descending): both providers then read the same order, whatever their tie rules."""
    docs: dict[str, list] = {}
    for r in run:
        docs.setdefault(r.query_id, []).append((-r.score, [-b for b in r.doc_id.encode()], r.doc_id))
    return {q: {d: -float(k) for k, (_, _, d) in enumerate(sorted(items))} for q, items in docs.items()}


@pytest.mark.parametrize("collection", [pytest.param("robust03", marks=pytest.mark.slow), "web2012"])
def test_cwl_measures_match_ir_measures_cwl_eval(provider, collection, request):
    """INST, INSQ, BPM, SDCG and NERR8–NERR11 with max_rel (and min_rel): cranfield's values are those of
    ir_measures' own cwl_eval provider, per topic, to 1e-9 (Robust 2003: labels 0..2, four runs; Web 2012:
    labels -2..4 read with max_rel=2, so 3 and 4 clip to 2 and -2 to 0)."""
    pytest.importorskip("cwl")
    if collection == "robust03":
        qrels, runs = request.getfixturevalue("robust")  # read once for the module
    else:
        qrels = list(im.read_trec_qrels(str(DATA / "web2012" / "qrels.adhoc.txt")))
        runs = [list(im.read_trec_run(str(DATA / "web2012" / name))) for name in ("ql-filtered.run.gz",
                                                                                   "rm-filtered.run.gz")]
    reference = im.providers.registry["cwl_eval"]
    n = 0
    for run in runs:
        run = _by_rank(run)
        theirs = per_topic(reference.iter_calc(CWL, qrels, run))
        ours = per_topic(provider.iter_calc(CWL, qrels, run))
        assert set(ours) >= set(theirs)
        for key, value in theirs.items():
            assert ours[key] == pytest.approx(value, abs=1e-9), key
            n += 1
    assert n >= len(CWL) * 50
