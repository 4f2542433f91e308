"""Significance tests for every pair of systems at once (docs/conventions.md#significance;
Sakai, WWW 2012, §4, Figures 2 and 4).

Each test takes one measure's topics × systems score matrix (see :mod:`cranfield.meta.scores`)
and returns a :class:`PairwiseResult` for all S·(S−1)/2 pairs (or the S−1 pairs with a
``baseline``). Pairs are (i, j) with i < j in system order, and every effect is
mean(i) − mean(j). All tests are two-sided.

- :func:`t_test` — paired t-test, exactly scipy's ``ttest_rel``.
- :func:`wilcoxon_test` — Wilcoxon signed-rank, scipy's ``wilcoxon(zero_method="wilcox",
  correction=False)``.
- :func:`sign_test` — the exact binomial sign test of the topics' wins and losses, ties dropped.
- :func:`randomization_test` — Fisher's randomisation (sign-flip permutation) test.
- :func:`bootstrap_test` — Sakai's studentised paired bootstrap test (Figure 2) with the
  per-pair Δ of Figure 3.
- :func:`tukey_hsd_classical` — Tukey's HSD test (``"tukey"``) from the two-way ANOVA without
  replication (topics × systems): the residual variance and the studentized range, with Sakai's
  effect size ES_HSD.
- :func:`tukey_hsd` — Carterette's randomised Tukey HSD over all systems (Figure 4; ``"tukey-randomised"``).

Each is declared once, by name, in the registry of :mod:`cranfield.meta.registry` (at the end of
that module, its kernel named and imported from here when the test first runs), which
:func:`pairwise_test` and every front end read.

The resampling tests draw their random numbers in the order docs/conventions.md#significance
fixes, whatever the chunk sizes, so that a result equals bit for bit that of a per-pair loop fed the same draws.
Resamples come in blocks of 250, each drawn from its own ``SeedSequence.spawn`` child of the seed
(docs/scaling.md#streams), so a block is a task that can run anywhere (``client=``, a Dask cluster) with the
same numbers;
pairs and resamples are processed as array operations in chunks of at most ~4 million cells. "≥" between a
resampled statistic and the observed one is decided with the equality rule of docs/conventions.md#equality
(values within 1e-12 relative count as equal), so mathematically tied statistics count whatever the rounding.
No +1 correction is applied: ASL = count / B, as the papers define it.
"""

from __future__ import annotations

import os
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from typing import Any, NamedTuple

import numpy as np

from cranfield._numeric import equal
from cranfield._parallel import map_blocks
from cranfield._progress import progress
from cranfield.errors import CranfieldError, check_choice
from cranfield.meta import _common
from cranfield.meta._common import (
    RESAMPLE_BLOCK,
    ResampleBlock,
    all_pairs,
    baseline_pairs,
    check_alpha,
    chunks,
    count_at_least,
    lower_bound,
    resample_blocks,
)
from cranfield.meta.registry import CORRECTIONS, check_resamples, lookup, names, resampling
from cranfield.meta.scores import ScoreMatrix, as_score_matrix

__all__ = [
    "TESTS", "CORRECTIONS", "DEFAULT_RESAMPLES", "PairwiseResult", "adjust_pvalues", "check_test", "pairwise_test",
    "t_test", "wilcoxon_test", "sign_test", "randomization_test", "bootstrap_test", "tukey_hsd", "tukey_hsd_classical",
    "TUKEY_TESTS", "residual_variance",
]

TIES = ("inclusive", "strict")
# A bootstrap resample whose screened |t*| is this close (relative) to the hit threshold is recomputed
# from its values (see _screen_floor for why this suffices).
_SCREEN = 1e-7
# Relative margin between |t*|² and its proxy S1²/D' (a few roundings apart) in _resampled_t.
_WIDEN = 1e-9
# Rows of w whose largest |value| lies outside 2**±_EXPONENT_LIMIT are recomputed from their values
# (their squares could leave float64's normal range).
_EXPONENT_LIMIT = 400
# (pairs, resamples) cells per block of the bootstrap and randomisation tests: products this
# small stay in cache and were several times steadier than large ones under a multi-threaded BLAS.
_RESAMPLED_CELLS = 16_000
_SPAN_BLOCKS = 4  # blocks of bootstrap resamples processed together (1,000 resamples)
_BOOTSTRAP_CELLS = 1 << 17  # (pairs, resamples) cells per block of the bootstrap (1 MB per array)
# Multiply-adds per matrix product of the bootstrap (tiles of 64 resamples): OpenBLAS runs a product
# this small on one thread; on a loaded machine its threads' waiting cost several times the product.
_PRODUCT_CELLS = 1 << 18
_TUKEY_CELLS = 1 << 18  # keys per block of Tukey resamples (2 MB)
_MAX_THREADS = 8
_RAW_DOUBLES = (np.random.PCG64, np.random.PCG64DXSM, np.random.Philox, np.random.SFC64)  # random() = raw >> 11


@dataclass(frozen=True, eq=False)
class PairwiseResult:
    """The outcome of one significance test over pairs of systems.

    Attributes
    ----------
    test : str
        The name of the test in :mod:`cranfield.meta.registry` (``"t"``, ``"wilcoxon"``, ``"sign"``,
        ``"randomization"``, ``"bootstrap"``, ``"tukey"`` (classical), ``"tukey-randomised"``, ...).
    measure : str
    systems : tuple of str
        The S system names.
    means : ndarray, shape (S,)
        Each system's mean score.
    pairs : ndarray of int, shape (P, 2)
        The compared systems (i, j) as indices into ``systems``.
    effect : ndarray, shape (P,)
        mean(i) − mean(j).
    statistic : ndarray, shape (P,)
        The test's statistic on the observed data: t (t-test and bootstrap), W (Wilcoxon),
        the topics where i wins (sign test), the mean difference (randomisation), q (Tukey HSD)
        or |mean difference| (randomised Tukey HSD).
    pvalue : ndarray, shape (P,)
        The p-value or achieved significance level (ASL); NaN where undefined (the t-test,
        Wilcoxon and sign tests of two systems with identical scores).
    pvalue_adjusted : ndarray, shape (P,)
        ``pvalue`` after the multiple-comparison ``correction`` (equal to it for ``"none"``).
    correction : str
    n_topics : int
    n_resamples : int or None
        B for the resampling tests.
    null_distribution : ndarray or None
        Tukey HSD: the range (max − min) of the permuted column means, shape (B,), in draw
        order. Randomisation (resampled mean differences) and bootstrap (resampled t) with
        ``keep_null=True``: shape (B, P). Otherwise None.
    delta : ndarray or None
        Bootstrap only: per pair the |mean| of the resample whose |t| is the ⌊B·α⌋-th
        largest (Sakai, WWW 2012, Figure 3), NaN when ⌊B·α⌋ = 0.
    alpha : float
        The significance level of ``delta`` and the default of :meth:`significant`.
    effect_size : ndarray or None
        The classical Tukey HSD only: Sakai's ES_HSD = (mean(i) − mean(j)) / √V_E per pair.
    """

    test: str
    measure: str
    systems: tuple[str, ...]
    means: np.ndarray
    pairs: np.ndarray
    effect: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    correction: str
    n_topics: int
    n_resamples: int | None = None
    null_distribution: np.ndarray | None = None
    delta: np.ndarray | None = None
    alpha: float = 0.05
    effect_size: np.ndarray | None = None

    def significant(self, alpha: float | None = None) -> np.ndarray:
        """Which pairs differ significantly: ``pvalue_adjusted < alpha`` (NaN counts as not)."""
        level = self.alpha if alpha is None else check_alpha(alpha)
        with np.errstate(invalid="ignore"):
            return self.pvalue_adjusted < level

    def to_frame(self) -> Any:
        """One row per pair: system_1, system_2, mean_1, mean_2, effect, statistic, pvalue,
        pvalue_adjusted (and delta for the bootstrap), as a pandas DataFrame."""
        import pandas as pd

        i, j = self.pairs[:, 0], self.pairs[:, 1]
        names = np.array(self.systems, dtype=object)
        columns = {
            "system_1": names[i], "system_2": names[j], "mean_1": self.means[i], "mean_2": self.means[j],
            "effect": self.effect, "statistic": self.statistic, "pvalue": self.pvalue,
            "pvalue_adjusted": self.pvalue_adjusted,
        }
        if self.delta is not None:
            columns["delta"] = self.delta
        return pd.DataFrame(columns)


