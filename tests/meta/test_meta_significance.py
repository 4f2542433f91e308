"""Significance tests over all pairs: scipy agreement, per-pair reference loops fed the same
draws (docs/conventions.md#significance), chunking and threading invariance, corrections, the null behaviour of Tukey
HSD versus pairwise tests, and input errors."""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

import cranfield
import cranfield.meta._common as common
import cranfield.meta.significance as sig
from conftest import DATA
from cranfield import CranfieldError
from cranfield.meta import (
    adjust_pvalues,
    bootstrap_test,
    pairwise_test,
    randomization_test,
    t_test,
    tukey_hsd,
    wilcoxon_test,
)


def ge(a: float, b: float) -> bool:
    """a >= b with the equality rule of docs/conventions.md#equality."""
    return a > b or abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


def gt(a: float, b: float) -> bool:
    return a > b and not abs(a - b) <= 1e-12 * max(1.0, abs(a), abs(b))


# --------------------------------------------------------------------------- reference loops
def block_generators(seed, b, size=250):
    """The documented streams (docs/scaling.md#streams), written out with numpy alone: resample r
    belongs to block r // 250, whose generator is default_rng of the block's SeedSequence child."""
    blocks = [(start, min(start + size, b)) for start in range(0, b, size)]
    children = np.random.SeedSequence(seed).spawn(len(blocks))
    return [(stop - start, np.random.default_rng(child)) for (start, stop), child in zip(blocks, children)]


def drawn_integers(seed, b, n, high):
    """The (B, N) draws ``integers(0, high, (r, N))`` of each block's generator, stacked."""
    return np.concatenate([gen.integers(0, high, (r, n)) for r, gen in block_generators(seed, b)])


def loop_bootstrap(x, b, seed, alpha=0.05):
    """Sakai, WWW 2012, Figures 2 and 3, one pair and one resample at a time."""
    n, s = x.shape
    idx = drawn_integers(seed, b, n, n)
    k = int(np.floor(b * alpha))
    asl, delta = [], []
    for i, j in combinations(range(s), 2):
        z = x[:, i] - x[:, j]
        constant = bool(np.all(z == z[0]))
        w = np.zeros(n) if constant else z - z.mean()
        t_z = None if constant else z.mean() / (z.std(ddof=1) / np.sqrt(n))
        ts, ms = [], []
        for r in range(b):
            w_b = w[idx[r]]
            if np.all(w_b == w_b[0]):
                m = w_b[0]
                t = 0.0 if m == 0 else np.copysign(np.inf, m)
            else:
                m = w_b.mean()
                t = m / (w_b.std(ddof=1) / np.sqrt(n))
            ts.append(t)
            ms.append(m)
        if constant:
            asl.append(1.0 if z[0] == 0 else 0.0)
        else:
            asl.append(sum(ge(abs(t), abs(t_z)) for t in ts) / b)
        order = sorted(range(b), key=lambda r: (-abs(ts[r]), r))
        delta.append(abs(ms[order[k - 1]]))
    return np.array(asl), np.array(delta)


def loop_randomization(x, b, seed):
    n, s = x.shape
    signs = 1 - 2 * drawn_integers(seed, b, n, 2)
    out = []
    for i, j in combinations(range(s), 2):
        d = x[:, i] - x[:, j]
        out.append(sum(ge(abs((d * signs[r]).mean()), abs(d.mean())) for r in range(b)) / b)
    return np.array(out)


def tukey_keys(seed, b, n, s):
    """Each resample's keys ``random((N, S))``, drawn in order from its block's generator."""
    for r, gen in block_generators(seed, b):
        for _ in range(r):
            yield gen.random((n, s))


