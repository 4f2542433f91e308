"""Discriminative power, the Δ required for significance, and ASL curves (Sakai, SIGIR 2006;
Sakai, WWW 2012, §4, Figures 3 and 5; docs/conventions.md#discpower).

The discriminative power of a measure over a set of runs is the fraction of run pairs whose
difference is significant: ASL < α. Sakai's ASL curves plot every pair's ASL, sorted, one line
per measure: the lower and flatter the curve, the more discriminative the measure.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield.meta._common import check_alpha
from cranfield.meta.significance import PairwiseResult, pairwise_test

__all__ = ["DiscriminativePower", "discriminative_power"]


@dataclass(frozen=True, eq=False)
class DiscriminativePower:
    """Discriminative power of one measure under one test.

    Attributes
    ----------
    measure, test : str
    alpha : float
    n_pairs : int
    n_significant : int
        Pairs with (adjusted) ASL < α.
    power : float
        ``n_significant / n_pairs``.
    delta : float
        The performance difference required for significance at α: for the bootstrap, the
        maximum over pairs of Figure 3's per-pair Δ; for Tukey HSD, the smallest |mean
        difference| among the significant pairs (Figure 5). NaN for the other tests, or when
        no pair is significant (Tukey HSD) or ⌊B·α⌋ = 0 (bootstrap).
    asl : ndarray, shape (P,)
        Every pair's (adjusted) ASL, sorted ascending: the ASL curve.
    result : PairwiseResult
        The underlying test.
    """

    measure: str
    test: str
    alpha: float
    n_pairs: int
    n_significant: int
    power: float
    delta: float
    asl: np.ndarray
    result: PairwiseResult

    def to_dict(self) -> dict[str, Any]:
        """The summary as plain Python values (the JSON row of ``cranfield discpower``)."""
        delta = None if np.isnan(self.delta) else float(self.delta)
        return {
            "measure": self.measure, "test": self.test, "n_resamples": self.result.n_resamples,
            "correction": self.result.correction, "alpha": self.alpha, "pairs": self.n_pairs,
            "significant": self.n_significant, "power": self.power, "delta": delta,
        }

    def to_frame(self) -> Any:
        """The summary as a one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


def discriminative_power(data: Any, *, measure: str | None = None, test: str = "bootstrap", alpha: float = 0.05,
                         n_resamples: int | None = None, rng: Any = None, correction: str = "none"
                         ) -> DiscriminativePower:
    """The fraction of system pairs a measure tells apart at level α (Sakai, WWW 2012, §4).

    Parameters
    ----------
    data : score matrix (see :mod:`cranfield.meta.scores`)
    measure : str, optional
        Which measure of a multi-measure input.
    test : {"bootstrap", "tukey", "t", "wilcoxon", "randomization"}
        The significance test (default: Sakai's paired bootstrap test, Figure 2).
    alpha : float
        Significance level (default 0.05).
    n_resamples : int, optional
        B; the test's default when omitted (bootstrap 1,000, Tukey 5,000, randomisation 10,000).
    rng : int, numpy Generator or None
        Seed or generator. With an int, every measure gets the same resamples, as in
        Sakai's comparisons.
    correction : {"none", "holm", "bonferroni"}
        Adjust the pairwise ASLs for multiple comparisons first (not with Tukey HSD).

    Returns
    -------
    DiscriminativePower

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> scores = rng.random((30, 5)) + np.linspace(0, 0.3, 5)   # 30 topics, 5 systems
    >>> dp = discriminative_power(scores, test="tukey", n_resamples=1000, rng=1)
    >>> dp.n_pairs, dp.n_significant, round(dp.delta, 3)
    (10, 2, 0.216)
    """
    level = check_alpha(alpha)
    result = pairwise_test(data, test=test, measure=measure, n_resamples=n_resamples, rng=rng, alpha=level,
                           correction=correction)
    significant = result.significant(level)
    if test == "bootstrap" and result.delta is not None and not np.isnan(result.delta).all():
        delta = float(np.nanmax(result.delta))
    elif test == "tukey" and significant.any():
        delta = float(np.abs(result.effect[significant]).min())
    else:
        delta = float("nan")
    n_pairs = len(result.pairs)
    n_significant = int(significant.sum())
    return DiscriminativePower(
        measure=result.measure, test=test, alpha=level, n_pairs=n_pairs, n_significant=n_significant,
        power=n_significant / n_pairs, delta=delta, asl=np.sort(result.pvalue_adjusted), result=result,
    )