# --------------------------------------------------------------------------- corrections
def adjust_pvalues(pvalues: Any, method: str = "holm") -> np.ndarray:
    """Adjust the p-values of one family of tests for multiple comparisons.

    Parameters
    ----------
    pvalues : array_like, shape (P,)
    method : {"holm", "bonferroni", "hommel", "bh", "by", "none"}
        With p_(1) <= ... <= p_(m) the sorted p-values:

        - ``bonferroni``: min(1, m·p).
        - ``holm`` (Holm, Scand. J. Stat. 1979): p_(k) becomes min(1, max_{j<=k} (m − j + 1)·p_(j)).
        - ``hommel`` (Hommel, Biometrika 1988; the adjusted p-values of Wright, Biometrics 1992):
          for each subset size s = m, ..., 2, c_s = min_{k<=s} s·p_(m−s+k)/k; the s largest
          p-values are raised to c_s, the others to min(s·p, c_s).
        - ``bh`` (Benjamini & Hochberg, JRSS B 1995, false discovery rate): p_(k) becomes
          min(1, min_{j>=k} m·p_(j)/j).
        - ``by`` (Benjamini & Yekutieli, Ann. Stat. 2001, any dependence): ``bh`` times Σ_{i<=m} 1/i.

    Notes
    -----
    NaN p-values stay NaN and do not count in m.

    Examples
    --------
    >>> adjust_pvalues([0.01, 0.04, 0.03], "holm").round(2).tolist()
    [0.03, 0.06, 0.06]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bonferroni").round(2).tolist()
    [0.03, 0.12, 0.09]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "bh").round(2).tolist()
    [0.03, 0.04, 0.04]
    >>> adjust_pvalues([0.01, 0.04, 0.03], "hommel").round(2).tolist()
    [0.03, 0.04, 0.04]
    """
    check_choice(method, "correction", CORRECTIONS)
    p = np.array(pvalues, dtype=np.float64)
    ok = ~np.isnan(p)
    m = int(ok.sum())
    if method == "none" or m == 0:
        return p
    q = p[ok]
    if method == "bonferroni":
        p[ok] = np.minimum(1.0, q * m)
        return p
    order = np.argsort(q, kind="stable")
    ranked = q[order]
    k = np.arange(1, m + 1, dtype=np.float64)
    if method == "holm":
        stepped = np.maximum.accumulate(ranked * (m - k + 1))
    elif method == "hommel":
        stepped = _hommel(ranked)
    else:
        scale = float((1.0 / k).sum()) if method == "by" else 1.0
        stepped = np.minimum.accumulate((ranked * m * scale / k)[::-1])[::-1]
    adjusted = np.empty_like(q)
    adjusted[order] = np.minimum(1.0, stepped)
    p[ok] = adjusted
    return p


def _hommel(ranked: np.ndarray) -> np.ndarray:
    """Hommel's adjusted p-values of the ascending p-values ``ranked`` (Wright, Biometrics 1992,
    §2.3): O(m²), one vector operation per subset size."""
    m = ranked.size
    adjusted = ranked.copy()
    for size in range(m, 1, -1):
        c = float((size * ranked[m - size:] / np.arange(1, size + 1)).min())
        adjusted[m - size:] = np.maximum(adjusted[m - size:], c)
        adjusted[:m - size] = np.maximum(adjusted[:m - size], np.minimum(size * ranked[:m - size], c))
    return adjusted


# --------------------------------------------------------------------------- shared driver
@dataclass(frozen=True, eq=False)
class _Setup:
    matrix: ScoreMatrix
    pairs: np.ndarray
    effect: np.ndarray


def _setup(data: Any, measure: str | None, baseline: str | int | None, min_topics: int = 1) -> _Setup:
    matrix = as_score_matrix(data, measure=measure)
    if matrix.n_topics < min_topics:
        raise CranfieldError(f"this test needs at least {min_topics} topics; {matrix.measure or 'the matrix'} has "
                             f"{matrix.n_topics}")
    if baseline is None:
        pairs = all_pairs(matrix.n_systems)
    else:
        pairs = baseline_pairs(matrix.n_systems, matrix.system_index(baseline))
    means = matrix.means()
    return _Setup(matrix, pairs, means[pairs[:, 0]] - means[pairs[:, 1]])


def _pair_blocks(setup: _Setup, cells_per_pair: int, label: str, max_pairs: int | None = None
                 ) -> Iterator[tuple[slice, np.ndarray]]:
    """Blocks of pairs with their per-topic differences x_i − x_j, shape (pairs in block, T).

    Each pair's topics are one contiguous row, so per-pair means and SDs are computed by the
    same summation as for a lone vector: bit for bit those of a per-pair loop. ``max_pairs``
    caps the block further.
    """
    columns, pairs = np.ascontiguousarray(setup.matrix.values.T), setup.pairs  # (S, T)
    budget = _common.CHUNK_CELLS if max_pairs is None else min(_common.CHUNK_CELLS, max_pairs * cells_per_pair)
    blocks = chunks(len(pairs), cells_per_pair, budget)
    for block in progress(blocks, len(blocks), label):
        yield block, columns[pairs[block, 0]] - columns[pairs[block, 1]]


def _columns(setup: _Setup) -> np.ndarray:
    """The score matrix as contiguous system rows, shape (S, T)."""
    return np.ascontiguousarray(setup.matrix.values.T)


def _pair_chunks(n_pairs: int, resamples: int) -> list[slice]:
    """Blocks of pairs holding at most :data:`_RESAMPLED_CELLS` (pair, resample) cells (fewer
    within the memory budget); the same blocks wherever they run."""
    return chunks(n_pairs, resamples, min(_common.CHUNK_CELLS, _RESAMPLED_CELLS))


def _differences(columns: np.ndarray, pairs: np.ndarray, block: slice) -> np.ndarray:
    """The per-topic differences x_i − x_j of the pairs of ``block``, one contiguous row per
    pair, so its mean and SD are summed as for a lone vector: shape (pairs in block, T)."""
    return columns[pairs[block, 0]] - columns[pairs[block, 1]]


def _result(test: str, setup: _Setup, statistic: np.ndarray, pvalue: np.ndarray, correction: str,
            **extra: Any) -> PairwiseResult:
    matrix = setup.matrix
    return PairwiseResult(
        test=test, measure=matrix.measure, systems=matrix.systems, means=matrix.means(), pairs=setup.pairs,
        effect=setup.effect, statistic=statistic, pvalue=pvalue,
        pvalue_adjusted=adjust_pvalues(pvalue, correction), correction=correction, n_topics=matrix.n_topics,
        **extra,
    )


# --------------------------------------------------------------------------- classical tests
def _scipy_test(test: str, data: Any, measure: str | None, correction: str, baseline: str | int | None,
                compute: Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]) -> PairwiseResult:
    check_choice(correction, "correction", CORRECTIONS)
    setup = _setup(data, measure, baseline, min_topics=2)
    statistic = np.empty(len(setup.pairs))
    pvalue = np.empty(len(setup.pairs))
    for block, d in _pair_blocks(setup, setup.matrix.n_topics * 8, test):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            statistic[block], pvalue[block] = compute(d)
    return _result(test, setup, statistic, pvalue, correction)


