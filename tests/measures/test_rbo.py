"""RBO, KTU, Jaccard and repro_eval's RBO: Corsi & Urbano's reference values, hand-worked cases and invariants."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cranfield.errors import MeasureError
from cranfield.measures.similarity import jaccard, ktu, normalised_rbo, overlap, parse_similarity, rbo, topic_rankings

DATA = Path(__file__).parent.parent / "data" / "similarity"
ONE = np.array([1])


def rankings(*texts: str) -> tuple:
    """Rankings written as Corsi & Urbano's from_string ("a (b c) d": b and c tied), as ids and scores."""
    groups = [[g.split() for g in re.findall(r"\(([^)]*)\)|(\S+)", t) for g in [" ".join(x for x in g if x)]]
              for t in texts]
    vocab = sorted({d for gs in groups for g in gs for d in g})
    code = {d: i for i, d in enumerate(vocab)}
    ids = [np.array([code[d] for g in gs for d in g]) for gs in groups]
    scores = [np.array([-k for k, g in enumerate(gs) for _ in g], dtype=float) for gs in groups]
    return topic_rankings(ids, scores, lex=np.arange(len(vocab)))


def test_readme_example_of_corsi_and_urbano():
    rk = rankings("red (blue green) yellow pink", "(blue red) white (yellow black purple) green")
    expected = {"a": (0.6922853, 0.3310519, 0.8930692, 0.5620173), "w": (0.7068257, 0.3429684, 0.9049857, 0.5620173),
                "b": (0.7207131, 0.3509163, 0.9129336, 0.5620173)}
    for ties, values in expected.items():
        got = rbo(rk, ONE - 1, ONE, 0.95, ties)
        assert [round(float(got[v][0]), 7) for v in ("ext", "min", "max", "res")] == list(values)


def test_agrees_with_the_reference_code_on_307_pairs_with_ties_and_uneven_lengths():
    table = pd.read_csv(DATA / "rbo_corsi_urbano.csv")
    worst = 0.0
    for _, row in table.iterrows():
        rk = rankings(row["x"], row["y"])
        for ties in "wab":
            got = rbo(rk, ONE - 1, ONE, row["p"], ties)
            for v in ("ext", "min", "max", "res"):
                worst = max(worst, abs(float(got[v][0]) - row[f"{ties}.{v}"]))
    assert worst < 1e-12


def test_hand_worked_uneven_lengths_without_ties():
    # S = a, L = a b: X_1 = 1, X_2 = 1; A_1 = 1, A_2 = 1/2 (min); X_l = 1, l = 2, s = 1
    rk = rankings("a", "a b")
    p = 0.5
    got = rbo(rk, ONE - 1, ONE, p)
    rbo_min = (1 - p) / p * (1 * p + 0.5 * p**2 + 1 * (math.log(1 / (1 - p)) - p - p**2 / 2))
    # ext: A_2 = (X_2 + (2 - 1) A_1) / 2 = 1; tail (X_l + (l - s) A_s) / l p^3 / (1 - p) = p^3 / (1 - p)
    rbo_ext = (1 - p) / p * (p + p**2 + p**3 / (1 - p))
    assert got["min"][0] == pytest.approx(rbo_min, abs=1e-15)
    assert got["ext"][0] == pytest.approx(rbo_ext, abs=1e-15)
    assert got["ext"][0] == pytest.approx(1.0)  # a prefix of the other ranking extrapolates to full agreement


def test_identical_rankings():
    rk = rankings("a (b c) d", "a (b c) d")
    assert rbo(rk, ONE - 1, ONE, 0.9, "w")["ext"][0] == pytest.approx(1.0)
    assert rbo(rk, ONE - 1, ONE, 0.9, "b")["ext"][0] == pytest.approx(1.0)
    assert rbo(rk, ONE - 1, ONE, 0.9, "a")["ext"][0] < 1.0  # the expected value over tie breakings


def text_rankings(draw: st.DrawFn) -> str:
    n = draw(st.integers(1, 12))
    docs = draw(st.permutations(list(range(20))))[:n]
    out, k = [], 0
    while k < n:
        g = draw(st.integers(1, 3))
        grp = [f"d{x}" for x in docs[k:k + g]]
        out.append(grp[0] if len(grp) == 1 else "(" + " ".join(grp) + ")")
        k += g
    return " ".join(out)


@settings(max_examples=40, deadline=None)
@given(st.data(), st.floats(0.05, 0.99), st.sampled_from("wab"))
def test_bounds_and_symmetry(data, p, ties):
    x, y = data.draw(st.composite(text_rankings)()), data.draw(st.composite(text_rankings)())
    rk = rankings(x, y)
    ab, ba = rbo(rk, ONE - 1, ONE, p, ties), rbo(rk, ONE, ONE - 1, p, ties)
    for v in ("ext", "min", "max", "res"):
        assert ab[v][0] == pytest.approx(ba[v][0], abs=1e-12)
    assert -1e-12 <= ab["min"][0] <= ab["ext"][0] + 1e-12 <= ab["max"][0] + 2e-12 <= 1 + 3e-12


