"""Risk-sensitive evaluation against a baseline run (Dinçer, Macdonald & Ounis, SIGIR 2014; TREC
Web 2013–14; ndeval ``-baseline -riskAlpha``): the risk-adjusted differences, whose topic mean is
URisk, and TRisk, their studentised mean, kept on the :class:`~cranfield.evaluation.results.Results`."""

from __future__ import annotations

import dataclasses

import numpy as np

from cranfield.errors import CranfieldError, check_float, warn
from cranfield.evaluation.results import Results


def risk_adjusted(results: Results, baseline: Results, alpha: float = 0.0) -> Results:
    """Risk-sensitive scores against a baseline run (Dinçer, Macdonald, Ounis SIGIR 2014; TREC Web
    2013–14; ndeval ``-baseline -riskAlpha``): per topic Δ = run − baseline when it is not negative,
    else (1 + α)·Δ. The ``all`` row is then URisk; ``TRisk`` = URisk / (sd(Δ')/√n) (sample sd)
    is computed once, here, and kept in the result's ``trisk`` (S, M). A topic left out of either
    run (NaN) is left out of Δ."""
    alpha = check_float(alpha, "risk alpha", low=0)
    if baseline.values.shape[0] != 1 or baseline.topics != results.topics or baseline.measures != results.measures:
        raise CranfieldError("the baseline must be one run scored with the same measures and topics")
    delta = results.values - baseline.values[0]
    adjusted = np.where(delta >= 0, delta, (1.0 + alpha) * delta)
    unscored = np.zeros(results.values.shape[::2], dtype=bool)  # (S, T): announced when each was evaluated
    for known in (results.unscored, None if baseline.unscored is None else baseline.unscored[0]):
        unscored = unscored if known is None else unscored | known
    return dataclasses.replace(results, values=adjusted, aggregate=["mean"] * len(results.measures),
                               unscored=unscored, trisk=_trisk(adjusted, results.runs, results.measures),
                               provenance={**results.provenance, "baseline": baseline.runs[0], "risk_alpha": alpha})


def trisk(adjusted: Results) -> np.ndarray:
    """TRisk of risk-adjusted results (:func:`risk_adjusted`), shape (S, M): their ``trisk``,
    computed when they were made; for other results, TRisk of their values as differences."""
    if adjusted.trisk is not None:
        return adjusted.trisk
    return _trisk(adjusted.values, adjusted.runs, adjusted.measures)


def _trisk(v: np.ndarray, runs: list[str], measures: list[str]) -> np.ndarray:
    """TRisk = URisk / (sample sd of the risk-adjusted differences ``v`` (S, M, T) / √n), shape (S, M).

    0 when every difference is 0; NaN, with a warning, where it is undefined: fewer than two
    scored topics, or differences that are all equal but not 0 (sd = 0)."""
    scored = ~np.isnan(v)
    n = scored.sum(axis=2)
    with np.errstate(divide="ignore", invalid="ignore"):  # n < 2 and sd = 0 are masked below
        mean = np.where(scored, v, 0.0).sum(axis=2) / n
        sd = np.sqrt((np.where(scored, v - mean[..., None], 0.0) ** 2).sum(axis=2) / (n - 1))
        t = mean / (sd / np.sqrt(n))
    zero = (n > 1) & (sd == 0) & (mean == 0)
    defined = (n > 1) & (sd > 0)
    undefined = ~(defined | zero)
    for s, m in zip(*np.nonzero(undefined)):
        why = "fewer than 2 topics are scored" if n[s, m] < 2 else "every topic has the same difference (sd = 0)"
        warn(f"{runs[s]}: TRisk of {measures[m]} is undefined (NaN): {why}")
    return np.where(defined, t, np.where(zero, 0.0, np.nan))
