"""Judged@k, DCG@k and Compat (cranfield.measures.extra): agreement with ir_measures' own
providers per topic, to 1e-9, on TREC 2003 Robust and on random cases; values by hand on a
4-document ranking; properties.

ir_measures breaks score ties by docno ascending (its judged and compat providers) where
cranfield follows trec_eval (docno descending), and its Compat orders tied ideal documents by
qrels order: the runs given to both sides here have distinct scores, so the comparison is of
the measures, not of the tie rules. ir_measures has no unnormalised DCG: DCG@k is checked
against its nDCG@k (pytrec_eval) times the ideal DCG, and against the formula written out.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from conftest import DATA, qrels_dict, run_dict, run_main
from cranfield import Batch, Topics, parse_measure

ir_measures = pytest.importorskip("ir_measures")

ROBUST = sorted((DATA / "robust03").glob("input.*.gz"))
P_VALUES = (0.5, 0.8, 0.95)


# --------------------------------------------------------------------------- helpers
def untied(run: dict) -> dict:
    """The run in ir_measures' order (score descending, docno ascending) with distinct scores
    n, n − 1, ..., 1 (exact in float32), so both tools rank it alike."""
    out = {}
    for qid, docs in run.items():
        ranked = sorted(docs.items(), key=lambda x: (-x[1], x[0]))
        out[qid] = {d: float(len(ranked) - i) for i, (d, _) in enumerate(ranked)}
    return out


def run_text(run: dict) -> str:
    return "".join(f"{q} Q0 {d} {i} {s!r} t\n" for q, docs in run.items() for i, (d, s) in enumerate(docs.items()))


def qrels_text(qrels: dict) -> str:
    return "".join(f"{q} 0 {d} {r}\n" for q, docs in qrels.items() for d, r in docs.items())


def ours(qrels_path, run_path, names: list[str]) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cranfield.EvaluationWarning)
        df = cranfield.evaluate(qrels_path, run_path, names)  # a missing topic: 0, as ir_measures
    return {(r.topic, r.measure): r.value for r in df.itertuples() if r.topic != "all"}


def theirs(qrels: dict, run: dict, measures: dict) -> dict:
    """{(topic, cranfield name): value} from ir_measures.iter_calc; ``measures`` maps our
    names to ir_measures measure objects."""
    back = {str(m): name for name, m in measures.items()}
    return {(m.query_id, back[str(m.measure)]): m.value
            for m in ir_measures.iter_calc(list(measures.values()), qrels, run)}


def ir_measures_names(ks=(1, 5, 10, 100), ps=P_VALUES) -> dict:
    names = {f"Judged@{k}": ir_measures.Judged @ k for k in ks}
    names["Judged"] = ir_measures.Judged
    for p in ps:
        names[f"Compat(p={p})"] = ir_measures.Compat(p=p)
        names[f"Compat(p={p},normalize=false)"] = ir_measures.Compat(p=p, normalize=False)
    return names


def dcg_reference(qrels: dict, run: dict, k: int | None, exp: bool) -> dict:
    """DCG@k written out: Σ_{r≤k} gain / log2(r + 1), the run ranked by score descending."""
    out = {}
    for qid, docs in run.items():
        if qid not in qrels:
            continue
        ranked = sorted(docs, key=lambda d: -docs[d])[:k]
        labels = [max(qrels[qid].get(d, 0), 0) for d in ranked]
        out[qid] = sum(((2.0**g - 1) if exp else g) / math.log2(r + 2) for r, g in enumerate(labels))
    return out


def ideal_dcg(qrels: dict, qid: str, k: int | None) -> float:
    labels = sorted((g for g in qrels[qid].values() if g > 0), reverse=True)[:k]
    return sum(g / math.log2(r + 2) for r, g in enumerate(labels))


def compare_all(qrels: dict, run: dict, write) -> int:
    """Assert per-topic agreement of every Judged, Compat and DCG variant; return the count."""
    run = untied(run)
    qrels_path, run_path = write("q.txt", qrels_text(qrels)), write("r.txt", run_text(run))
    measures = ir_measures_names()
    dcg_names = {f"DCG@{k}": (k, False) for k in (5, 10, 100)} | {"DCG": (None, False), "DCG(gains=exp)@10": (10, True)}
    got = ours(qrels_path, run_path, list(measures) + list(dcg_names))
    ref = theirs(qrels, run, measures)
    n = 0
    assert {t for t, _ in ref} == {t for t, _ in got}
    for key, value in ref.items():
        assert got[key] == pytest.approx(value, abs=1e-9, rel=0), key
        n += 1
    ndcg = {(m.query_id, m.measure.NAME + str(m.measure["cutoff"])): m.value for m in
            ir_measures.iter_calc([ir_measures.nDCG @ k for k in (5, 10, 100)], qrels, run)}
    for name, (k, exp) in dcg_names.items():
        written_out = dcg_reference(qrels, run, k, exp)
        for qid, value in written_out.items():
            assert got[(qid, name)] == pytest.approx(value, abs=1e-9, rel=1e-12), (qid, name)
            n += 1
            if not exp and k is not None and (qid, f"nDCG{k}") in ndcg:  # nDCG@k · IDCG@k
                product = ndcg[(qid, f"nDCG{k}")] * ideal_dcg(qrels, qid, k)
                assert got[(qid, name)] == pytest.approx(product, abs=1e-9, rel=1e-12), (qid, name)
                n += 1
    return n


# --------------------------------------------------------------------------- TREC 2003 Robust
@pytest.mark.parametrize("run_path", ROBUST, ids=lambda p: p.name)
def test_robust03(run_path, write):
    qrels = qrels_dict(DATA / "robust03" / "qrels.txt.gz")
    n = compare_all(qrels, run_dict(run_path), write)
    assert n > 50 * 20


def test_ir_measures_compat_fixture(write):
    """ir_measures' own test files (TREC CAsT-like, labels 0..4)."""
    qrels = qrels_dict(DATA / "tiny" / "ir_measures-compat.qrels")
    assert compare_all(qrels, run_dict(DATA / "tiny" / "ir_measures-compat.run"), write) > 20


