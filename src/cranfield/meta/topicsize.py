"""Topic set size design (Sakai, "Topic set size design", Information Retrieval Journal 19(3), 2016;
Sakai, Laboratory Experiments in Information Retrieval, Springer 2018, ch. 6).

How many topics does a test collection need so that a paired t-test (two systems), a one-way ANOVA
(m systems) or a confidence interval is informative? The variance σ² is estimated from existing
runs as Sakai does: the residual variance V_E of the two-way ANOVA without replication of their
topics × systems scores (:func:`cranfield.meta.significance.residual_variance`).

- ``paired-t``: the smallest n with power ≥ 1 − β for a true difference minΔ, the power computed
  exactly with the noncentral t distribution: P(|T'| ≥ t_{α/2; n−1}), T' ~ t'(n − 1, λ),
  λ = √n · minΔ / σ_t, σ_t² = 2σ² (the variance of a difference of two systems; IRJ 2016, §3.1).
- ``anova``: the smallest n with power ≥ 1 − β for m systems whose means span minΔ (the least
  favourable configuration): P(F' ≥ F_{α; m−1, m(n−1)}), F' ~ F'(m − 1, m(n − 1), λ),
  λ = n · minΔ² / (2σ²) (§3.2).
- ``ci``: the smallest n whose expected width of the 100(1 − α)% confidence interval of a
  difference, 2 · t_{α/2; n−1} · E[s_t] / √n with E[s_t] = σ_t √(2/(n−1)) Γ(n/2)/Γ((n−1)/2), is at
  most W (§3.3).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield.errors import CranfieldError, check_float
from cranfield.meta._common import check_alpha
from cranfield.meta.scores import as_score_matrix
from cranfield.meta.significance import residual_variance

__all__ = ["DESIGNS", "TopicSetSize", "topic_set_size", "paired_t_size", "anova_size", "ci_size"]

DESIGNS = ("paired-t", "anova", "ci")
MAX_TOPICS = 100_000


@dataclass(frozen=True)
class TopicSetSize:
    """The number of topics each design needs for one measure.

    Attributes
    ----------
    measure : str
    variance : float
        σ̂² = V_E, the residual variance of the runs' scores.
    systems : int
        m, the number of runs (the ANOVA design's groups).
    sizes : dict of str to int or None
        ``paired-t``, ``anova`` and (with a width) ``ci``: the topics needed; None above
        :data:`MAX_TOPICS` (100,000).
    alpha, beta, min_delta : float
    ci_width : float or None
    """

    measure: str
    variance: float
    systems: int
    sizes: dict[str, int | None]
    alpha: float
    beta: float
    min_delta: float
    ci_width: float | None

    def rows(self) -> list[dict[str, Any]]:
        """One row per design: design, measure, n, variance."""
        return [{"design": d, "measure": self.measure, "n": n, "variance": self.variance}
                for d, n in self.sizes.items()]


def _smallest(enough: Callable[[np.ndarray], np.ndarray]) -> int | None:
    """The smallest n in 2..:data:`MAX_TOPICS` where ``enough(n)`` holds (it is monotone in n),
    trying n in blocks of growing size: 2..1000, then up to 10,000, then up to 100,000."""
    start = 2
    for stop in (1_000, 10_000, MAX_TOPICS):
        n = np.arange(start, stop + 1, dtype=np.float64)
        hits = np.flatnonzero(enough(n))
        if hits.size:
            return int(n[hits[0]])
        start = stop + 1
    return None


def paired_t_size(variance: float, min_delta: float, alpha: float = 0.05, beta: float = 0.20) -> int | None:
    """The topics a two-sided paired t-test needs to detect ``min_delta`` with power 1 − β
    (noncentral t, exact), σ_t² = 2·``variance`` (Sakai, IRJ 2016, §3.1)."""
    from scipy import stats

    def enough(n: np.ndarray) -> np.ndarray:
        nc = np.sqrt(n) * min_delta / np.sqrt(2.0 * variance)
        critical = stats.t.ppf(1 - alpha / 2, n - 1)
        return stats.nct.sf(critical, n - 1, nc) + stats.nct.cdf(-critical, n - 1, nc) >= 1 - beta

    return _smallest(enough)


def anova_size(variance: float, min_delta: float, systems: int, alpha: float = 0.05, beta: float = 0.20
               ) -> int | None:
    """The topics a one-way ANOVA of ``systems`` means needs to detect a range ``min_delta`` with
    power 1 − β: noncentral F with λ = n·minΔ²/(2σ²) (Sakai, IRJ 2016, §3.2)."""
    from scipy import stats

    def enough(n: np.ndarray) -> np.ndarray:
        df1, df2 = systems - 1, systems * (n - 1)
        critical = stats.f.ppf(1 - alpha, df1, df2)
        return stats.ncf.sf(critical, df1, df2, n * min_delta**2 / (2.0 * variance)) >= 1 - beta

    return _smallest(enough)


def ci_size(variance: float, width: float, alpha: float = 0.05) -> int | None:
    """The topics for which the expected width of the 100(1 − α)% confidence interval of a
    difference between two systems is at most ``width`` (σ_t² = 2σ²; Sakai, IRJ 2016, §3.3)."""
    from scipy import stats
    from scipy.special import gammaln

    def enough(n: np.ndarray) -> np.ndarray:
        expected_sd = np.sqrt(2.0 * variance) * np.sqrt(2.0 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
        return 2 * stats.t.ppf(1 - alpha / 2, n - 1) * expected_sd / np.sqrt(n) <= width

    return _smallest(enough)


def topic_set_size(data: Any, *, measure: str | None = None, alpha: float = 0.05, beta: float = 0.20,
                   min_delta: float = 0.05, ci_width: float | None = None) -> TopicSetSize:
    """The number of topics a new test collection needs, with the variance estimated from runs'
    scores on an existing one (Sakai, Inf. Retr. J. 2016).

    Parameters
    ----------
    data : score matrix (see :mod:`cranfield.meta.scores`): topics × runs of one measure
    measure : str, optional
    alpha, beta : float
        Type I and type II error rates (default 0.05 and 0.20: power 0.8).
    min_delta : float
        The minimum detectable difference (paired t) or range of means (ANOVA).
    ci_width : float, optional
        The largest acceptable expected width of the confidence interval (the ``ci`` design).

    Examples
    --------
    >>> x = np.random.default_rng(0).normal(0.3, 0.1, (50, 5))
    >>> r = topic_set_size(x, min_delta=0.05, ci_width=0.1)
    >>> [(row["design"], row["n"]) for row in r.rows()]
    [('paired-t', 63), ('anova', 94), ('ci', 32)]
    """
    matrix = as_score_matrix(data, measure=measure)
    level = check_alpha(alpha)
    miss = check_float(beta, "type II error rate beta", low=0, high=1, open_low=True, open_high=True, text=False)
    delta = check_float(min_delta, "minimum detectable difference min_delta", low=0, open_low=True, text=False)
    width = None if ci_width is None else check_float(ci_width, "confidence interval width", low=0, open_low=True,
                                                      text=False)
    if matrix.n_topics < 2:
        raise CranfieldError("the variance needs the scores of at least 2 topics")
    variance, _ = residual_variance(matrix.values)
    if not variance > 0:
        raise CranfieldError(f"the residual variance of {matrix.measure or 'the scores'} is 0: the runs' scores "
                             "are additive in topic and run, nothing to estimate the variance from")
    sizes: dict[str, int | None] = {
        "paired-t": paired_t_size(variance, delta, level, miss),
        "anova": anova_size(variance, delta, matrix.n_systems, level, miss),
    }
    if width is not None:
        sizes["ci"] = ci_size(variance, width, level)
    return TopicSetSize(matrix.measure, variance, matrix.n_systems, sizes, level, miss, delta, width)


def topic_set_sizes(data: Any, measures: Sequence[str], **options: Any) -> list[TopicSetSize]:
    """:func:`topic_set_size` of each measure of multi-measure scores."""
    return [topic_set_size(data, measure=m, **options) for m in measures]