def loop_tukey(x, b, seed, strict=False):
    """Sakai, WWW 2012, Figure 4: for b = 1..B permute every topic's row by argsort of its keys."""
    n, s = x.shape
    means = x.mean(axis=0)
    count = np.zeros(s * (s - 1) // 2)
    for keys in tukey_keys(seed, b, n, s):
        x_b = np.array([x[t, np.argsort(keys[t], kind="stable")] for t in range(n)])
        m_b = x_b.mean(axis=0)
        spread = m_b.max() - m_b.min()
        for p, (i, j) in enumerate(combinations(range(s), 2)):
            if (gt if strict else ge)(spread, abs(means[i] - means[j])):
                count[p] += 1
    return count / b


# --------------------------------------------------------------------------- fixtures
def continuous(seed=3, n=12, s=6):
    return np.random.default_rng(seed).random((n, s))


def discrete(seed=4, n=10, s=7):
    """P@8-like scores (multiples of 1/8, exact in binary) with ties, identical systems and a
    constant difference."""
    x = np.round(np.random.default_rng(seed).random((n, s)) * 8) / 8
    x[:, 1] = x[:, 0]  # identical to system 0
    x[:8, 2] = x[:8, 0]  # differs on two topics only: many degenerate resamples
    x[:, 3] = x[:, 0] + 0.125  # constant non-zero difference
    return x


MATRICES = [continuous(), discrete(), np.round(np.random.default_rng(5).random((3, 4)), 1)]


# --------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("x", MATRICES)
def test_bootstrap_equals_reference_loop(x):
    asl, delta = loop_bootstrap(x, 200, 11)
    r = bootstrap_test(x, n_resamples=200, rng=11)
    assert np.array_equal(r.pvalue, asl)
    np.testing.assert_allclose(r.delta, delta, rtol=1e-12, atol=1e-15)  # equal but for mathematically tied t*
    assert r.n_resamples == 200 and r.alpha == 0.05


@pytest.mark.parametrize("x", MATRICES)
def test_randomization_equals_reference_loop(x):
    assert np.array_equal(randomization_test(x, n_resamples=300, rng=7).pvalue, loop_randomization(x, 300, 7))


@pytest.mark.parametrize("x", MATRICES)
@pytest.mark.parametrize("strict", [False, True])
def test_tukey_equals_reference_loop(x, strict):
    expected = loop_tukey(x, 150, 9, strict)
    r = tukey_hsd(x, n_resamples=150, rng=9, tie="strict" if strict else "inclusive")
    assert np.array_equal(r.pvalue, expected)
    assert r.null_distribution.shape == (150,)


@pytest.mark.parametrize("b", [250, 251, 700])
@pytest.mark.parametrize("x", [continuous(n=8, s=5), discrete()])
def test_resamples_span_several_streams(b, x):
    """More than one block of 250: every block draws from its own stream, in resample order;
    Δ's k-th largest |t*| is found across blocks, equal values ordered by b."""
    assert np.array_equal(tukey_hsd(x, n_resamples=b, rng=3).pvalue, loop_tukey(x, b, 3))
    assert np.array_equal(randomization_test(x, n_resamples=b, rng=3).pvalue, loop_randomization(x, b, 3))
    asl, delta = loop_bootstrap(x, b, 3)
    r = bootstrap_test(x, n_resamples=b, rng=3)
    assert np.array_equal(r.pvalue, asl)
    np.testing.assert_allclose(r.delta, delta, rtol=1e-12, atol=1e-15)


def test_bootstrap_delta_across_many_blocks_with_ties():
    """k = ⌊B·α⌋ = 60 of 6,000 resamples in 24 blocks: the candidates are merged block after
    block, and equal |t*| (many, on P@8-like scores) are still ordered by b."""
    x = discrete(n=10, s=5)
    asl, delta = loop_bootstrap(x, 6000, 8, alpha=0.01)
    r = bootstrap_test(x, n_resamples=6000, rng=8, alpha=0.01)
    assert np.array_equal(r.pvalue, asl)
    np.testing.assert_allclose(r.delta, delta, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("x", [continuous(n=30, s=6), discrete(), np.round(continuous(n=40, s=5), 2),
                               continuous(n=9, s=4) * 1e-130, continuous(n=9, s=4) * 1e150])
def test_bootstrap_screen_decides_as_the_exact_path(x, monkeypatch):
    """The exact-grid matrix products screen each resample and send the undecided ones to the
    two-pass recomputation; with every resample recomputed (the screen's window made huge) the
    ASLs are the same, bit for bit, also where |values| leave float64's safe range."""
    screened = bootstrap_test(x, n_resamples=500, rng=6)
    monkeypatch.setattr(sig, "_SCREEN", 1e100)
    assert np.array_equal(bootstrap_test(x, n_resamples=500, rng=6).pvalue, screened.pvalue)


def test_bootstrap_grid_sums_are_exact_and_order_free():
    """The grid's integer sums are exact: the same as a fixed-order integer sum."""
    w = continuous(n=50, s=7).T - 0.5
    counts = np.random.default_rng(1).multinomial(50, np.full(50, 1 / 50), size=300).T.astype(float)
    sums, shift = sig._grid_sums(w, counts)
    q = np.rint(np.ldexp(w, shift)).astype(np.int64)
    assert np.array_equal(sums, (q @ counts.astype(np.int64)).astype(float))
    assert np.abs(q).max() * 50 < 2 ** 53
    assert np.all(np.abs(np.ldexp(sums, -shift) - w @ counts) <= np.ldexp(25.0, -shift) + 1e-12)


@pytest.mark.parametrize("x, tied", [(continuous(n=30, s=6), False), (discrete(), True),
                                     (np.round(continuous(n=40, s=5), 2), False)])
@pytest.mark.parametrize("kept", [1, 7, 60, 400])
def test_bootstrap_ranks_through_rho_as_through_t(x, tied, kept, monkeypatch):
    """Hits and the kept largest |t*| found through ρ = S1²/D' (the square root taken on a few
    candidates only) are those of |t*| computed for every resample: the count of |t*| >= bound
    and the first kept of a stable descending sort, also where many |t*| are equal (P@8-like
    scores) and where every resample is kept."""
    n, r = x.shape[0], 400
    columns, pairs = np.ascontiguousarray(x.T), common.all_pairs(x.shape[1])
    t_obs, w, _ = sig._observed_t(columns[pairs[:, 0]] - columns[pairs[:, 1]])
    with np.errstate(invalid="ignore"):
        bound = common.lower_bound(np.abs(t_obs))
    idx = np.random.default_rng(kept).integers(0, n, (r, n))
    chosen = []
    largest = sig._largest
    monkeypatch.setattr(sig, "_largest", lambda v, k: chosen.append(k) or largest(v, k))
    found = sig._resampled_t(w, bound[:, None], idx, sig._draw_counts(idx, n), kept, True,
                             sig._Buffers.allocate(len(pairs), r))
    size = np.abs(found.t_star)
    with np.errstate(invalid="ignore"):
        assert np.array_equal(found.hits, (size >= bound[:, None]).sum(axis=1))
    at = largest(size, kept)
    assert np.array_equal(found.at, at)
    assert np.array_equal(found.top, np.take_along_axis(size, at, axis=1))
    if tied and kept < r:
        assert chosen  # equal |t*| beyond the kept-th: the candidates were more than kept


def test_bootstrap_near_degenerate_resamples_take_the_exact_path(monkeypatch):
    """Two systems equal but for noise of 1e-9 on every topic and 0.5 on one: the resamples that
    miss that topic are near-degenerate (D within the screen's error), are recomputed from their
    values, and decide as the per-pair loop does."""
    rng = np.random.default_rng(2)
    base = rng.random(9)
    x = np.column_stack([base, base + 1e-9 * rng.random(9) + 0.5 * (np.arange(9) == 0), rng.random(9)])
    recomputed = []
    exact = sig._exact_t
    monkeypatch.setattr(sig, "_exact_t", lambda v: recomputed.append(len(v)) or exact(v))
    r = bootstrap_test(x, n_resamples=600, rng=5)
    assert sum(recomputed) > 600 * 0.3  # (8/9)**9 of the resamples miss topic 0, plus Δ's
    asl, delta = loop_bootstrap(x, 600, 5)
    assert np.array_equal(r.pvalue, asl)
    np.testing.assert_allclose(r.delta, delta, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("bit_generator", [np.random.PCG64, np.random.MT19937, np.random.SFC64])
def test_a_generator_seeds_the_streams_and_is_advanced(bit_generator):
    """Any Generator works: equal states give equal results, and each call advances it."""
    x = continuous(n=8, s=5)
    gen, twin = np.random.Generator(bit_generator(2)), np.random.Generator(bit_generator(2))
    first = tukey_hsd(x, n_resamples=120, rng=gen)
    assert np.array_equal(first.null_distribution, tukey_hsd(x, n_resamples=120, rng=twin).null_distribution)
    assert gen.random() == twin.random()
    assert not np.array_equal(first.null_distribution, tukey_hsd(x, n_resamples=120, rng=gen).null_distribution)


def test_tukey_threads_change_nothing(monkeypatch):
    """Blocks of resamples run on several threads here; one thread gives the same ranges."""
    x = continuous(n=8, s=5)
    threaded = tukey_hsd(x, n_resamples=600, rng=4)
    monkeypatch.setattr(sig, "_MAX_THREADS", 1)
    monkeypatch.setattr(sig, "_TUKEY_CELLS", 40)  # many sub-blocks within a stream
    assert np.array_equal(tukey_hsd(x, n_resamples=600, rng=4).null_distribution, threaded.null_distribution)
    assert np.array_equal(threaded.pvalue, loop_tukey(x, 600, 4))


def test_tukey_wide_matrix_falls_back_to_argsort():
    """More than 2,048 systems leave no spare bits beside the 53-bit keys."""
    x = np.random.default_rng(1).random((2, 2100))
    ranges = tukey_hsd(x, n_resamples=4, rng=3).null_distribution
    expected = []
    for keys in tukey_keys(3, 4, 2, 2100):
        m = np.array([x[t, np.argsort(keys[t], kind="stable")] for t in range(2)]).mean(axis=0)
        expected.append(m.max() - m.min())
    assert np.array_equal(ranges, expected)


def test_results_do_not_depend_on_chunk_sizes(monkeypatch):
    x = discrete(n=12, s=9)
    before = [bootstrap_test(x, n_resamples=100, rng=1), randomization_test(x, n_resamples=100, rng=1),
              tukey_hsd(x, n_resamples=100, rng=1)]
    monkeypatch.setattr(common, "CHUNK_CELLS", 7)
    monkeypatch.setattr(common.chunks, "__defaults__", (7,))
    monkeypatch.setattr(sig, "_TUKEY_CELLS", 20)
    after = [bootstrap_test(x, n_resamples=100, rng=1), randomization_test(x, n_resamples=100, rng=1),
             tukey_hsd(x, n_resamples=100, rng=1)]
    for a, b in zip(before, after):
        assert np.array_equal(a.pvalue, b.pvalue)
    np.testing.assert_allclose(before[0].delta, after[0].delta, rtol=1e-12, atol=1e-15)


def test_seed_reproducible_and_generators_advance():
    x = continuous()
    assert np.array_equal(bootstrap_test(x, rng=5).pvalue, bootstrap_test(x, rng=5).pvalue)
    gen = np.random.default_rng(5)
    first, second = randomization_test(x, n_resamples=50, rng=gen), randomization_test(x, n_resamples=50, rng=gen)
    assert not np.array_equal(first.pvalue, second.pvalue)


def test_null_distributions_reproduce_the_asl():
    x = continuous()
    r = bootstrap_test(x, n_resamples=100, rng=2, keep_null=True)
    assert r.null_distribution.shape == (100, 15)
    t_obs = np.abs(r.statistic)
    again = [np.mean([ge(abs(t), t_obs[p]) for t in r.null_distribution[:, p]]) for p in range(15)]
    assert np.array_equal(again, r.pvalue)
    q = randomization_test(x, n_resamples=100, rng=2, keep_null=True)
    again = [np.mean([ge(abs(m), abs(q.statistic[p])) for m in q.null_distribution[:, p]]) for p in range(15)]
    assert np.array_equal(again, q.pvalue)
    assert bootstrap_test(x, n_resamples=100, rng=2).null_distribution is None


def test_bootstrap_degenerate_cases():
    x = np.array([[0.25, 0.25, 0.5], [0.5, 0.5, 0.75], [0.0, 0.0, 0.25]])
    r = bootstrap_test(x, n_resamples=50, rng=0)
    # (0,1) identical: ASL 1; (0,2) and (1,2) constant non-zero difference: ASL 0
    assert r.pvalue.tolist() == [1.0, 0.0, 0.0]
    assert r.delta.tolist() == [0.0, 0.0, 0.0]
    assert np.isnan(bootstrap_test(x, n_resamples=10, rng=0).delta).all()  # floor(10 * 0.05) = 0


# --------------------------------------------------------------------------- scipy agreement
def test_t_test_agrees_with_scipy():
    x = discrete(n=15, s=6)
    r = t_test(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p, (i, j) in enumerate(combinations(range(6), 2)):
            ref = stats.ttest_rel(x[:, i], x[:, j])
            np.testing.assert_equal(r.statistic[p], ref.statistic)
            np.testing.assert_equal(r.pvalue[p], ref.pvalue)
    assert np.isnan(r.pvalue[0]) and r.pvalue[2] == 0.0  # identical; constant difference


@pytest.mark.parametrize("n, s", [(6, 4), (20, 6), (60, 6)])  # permutation, exact or normal; normal
def test_wilcoxon_agrees_with_scipy(n, s):
    """scipy picks its method from zeros and ties: pairs with and without them are mixed."""
    x = np.where(np.arange(s) < 3, discrete(n=n, s=s), continuous(n=n, s=s))
    r = wilcoxon_test(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for p, (i, j) in enumerate(combinations(range(s), 2)):
            ref = stats.wilcoxon(x[:, i] - x[:, j], zero_method="wilcox", correction=False)
            np.testing.assert_equal(r.statistic[p], ref.statistic)
            np.testing.assert_equal(r.pvalue[p], ref.pvalue)


def test_baseline_pairs_and_effects():
    x = continuous(s=4)
    r = t_test(x, baseline="2")
    assert r.pairs.tolist() == [[0, 2], [1, 2], [3, 2]]
    means = x.mean(axis=0)
    np.testing.assert_allclose(r.effect, means[[0, 1, 3]] - means[2])
    ref = stats.ttest_rel(x[:, 3], x[:, 2])
    assert r.pvalue[2] == ref.pvalue
    tukey = tukey_hsd(x, n_resamples=100, rng=1)
    against = tukey_hsd(x, n_resamples=100, rng=1, baseline=2)  # same family, fewer pairs reported
    assert against.pvalue.tolist() == [tukey.pvalue[1], tukey.pvalue[3], tukey.pvalue[5]]  # (0,2) (1,2) (2,3)


# --------------------------------------------------------------------------- corrections
def test_holm_and_bonferroni_by_hand():
    p = [0.01, 0.04, 0.03, 0.2]
    assert adjust_pvalues(p, "bonferroni").tolist() == pytest.approx([0.04, 0.16, 0.12, 0.8])
    # Holm: sorted 0.01, 0.03, 0.04, 0.2 times 4, 3, 2, 1 = 0.04, 0.09, 0.08, 0.2 -> running max
    assert adjust_pvalues(p, "holm").tolist() == pytest.approx([0.04, 0.09, 0.09, 0.2])
    assert adjust_pvalues([0.3, np.nan, 0.6], "bonferroni")[[0, 2]].tolist() == pytest.approx([0.6, 1.0])
    assert np.isnan(adjust_pvalues([0.3, np.nan], "holm")[1])
    assert adjust_pvalues(p, "none").tolist() == p


def test_correction_applies_to_the_pairs_of_one_call():
    x = continuous()
    r = t_test(x, correction="holm")
    assert np.array_equal(r.pvalue_adjusted, adjust_pvalues(r.pvalue, "holm"))
    assert (r.significant() == (r.pvalue_adjusted < 0.05)).all()


# --------------------------------------------------------------------------- the null
def test_tukey_controls_the_familywise_error_where_pairwise_tests_do_not():
    """Ten systems with identical score distributions, 40 seeded repetitions: a false
    positive anywhere in the family is rare for Tukey HSD (≈ α) and common for 45 separate
    bootstrap tests."""
    rng = np.random.default_rng(2024)
    tukey_fp = bootstrap_fp = 0
    for _ in range(40):
        x = rng.beta(2, 5, size=(25, 10))
        tukey_fp += bool(tukey_hsd(x, n_resamples=400, rng=rng).significant().any())
        bootstrap_fp += bool(bootstrap_test(x, n_resamples=200, rng=rng).significant().any())
    assert tukey_fp / 40 <= 0.15
    assert bootstrap_fp / 40 >= 0.4


# --------------------------------------------------------------------------- inputs
def test_dataframe_and_results_inputs_match_numpy():
    runs = sorted(str(p) for p in (DATA / "robust03").glob("input.*"))
    qrels = str(DATA / "robust03" / "qrels.txt.gz")
    results = cranfield.Evaluator(qrels, ["AP", "P@10"]).evaluate(runs)
    frame = results.to_frame()
    from_results = t_test(results, measure="AP")
    from_frame = t_test(frame, measure="AP")
    from_numpy = t_test(results.values[:, 0, :].T)
    assert from_frame.systems == from_results.systems == tuple(results.runs)
    assert from_frame.measure == "AP"
    assert np.array_equal(from_frame.pvalue, from_numpy.pvalue)
    assert np.array_equal(from_results.pvalue, from_numpy.pvalue)
    table = from_results.to_frame()
    assert list(table.columns) == ["system_1", "system_2", "mean_1", "mean_2", "effect", "statistic", "pvalue",
                                   "pvalue_adjusted"]
    assert len(table) == 6
    with pytest.raises(CranfieldError, match="several measures"):
        t_test(frame)


@pytest.mark.parametrize("call, message", [
    (lambda: t_test([[0.1, np.nan], [0.2, 0.3]]), "NaN"),
    (lambda: t_test([[0.1], [0.2]]), "at least 2 systems"),
    (lambda: t_test([[0.1, 0.2]]), "at least 2 topics"),
    (lambda: t_test(np.zeros(3)), "2-D"),
    (lambda: bootstrap_test(np.eye(3), n_resamples=0), "B"),
    (lambda: bootstrap_test(np.eye(3), alpha=1.5), "alpha"),
    (lambda: pairwise_test(np.eye(3), test="anova"), "The test must be one of 't'"),
    (lambda: t_test(np.eye(3), correction="sidak"), "The correction must be one of 'none'"),
    (lambda: pairwise_test(np.eye(3), test="tukey", correction="holm"), "family-wise"),
    (lambda: tukey_hsd(np.eye(3), tie="loose"), "tie rule"),
    (lambda: randomization_test(np.eye(3), rng="seed"), "The seed must be an integer >= 0, a numpy Generator"),
    (lambda: t_test(np.eye(3), baseline="nope"), "unknown system 'nope'"),
])
def test_bad_input_raises_cranfield_error(call, message):
    with pytest.raises(CranfieldError, match=message):
        call()


def test_pairwise_test_dispatches_with_defaults():
    x = continuous(s=4)
    assert pairwise_test(x, test="bootstrap", rng=1).n_resamples == 1000
    assert pairwise_test(x, test="tukey-randomised", rng=1, n_resamples=50).n_resamples == 50
    r = pairwise_test(x, test="wilcoxon", alpha=0.1)
    assert r.alpha == 0.1 and r.test == "wilcoxon"


@pytest.mark.parametrize("module", ["cranfield.meta.significance", "cranfield.meta.power", "cranfield.meta.uir"])
def test_docstring_examples(module):
    """The seeded examples print what the documented streams give."""
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.failed == 0 and result.attempted > 0