# --------------------------------------------------------------------------- random cases
def random_case(seed: int) -> tuple[dict, dict]:
    """Qrels with labels −2..3 (topics without relevant documents among them) and runs with
    unjudged documents, rankings shorter and longer than the cutoffs and than R."""
    rng = np.random.default_rng(seed)
    qrels: dict = {}
    run: dict = {}
    for t in range(int(rng.integers(1, 6))):
        qid = f"q{t}"
        pool = [f"d{k:03d}" for k in range(int(rng.integers(1, 40)))]
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        qrels[qid] = {str(d): int(rng.choice([-2, 0, 0, 1, 1, 2, 3])) for d in judged}
        if t == 0 or rng.random() < 0.9:  # some topics are missing from the run
            extra = [f"u{k}" for k in range(int(rng.integers(0, 15)))]
            docs = rng.permutation(pool + extra)[: int(rng.integers(1, len(pool) + len(extra) + 1))]
            run[qid] = {str(d): float(rng.random()) for d in docs}
    first = next(iter(qrels["q0"]))
    qrels["q0"][first] = max(qrels["q0"][first], 0)  # a qrels file of negative labels only is refused
    return qrels, run


@pytest.mark.parametrize("seed", range(60))
def test_random_case(seed, write):
    qrels, run = random_case(seed)
    compare_all(qrels, run, write)


# --------------------------------------------------------------------------- by hand
def four_documents() -> Batch:
    """Ranking: label 1, unjudged, label 2, label 1; the topic has labels 2, 1, 1 and one
    judged non-relevant document not retrieved (R = 3)."""
    topics = Topics.from_ideal(np.array([[2, 1, 1]]), num_judged=np.array([4]))
    return Batch.from_labels(np.array([[[1, 0, 2, 1]]]), topics, judged=np.array([[[1, 0, 1, 1]]]))


