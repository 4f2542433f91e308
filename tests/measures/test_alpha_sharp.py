"""The α#-IA family (Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 7, 10, §6.3; docs/conventions.md#alpha-sharp):
exact reductions to S-recall, α-nDCG and nDCG-IA on real qrels and random cases, and a plain-Python oracle of the
definitions."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cranfield
from conftest import DATA, read_text
from cranfield import Batch, MeasureError, Topics, parse_measure
from cranfield.cli.main import main
from cranfield.io.examples import example_files
from cranfield.measures.alpha_sharp import DISCOUNTS, SUBTOPICS, alpha_sharp_ia
from cranfield.measures.diversity import alpha_ndcg, intent_aware, subtopic_recall

TOL = 1e-12


def reduction_pairs(k: int) -> list[tuple[str, str]]:
    """(α#-IA spelling, the measure it must equal) at cutoff k."""
    pairs = [(f"alpha#-IA(discount={d},subtopics={s},lambda=1)@{k}", f"StRecall@{k}")
             for d in DISCOUNTS for s in SUBTOPICS]
    pairs += [(f"alpha#-IA(subtopics=cascade,alpha={a},lambda=0)@{k}", f"alpha_nDCG(alpha={a})@{k}")
              for a in (0.3, 0.5, 0, 1)]
    pairs += [(f"alpha#-IA(subtopics=micro,alpha=0,lambda=0,gains=linear)@{k}", f"nDCG_IA@{k}")]
    return pairs


def check_reductions(qrels, runs) -> int:
    pairs = [p for k in (1, 5, 10, 20) for p in reduction_pairs(k)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = cranfield.evaluate(qrels, runs, [x for p in pairs for x in p], diversity=True)
    v = df[df.topic != "all"].pivot_table(index=["run", "topic"], columns="measure", values="value")
    for ours, ref in pairs:
        diff = (v[ours] - v[ref]).abs()
        assert (diff <= TOL * np.maximum(1, v[ref].abs())).all(), (ours, ref, float(diff.max()))
    assert (v[[r for _, r in pairs]] > 0).any().all()  # the runs score: the comparisons are not 0 = 0
    return len(v)


def test_reductions_on_web2012_with_the_baselines():
    """Web 2012 diversity qrels (graded 0..4), the organisers' ql and rm runs, k = 1, 5, 10, 20."""
    assert check_reductions(DATA / "web2012" / "qrels-for-ndeval.txt.gz", example_files()["runs"]) == 100


def pooled_run(qrels_text: str, seed: int, depth: int = 40) -> str:
    """A seeded run over each topic's judged documents (relevant ones first more often)."""
    rng = np.random.default_rng(seed)
    pools: dict[str, dict[str, int]] = {}
    for line in qrels_text.splitlines():
        q, _, d, r = line.split()
        pools.setdefault(q, {})[d] = max(pools.get(q, {}).get(d, 0), int(r))
    lines = []
    for q, docs in pools.items():
        names = sorted(docs)
        score = rng.random(len(names)) + 0.5 * np.array([docs[d] > 0 for d in names])
        for rank, i in enumerate(np.argsort(-score)[:depth]):
            lines.append(f"{q} Q0 {names[i]} {rank + 1} {score[i]:.6f} seeded")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("qrels", ["web2009/qrels.diversity.gz", "web2013/qrels.ndeval.gz"])
def test_reductions_on_real_qrels_with_seeded_runs(qrels, write):
    run = write("run.txt", pooled_run(read_text(DATA / qrels), 3))
    assert check_reductions(DATA / qrels, [run]) == 50


def random_batch(rng: np.random.Generator, *, dyadic_weights: bool = False):
    """Random topics (binary or graded labels, documents relevant to several intents, empty
    intents) and rankings drawn from their relevant and non-relevant documents."""
    n_t, n_i, n_j = int(rng.integers(1, 4)), int(rng.integers(1, 5)), int(rng.integers(0, 9))
    docs = rng.choice([0, 0, 1, 1, 2], size=(n_t, n_j, n_i))
    w = None
    if dyadic_weights:  # non-uniform intent probabilities that floating point holds exactly
        base = {1: [1.0], 2: [0.75, 0.25], 3: [0.5, 0.25, 0.25], 4: [0.5, 0.25, 0.125, 0.125]}[n_i]
        w = np.stack([rng.permutation(base) for _ in range(n_t)])
    topics = Topics.from_intent_labels(docs, weights=w)
    n_s, depth = int(rng.integers(1, 4)), int(rng.integers(1, 12))
    pool = np.concatenate([docs, np.zeros((n_t, 4, n_i), dtype=docs.dtype)], axis=1)
    labels = np.zeros((n_s, n_t, depth, n_i), dtype=docs.dtype)
    for s in range(n_s):
        for t in range(n_t):
            pick = rng.permutation(pool.shape[1])[:depth]
            labels[s, t, : pick.size] = pool[t, pick]
    length = rng.integers(0, depth + 1, size=(n_s, n_t))
    return Batch.from_labels(labels, topics, length=length)


@pytest.mark.parametrize("seed", range(60))
def test_reductions_on_random_cases(seed):
    rng = np.random.default_rng(seed)
    batch = random_batch(rng)
    from cranfield.measures.adhoc import ndcg

    for k in (1, 3, 10):
        srec = subtopic_recall(batch, cutoff=k)
        for d in DISCOUNTS:
            for s in SUBTOPICS:
                got = alpha_sharp_ia(batch, cutoff=k, discount=d, subtopics=s, alpha=float(rng.random()), lam=1.0)
                assert np.array_equal(got, srec)
        for a in (0.3, 0.5, float(rng.random())):
            got = alpha_sharp_ia(batch, cutoff=k, subtopics="cascade", alpha=a, lam=0.0)
            assert np.allclose(got, alpha_ndcg(batch, cutoff=k, alpha=a), rtol=0, atol=TOL)
        got = alpha_sharp_ia(batch, cutoff=k, subtopics="micro", alpha=0.0, lam=0.0, gains="linear")
        assert np.allclose(got, intent_aware(batch, ndcg, cutoff=k), rtol=0, atol=TOL)


# --------------------------------------------------------------------------- plain-Python oracle
def oracle(ranking, rel_docs, weights, k, discount, subtopics, alpha, lam, beta=0.8):
    """Golbus, Aslam & Clarke, Inf. Retr. 2013, Eq. 5, 7, 10 and §6.3, written out with loops; binary gains.
    ``ranking`` and ``rel_docs`` are lists of per-intent label tuples (rel_docs in docno-descending order);
    the greedy ideal and ξ use exact fractions, so ties are decided exactly."""
    intents = [i for i, w in enumerate(weights) if w > 0]
    disc = {"err": lambda r: 1 / r, "dcg": lambda r: 1 / math.log2(r + 1), "rbp": lambda r: beta ** (r - 1)}[discount]
    relevant = [d for d in rel_docs if any(d[i] >= 1 for i in intents)]
    if not relevant:
        return 0.0
    ranked = ranking[:k]
    srec = len({i for d in ranked for i in intents if d[i] >= 1}) / len(intents)
    a = Fraction(alpha).limit_denominator(10**6) if alpha in (0, 0.25, 0.5, 0.75, 1) else None

    def per_intent(i):
        seen, num = 0, 0.0
        for r, d in enumerate(ranked, start=1):
            if d[i] >= 1:
                num += disc(r) * (1 - alpha) ** seen
                seen += 1
        r_i = sum(d[i] >= 1 for d in rel_docs)
        ideal = sum(disc(r) * (1 - alpha) ** (r - 1) for r in range(1, min(k, r_i) + 1))
        return num / ideal if ideal else 0.0

    if subtopics == "cascade":
        seen = dict.fromkeys(intents, 0)
        num = 0.0
        for r, d in enumerate(ranked, start=1):
            num += disc(r) * sum(weights[i] * (1 - alpha) ** seen[i] for i in intents if d[i] >= 1)
            for i in intents:
                seen[i] += d[i] >= 1
        w = {i: Fraction(weights[i]).limit_denominator(10**6) for i in intents}
        factor = dict.fromkeys(intents, Fraction(1))
        left, ideal = list(range(len(rel_docs))), 0.0
        for r in range(1, min(k, len(rel_docs)) + 1):
            gains = [sum((w[i] * factor[i] for i in intents if rel_docs[j][i] >= 1), Fraction(0)) for j in left]
            best = gains.index(max(gains))  # first of equals: the larger docno
            ideal += disc(r) * float(max(gains))
            for i in intents:
                if rel_docs[left[best]][i] >= 1:
                    factor[i] *= 1 - a
            left.pop(best)
        avg = num / ideal if ideal else 0.0
    else:
        x = {i: per_intent(i) for i in intents}
        if subtopics == "micro":
            avg = sum(weights[i] * x[i] for i in intents)
        elif subtopics == "geom":
            avg = math.prod(max(x[i], 1e-5) ** weights[i] for i in intents)
        else:
            docs = [{i for i in intents if d[i] >= 1} for d in relevant]
            uncovered, xi = set().union(*docs), 0
            while uncovered:
                best = max(docs, key=lambda s: len(s & uncovered))
                uncovered -= best
                xi += 1
            miss = {i: (1 - sum(i in s for s in docs) / len(docs)) ** xi if any(i in s for s in docs) else 0.0
                    for i in intents}
            total = sum(miss.values())
            smr = {i: miss[i] / total if total else weights[i] for i in intents}
            avg = sum(smr[i] * x[i] for i in intents)
    return lam * srec + (1 - lam) * avg


@pytest.mark.parametrize("seed", range(40))
def test_against_the_oracle(seed):
    rng = np.random.default_rng(1000 + seed)
    batch = random_batch(rng, dyadic_weights=seed % 2 == 1)
    topics = batch.topics
    for k in (2, 5, 20):
        for d in DISCOUNTS:
            for s in SUBTOPICS:
                alpha = float(rng.choice([0, 0.25, 0.5, 0.75, 1]))
                lam = float(rng.random())
                got = alpha_sharp_ia(batch, cutoff=k, discount=d, subtopics=s, alpha=alpha, lam=lam)
                for si in range(got.shape[0]):
                    for t in range(got.shape[1]):
                        n = int(batch.length[si, t])
                        ranking = [tuple(x) for x in batch.labels[si, t, :n].tolist()]
                        docs = [tuple(x) for x in topics.rel_docs[t].tolist()]
                        expected = oracle(ranking, docs, topics.weights[t].tolist(), k, d, s, alpha, lam)
                        assert got[si, t] == pytest.approx(expected, abs=1e-12), (k, d, s, si, t)


def test_discounts_of_table_4():
    """One intent with one relevant document, retrieved at rank 2: X = discount(2)."""
    topics = Topics.from_intent_labels(np.array([[[1]]]))
    batch = Batch.from_labels(np.array([[[[0], [1]]]]), topics)
    for d, expected in [("err", 0.5), ("dcg", 1 / math.log2(3)), ("rbp", 0.8)]:  # β^{r−1}, not 1/β^{r−1}
        got = alpha_sharp_ia(batch, cutoff=5, discount=d, lam=0.0)
        assert got[0, 0] == pytest.approx(expected, abs=1e-15)
    assert alpha_sharp_ia(batch, cutoff=5, discount="rbp", beta=0.5, lam=0.0)[0, 0] == 0.5


def test_geom_floors_missed_intents_and_zero_topics():
    # intent weights 1/2: [a] covers intent 0 only -> sqrt(1 * 1e-5)
    topics = Topics.from_intent_labels(np.array([[[1, 0], [0, 1]], [[0, 0], [0, 0]]]))
    batch = Batch.from_labels(np.array([[[[1, 0]], [[0, 0]]]]), topics)
    got = alpha_sharp_ia(batch, cutoff=1, subtopics="geom", lam=0.0)
    assert got[0, 0] == pytest.approx(math.sqrt(1e-5)) and got[0, 1] == 0.0



def test_geom_floor_is_a_parameter():
    """Two intents of weight 1/2, one relevant document each (a for intent 1, b for intent 2); the
    ranking [x, a] at k = 2 with the dcg discount: X_1 = (1/log2 3)/1, X_2 = 0 (b missed), so
    geom = sqrt(max(X_1, ε)·ε); S-recall@2 = 1/2."""
    topics = Topics.from_intent_labels(np.array([[[1, 0], [0, 1]]]))
    batch = Batch.from_labels(np.array([[[[0, 0], [1, 0]]]]), topics)
    x1 = 1 / math.log2(3)
    # 0.7 > X_1: both intents floored
    for floor, geom in [(1e-5, math.sqrt(x1 * 1e-5)), (0.1, math.sqrt(x1 * 0.1)), (0.7, 0.7)]:
        m = parse_measure(f"alpha#-IA(subtopics=geom,lambda=0,floor={floor})@2")
        assert m(batch)[0, 0] == pytest.approx(geom, rel=1e-12)
        m = parse_measure(f"alpha#-IA(subtopics=geom,floor={floor})@2")  # λ = 0.5
        assert m(batch)[0, 0] == pytest.approx(0.5 * 0.5 + 0.5 * geom, rel=1e-12)
    assert math.sqrt(x1 * 1e-5) == pytest.approx(0.0025119, abs=1e-7)  # the values written out
    assert math.sqrt(x1 * 0.1) == pytest.approx(0.25119, abs=1e-5)
    # the default is 1e-5 and stays out of the name; another floor shows in it and round-trips
    assert str(parse_measure("alpha#-IA(subtopics=geom,floor=1e-5)@2")) == "alpha#-IA(subtopics=geom)@2"
    m = parse_measure("alpha#-IA(discount=dcg,subtopics=geom,lambda=0,floor=0.1)@5")
    assert str(m) == "alpha#-IA(subtopics=geom,lambda=0,floor=0.1)@5" and parse_measure(str(m)) == m
    # the other subtopic averagings ignore it
    for s in ("micro", "cascade", "smr"):
        assert alpha_sharp_ia(batch, cutoff=2, subtopics=s, floor=0.5) == pytest.approx(
            alpha_sharp_ia(batch, cutoff=2, subtopics=s), abs=0)
    for bad in ("0", "-0.1", "1.5", "nan"):
        with pytest.raises(MeasureError, match=r"'floor' parameter of alpha#-IA must be a float in the range \(0, 1\]"):
            parse_measure(f"alpha#-IA(subtopics=geom,floor={bad})@5")

def test_smr_weights_fall_back_to_intent_probabilities():
    """Every relevant document covers both intents: smr is 0/0 and the weights are w_i."""
    topics = Topics.from_intent_labels(np.array([[[1, 1], [1, 1], [1, 1]]]), weights=np.array([[0.75, 0.25]]))
    batch = Batch.from_labels(np.array([[[[1, 1], [1, 0]]]]), topics)
    micro = alpha_sharp_ia(batch, cutoff=2, subtopics="micro", lam=0.2)
    assert alpha_sharp_ia(batch, cutoff=2, subtopics="smr", lam=0.2) == pytest.approx(micro, abs=1e-15)


@st.composite
def batches(draw):
    return random_batch(np.random.default_rng(draw(st.integers(0, 2**32 - 1))))


@settings(max_examples=80, deadline=None)
@given(batches(), st.sampled_from(DISCOUNTS), st.floats(0, 1), st.floats(0, 1), st.integers(1, 12))
def test_ranges(batch, discount, alpha, lam, k):
    for s in SUBTOPICS:
        got = alpha_sharp_ia(batch, cutoff=k, discount=discount, subtopics=s, alpha=alpha, lam=lam)
        assert got.shape == batch.length.shape and (got >= 0).all() and np.isfinite(got).all()
        if s != "cascade":  # each intent against its exact ideal: at most 1
            assert (got <= 1 + 1e-12).all()


def test_names_parse_and_round_trip():
    m = parse_measure("α#-IA(discount=dcg, subtopics=geom, alpha=0.3, lambda=0.5)@20")
    assert str(m) == "alpha#-IA(subtopics=geom)@20" and parse_measure(str(m)) == m
    m = parse_measure("alpha#-IA(discount=rbp,beta=0.9,lambda=0,gains=exp)@10")
    assert m.params["lambda"] == 0 and m.params["beta"] == 0.9 and m.params["gains"] == "exp"
    assert str(m) == "alpha#-IA(discount=rbp,lambda=0,beta=0.9,gains=exp)@10"
    assert parse_measure("alpha_sharp_IA@5").name == "alpha#-IA"
    for bad, message in [("alpha#-IA", "needs a cutoff"), ("alpha#-IA(discount=ndcg)@5", "Did you mean 'dcg'"),
                         ("alpha#-IA(lambda=1.5)@5", r"range \[0, 1\]"), ("alpha#-IA(subtopics=mean)@5", "one of")]:
        with pytest.raises(MeasureError, match=message):
            parse_measure(bad)


def test_cli(capsys):
    qrels, run = DATA / "web2012" / "qrels-for-ndeval.txt.gz", example_files()["runs"][0]
    assert main(["eval", str(qrels), run, "-m", "alpha#-IA@20,alpha#-IA(subtopics=smr)@20", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    means = {r["measure"]: r["value"] for r in rows if r["topic"] == "all"}
    assert set(means) == {"alpha#-IA@20", "alpha#-IA(subtopics=smr)@20"} and all(0 < v < 1 for v in means.values())
    assert main(["measures", "alpha#-IA"]) == 0
    out = capsys.readouterr().out
    assert "lambda=0.5" in out and "subtopics=micro" in out and "Golbus, Aslam & Clarke" in out
    assert "floor=1e-05" in out and "range (0, 1]" in out


def test_greedy_ideal_is_ndeval_s_alpha_ideal():
    """With 0/1 gains the generic greedy list is ndeval's greedy α-ideal, bit for bit."""
    from cranfield.measures.alpha_sharp import greedy_ideal
    from cranfield.measures.diversity import greedy_alpha_ideal

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        topics = cranfield.Collection.from_qrels(cranfield.read_qrels(DATA / "web2009" / "qrels.diversity.gz")).topics
    docs = topics.rel_docs >= 1
    batch = Batch.from_labels(np.zeros((1, len(topics), 1, docs.shape[2]), dtype=int), topics)
    for alpha in (0.3, 0.5, 1.0):
        assert np.array_equal(greedy_ideal(docs.astype(float), docs, alpha, docs.shape[1]),
                              greedy_alpha_ideal(batch, alpha, 1))