def test_overlap_jaccard_normalised_rbo_and_ktu_by_hand():
    rk = topic_rankings([np.array([0, 1, 2, 3]), np.array([1, 0, 4])], lex=np.arange(5))
    x = overlap(rk, ONE - 1, ONE, 4)
    assert x.tolist() == [[0, 2, 2, 2]]
    assert jaccard(x, 3, rk.length[:1], rk.length[1:]).tolist() == [2 / 4]
    # repro_eval's RBO at depth 2, p = 0.5: (1 * 0/1 + 0.5 * 2/2) / 1.5
    assert normalised_rbo(x, 2, 0.5).tolist() == [pytest.approx(1 / 3)]
    # KTU@3: places in the sorted union {0..4} are the ids: (0,1),(1,0),(2,4): one discordant pair of 3
    assert ktu(rk, ONE - 1, ONE, 3).tolist() == [pytest.approx(1 - 4 * 1 / 6)]
    assert math.isnan(ktu(rk, ONE - 1, ONE, 1)[0])


def test_similarity_names():
    assert str(parse_similarity("RBO")) == "RBO"
    assert str(parse_similarity("RBO(p=0.95,ties=w,variant=min)@100")) == "RBO(p=0.95,variant=min,ties=w)@100"
    assert parse_similarity("KTU@10").cutoff == 10
    for bad in ("KTU", "RBO(p=1)", "RBO(q=1)", "Foo@3", "RBO(ties=z)"):
        with pytest.raises(MeasureError):
            parse_similarity(bad)


def test_runs_with_tied_scores_give_the_reference_values():
    """The run path: dict runs whose equal scores are the tie groups, read in trec_eval's order."""
    from cranfield.analysis.similarity import compare_rankings

    table = pd.read_csv(DATA / "rbo_corsi_urbano.csv").head(24)
    runs: list[dict[str, dict[str, float]]] = [{}, {}]
    for t, row in table.iterrows():
        for run, text in zip(runs, (row["x"], row["y"])):
            groups = [g[0] or g[1] for g in re.findall(r"\(([^)]*)\)|(\S+)", text)]
            run[str(t)] = {d: float(len(groups) - k) for k, g in enumerate(groups) for d in g.split()}
    for t, row in table.iterrows():
        measures = [f"RBO(p={row['p']},ties={ties},variant={v})" for ties in "wab"
                    for v in ("ext", "min", "max", "res")]
        one = [{str(t): run[str(t)]} for run in runs]
        got = compare_rankings(one, measures).values[0, :, 0]
        expected = [row[f"{ties}.{v}"] for ties in "wab" for v in ("ext", "min", "max", "res")]
        assert got == pytest.approx(expected, abs=1e-12)


@settings(max_examples=25, deadline=None)
@given(st.data(), st.integers(2, 6), st.floats(0.1, 0.95), st.sampled_from("wab"))
def test_all_pairs_at_once_equal_each_pair_alone(data, runs, p, ties):
    texts = [data.draw(st.composite(text_rankings)()) for _ in range(runs)]
    rk = rankings(*texts)
    ia, ib = np.triu_indices(runs, 1)
    together = rbo(rk, ia, ib, p, ties)
    for n, (a, b) in enumerate(zip(ia, ib)):
        alone = rbo(rankings(texts[a], texts[b]), ONE - 1, ONE, p, ties)
        for v in ("ext", "min", "max", "res"):
            assert together[v][n] == pytest.approx(alone[v][0], abs=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=0, max_size=15, unique=True),
       st.lists(st.integers(0, 30), min_size=0, max_size=15, unique=True), st.integers(1, 16))
def test_ktu_is_scipys_tau_of_the_union_places_and_jaccard_is_the_set_ratio(a, b, k):
    from scipy.stats import kendalltau

    if not a or not b:
        return
    rk = topic_rankings([np.array(a), np.array(b)], lex=np.arange(31))
    m = min(k, len(a), len(b))
    got = ktu(rk, ONE - 1, ONE, k)[0]
    if m < 2:
        assert math.isnan(got)
    else:
        assert got == pytest.approx(kendalltau(a[:m], b[:m]).statistic, abs=1e-12)
    x = overlap(rk, ONE - 1, ONE, k)
    top_a, top_b = set(a[:k]), set(b[:k])
    assert jaccard(x, k, rk.length[:1], rk.length[1:])[0] == pytest.approx(len(top_a & top_b) / len(top_a | top_b))


def test_any_order_of_pairs_and_a_cutoff_beyond_the_rankings():
    rk = topic_rankings([np.array([0, 1, 2, 3]), np.array([1, 0, 4]), np.array([3, 2])])
    alone = {(a, b): overlap(rk, np.array([a]), np.array([b]), 6)[0] for a in range(3) for b in range(3) if a != b}
    for ia, ib in (([0, 0], [2, 1]), ([1, 0, 2], [0, 2, 1]), ([0, 0], [1, 2])):
        together = overlap(rk, np.array(ia), np.array(ib), 6)
        for n, (a, b) in enumerate(zip(ia, ib)):
            assert together[n].tolist() == alone[(a, b)].tolist()
    assert overlap(rk, np.array([0]), np.array([2]), 40_000)[0, -1] == 2  # cutoffs past int16 positions