def test_by_hand():
    batch = four_documents()

    def value(name: str) -> float:
        return float(parse_measure(name)(batch)[0, 0])

    assert value("Judged@10") == 3 / 4  # divided by the ranking's length (4), not by k
    assert value("Judged") == 3 / 4 and value("Judged@2") == 1 / 2 and value("Judged@1") == 1
    assert value("DCG") == pytest.approx(1 + 2 / 2 + 1 / math.log2(5), abs=1e-15)
    assert value("DCG@2") == 1
    assert value("DCG(gains=exp)") == pytest.approx(1 + 3 / 2 + 1 / math.log2(5), abs=1e-15)
    assert value("DCG(gains=0:0,1:5,2:7)@3") == pytest.approx(5 + 7 / 2, abs=1e-15)
    # the most compatible ideal: the label-2 document (rank 3), then the label-1 documents in the
    # run's order (ranks 1 and 4); overlaps at depths 1..4 are 0, 1, 2, 3, and N = max(4, 3) = 4
    for p in (0.95, 0.8, 0.5):
        w = [p**i for i in range(4)]
        run = w[1] * 1 / 2 + w[2] * 2 / 3 + w[3] * 3 / 4
        ideal = w[0] + w[1] + w[2] + w[3] * 3 / 4  # overlaps 1, 2, 3, 3 of the ideal with itself
        assert value(f"Compat(p={p})") == pytest.approx(run / ideal, abs=1e-15)
        assert value(f"Compat(p={p},normalize=false)") == pytest.approx(run / sum(w), abs=1e-15)


def test_ties_in_the_ideal_cost_nothing():
    """Documents of equal label may come in any order: a run that keeps the labels in
    non-increasing order is compatible 1, whichever order it puts equal labels in."""
    topics = Topics.from_ideal(np.array([[2, 1, 1, 1]]))
    batch = Batch.from_labels(np.array([[[2, 1, 1, 1]], [[2, 1, 1, 0]], [[1, 2, 1, 1]]]), topics)
    values = parse_measure("Compat")(batch)[:, 0]
    assert values[0] == pytest.approx(1.0, abs=1e-15)
    assert values[1] < 1 and values[2] < 1


def test_edge_cases():
    topics = Topics.from_ideal(np.array([[0], [1]]), num_judged=np.array([2, 1]))
    empty = Batch.from_labels(np.zeros((1, 2, 0), dtype=np.int64), topics, length=np.zeros((1, 2), dtype=np.int64),
                              judged=np.zeros((1, 2, 0), dtype=bool))
    for name in ("Judged", "Judged@5", "DCG", "Compat", "Compat(normalize=false)"):
        assert parse_measure(name)(empty).tolist() == [[0.0, 0.0]], name
    unjudged_only = Batch.from_labels(np.zeros((1, 2, 3), dtype=np.int64), topics,
                                      judged=np.zeros((1, 2, 3), dtype=bool))
    assert parse_measure("Judged@10")(unjudged_only).tolist() == [[0.0, 0.0]]
    assert parse_measure("Compat")(unjudged_only).tolist() == [[0.0, 0.0]]  # no relevant / none retrieved


