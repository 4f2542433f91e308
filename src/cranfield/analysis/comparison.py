"""Pairwise comparison of runs on one measure: significance, confidence intervals, effect sizes
and per-topic wins/ties/losses (docs/report.md).

:func:`compare_runs` runs one of the significance tests of :mod:`cranfield.meta.significance`
(through :func:`~cranfield.meta.significance.pairwise_test`, with its multiple-comparison
correction) and adds, per pair of runs, what Sakai recommends to report beside a p-value
(Sakai, SIGIR Forum 2014, "Statistical reform in information retrieval?"): the mean
difference, its confidence interval and a standardised effect size.

- ``ci``: each run's mean with the t-interval mean ± t_{(1+c)/2, T−1} · sd / √T (sd with
  ddof = 1, T topics, c the confidence level).
- ``ci_t``: the paired t-interval of the mean difference d̄ ± t_{(1+c)/2, T−1} · s_d / √T
  over the per-topic differences d_t = x_i(t) − x_j(t).
- ``ci_bootstrap``: the percentile bootstrap interval of the mean difference (Efron &
  Tibshirani, An Introduction to the Bootstrap, Chapman & Hall 1993, §13.3): B topic resamples
  ``I = rng.integers(0, T, (B, T))`` with ``rng = numpy.random.default_rng(seed)`` drawn once
  and shared by every pair and every measure; the interval is the (1−c)/2 and (1+c)/2
  quantiles (numpy's default linear interpolation) of the B resampled mean differences.
- ``effect_size``: the standardised mean difference of the paired differences, d̄ / s_d
  (Cohen's d_z; Cohen, Statistical Power Analysis for the Behavioral Sciences, 2nd ed., 1988;
  the effect size Sakai pairs with the paired t-test, Sakai, SIGIR Forum 2014, and Sakai,
  SIGIR 2016, "Statistical significance, power, and sample sizes: a systematic review of SIGIR
  and TOIS, 2006-2015"). It equals t / √T. It is not Sakai's ES_HSD, which divides by the
  residual standard deviation of a two-way ANOVA over all runs.
- ``effect_size_hedges``: d_z with Hedges' small-sample correction, J(ν)·d_z, ν = T − 1,
  J(ν) = Γ(ν/2) / (√(ν/2) Γ((ν − 1)/2)) (Hedges, J. Educ. Stat. 1981, Eq. 6e; ≈ 1 − 3/(4ν − 1)):
  d_z overestimates the population effect on few topics; NaN with fewer than 3 topics.
- ``wins``, ``ties``, ``losses``: the topics where run i scores higher than, equal to
  (docs/conventions.md#equality) or lower than run j.

Means are arithmetic means over the topics (the score matrix of :mod:`cranfield.meta.scores`),
as the significance tests use them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._numeric import equal, ordered_matmul
from cranfield.analysis.options import DEFAULT_CORRECTION
from cranfield.errors import check_float, check_int

__all__ = ["Comparison", "compare_runs", "default_correction", "DEFAULT_CORRECTION", "BOOTSTRAP_CI_RESAMPLES"]

BOOTSTRAP_CI_RESAMPLES = 2_000  # B of the percentile bootstrap interval (Efron & Tibshirani 1993, §13.3)
_CI_CELLS = 1 << 21  # pairs × B cells per block of resampled differences (float64: 16 MB)


def default_correction(test: str) -> str:
    """The correction used when none is given: :data:`DEFAULT_CORRECTION` (Holm's step-down, Holm,
    Scand. J. Statist. 1979) for the pairwise tests, none for the tests over all systems (Tukey
    HSD), which control the family-wise error themselves."""
    from cranfield.meta.registry import lookup

    return "none" if lookup(test).all_systems else DEFAULT_CORRECTION


@dataclass(frozen=True, eq=False)
class Comparison:
    """Every pair of runs (or every run against a baseline) compared on one measure.

    Attributes
    ----------
    measure : str
    runs : tuple of str
        The S run names.
    means : ndarray, shape (S,)
        Each run's mean over the topics.
    ci : ndarray, shape (S, 2)
        The t-interval of each run's mean (``confidence`` level).
    pairs : ndarray of int, shape (P, 2)
        (i, j) indices into ``runs``: i < j for all pairs; (run, baseline) with a baseline.
    difference : ndarray, shape (P,)
        mean_i − mean_j.
    ci_t, ci_bootstrap : ndarray, shape (P, 2)
        The paired t-interval and the percentile bootstrap interval of the mean difference.
    effect_size : ndarray, shape (P,)
        d̄ / s_d (Cohen's d_z); NaN when s_d = 0 and d̄ = 0, ±inf when s_d = 0 alone.
    effect_size_hedges : ndarray, shape (P,)
        J(T − 1) · d_z, Hedges' bias-corrected effect size.
    wins, ties, losses : ndarray of int, shape (P,)
        Topics where run i is better than, equal to, worse than run j.
    statistic : ndarray, shape (P,)
        The test's statistic (:class:`cranfield.meta.significance.PairwiseResult`).
    pvalue, pvalue_adjusted : ndarray, shape (P,)
        The test's p-value and the p-value after ``correction``.
    significant : ndarray of bool, shape (P,)
        ``pvalue_adjusted < alpha``.
    test, correction : str
    alpha, confidence : float
    n_resamples : int or None
        B of a resampling test (None for t and Wilcoxon).
    bootstrap_resamples : int
        B of ``ci_bootstrap``.
    seed : int
    baseline : str or None
        The baseline's name; several baselines' names joined by ``", "``.
    topics : tuple of str
    """

    measure: str
    runs: tuple[str, ...]
    means: np.ndarray
    ci: np.ndarray
    pairs: np.ndarray
    difference: np.ndarray
    ci_t: np.ndarray
    ci_bootstrap: np.ndarray
    effect_size: np.ndarray
    effect_size_hedges: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray
    statistic: np.ndarray
    pvalue: np.ndarray
    pvalue_adjusted: np.ndarray
    significant: np.ndarray
    test: str
    correction: str
    alpha: float
    n_resamples: int | None
    confidence: float
    bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES
    seed: int = 0
    baseline: str | None = None
    topics: tuple[str, ...] = ()

    def to_frame(self) -> Any:
        """One row per pair: measure, test, correction, run_1, run_2, mean_1, mean_2, difference,
        ci_t_low/high, ci_bootstrap_low/high, effect_size, effect_size_hedges, wins, ties, losses,
        statistic, pvalue, pvalue_adjusted, significant (a pandas DataFrame)."""
        import pandas as pd

        return pd.DataFrame(self.records())

    def records(self) -> list[dict[str, Any]]:
        """The rows of :meth:`to_frame` as plain Python values (floats, ints, bools)."""
        rows = []
        for k, (i, j) in enumerate(self.pairs.tolist()):
            rows.append({
                "measure": self.measure, "test": self.test, "correction": self.correction,
                "run_1": self.runs[i], "run_2": self.runs[j],
                "mean_1": float(self.means[i]), "mean_2": float(self.means[j]),
                "difference": float(self.difference[k]),
                "ci_t_low": float(self.ci_t[k, 0]), "ci_t_high": float(self.ci_t[k, 1]),
                "ci_bootstrap_low": float(self.ci_bootstrap[k, 0]), "ci_bootstrap_high": float(self.ci_bootstrap[k, 1]),
                "effect_size": float(self.effect_size[k]),
                "effect_size_hedges": float(self.effect_size_hedges[k]),
                "wins": int(self.wins[k]), "ties": int(self.ties[k]), "losses": int(self.losses[k]),
                "statistic": float(self.statistic[k]), "pvalue": float(self.pvalue[k]),
                "pvalue_adjusted": float(self.pvalue_adjusted[k]),
                "significant": bool(self.significant[k]),
            })
        return rows


def hedges_correction(df: int) -> float:
    """Hedges' J(ν) = Γ(ν/2) / (√(ν/2) Γ((ν − 1)/2)), the factor that makes a standardised mean
    difference on ν degrees of freedom unbiased (Hedges, J. Educ. Stat. 6(2), 1981, Eq. 6e); NaN
    for ν < 2."""
    from scipy.special import gammaln

    if df < 2:
        return float("nan")
    return float(np.exp(gammaln(df / 2) - gammaln((df - 1) / 2)) / np.sqrt(df / 2))


def t_interval(values: np.ndarray, confidence: float = 0.95) -> np.ndarray:
    """Student's t confidence interval of each row's mean over its non-NaN values, shape
    (rows, 2): mean ± t_{(1+c)/2, n−1} · s/√n with the sample standard deviation s (Student,
    Biometrika 1908); NaN for rows with fewer than two values."""
    from scipy import stats

    confidence = check_float(confidence, "confidence level", low=0, high=1, open_low=True, open_high=True,
                             text=False)
    v = np.atleast_2d(np.asarray(values, dtype=float))
    scored = ~np.isnan(v)
    n = scored.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(scored, v, 0.0).sum(axis=1) / n
        sd = np.sqrt((np.where(scored, v - mean[:, None], 0.0) ** 2).sum(axis=1) / (n - 1))
        half = stats.t.ppf((1 + confidence) / 2, np.maximum(n - 1, 1)) * sd / np.sqrt(n)
    half = np.where(n > 1, half, np.nan)
    return np.stack([mean - half, mean + half], axis=1)


def _bootstrap_intervals(columns: np.ndarray, pairs: np.ndarray, confidence: float, b: int,
                         seed: Any) -> np.ndarray:
    """Percentile bootstrap intervals of mean_i − mean_j, shape (P, 2).

    The resampled mean of run s under resample b is Σ_t c_bt x_s(t) / T with c_bt the number
    of times topic t is drawn, so each run's B resampled means cost one product (S, T) × (T, B), in topic order
    and a pair's resampled differences are their difference."""
    n = columns.shape[1]
    idx = np.random.default_rng(seed).integers(0, n, (b, n))
    counts = np.zeros((b, n))
    np.add.at(counts, (np.repeat(np.arange(b), n), idx.ravel()), 1.0)
    resampled = ordered_matmul(columns, counts.T) / n  # (S, B), summed in topic order
    out = np.empty((len(pairs), 2))
    q = [(1 - confidence) / 2, (1 + confidence) / 2]
    step = max(1, _CI_CELLS // max(b, 1))
    for a in range(0, len(pairs), step):
        block = pairs[a:a + step]
        diff = resampled[block[:, 0]] - resampled[block[:, 1]]
        out[a:a + step] = np.quantile(diff, q, axis=1).T
    return out


def compare_runs(results: Any, measure: str, *, test: str = "t", correction: str | None = None,
                 alpha: float = 0.05, baseline: str | int | Sequence[str | int] | None = None,
                 n_resamples: int | None = None,
                 seed: int = 0, confidence: float = 0.95,
                 bootstrap_resamples: int = BOOTSTRAP_CI_RESAMPLES, client: Any = None) -> Comparison:
    """Compare the runs of ``results`` on ``measure``: the test of
    :func:`cranfield.meta.significance.pairwise_test` plus intervals, effect sizes and
    wins/ties/losses (module docs).

    Parameters
    ----------
    results : Results or any score matrix input of :mod:`cranfield.meta.scores`
    measure : str
    test : str
        A registered significance test (:func:`cranfield.meta.registry.names`).
    correction : {"none", "holm", "bonferroni", "hommel", "bh", "by"}, optional
        Default (None): Holm for the pairwise tests, none for Tukey HSD (:func:`default_correction`).
    alpha : float
        Significance level of ``significant``.
    baseline : str or int, or a sequence of them, optional
        Compare every other run with this one: pairs (run, baseline); with several baselines,
        every run with each baseline, the correction applying to all those pairs at once.
    n_resamples : int, optional
        B of the resampling tests (None: the test's default).
    seed : int
        Seeds the test's resampling and the bootstrap interval (each from a fresh
        ``numpy.random.default_rng(seed)``).
    confidence : float
        Level of every interval, in (0, 1).
    bootstrap_resamples : int
        B of the percentile bootstrap interval (default 2,000).
    client : dask.distributed.Client, optional
        Runs the resampling test's blocks on a Dask cluster, with the same numbers (docs/scaling.md).
    """
    from cranfield.meta.scores import as_score_matrix
    from cranfield.meta.significance import pairwise_test

    correction = default_correction(test) if correction is None else correction
    confidence = check_float(confidence, "confidence level", low=0, high=1, open_low=True, open_high=True,
                             text=False)
    b = check_int(bootstrap_resamples, "number of bootstrap resamples", low=1, text=False)
    seed = check_int(seed, "seed", low=0, text=False)
    if hasattr(results, "runs") and len(results.runs) == 1:  # nothing to compare: the run's mean and interval
        return _single(results, measure, test, correction, alpha, n_resamples, seed, confidence, b)
    matrix = as_score_matrix(results, measure=measure)
    bases: list[str | int] = (list(baseline) if isinstance(baseline, (list, tuple)) else
                              [] if baseline is None else [baseline])  # type: ignore[list-item]
    if len(bases) > 1:
        tested = _against_baselines(matrix, bases, test=test, n_resamples=n_resamples, seed=seed, alpha=alpha,
                                    correction=correction, client=client)
    else:
        tested = pairwise_test(matrix, test=test, n_resamples=n_resamples, rng=seed, alpha=alpha,
                               correction=correction, baseline=bases[0] if bases else None, client=client)
    columns = np.ascontiguousarray(matrix.values.T)  # (S, T)
    pairs = tested.pairs
    d = columns[pairs[:, 0]] - columns[pairs[:, 1]]  # (P, T)
    n = matrix.n_topics
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = d.std(axis=1, ddof=1) if n > 1 else np.full(len(pairs), np.nan)
        effect = d.mean(axis=1) / sd
    same = equal(columns[pairs[:, 0]], columns[pairs[:, 1]])
    return Comparison(
        measure=matrix.measure, runs=matrix.systems, means=tested.means, ci=t_interval(columns, confidence),
        pairs=pairs, difference=tested.effect, ci_t=t_interval(d, confidence),
        ci_bootstrap=_bootstrap_intervals(columns, pairs, confidence, b, seed), effect_size=effect,
        effect_size_hedges=effect * hedges_correction(n - 1),
        wins=((d > 0) & ~same).sum(axis=1), ties=same.sum(axis=1), losses=((d < 0) & ~same).sum(axis=1),
        statistic=tested.statistic,
        pvalue=tested.pvalue, pvalue_adjusted=tested.pvalue_adjusted, significant=tested.significant(),
        test=tested.test, correction=tested.correction, alpha=tested.alpha, n_resamples=tested.n_resamples,
        confidence=confidence, bootstrap_resamples=b, seed=seed,
        baseline=", ".join(matrix.systems[matrix.system_index(b)] for b in bases) or None,
        topics=matrix.topics,
    )


def _against_baselines(matrix: Any, baselines: Sequence[str | int], *, test: str, n_resamples: int | None,
                       seed: int, alpha: float, correction: str, client: Any) -> Any:
    """The test of every run against each of several baselines: the pairs (run, baseline) of each
    in turn (two baselines compared once, as (first, second)), then one ``correction`` over all
    of them (a Tukey HSD test is one family already)."""
    from dataclasses import replace

    from cranfield.meta.significance import adjust_pvalues, pairwise_test

    parts = [pairwise_test(matrix, test=test, n_resamples=n_resamples, rng=seed, alpha=alpha, correction="none",
                           baseline=b, client=client) for b in baselines]
    pairs = np.concatenate([p.pairs for p in parts])
    seen: set[frozenset[int]] = set()
    keep = np.ones(len(pairs), dtype=bool)
    for k, pair in enumerate(pairs.tolist()):  # a pair of two baselines is tested once
        keep[k] = frozenset(pair) not in seen
        seen.add(frozenset(pair))
    pvalue = np.concatenate([p.pvalue for p in parts])[keep]
    delta = [p.delta for p in parts if p.delta is not None]
    return replace(parts[0], pairs=pairs[keep], effect=np.concatenate([p.effect for p in parts])[keep],
                   statistic=np.concatenate([p.statistic for p in parts])[keep], pvalue=pvalue,
                   pvalue_adjusted=adjust_pvalues(pvalue, correction), correction=correction, null_distribution=None,
                   delta=np.concatenate(delta)[keep] if len(delta) == len(parts) else None)


def _single(results: Any, measure: str, test: str, correction: str, alpha: float, n_resamples: int | None,
            seed: int, confidence: float, b: int) -> Comparison:
    """The :class:`Comparison` of one run: its mean and interval, no pairs."""
    from cranfield.errors import CranfieldError, check_choice
    from cranfield.meta.registry import lookup
    from cranfield.meta.significance import check_test

    check_test(test, correction)
    check_float(alpha, "significance level alpha", low=0, high=1, open_low=True, open_high=True, text=False)
    check_choice(measure, "measure", list(results.measures))
    values = np.asarray(results.values)[:, list(results.measures).index(measure), :]
    if np.isnan(values).any():
        raise CranfieldError(f"the scores of {measure} hold NaN values (a topic missing from a run with "
                             "--missing skip?)")
    none = np.zeros(0)
    return Comparison(
        measure=measure, runs=tuple(results.runs), means=values.mean(axis=1), ci=t_interval(values, confidence),
        pairs=np.zeros((0, 2), dtype=np.int64), difference=none, ci_t=np.zeros((0, 2)), ci_bootstrap=np.zeros((0, 2)),
        effect_size=none, effect_size_hedges=none, wins=np.zeros(0, dtype=np.int64), ties=np.zeros(0, dtype=np.int64),
        losses=np.zeros(0, dtype=np.int64), statistic=none, pvalue=none, pvalue_adjusted=none,
        significant=np.zeros(0, dtype=bool),
        test=test, correction=correction, alpha=alpha,
        n_resamples=lookup(test).resamples(n_resamples or None),
        confidence=confidence, bootstrap_resamples=b, seed=seed, baseline=None, topics=tuple(results.topics),
    )