def t_test(data: Any, *, measure: str | None = None, correction: str = "none",
           baseline: str | int | None = None) -> PairwiseResult:
    """Two-sided paired t-test for every pair of systems: scipy's ``ttest_rel``.

    Parameters
    ----------
    data : score matrix (see :mod:`cranfield.meta.scores`), T >= 2 topics
    measure : str, optional
        Which measure of a multi-measure input.
    correction : {"none", "holm", "bonferroni", "hommel", "bh", "by"}
        Multiple-comparison adjustment over the pairs of this call (:func:`adjust_pvalues`).
    baseline : str or int, optional
        Compare every other system with this one only (pairs (s, baseline)).

    Returns
    -------
    PairwiseResult
        ``statistic`` is t = mean(d) / (sd(d) / √T) with d = x_i − x_j (sd with ddof = 1);
        identical systems give NaN, a constant non-zero difference ±inf and p = 0 (as scipy).

    Examples
    --------
    >>> x = [[0.2, 0.1], [0.5, 0.3], [0.4, 0.4], [0.9, 0.6]]
    >>> r = t_test(x)
    >>> round(float(r.statistic[0]), 4), round(float(r.pvalue[0]), 4)
    (2.3238, 0.1027)
    """
    from scipy import stats

    def compute(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        res = stats.ttest_rel(d, np.zeros_like(d), axis=1)
        return res.statistic, res.pvalue

    return _scipy_test("t", data, measure, correction, baseline, compute)


def wilcoxon_test(data: Any, *, measure: str | None = None, correction: str = "none",
                  baseline: str | int | None = None) -> PairwiseResult:
    """Two-sided Wilcoxon signed-rank test for every pair of systems.

    Exactly scipy's ``wilcoxon(x_i - x_j, zero_method="wilcox", correction=False)`` for each
    pair (zero differences dropped; as scipy's ``method="auto"`` chooses per pair: the exact
    null distribution up to 50 topics without zeros or ties, an exhaustive permutation test up
    to 13 topics with them — slow for many pairs — and the normal approximation otherwise).
    ``statistic`` is scipy's W (the smaller of the signed-rank sums); two systems with
    identical scores give p = NaN.

    Parameters are those of :func:`t_test`.
    """

    return _scipy_test("wilcoxon", data, measure, correction, baseline, _wilcoxon_rows)


def _wilcoxon_rows(d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scipy's Wilcoxon test of each row of d (pairs, T), as separate calls would give it.

    With ``method="auto"`` scipy picks the exact null distribution, a permutation test or the
    normal approximation from the presence of zeros and ties *anywhere in its input*, so rows
    with zeros or tied |d| and clean rows are passed in two calls.
    """
    from scipy import stats

    ranked = np.sort(np.abs(d), axis=1)
    plain = ~((d == 0).any(axis=1) | (ranked[:, 1:] == ranked[:, :-1]).any(axis=1))
    statistic, pvalue = np.empty(len(d)), np.empty(len(d))
    for rows in (plain, ~plain):
        if rows.any():
            res = stats.wilcoxon(d[rows], axis=1, zero_method="wilcox", correction=False)
            statistic[rows], pvalue[rows] = res.statistic, res.pvalue
    return statistic, pvalue


def sign_test(data: Any, *, measure: str | None = None, correction: str = "none",
              baseline: str | int | None = None) -> PairwiseResult:
    """Two-sided exact sign test for every pair of systems: the binomial test of the topics
    where system i wins against those where it loses, ties dropped.

    A topic is a win of i when x_i(t) > x_j(t), a loss when x_i(t) < x_j(t), and a tie when the
    two scores are equal under docs/conventions.md#equality (the wins, ties and losses that
    ``compare`` prints); ties are dropped. With n = wins + losses, k = wins and m = min(k, n − k),
    under H0 (a win as likely as a loss) k ~ Binomial(n, 1/2) and

        p = min(1, 2·P(X ≤ m)) = min(1, Σ_{i=0..m} C(n, i) / 2^(n−1)),

    scipy's ``binomtest(k, n, 0.5).pvalue``, computed exactly: the sum of binomial coefficients in
    integers and one correctly rounded division, so p is the float nearest the true value on any
    machine (no BLAS, no threads). Two systems without a win or a loss (n = 0) give p = NaN.

    Parameters are those of :func:`t_test`.

    Returns
    -------
    PairwiseResult
        ``statistic`` is k, the topics where i wins.

    References
    ----------
    D. Hull. Using statistical testing in the evaluation of retrieval experiments. SIGIR 1993.
    M. D. Smucker, J. Allan, B. Carterette. A comparison of statistical significance tests for
    information retrieval evaluation. CIKM 2007.
    W. J. Conover. Practical Nonparametric Statistics, 3rd ed., Wiley 1999, §3.4.

    Examples
    --------
    >>> x = [[0.2, 0.1], [0.5, 0.3], [0.4, 0.4], [0.9, 0.6]]   # 3 wins, 1 tie: p = 2 · 1/8
    >>> r = sign_test(x)
    >>> float(r.statistic[0]), float(r.pvalue[0])
    (3.0, 0.25)
    """
    check_choice(correction, "correction", CORRECTIONS)
    setup = _setup(data, measure, baseline)
    columns, pairs = _columns(setup), setup.pairs
    wins = np.empty(len(pairs), dtype=np.int64)
    decided = np.empty(len(pairs), dtype=np.int64)
    for block in chunks(len(pairs), 3 * columns.shape[1]):
        a, b = columns[pairs[block, 0]], columns[pairs[block, 1]]
        d, tie = a - b, equal(a, b)
        wins[block] = ((d > 0) & ~tie).sum(axis=1)
        decided[block] = (~tie).sum(axis=1)
    pvalue = _sign_pvalues(decided, np.minimum(wins, decided - wins))
    return _result("sign", setup, wins.astype(np.float64), pvalue, correction)


def _sign_pvalues(n: np.ndarray, m: np.ndarray) -> np.ndarray:
    """min(1, 2·P(X ≤ m)) for X ~ Binomial(n, 1/2), elementwise (m ≤ n/2; NaN where n = 0):
    Σ_{i<=m} C(n, i) summed in Python integers and divided by 2^(n−1) once (int / int is
    correctly rounded), once for each distinct (n, m)."""
    p = np.full(n.shape, np.nan)
    cases = n > 0
    if not cases.any():
        return p
    found, where = np.unique(np.stack([n[cases], m[cases]]), axis=1, return_inverse=True)
    values: list[float] = []
    for size in np.unique(found[0]).tolist():  # columns of ``found`` are sorted by n, then m
        tails = found[1][found[0] == size].tolist()
        coefficient, total, sums = 1, 0, []
        for i in range(max(tails) + 1):
            total += coefficient  # Σ_{i' <= i} C(size, i')
            sums.append(total)
            coefficient = coefficient * (size - i) // (i + 1)
        values += [min(1.0, sums[tail] / 2 ** (size - 1)) for tail in tails]
    p[cases] = np.asarray(values)[where.ravel()]
    return p


# --------------------------------------------------------------------------- randomisation
def randomization_test(data: Any, *, measure: str | None = None, n_resamples: int = 10_000, rng: Any = None,
                       correction: str = "none", baseline: str | int | None = None,
                       keep_null: bool = False, client: Any = None) -> PairwiseResult:
    """Fisher's randomisation (paired permutation) test for every pair of systems.

    Under H0 the sign of each per-topic difference d_t = x_i(t) − x_j(t) is exchangeable.
    The sign flips F (B, T) are drawn once and shared by all pairs, block by block from the
    seed's streams (docs/scaling.md#streams: block k's rows are ``integers(0, 2, (r, T))`` of its
    generator) (F = 1 flips the sign of that topic); the resampled mean is mean(d · (1 − 2F_b)) and
    p = #{b : |mean(d*_b)| ≥ |mean(d)|} / B (docs/conventions.md#significance; no +1 correction).
    Smucker, Allan and Carterette (CIKM 2007) recommend this test for pairwise comparisons.

    Parameters
    ----------
    data, measure, correction, baseline : see :func:`t_test`
    n_resamples : int
        B (default 10,000).
    rng : int, numpy Generator or None
        Seed or generator; an int gives the same draws every time.
    keep_null : bool
        Keep the resampled mean differences, shape (B, P), as ``null_distribution``
        (B·P·8 bytes).
    client : dask.distributed.Client, optional
        Run the blocks of resamples as tasks on a Dask cluster: the same result, bit for bit.

    Examples
    --------
    >>> x = [[0.2, 0.1], [0.5, 0.3], [0.4, 0.4], [0.9, 0.6]]
    >>> float(randomization_test(x, n_resamples=2000, rng=1).pvalue[0])  # exact: 2 of 8 patterns, 0.25
    0.244
    """
    check_choice(correction, "correction", CORRECTIONS)
    b = check_resamples(n_resamples, "number of resamples B (n_resamples)")
    setup = _setup(data, measure, baseline)
    columns = _columns(setup)
    observed = np.empty(len(setup.pairs))
    for block in _pair_chunks(len(setup.pairs), RESAMPLE_BLOCK):
        observed[block] = _differences(columns, setup.pairs, block).mean(axis=1)
    parts = map_blocks(_randomization_block, resample_blocks(b, rng), client=client, label="randomization",
                       shared={"columns": columns, "pairs": setup.pairs, "keep_null": keep_null})
    hits = np.asarray(np.sum([hits for hits, _ in parts], axis=0, dtype=np.int64))
    null = np.concatenate([part for _, part in parts if part is not None]) if keep_null else None
    return _result("randomization", setup, observed, hits / b, correction, n_resamples=b, null_distribution=null)


def _randomization_block(block: ResampleBlock, columns: np.ndarray, pairs: np.ndarray, keep_null: bool
                         ) -> tuple[np.ndarray, np.ndarray | None]:
    """One block of sign-flip resamples for every pair: the hit counts (P,) and, with
    ``keep_null``, the resampled mean differences (resamples, P)."""
    n = columns.shape[1]
    signs = 1.0 - 2.0 * block.generator().integers(0, 2, (block.size, n))  # +1 keeps, -1 flips a topic's sign
    hits = np.empty(len(pairs), dtype=np.int64)
    null = np.empty((block.size, len(pairs))) if keep_null else None
    for part in _pair_chunks(len(pairs), RESAMPLE_BLOCK):
        d = _differences(columns, pairs, part)
        # (pairs, resamples): mean difference under each sign pattern, in numpy's own loops (no BLAS threads)
        resampled = np.einsum("pt,bt->pb", d, signs) / n
        hits[part] = (np.abs(resampled) >= lower_bound(np.abs(d.mean(axis=1)))[:, None]).sum(axis=1)
        if null is not None:
            null[:, part] = resampled.T
    return hits, null


# --------------------------------------------------------------------------- bootstrap
def bootstrap_test(data: Any, *, measure: str | None = None, n_resamples: int = 1_000, rng: Any = None,
                   alpha: float = 0.05, correction: str = "none", baseline: str | int | None = None,
                   keep_null: bool = False, client: Any = None) -> PairwiseResult:
    """Sakai's two-sided, studentised paired bootstrap test for every pair (Sakai, WWW 2012,
    Figure 2).

    For a pair, z = x_i − x_j over the T topics and w = z − mean(z) (H0 holds for w);
    t(v) = mean(v) / (sd(v) / √T) with sd of ddof = 1. The bootstrap indices I (B, T) are
    drawn once and shared by all pairs, block by block from the seed's streams
    (docs/scaling.md#streams: block k's rows are ``integers(0, T, (r, T))`` of its generator); resample b is
    w*_b = w[I_b] and ASL = #{b : |t(w*_b)| ≥ |t(z)|} / B (no +1 correction).

    Degenerate cases (docs/conventions.md#bootstrap): if z is constant, ASL = 1 when it is 0 and 0 otherwise (and w
    is taken as exactly 0). A resample whose values are all equal (sd = 0) has t* = 0 when
    its mean is 0 and ±inf otherwise. These are decided exactly, not by rounding.

    The per-pair Δ of Figure 3 is the |mean(w*_b)| of the resample whose |t*| is the k-th
    largest, k = ⌊B·α⌋ (ties between resamples ordered by b); :func:`discriminative_power`
    reports its maximum over pairs as "the Δ required for significance".

    Parameters
    ----------
    data, measure, correction, baseline : see :func:`t_test`
    n_resamples : int
        B (default 1,000, as in Sakai, WWW 2012).
    rng : int, numpy Generator or None
    alpha : float
        The significance level of Δ (default 0.05).
    keep_null : bool
        Keep the resampled t*, shape (B, P), as ``null_distribution``.
    client : dask.distributed.Client, optional
        Run the blocks of resamples as tasks on a Dask cluster: the same result, bit for bit.

    References
    ----------
    T. Sakai. Evaluating evaluation metrics based on the bootstrap. SIGIR 2006.
    T. Sakai. Evaluation with informational and navigational intents. WWW 2012, Figures 2–3.

    Examples
    --------
    >>> x = [[0.2, 0.1], [0.5, 0.3], [0.4, 0.4], [0.9, 0.6]]
    >>> r = bootstrap_test(x, rng=1)
    >>> float(r.pvalue[0]), round(float(r.delta[0]), 4)
    (0.137, 0.125)
    """
    check_choice(correction, "correction", CORRECTIONS)
    b = check_resamples(n_resamples, "number of resamples B (n_resamples)")
    level = check_alpha(alpha)
    setup = _setup(data, measure, baseline, min_topics=2)
    columns, pairs = _columns(setup), setup.pairs
    k = int(np.floor(b * level))
    blocks = resample_blocks(b, rng)
    groups = [blocks] if client is None else _task_groups(blocks, client)
    parts = map_blocks(_bootstrap_resamples, groups, client=client, label="bootstrap",
                       shared={"columns": columns, "pairs": pairs, "k": k, "keep_null": keep_null})
    hits = np.asarray(np.sum([part.hits for part in parts], axis=0, dtype=np.int64))
    t_obs = np.empty(len(pairs))
    asl = hits / b
    w = np.empty((len(pairs), columns.shape[1]))
    for block in chunks(len(pairs), columns.shape[1], _RESAMPLED_CELLS):
        z = _differences(columns, pairs, block)
        t_obs[block], w[block], constant = _observed_t(z)
        asl[block][constant] = np.where(z[constant, 0] == 0, 1.0, 0.0)
    delta = np.full(len(pairs), np.nan)
    if k >= 1:
        delta = _bootstrap_delta(w, blocks, parts, k)
    null = np.concatenate([part.null for part in parts]) if keep_null else None
    return _result("bootstrap", setup, t_obs, asl, correction, n_resamples=b, null_distribution=null,
                   delta=delta, alpha=level)


def _task_groups(blocks: list[ResampleBlock], client: Any) -> list[list[ResampleBlock]]:
    """Consecutive blocks as tasks, a few per worker: each block is computed alone whatever
    its group, so the grouping changes the work per task, never a number."""
    tasks = 4 * max(1, len(client.scheduler_info().get("workers", {})))
    size = -(-len(blocks) // tasks)
    return [blocks[a:a + size] for a in range(0, len(blocks), size)]


class _BootstrapPart(NamedTuple):
    """What one block of bootstrap resamples returns for every pair (P pairs, r resamples)."""

    hits: np.ndarray
    """(P,): resamples with |t*| >= |t(z)|."""
    top: np.ndarray
    """(P, min(k, r)): the k largest |t*| of the blocks, equal values taken by resample, in b order."""
    top_at: np.ndarray
    """(P, min(k, r)): their resample numbers b."""
    null: np.ndarray | None
    """(r, P): t* with ``keep_null``."""


def _bootstrap_resamples(group: list[ResampleBlock], columns: np.ndarray, pairs: np.ndarray, k: int,
                         keep_null: bool) -> _BootstrapPart:
    """Consecutive blocks of bootstrap resamples (Sakai, WWW 2012, Figure 2) for every pair: hit
    counts, the candidates for Figure 3's k-th largest |t*|, and t* itself with ``keep_null``.

    Each block draws from its own stream and every t* is computed exactly or screened exactly
    (:func:`_resampled_t`), so a result never depends on how blocks are grouped into tasks; the
    group's resamples are processed :data:`_SPAN_BLOCKS` blocks at a time (:func:`_bootstrap_span`)
    and the spans' candidates merged in b order.
    """
    spans = [_bootstrap_span(group[a:a + _SPAN_BLOCKS], columns, pairs, k, keep_null)
             for a in range(0, len(group), _SPAN_BLOCKS)]
    if len(spans) == 1:
        return spans[0]
    largest = _TopK(k)
    for span in spans:
        largest.add(span.top, span.top_at)
    top, top_at = largest.result() if k else (spans[0].top, spans[0].top_at)
    null = np.concatenate([span.null for span in spans]) if keep_null else None
    return _BootstrapPart(np.sum([span.hits for span in spans], axis=0), top, top_at, null)


def _bootstrap_span(group: list[ResampleBlock], columns: np.ndarray, pairs: np.ndarray, k: int,
                    keep_null: bool) -> _BootstrapPart:
    """:func:`_bootstrap_resamples` for a few consecutive blocks, processed together, one block
    of pairs at a time, in work arrays allocated once (:class:`_Buffers`)."""
    n_pairs, n = len(pairs), columns.shape[1]
    idx = np.concatenate([block.generator().integers(0, n, (block.size, n)) for block in group])
    counts = _draw_counts(idx, n)  # (T, r): how often each resample draws each topic, for all pairs
    numbers = np.concatenate([np.arange(block.resamples.start, block.resamples.stop) for block in group])
    hits = np.empty(n_pairs, dtype=np.int64)
    kept = min(k, len(numbers))
    top = np.empty((n_pairs, kept))
    top_at = np.empty((n_pairs, kept), dtype=np.int64)
    null = np.empty((len(numbers), n_pairs)) if keep_null else None
    parts = chunks(n_pairs, len(numbers), _BOOTSTRAP_CELLS)
    work = _Buffers.allocate(max((part.stop - part.start for part in parts), default=0), len(numbers))
    for part in parts:
        t_obs, w, _ = _observed_t(_differences(columns, pairs, part))
        with np.errstate(invalid="ignore"):
            bound = lower_bound(np.abs(t_obs))[:, None]
        found = _resampled_t(w, bound, idx, counts, kept, keep_null, work.rows(part.stop - part.start))
        hits[part], top[part], top_at[part] = found.hits, found.top, numbers[found.at]
        if null is not None and found.t_star is not None:
            null[:, part] = found.t_star.T
    return _BootstrapPart(hits, top, top_at, null)


class _TopK:
    """The k largest values of each row seen so far, with their resample numbers, equal values
    taken in resample order: columns are added in increasing b and kept in that order, and
    compacted to k once 4k are buffered."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.values: list[np.ndarray] = []
        self.at: list[np.ndarray] = []
        self.width = 0

    def add(self, values: np.ndarray, at: np.ndarray) -> None:
        self.values.append(values)
        self.at.append(at)
        self.width += values.shape[1]
        if self.width > 4 * self.k:
            self._compact()

    def _compact(self) -> None:
        if len(self.values) == 1:  # nothing to merge (one span of resamples)
            values, at = self.values[0], self.at[0]
        else:
            values, at = np.concatenate(self.values, axis=1), np.concatenate(self.at, axis=1)
        if values.shape[1] > self.k:
            keep = _largest(values, self.k)
            values, at = np.take_along_axis(values, keep, axis=1), np.take_along_axis(at, keep, axis=1)
        self.values, self.at, self.width = [values], [at], values.shape[1]

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        self._compact()
        return self.values[0], self.at[0]


def _largest(values: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``values`` (P, r), the columns of its k largest values, equal values taken
    by column (the first k of a stable descending sort), in column order; shape (P, k)."""
    r = values.shape[1]
    if k >= r:
        return np.broadcast_to(np.arange(r), values.shape).copy()
    kth = np.partition(values, r - k, axis=1)[:, r - k, None]  # each row's k-th largest value
    keep = values >= kth
    several = np.flatnonzero(keep.sum(axis=1) > k)  # the k-th value is tied: take the ties by column
    if several.size:
        sub, tied = values[several], values[several] == kth[several]
        room = k - (sub > kth[several]).sum(axis=1, keepdims=True)
        keep[several] = (sub > kth[several]) | (tied & (np.cumsum(tied, axis=1) <= room))
    return np.nonzero(keep)[1].reshape(len(values), k)


def _kth_largest(values: np.ndarray, k: int) -> np.ndarray:
    """Per row of ``values`` (P, B), the column holding the k-th largest value, equal values
    ordered by column (a stable descending sort), shape (P,)."""
    kth = -np.partition(-values, k - 1, axis=1)[:, k - 1]
    tied = values == kth[:, None]
    pick = tied.argmax(axis=1)
    several = np.flatnonzero(tied.sum(axis=1) > 1)
    if several.size:
        sub = values[several]
        above = (sub > kth[several, None]).sum(axis=1)
        rank = np.cumsum(tied[several], axis=1)
        pick[several] = (tied[several] & (rank == (k - above)[:, None])).argmax(axis=1)
    return pick


def _bootstrap_delta(w: np.ndarray, blocks: list[ResampleBlock], parts: list[_BootstrapPart], k: int) -> np.ndarray:
    """Per pair (w: its rows z − mean(z), shape (P, T)), the |mean| of the resample whose |t*|
    is the k-th largest over all B (equal values ordered by b; Sakai, WWW 2012, Figure 3). The
    parts' candidates arrive in b order and are merged keeping that order; the chosen
    resamples' topics are drawn again from their blocks' streams."""
    largest = _TopK(k)
    for part in parts:
        largest.add(part.top, part.top_at)
    top, top_at = largest.result()
    n_pairs, n = w.shape
    chosen = top_at[np.arange(n_pairs), _kth_largest(top, k)]  # (P,): resample numbers b
    drawn = np.empty((n_pairs, n), dtype=np.int64)  # the chosen resample's topics, per pair
    for resamples in blocks:
        here = np.flatnonzero((chosen >= resamples.resamples.start) & (chosen < resamples.resamples.stop))
        if here.size:
            idx = resamples.generator().integers(0, n, (resamples.size, n))
            drawn[here] = idx[chosen[here] - resamples.resamples.start]
    delta = np.empty(n_pairs)
    for chunk in chunks(n_pairs, n, _RESAMPLED_CELLS):
        delta[chunk] = np.abs(_exact_t(np.take_along_axis(w[chunk], drawn[chunk], axis=1))[0])
    return delta


def _draw_counts(idx: np.ndarray, n: int) -> np.ndarray:
    """How often each resample draws each topic, transposed: shape (T, B), float64."""
    b = idx.shape[0]
    flat = (idx + n * np.arange(b)[:, None]).ravel()
    return np.bincount(flat, minlength=b * n).reshape(b, n).T.astype(np.float64, order="C")


def _observed_t(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """t(z), w = z − mean(z) (exactly 0 for a constant z) and whether z is constant, for the
    pairs of z (pairs, T)."""
    n = z.shape[1]
    constant = (z == z[:, :1]).all(axis=1)
    mean = z.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        t_obs = mean / (z.std(axis=1, ddof=1) / np.sqrt(n))
    w = np.where(constant[:, None], 0.0, z - mean[:, None])
    return t_obs, w, constant


class _Buffers(NamedTuple):
    """Work arrays of :func:`_resampled_t` for p pairs and r resamples, allocated once per span and
    reused by its blocks of pairs: megabyte arrays allocated afresh for every block cost
    more in page faults than the arithmetic done in them."""

    sums: np.ndarray
    """(2p, r): the grid sums of w, then of w²."""
    rho: np.ndarray
    """(p, r): S1²/D'."""
    spare: np.ndarray
    """(p, r): the partition of ρ."""
    above: np.ndarray
    """(p, r), bool: ρ above the window."""
    mask: np.ndarray
    """(p, r), bool: scratch."""

    @classmethod
    def allocate(cls, p: int, r: int) -> _Buffers:
        """Uninitialised buffers for p pairs and r resamples."""
        return cls(np.empty((2 * p, r)), *(np.empty((p, r)) for _ in range(2)),
                   *(np.empty((p, r), dtype=bool) for _ in range(2)))

    def rows(self, p: int) -> _Buffers:
        """The buffers of the first p pairs."""
        return _Buffers(self.sums[:2 * p], *(x[:p] for x in self[1:]))


class _Resampled(NamedTuple):
    """What :func:`_resampled_t` finds for the pairs of a block (p pairs, r resamples)."""

    hits: np.ndarray
    """(p,): resamples with |t*| >= the pair's threshold."""
    top: np.ndarray
    """(p, kept): the kept largest |t*|, equal values taken by resample, in resample order."""
    at: np.ndarray
    """(p, kept): their columns."""
    t_star: np.ndarray | None
    """(p, r): every t*, when asked for."""


def _resampled_t(w: np.ndarray, bound: np.ndarray, idx: np.ndarray, counts: np.ndarray, kept: int,
                 keep_null: bool, work: _Buffers) -> _Resampled:
    """The hits |t*| >= ``bound`` (p, 1) among the bootstrap resamples of every row of w (p, T)
    (resamples drawing topics ``idx`` (r, T), counted in ``counts`` (T, r)), the ``kept`` largest
    |t*| of each row (as :func:`_largest` chooses them) and, with ``keep_null``, every t*.

    The sums s1 = Σc·w and s2 = Σc·w² over the topic counts c come from matrix products at BLAS
    speed, made exact by :func:`_grid_sums` (the same numbers whatever the BLAS, CPU or thread
    count); they are kept on their grids, s = S·2**−k, and t* = √(T−1)·s1/√D with D = T·s2 − s1²
    is computed as √(T−1)·S1/√D', D' = T·2**(2k1 − k2)·S2 − S1² = 2**(2k1)·D (the same bits: only
    powers of two differ). Every resample is screened against the hit threshold; those the screen
    cannot decide under a rigorous error bound (:func:`_screen_floor`) — within :data:`_SCREEN`
    (relative) of the threshold, or near-degenerate, among them every degenerate one (all topics
    share one value: D = 0) — are recomputed from their values, two-pass and in a fixed order
    (:func:`_exact_t`), which decides their hit.

    The square root is taken for a few resamples only: the others are compared through
    ρ = S1²/D' = t*²/(T − 1), within a few roundings of the screened |t*|²/(T − 1). A resample
    whose ρ lies in the threshold's window widened by :data:`_WIDEN` (relative; it covers these
    roundings), or that is near-degenerate, gets its screened |t*|, recomputed exactly when the
    screen cannot decide it; outside the widened window, ρ is on the same side of the window as
    |t*|, which is all its hit needs. The largest |t*| are chosen among the resamples whose ρ is
    within :data:`_WIDEN` of the ``kept``-th largest, a superset of them for the same reason: the
    values and choices are those of |t*| computed for every resample.
    """
    (p, n), r = w.shape, counts.shape[1]
    s1, rho, d, floor = _grid_moments(w, counts, work)
    reach = _SCREEN * np.maximum(1.0, bound)
    with np.errstate(invalid="ignore"):  # NaN bounds (a constant z) are no hit, as in the comparison below
        low = np.square(np.maximum(bound - reach, 0.0)) * ((1 - _WIDEN) / (n - 1))
        high = np.square(bound + reach) * ((1 + _WIDEN) / (n - 1))
        above = np.greater(rho, high, out=work.above)
        hits = _row_counts(above)
        rows = np.flatnonzero(_row_counts(np.greater_equal(rho, low, out=work.mask)) != hits)  # ρ in the window
    rows = np.union1d(rows, np.flatnonzero(np.fmin.reduce(d, axis=1) <= floor[:, 0]))  # or near-degenerate
    with np.errstate(invalid="ignore"):
        window = (rho[rows] >= low[rows]) & (rho[rows] <= high[rows]) | (d[rows] <= floor[rows])
    rp, rb = np.nonzero(window)  # few
    rp = rows[rp]
    looked = rp * r + rb  # flat, ascending
    t_window = _screened_t(np.take(s1, looked), np.take(d, looked), n)
    size = np.abs(t_window)
    with np.errstate(invalid="ignore"):
        undecided = (size >= (bound - reach)[rp, 0]) & (size <= (bound + reach)[rp, 0]) | (d[rp, rb] <= floor[rp, 0])
    recompute = np.flatnonzero(undecided)
    for part in chunks(recompute.size, n):
        cells = recompute[part]
        t_window[cells] = _exact_t(w[rp[cells, None], idx[rb[cells]]])[1]
    size = np.abs(t_window)
    with np.errstate(invalid="ignore"):
        hit = (size >= bound[rp, 0]).astype(np.int64) - np.take(above, looked)
    hits += np.bincount(rp, hit, minlength=p).astype(np.int64)
    t_star = None
    if keep_null:
        t_star = _screened_t(s1, d, n)
        np.put(t_star, looked, t_window)
    if kept == 0:
        return _Resampled(hits, np.empty((p, 0)), np.empty((p, 0), dtype=np.int64), t_star)
    np.put(rho, looked, np.square(size) / (n - 1))
    if kept < r:
        order = work.spare
        np.copyto(order, rho)
        order.partition(r - kept, axis=1)
        least = order[:, r - kept, None] * (1 - _WIDEN)  # below each row's kept-th largest ρ
        candidates = np.flatnonzero(np.greater_equal(rho, least, out=work.mask))
    else:
        candidates = np.arange(rho.size)
    values = np.abs(_screened_t(np.take(s1, candidates), np.take(d, candidates), n))
    if looked.size:  # the candidates looked at above keep their (recomputed) |t*|
        at = np.minimum(np.searchsorted(looked, candidates), looked.size - 1)
        values = np.where(looked[at] == candidates, size[at], values)
    cp, cb = np.divmod(candidates, r)
    if candidates.size == p * kept:  # kept candidates in every row: all of them
        return _Resampled(hits, values.reshape(p, kept), cb.reshape(p, kept), t_star)
    place = np.arange(cp.size) - np.searchsorted(cp, np.arange(p))[cp]  # position within the row
    padded = np.full((p, int(place.max()) + 1), -np.inf)
    columns = np.zeros(padded.shape, dtype=np.int64)
    padded[cp, place], columns[cp, place] = values, cb
    at = _largest(padded, kept)
    return _Resampled(hits, np.take_along_axis(padded, at, axis=1), np.take_along_axis(columns, at, axis=1), t_star)


def _grid_moments(w: np.ndarray, counts: np.ndarray, work: _Buffers
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """S1 = 2**k1·Σc·w, ρ = S1²/D' and D' = T·2**(2k1 − k2)·S2 − S1² = 2**(2k1)·D of every
    resample (p, r) of every row of w (p, T) (:func:`_resampled_t`), and each row's floor of D'
    (:func:`_screen_floor`), shape (p, 1): one exact matrix product (:func:`_products`) of w and
    w² on their grids, in ``work``."""
    p, n = w.shape
    q, shift = _grid(np.concatenate([w, w * w]))
    sums = _products(q, counts, into=work.sums)
    s1, d, k1, k2 = sums[:p], sums[p:], shift[:p], shift[p:]
    with np.errstate(all="ignore"):  # rows out of range (sums 0, floor ∞) give inf here, never nan
        np.multiply(d, np.ldexp(float(n), np.minimum(2 * k1 - k2, 900)), out=d)
        rho = np.multiply(s1, s1, out=work.rho)
        d -= rho
        np.divide(rho, d, out=rho)
        floor = np.ldexp(_screen_floor(n, np.abs(w).max(axis=1, keepdims=True), k1, k2), 2 * k1)
    return s1, rho, d, floor


def _row_counts(mask: np.ndarray) -> np.ndarray:
    """How many cells of each row of a boolean matrix are true, as int64 (summed as bytes)."""
    wide = mask.shape[1] >= 1 << 16
    return mask.view(np.uint8).sum(axis=1, dtype=np.int64 if wide else np.uint16).astype(np.int64)


def _screened_t(s1: np.ndarray, d: np.ndarray, n: int) -> np.ndarray:
    """t* = √(T − 1)·S1/√D' from the grid sums (:func:`_resampled_t`), elementwise."""
    with np.errstate(all="ignore"):
        t = np.divide(n - 1, d)
        np.sqrt(t, out=t)
        t *= s1
    return t


def _grid(v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each row of ``v`` (P, T) on its integer grid, q = rint(v·2**k), and k (P, 1) (:func:`_grid_sums`)."""
    n = v.shape[1]
    exponent = np.frexp(np.abs(v).max(axis=1, keepdims=True))[1]  # max |v| < 2**exponent
    out = np.abs(exponent) > _EXPONENT_LIMIT
    shift = 52 - int(n - 1).bit_length() - np.where(out, 0, exponent)
    return np.rint(np.ldexp(np.where(out, 0.0, v), shift)), np.where(out, _EXPONENT_LIMIT * 4, shift)


def _grid_sums(v: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Σ_t c_tb·v_pt·2**k_p for every row p of ``v`` (P, T) and resample b of ``counts`` (T, B),
    computed exactly on a grid, and the grid's k (P, 1).

    Row p is rounded to integers q = rint(v·2**k) with |q| < 2**52 / 2**⌈log2 T⌉ (:func:`_grid`); the
    counts of a resample are integers adding up to T, so every product and partial sum of q @ C is
    an integer below 2**53 and a matrix product computes it exactly, in whatever order
    (:func:`_products`). The sum (q @ C)·2**−k is off Σc·v by at most T·2**−k/2. A row whose
    largest |value| lies outside 2**±:data:`_EXPONENT_LIMIT` is taken as 0 (:func:`_screen_floor`
    sends it to the exact path).
    """
    q, shift = _grid(v)
    return _products(q, counts), shift


def _products(q: np.ndarray, counts: np.ndarray, into: np.ndarray | None = None) -> np.ndarray:
    """q @ counts for integer-valued q (P, T) on a grid (:func:`_grid`), exact, in tiles of at
    most :data:`_PRODUCT_CELLS` multiply-adds (written to ``into`` when given)."""
    n = q.shape[1]
    sums = np.empty((len(q), counts.shape[1])) if into is None else into
    cols = min(counts.shape[1], 64)
    rows = max(1, _PRODUCT_CELLS // (cols * n))
    for a in range(0, len(q), rows):  # exact integers: the order of the sum cannot matter, so BLAS is safe
        for b in range(0, counts.shape[1], cols):
            np.matmul(q[a:a + rows], counts[:, b:b + cols], out=sums[a:a + rows, b:b + cols])
    return sums


def _screen_floor(n: int, top: np.ndarray, k1: np.ndarray, k2: np.ndarray) -> np.ndarray:
    """Per row of w (P, 1), the D below which :func:`_resampled_t` recomputes a resample; above
    it, the screened |t*| is within ρ·max(1, b) of the |t*| of :func:`_exact_t` whenever it is
    within ρ of the threshold b (ρ = :data:`_SCREEN`), and on b's side otherwise.

    The sums are off by at most e1 = T·2**−k1/2 and e2 = T·2**−k2/2 (:func:`_grid_sums`; a row
    out of range, k = 4·:data:`_EXPONENT_LIMIT`, gets the floor ∞). With top = max|w|,
    |s1| ≤ M1 = T·top + e1 and s2 ≤ M2 = T·top² + e2. Σc·fl(w²) is within
    2u·M2 of Σc·w² (u = 2**−53), so |s2 − Σc·w²| ≤ e2' = e2 + 2u·M2, and D = T·s2 − s1², computed
    with a few roundings, is within ΔD = T·e2' + (2·M1 + e1)·e1 + 4u·(T·M2 + M1²) of the true D.
    The true |t| = √(T−1)·|Σc·w|/√D lies within |t|·ΔD/(D − ΔD) + √(T−1)·e1/√(D − ΔD) of the
    screened one, and :func:`_exact_t` (pairwise mean, two-pass SD) within γ·A of the true |t|,
    with γ = (T + 8)·u and A = √(T(T−1)·s2/D) ≥ |t| (Higham, Accuracy and Stability of Numerical
    Algorithms, SIAM 2002, §3.1 and §4.2; 8γ·A covers it, the second-order terms of the SD and
    the screen's own roundings). Above the floor returned — the largest of 4ΔD/ρ, ΔD +
    16(T−1)·e1²/ρ² and T(T−1)·M2·(32γ/ρ)² — the three terms are at most ρ/3·|t|, ρ/4 and ρ/4,
    so |t*| moves by less than ρ·max(1, b) near b, and by less than its distance to b elsewhere.
    """
    u, gamma = 2.0 ** -53, (n + 8) * 2.0 ** -53
    e1, e2 = np.ldexp(0.5 * n, -k1), np.ldexp(0.5 * n, -k2)
    m1 = n * top + e1
    m2 = n * top * top + e2
    delta = n * (e2 + 2 * u * m2) + (2 * m1 + e1) * e1 + 4 * u * (n * m2 + m1 * m1)
    with np.errstate(invalid="ignore"):
        floor = np.maximum.reduce([4 * delta / _SCREEN, delta + 16 * (n - 1) * e1 * e1 / _SCREEN ** 2,
                                   n * (n - 1) * m2 * (32 * gamma / _SCREEN) ** 2])
    return np.where(np.isfinite(floor) & (np.maximum(k1, k2) < 4 * _EXPONENT_LIMIT), floor, np.inf)


def _exact_t(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and t of each row of resampled values (K, T), as a per-resample loop computes them:
    all-equal rows have t = 0 (mean 0) or ±inf."""
    n = values.shape[1]
    flat = (values == values[:, :1]).all(axis=1)
    mean = np.where(flat, values[:, 0], values.mean(axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / (values.std(axis=1, ddof=1) / np.sqrt(n))
    return mean, np.where(flat, np.where(mean == 0, 0.0, np.copysign(np.inf, mean)), t)


# --------------------------------------------------------------------------- Tukey HSD
def residual_variance(values: np.ndarray) -> tuple[float, int]:
    """V_E and its degrees of freedom (T − 1)(S − 1) of the two-way ANOVA without replication of a
    topics × systems matrix (T, S): the mean square of x_ts − x̄_t· − x̄_·s + x̄ (Sakai, Laboratory
    Experiments in Information Retrieval, Springer 2018, §3.1.3). Sums in a fixed order."""
    x = np.asarray(values, dtype=np.float64)
    n, m = x.shape
    residual = x - x.mean(axis=1, keepdims=True) - x.mean(axis=0, keepdims=True) + x.mean()
    df = (n - 1) * (m - 1)
    return (float((residual * residual).sum() / df) if df > 0 else float("nan")), df


def tukey_hsd_classical(data: Any, *, measure: str | None = None, baseline: str | int | None = None
                        ) -> PairwiseResult:
    """Tukey's honestly significant difference test over all systems, from the two-way ANOVA
    without replication (topics × systems), with Sakai's effect size ES_HSD.

    V_E is the residual variance (:func:`residual_variance`, φ_E = (T − 1)(S − 1) degrees of
    freedom); for each pair, q = |mean(i) − mean(j)| / √(V_E / T) and p = P(Q ≥ q) under the
    studentized range distribution of S means and φ_E degrees of freedom (scipy's
    ``studentized_range``). ES_HSD = (mean(i) − mean(j)) / √V_E (Sakai, "Statistical reform in
    information retrieval?", SIGIR Forum 48(1), 2014, §3; Laboratory Experiments in Information
    Retrieval, 2018, §4.4). One family of tests: no further correction applies.

    Parameters
    ----------
    data, measure : see :func:`t_test` (T >= 2 topics)
    baseline : str or int, optional
        Report only the pairs (s, baseline); the test still involves all systems.

    Returns
    -------
    PairwiseResult
        ``statistic`` is q, ``effect_size`` ES_HSD; identical scores throughout (V_E = 0) give
        q = inf and p = 0 for differing means, NaN for equal ones.

    Examples
    --------
    >>> x = [[0.2, 0.1, 0.3], [0.5, 0.3, 0.6], [0.4, 0.4, 0.5], [0.9, 0.6, 0.8]]
    >>> r = tukey_hsd_classical(x)
    >>> [round(float(v), 4) for v in r.pvalue]
    [0.0659, 0.6324, 0.0211]
    """
    from scipy import stats

    setup = _setup(data, measure, baseline, min_topics=2)
    n, m = setup.matrix.values.shape
    variance, df = residual_variance(setup.matrix.values)
    with np.errstate(divide="ignore", invalid="ignore"):
        q = np.abs(setup.effect) / np.sqrt(variance / n)
        effect_size = setup.effect / np.sqrt(variance)
    pvalue = np.where(np.isnan(q), np.nan, stats.studentized_range.sf(np.where(np.isnan(q), 0.0, q), m, df))
    return _result("tukey", setup, q, pvalue, "none", effect_size=effect_size)


def tukey_hsd(data: Any, *, measure: str | None = None, n_resamples: int = 5_000, rng: Any = None,
              tie: str = "inclusive", baseline: str | int | None = None, client: Any = None) -> PairwiseResult:
    """Carterette's randomised Tukey HSD test over all systems (Sakai, WWW 2012, Figure 4).

    For b = 1..B, keys (T, S) are drawn by ``random((T, S))`` from the generator of b's block
    (docs/scaling.md#streams, in order within a block) and each topic's row of X is permuted by
    ``argsort(keys[t])`` (ties, of probability ~1e-13, by column index); the statistic of the
    resample is the range max − min of the permuted matrix's column means. For each pair,
    ASL = #{b : range_b ≥ |mean(i) − mean(j)|} / B; ``tie="strict"`` counts ``>`` as Figure 4
    prints it. One family of tests: no further correction applies. ``null_distribution`` holds
    the B ranges.

    Parameters
    ----------
    data, measure : see :func:`t_test`
    n_resamples : int
        B (default 5,000, as in Sakai, WWW 2012).
    rng : int, numpy Generator or None
    tie : {"inclusive", "strict"}
        Whether a range equal to the observed difference (docs/conventions.md#equality) counts.
    baseline : str or int, optional
        Report only the pairs (s, baseline); the test still involves all systems.
    client : dask.distributed.Client, optional
        Run the blocks of resamples as tasks on a Dask cluster: the same result, bit for bit.

    References
    ----------
    B. Carterette. Multiple testing in statistical analysis of systems-based information
    retrieval experiments. ACM TOIS 30(1), 2012.

    Examples
    --------
    >>> x = [[0.2, 0.1, 0.3], [0.5, 0.3, 0.6], [0.4, 0.4, 0.5], [0.9, 0.6, 0.8]]
    >>> tukey_hsd(x, n_resamples=1000, rng=1).pvalue.tolist()
    [0.289, 0.91, 0.051]
    """
    b = check_resamples(n_resamples, "number of resamples B (n_resamples)")
    check_choice(tie, "tie rule", TIES)
    setup = _setup(data, measure, baseline)
    ranges = _tukey_ranges(setup.matrix.values, resample_blocks(b, rng), client)
    hits = count_at_least(np.sort(ranges), np.abs(setup.effect), strict=tie == "strict")
    return _result("tukey-randomised", setup, np.abs(setup.effect), hits / b, "none", n_resamples=b,
                   null_distribution=ranges)


def _tukey_ranges(values: np.ndarray, blocks: list[ResampleBlock], client: Any = None) -> np.ndarray:
    """The range of the column means of B row-permuted copies of ``values`` (T, S), shape (B,):
    one task per block of resamples, on ``client`` or, here, on several threads (each block
    draws from its own stream, so threads and workers change nothing)."""
    workers = min(_MAX_THREADS, os.cpu_count() or 1, len(blocks))
    if client is not None or workers < 2:
        parts = map_blocks(_tukey_block, blocks, client=client, shared={"values": values}, label="tukey")
    else:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(progress(pool.map(partial(_tukey_block, values=values), blocks), len(blocks), "tukey"))
    return np.concatenate(parts)


def _tukey_block(block: ResampleBlock, values: np.ndarray) -> np.ndarray:
    """The ranges of one block of Tukey HSD resamples, drawn in order from the block's stream
    (in sub-blocks of at most :data:`_TUKEY_CELLS` keys, which leaves the draws unchanged)."""
    n, s = values.shape
    gen = block.generator()
    subs = chunks(block.size, n * s, _TUKEY_CELLS)
    kernel = _PermutedRanges(values, subs[0].stop - subs[0].start)
    out = np.empty(block.size)
    for sub in subs:
        out[sub] = kernel(gen, sub.stop - sub.start)
    return out


class _PermutedRanges:
    """Draw the keys of b resamples and return the range of their permuted column means.

    Each topic's row is ordered by ``argsort(keys[t], kind="stable")``. The keys of
    ``Generator.random`` are k·2**-53 with k a 53-bit integer, so with c bits for a column
    index, k·2**c or-ed with the column is one 64-bit code: a plain sort of these codes
    (several times faster than an argsort) orders each row by key, then column, and leaves
    the permutation in the low bits. For the bit generators whose ``random()`` is
    ``(next_uint64 >> 11)·2**-53``, k comes straight from ``random_raw`` (the same words).
    Buffers are kept per thread.
    """

    def __init__(self, values: np.ndarray, block: int) -> None:
        n, s = values.shape
        self.values = values
        self.flat = np.ascontiguousarray(values).ravel()
        self.shape = (block, n, s)
        self.bits = max(1, (s - 1).bit_length())
        self.packed = 53 + self.bits <= 64
        self.columns = np.arange(s, dtype=np.int64)
        self.offsets = (np.arange(n, dtype=np.int64) * s)[:, None]  # row starts in ``flat``
        self.local = threading.local()

    def _buffers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        if not hasattr(self.local, "keys"):
            self.local.keys = np.empty(self.shape)
            self.local.code = np.empty(self.shape, dtype=np.int64)
            self.local.picked = np.empty(self.shape)
        return self.local.keys, self.local.code, self.local.picked

    def _codes(self, gen: np.random.Generator, b: int) -> np.ndarray:
        """The (b, T, S) codes k·2**c for the next b draws of ``rng.random((T, S))``."""
        keys, code, _ = (x[:b] for x in self._buffers())
        if isinstance(gen.bit_generator, _RAW_DOUBLES):
            raw = gen.bit_generator.random_raw(keys.shape)
            np.right_shift(raw, np.uint64(11 - self.bits), out=raw)  # k·2**c plus c stray bits
            return raw.view(np.int64)
        gen.random(out=keys)
        np.multiply(keys, 2.0 ** (53 + self.bits), out=code, casting="unsafe")  # exact: k·2**c < 2**63
        return code

    def __call__(self, gen: np.random.Generator, b: int) -> np.ndarray:
        keys, _, picked = (x[:b] for x in self._buffers())
        if self.packed:
            order = self._codes(gen, b)
            np.bitwise_and(order, np.int64(-1 << self.bits), out=order)
            np.bitwise_or(order, self.columns, out=order)
            order.sort(axis=-1)
            np.bitwise_and(order, np.int64((1 << self.bits) - 1), out=order)
        else:
            gen.random(out=keys)  # (b, T, S): the same stream as b draws of rng.random((T, S))
            order = np.argsort(keys, axis=-1, kind="stable")
        np.add(order, self.offsets, out=order)
        np.take(self.flat, order, out=picked, mode="clip")  # picked[b, t, j] = X[t, order[b, t, j]]
        means = picked.sum(axis=1) / self.values.shape[0]
        return means.max(axis=1) - means.min(axis=1)


# --------------------------------------------------------------------------- dispatcher
def check_test(test: str, correction: str = "none") -> tuple[str, str]:
    """``(test, correction)`` when ``test`` is a registered test (:func:`~cranfield.meta.registry.names`)
    and ``correction`` one of :data:`CORRECTIONS` that applies to it (a test over all systems,
    Tukey HSD, takes none), else the error."""
    spec = lookup(test)
    check_choice(correction, "correction", CORRECTIONS)
    if spec.all_systems and correction != "none":
        raise CranfieldError(f"{spec.title[:1].upper()}{spec.title[1:]} controls the family-wise error rate itself: "
                             "use no correction (--correction none)")
    return test, correction


def pairwise_test(data: Any, *, test: str = "t", measure: str | None = None, n_resamples: int | None = None,
                  rng: Any = None, alpha: float = 0.05, correction: str = "none",
                  baseline: str | int | None = None, tie: str = "inclusive", keep_null: bool = False,
                  client: Any = None) -> PairwiseResult:
    """Run a registered test (:mod:`cranfield.meta.registry`) by name with the options that apply to it.

    ``n_resamples=None`` takes the test's default B (``DEFAULT_RESAMPLES``); ``alpha`` is
    kept in the result (and sets the bootstrap's Δ); ``correction`` must be ``"none"`` for
    the Tukey HSD tests, which control the family-wise error themselves; ``tie`` applies to the
    randomised Tukey HSD only. ``"tukey"`` is the classical test (:func:`tukey_hsd_classical`),
    ``"tukey-randomised"`` Carterette's (:func:`tukey_hsd`).
    """
    check_test(test, correction)
    check_choice(tie, "tie rule", TIES)
    level = check_alpha(alpha)
    spec = lookup(test)
    result = spec.run(data, measure=measure, baseline=baseline, correction=correction,
                      n_resamples=spec.resamples(n_resamples), rng=rng, alpha=level, tie=tie, keep_null=keep_null,
                      client=client)
    return result if result.alpha == level else replace(result, alpha=level)


# The built-in tests, as names (names() and lookup() also see tests registered later).
TESTS = names()
TUKEY_TESTS = tuple(name for name in TESTS if lookup(name).all_systems)  # one family over all systems
DEFAULT_RESAMPLES = {spec.name: spec.default_resamples for spec in resampling()}