def test_dcg_with_huge_exponential_gains():
    """2^label − 1 is exact while it is a double (label 600: scaled by 2^88 inside and back);
    beyond the largest double DCG reports that double."""
    topics = Topics.from_ideal(np.array([[600, 3]]))
    batch = Batch.from_labels(np.array([[[3, 600]]]), topics)
    assert parse_measure("DCG(gains=exp)")(batch)[0, 0] == pytest.approx(7 + (2.0**600 - 1) / math.log2(3), rel=1e-15)
    huge = Batch.from_labels(np.array([[[2000, 5]]]), Topics.from_ideal(np.array([[2000, 5]])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse_measure("DCG(gains=exp)")(huge)[0, 0] == np.finfo(np.float64).max


def test_eval_command(capsys):
    qrels, run = DATA / "robust03" / "qrels.txt.gz", ROBUST[0]
    code, out, err = run_main(capsys, ["eval", qrels, run, "-m", "Judged@10", "-m", "DCG@10", "-m", "Compat(p=0.8)"])
    assert code == 0, err
    assert "Judged@10" in out and "DCG@10" in out and "Compat(p=0.8)" in out


def test_names_and_specs():
    assert str(parse_measure("Compat(p=0.95,normalize=true)")) == "Compat"
    assert str(parse_measure("Compat(normalize=false)")) == "Compat(normalize=false)"
    assert parse_measure("DCG@10").spec.value_range == (0.0, math.inf)
    with pytest.raises(cranfield.MeasureError, match="takes no cutoff"):
        parse_measure("Compat@10")
    with pytest.raises(cranfield.MeasureError, match=r"'p' parameter of Compat must be a float in the range \[0, 1\]"):
        parse_measure("Compat(p=1.5)")


# --------------------------------------------------------------------------- properties
@st.composite
def rankings(draw):
    """Labels of one topic's judged documents and rankings of them and of unjudged ones (−1)."""
    labels = draw(st.lists(st.sampled_from([-2, 0, 0, 1, 2, 3]), min_size=1, max_size=12))
    out = []
    for _ in range(draw(st.integers(1, 4))):
        docs = draw(st.permutations(list(range(len(labels))) + [-1, -1, -1]))
        out.append(docs[: draw(st.integers(0, len(docs)))])
    return labels, out


def batch_of(labels, runs) -> Batch:
    depth = max((len(r) for r in runs), default=0)
    lab = np.zeros((len(runs), 1, depth), dtype=np.int64)
    judged = np.zeros((len(runs), 1, depth), dtype=bool)
    for s, r in enumerate(runs):
        for k, d in enumerate(r):
            lab[s, 0, k] = labels[d] if d >= 0 else 0
            judged[s, 0, k] = d >= 0
    topics = Topics.from_ideal(np.array([sorted((max(x, 0) for x in labels), reverse=True)]),
                               num_judged=np.array([len(labels)]))
    return Batch.from_labels(lab, topics, length=np.array([[len(r)] for r in runs]), judged=judged)


@settings(max_examples=200, deadline=None)
@given(rankings(), st.integers(1, 20), st.floats(0, 1))
def test_properties(case, k, p):
    labels, runs = case
    batch = batch_of(labels, runs)
    judged = parse_measure(f"Judged@{k}")(batch)
    assert ((judged >= 0) & (judged <= 1)).all()
    for normalize in ("true", "false"):
        c = parse_measure(f"Compat(p={p!r},normalize={normalize})")(batch)
        assert ((c >= -1e-12) & (c <= 1 + 1e-12)).all()
    # DCG@k is nDCG@k times the ideal DCG@k
    ideal = sorted((x for x in labels if x > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(r + 2) for r, g in enumerate(ideal))
    expected = parse_measure(f"nDCG@{k}")(batch) * idcg
    assert np.allclose(parse_measure(f"DCG@{k}")(batch), expected, atol=1e-12, rtol=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([-2, 0, 1, 2, 3]), min_size=1, max_size=12).filter(lambda ls: max(ls) > 0),
       st.floats(0.01, 1))
def test_the_ideal_ranking_is_compatible_one(labels, p):
    ideal = sorted((d for d in range(len(labels)) if labels[d] > 0), key=lambda d: -labels[d])
    assert parse_measure(f"Compat(p={p!r})")(batch_of(labels, [ideal]))[0, 0] == pytest.approx(1.0, abs=1e-12)
