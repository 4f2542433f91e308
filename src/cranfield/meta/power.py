"""Discriminative power, the Δ required for significance, and ASL curves (Sakai, SIGIR 2006;
Sakai, WWW 2012, §4, Figures 3 and 5; docs/conventions.md#discpower).

The discriminative power of a measure over a set of runs is the fraction of run pairs whose
difference is significant: ASL < α. Sakai's ASL curves plot every pair's ASL, sorted, one line
per measure: the lower and flatter the curve, the more discriminative the measure.
:func:`significance_overlap` compares the significantly different pairs of two measures
(Sakai, WWW 2012, Table 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield.meta._common import check_alpha
from cranfield.meta.registry import lookup
from cranfield.meta.significance import PairwiseResult, pairwise_test

__all__ = ["DiscriminativePower", "SignificanceOverlap", "SignificanceAgreement", "discriminative_power",
           "significance_overlap", "significance_agreement"]


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
        maximum over pairs of Figure 3's per-pair Δ; for either Tukey HSD test, the smallest |mean
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
                         n_resamples: int | None = None, rng: Any = None, correction: str = "none",
                         client: Any = None) -> DiscriminativePower:
    """The fraction of system pairs a measure tells apart at level α (Sakai, WWW 2012, §4).

    Parameters
    ----------
    data : score matrix (see :mod:`cranfield.meta.scores`)
    measure : str, optional
        Which measure of a multi-measure input.
    test : str
        A registered significance test (:func:`cranfield.meta.registry.names`; default: Sakai's
        paired bootstrap test, Figure 2).
    alpha : float
        Significance level (default 0.05).
    n_resamples : int, optional
        B; the test's default when omitted (bootstrap 1,000, Tukey 5,000, randomisation 10,000).
    rng : int, numpy Generator or None
        Seed or generator. With an int, every measure gets the same resamples, as in
        Sakai's comparisons.
    correction : {"none", "holm", "bonferroni", "hommel", "bh", "by"}
        Adjust the pairwise ASLs for multiple comparisons first (not with Tukey HSD).
    client : dask.distributed.Client, optional
        Run the test's blocks of resamples as tasks on a Dask cluster: the same result, bit
        for bit, for any number of workers (docs/scaling.md#streams).

    Returns
    -------
    DiscriminativePower

    Examples
    --------
    >>> rng = np.random.default_rng(7)
    >>> scores = rng.random((30, 5)) + np.linspace(0, 0.3, 5)   # 30 topics, 5 systems
    >>> dp = discriminative_power(scores, test="tukey-randomised", n_resamples=1000, rng=1)
    >>> dp.n_pairs, dp.n_significant, round(dp.delta, 3)
    (10, 2, 0.216)
    """
    level = check_alpha(alpha)
    result = pairwise_test(data, test=test, measure=measure, n_resamples=n_resamples, rng=rng, alpha=level,
                           correction=correction, client=client)
    significant = result.significant(level)
    if result.delta is not None and not np.isnan(result.delta).all():  # the bootstrap's per-pair Δ
        delta = float(np.nanmax(result.delta))
    elif lookup(test).all_systems and significant.any():
        delta = float(np.abs(result.effect[significant]).min())
    else:
        delta = float("nan")
    n_pairs = len(result.pairs)
    n_significant = int(significant.sum())
    return DiscriminativePower(
        measure=result.measure, test=test, alpha=level, n_pairs=n_pairs, n_significant=n_significant,
        power=n_significant / n_pairs, delta=delta, asl=np.sort(result.pvalue_adjusted), result=result,
    )


@dataclass(frozen=True)
class SignificanceOverlap:
    """How the significantly different run pairs of two measures overlap (Sakai, WWW 2012, Table 4).

    Attributes
    ----------
    measure_1, measure_2 : str
    both : int
        Run pairs significant by both measures.
    only_1, only_2 : int
        Run pairs significant by one measure only; ``only_1 + both`` is ``measure_1``'s
        number of significant pairs.
    neither : int
    n_pairs : int
    """

    measure_1: str
    measure_2: str
    both: int
    only_1: int
    only_2: int
    neither: int
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        """The counts as plain Python values (a JSON row of ``cranfield discpower --overlap``)."""
        return {"measure_1": self.measure_1, "measure_2": self.measure_2, "both": self.both,
                "only_1": self.only_1, "only_2": self.only_2, "neither": self.neither, "pairs": self.n_pairs}


def significance_overlap(powers: Any) -> list[SignificanceOverlap]:
    """For every pair of measures (in order), the run pairs both find significant and each alone.

    ``powers`` are :class:`DiscriminativePower` results over the same runs (Sakai, WWW 2012,
    Table 4: e.g. I-rec and P+Q# share 48 significant pairs, with 3 and 2 of their own).

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> a = rng.normal(size=(25, 4)) + [0, 0, 1, 2]
    >>> b = a + rng.normal(scale=2, size=(25, 4))
    >>> p = [discriminative_power(x, test="t", measure=None) for x in (a, b)]
    >>> o = significance_overlap(p)[0]
    >>> (o.both + o.only_1, o.both + o.only_2) == (p[0].n_significant, p[1].n_significant)
    True
    """
    from cranfield.errors import CranfieldError

    powers = list(powers)
    out = []
    for k, first in enumerate(powers):
        for second in powers[k + 1:]:
            r1, r2 = first.result, second.result
            if r1.systems != r2.systems or not np.array_equal(r1.pairs, r2.pairs):
                raise CranfieldError(f"{first.measure} and {second.measure} compare different run pairs")
            s1, s2 = r1.significant(first.alpha), r2.significant(second.alpha)
            out.append(SignificanceOverlap(
                measure_1=first.measure, measure_2=second.measure, both=int((s1 & s2).sum()),
                only_1=int((s1 & ~s2).sum()), only_2=int((~s1 & s2).sum()), neither=int((~s1 & ~s2).sum()),
                n_pairs=len(r1.pairs)))
    return out


@dataclass(frozen=True)
class SignificanceAgreement:
    """Whether a judge's labels find the same significant differences between runs as the
    reference's, over every pair of runs (one measure, one test).

    Attributes
    ----------
    measure : str
    both_same : int
        Pairs significant under both qrels, with the same sign of the difference.
    reference_only, judge_only : int
        Pairs significant under one qrels only.
    neither : int
    swaps : int
        Pairs significant under both with opposite signs: the judge reverses a significant conclusion.
    power_reference, power_judge : float
        Discriminative power under each qrels (significant pairs / pairs).
    n_pairs : int
    """

    measure: str
    both_same: int
    reference_only: int
    judge_only: int
    neither: int
    swaps: int
    power_reference: float
    power_judge: float
    n_pairs: int

    def to_dict(self) -> dict[str, Any]:
        """The statistics by the names of ``cranfield judges``."""
        return {"both_same": self.both_same, "reference_only": self.reference_only, "judge_only": self.judge_only,
                "neither": self.neither, "swaps": self.swaps, "power(reference)": self.power_reference,
                "power(judge)": self.power_judge}


def significance_agreement(reference: DiscriminativePower, judge: DiscriminativePower) -> SignificanceAgreement:
    """Compare the significant run pairs of one measure under the reference's and a judge's qrels.

    A pair significant under both counts as ``both_same`` when the two mean differences have the
    same sign and as a ``swap`` otherwise (a reversal of a significant conclusion, as in
    Voorhees, SIGIR 1998, and Sakai, WWW 2012, Table 4's overlap of significant pairs).

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> a = rng.normal(size=(25, 4)) + [0, 0, 1, 2]
    >>> b = a + rng.normal(scale=0.2, size=(25, 4))
    >>> s = significance_agreement(discriminative_power(a, test="t"), discriminative_power(b, test="t"))
    >>> s.both_same + s.reference_only + s.judge_only + s.neither + s.swaps == s.n_pairs
    True
    """
    from cranfield.errors import CranfieldError

    r1, r2 = reference.result, judge.result
    if r1.systems != r2.systems or not np.array_equal(r1.pairs, r2.pairs):
        raise CranfieldError(f"the reference and the judge compare different run pairs for {reference.measure}")
    s1, s2 = r1.significant(reference.alpha), r2.significant(judge.alpha)
    both = s1 & s2
    same = np.sign(r1.effect) == np.sign(r2.effect)
    return SignificanceAgreement(
        measure=reference.measure, both_same=int((both & same).sum()), reference_only=int((s1 & ~s2).sum()),
        judge_only=int((~s1 & s2).sum()), neither=int((~s1 & ~s2).sum()), swaps=int((both & ~same).sum()),
        power_reference=reference.power, power_judge=judge.power, n_pairs=len(r1.pairs))
