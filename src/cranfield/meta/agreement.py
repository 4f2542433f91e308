"""Agreement between measures: rank correlations of system orderings and intuitiveness
(docs/conventions.md#correlation; Sakai, WWW 2012, §4, Figure 6).

System orderings are by mean score over topics. Ties — here and in intuitiveness — are decided
by the equality rule of docs/conventions.md#equality: two scores within 1e-12 (relative) are equal; values that chain
through the rule (a≈b, b≈c) form one tie group.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._numeric import equal, nan_div
from cranfield.errors import CranfieldError, listing, warn
from cranfield.meta._common import all_pairs, chunks
from cranfield.meta.scores import as_score_matrices

__all__ = [
    "kendall_tau", "spearman_rho", "tau_ap", "Correlations", "correlation_matrix",
    "Intuitiveness", "intuitiveness", "LeaderboardAgreement", "leaderboard_agreement",
]


# --------------------------------------------------------------------------- helpers
def _vector(x: Any, name: str) -> np.ndarray:
    v = np.asarray(x, dtype=np.float64)
    if v.ndim != 1 or v.size < 2:
        raise CranfieldError(f"{name} must be a vector of at least 2 system scores")
    if not np.isfinite(v).all():
        raise CranfieldError(f"{name} holds NaN or infinite values")
    return v


def _pair_vectors(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    a, b = _vector(x, "x"), _vector(y, "y")
    if a.size != b.size:
        raise CranfieldError(f"The score vectors x and y must be two vectors of the same length (one score per "
                             f"system). Got {a.size} and {b.size} values instead.")
    return a, b


def _tie_groups(x: np.ndarray) -> np.ndarray:
    """Each value's tie group as an integer, increasing with the value (docs/conventions.md#equality,
    chained over sorted neighbours), shape like x."""
    return _row_tie_groups(x[None])[0]


def _row_tie_groups(x: np.ndarray) -> np.ndarray:
    """:func:`_tie_groups` of every row of x (R, n) at once."""
    order = np.argsort(x, axis=1, kind="stable")
    ranked = np.take_along_axis(x, order, axis=1)
    new = np.zeros(x.shape, dtype=np.int64)
    new[:, 1:] = ~equal(ranked[:, 1:], ranked[:, :-1])
    groups = np.empty(x.shape, dtype=np.int64)
    np.put_along_axis(groups, order, np.cumsum(new, axis=1), axis=1)
    return groups


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties (docs/conventions.md#equality) sharing their average rank."""
    return _row_average_ranks(x[None])[0]


def _row_average_ranks(x: np.ndarray) -> np.ndarray:
    """:func:`_average_ranks` of every row of x (R, n) at once."""
    groups = _row_tie_groups(x)
    n = x.shape[1]
    flat = (groups + n * np.arange(x.shape[0])[:, None]).ravel()  # each row's groups in its own range
    counts = np.bincount(flat, minlength=x.size)
    ends = np.cumsum(counts) - n * np.repeat(np.arange(x.shape[0]), n)  # cumulative count within the row
    return (ends - (counts - 1) / 2.0)[flat].reshape(x.shape)


# --------------------------------------------------------------------------- correlations
def kendall_tau(x: Any, y: Any) -> float:
    """Kendall's τ-b between two system orderings, with ties.

    τ_b = (n_c − n_d) / √((n_0 − n_x)(n_0 − n_y)), n_0 = n(n−1)/2 pairs, n_x and n_y the
    pairs tied in x and in y (scipy's ``kendalltau`` default). NaN when x or y is constant.

    Parameters
    ----------
    x, y : array_like, shape (S,)
        Two measures' scores of the same systems (e.g. their means over topics).

    Examples
    --------
    >>> kendall_tau([1, 2, 3, 4], [1, 3, 2, 4])
    0.6666666666666666
    """
    a, b = _pair_vectors(x, y)
    ga, gb = _tie_groups(a), _tie_groups(b)
    n = a.size
    score = tied_a = tied_b = 0
    for rows in chunks(n, n):
        da = np.sign(ga[rows, None] - ga[None, :])
        db = np.sign(gb[rows, None] - gb[None, :])
        upper = np.arange(rows.start, rows.stop)[:, None] < np.arange(n)[None, :]
        score += int((da * db)[upper].sum())
        tied_a += int((da == 0)[upper].sum())
        tied_b += int((db == 0)[upper].sum())
    n0 = n * (n - 1) // 2
    denominator = np.sqrt(float(n0 - tied_a) * float(n0 - tied_b))
    return float(score / denominator) if denominator > 0 else float("nan")


def spearman_rho(x: Any, y: Any) -> float:
    """Spearman's ρ: Pearson's correlation of the average ranks (scipy's ``spearmanr``).

    NaN when x or y is constant.

    Examples
    --------
    >>> spearman_rho([1, 2, 3, 4], [1, 3, 2, 4])
    0.8
    """
    a, b = _pair_vectors(x, y)
    ra, rb = _average_ranks(a), _average_ranks(b)
    ra -= ra.mean()
    rb -= rb.mean()
    denominator = np.sqrt((ra * ra).sum() * (rb * rb).sum())
    return float((ra * rb).sum() / denominator) if denominator > 0 else float("nan")


def _positions(scores: np.ndarray, names: Sequence[str], what: str) -> np.ndarray:
    """Each system's position (0 = best) when sorted by descending score, tied scores
    (docs/conventions.md#equality) broken by ascending system name, with a warning naming them."""
    groups = _tie_groups(scores)
    order = np.lexsort((np.array(names, dtype=object).astype(str), -groups))
    counts = np.bincount(groups)
    if (counts > 1).any():
        tied = [names[s] for s in order if counts[groups[s]] > 1]
        warn(f"tau_ap: {what} ties systems {listing(tied)}; ties are broken by system name")
    positions = np.empty(scores.size, dtype=np.int64)
    positions[order] = np.arange(scores.size)
    return positions


def _tau_ap_positions(evaluated: np.ndarray, reference: np.ndarray) -> float:
    """τ_ap of the ordering ``evaluated`` against ``reference`` (both: positions, 0 = best)."""
    n = evaluated.size
    ref = np.empty(n, dtype=np.int64)
    ref[evaluated] = reference  # reference position of the item at each evaluated rank
    total = 0.0
    for rows in chunks(n - 1, n):
        i = np.arange(rows.start + 1, rows.stop + 1)  # ranks 2..n (0-based 1..n-1)
        above = np.arange(n)[None, :] < i[:, None]
        correct = ((ref[None, :] < ref[i, None]) & above).sum(axis=1)  # C(i)
        total += float((correct / i).sum())
    return 2.0 * total / (n - 1) - 1.0


def tau_ap(x: Any, y: Any, *, systems: Sequence[str] | None = None, symmetric: bool = True) -> float:
    """AP correlation τ_ap of two system orderings (Yilmaz, Aslam and Robertson, SIGIR 2008).

    With the systems ordered by x (best first), τ_ap(x | y) = 2/(n−1) · Σ_{i=2..n} C(i)/(i−1) − 1,
    where C(i) counts the systems above the i-th that y also ranks above it (Eq. 3 of the
    paper): swaps near the top cost more than swaps near the bottom. The symmetric version
    (default) is the mean of τ_ap(x | y) and τ_ap(y | x). Tied scores are broken by system
    name (ascending), with a warning.

    Parameters
    ----------
    x, y : array_like, shape (S,)
        Scores of the same systems; x is the ordering evaluated, y the reference.
    systems : sequence of str, optional
        System names for breaking ties (default: their positions).
    symmetric : bool

    Examples
    --------
    >>> tau_ap([2, 3, 1], [3, 2, 1], symmetric=False)   # truth 1 > 2 > 3 by y; x swaps the top two
    0.0
    """
    a, b = _pair_vectors(x, y)
    names = [str(k) for k in range(a.size)] if systems is None else [str(s) for s in systems]
    if len(names) != a.size:
        raise CranfieldError(f"{len(names)} system names for {a.size} scores")
    pa, pb = _positions(a, names, "x"), _positions(b, names, "y")
    forward = _tau_ap_positions(pa, pb)
    return (forward + _tau_ap_positions(pb, pa)) / 2.0 if symmetric else forward


@dataclass(frozen=True, eq=False)
class Correlations:
    """Rank correlations between the system orderings of several measures.

    Attributes
    ----------
    measures : tuple of str
    systems : tuple of str
    kendall, tau_ap, spearman : ndarray, shape (M, M)
        Kendall's τ-b, the symmetric τ_ap and Spearman's ρ of every pair of measures
        (1 on the diagonal).
    """

    measures: tuple[str, ...]
    systems: tuple[str, ...]
    kendall: np.ndarray
    tau_ap: np.ndarray
    spearman: np.ndarray

    def rows(self) -> list[dict[str, Any]]:
        """One dict per pair of measures (i < j): measure_1, measure_2, kendall_tau, tau_ap,
        spearman_rho, systems."""
        out = []
        for i, j in all_pairs(len(self.measures)):
            out.append({
                "measure_1": self.measures[i], "measure_2": self.measures[j],
                "kendall_tau": _plain(self.kendall[i, j]), "tau_ap": _plain(self.tau_ap[i, j]),
                "spearman_rho": _plain(self.spearman[i, j]), "systems": len(self.systems),
            })
        return out

    def to_frame(self) -> Any:
        """:meth:`rows` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows())


def _plain(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def correlation_matrix(data: Any, measures: Sequence[str]) -> Correlations:
    """Kendall's τ-b, symmetric τ_ap and Spearman's ρ between the system orderings (by mean
    score) of every pair of ``measures``.

    Parameters
    ----------
    data : multi-measure scores (see :mod:`cranfield.meta.scores`)
    measures : sequence of str
        At least two measures over the same systems and topics.

    Examples
    --------
    >>> scores = {"A": [[0.1, 0.2, 0.3]], "B": [[0.1, 0.3, 0.2]]}
    >>> c = correlation_matrix(scores, ["A", "B"])
    >>> round(float(c.kendall[0, 1]), 4), float(c.tau_ap[0, 1])
    (0.3333, 0.0)
    """
    if len(measures) < 2:
        raise CranfieldError("correlations need at least two measures")
    matrices = as_score_matrices(data, measures)
    means = [m.means() for m in matrices]
    systems = matrices[0].systems
    positions = [_positions(v, systems, f"{m.measure} (mean scores)") for v, m in zip(means, matrices)]
    k = len(matrices)
    kendall, ap, rho = np.eye(k), np.eye(k), np.eye(k)
    for i, j in all_pairs(k):
        kendall[i, j] = kendall[j, i] = kendall_tau(means[i], means[j])
        rho[i, j] = rho[j, i] = spearman_rho(means[i], means[j])
        ap[i, j] = ap[j, i] = (_tau_ap_positions(positions[i], positions[j])
                               + _tau_ap_positions(positions[j], positions[i])) / 2.0
    return Correlations(tuple(m.measure for m in matrices), systems, kendall, ap, rho)


# --------------------------------------------------------------------------- intuitiveness
@dataclass(frozen=True, eq=False)
class Intuitiveness:
    """Preference agreement of two measures with gold-standard measures (Sakai, WWW 2012, Figure 6).

    Attributes
    ----------
    measure_1, measure_2 : str
    gold : tuple of str
        One or more gold-standard measures (e.g. ``I-rec@10``, ``Ef-P@10``).
    cases : int
        Topic × system-pair cases examined (T · S(S−1)/2).
    disagreements : int
        Cases where measure_1 and measure_2 prefer different systems (ΔM1·ΔM2 < 0).
    correct_1, correct_2 : int
        Disagreements where measure_1 (measure_2) agrees with every gold standard: ΔM·ΔGS ≥ 0,
        so a tie of the gold standard counts as agreement.
    intuitiveness_1, intuitiveness_2 : float
        correct / disagreements (NaN without disagreements).
    """

    measure_1: str
    measure_2: str
    gold: tuple[str, ...]
    cases: int
    disagreements: int
    correct_1: int
    correct_2: int
    intuitiveness_1: float
    intuitiveness_2: float

    def to_dict(self) -> dict[str, Any]:
        """Plain values (the JSON row of ``cranfield intuitiveness``); NaN becomes None."""
        return {
            "measure_1": self.measure_1, "measure_2": self.measure_2, "gold": "+".join(self.gold),
            "cases": self.cases, "disagreements": self.disagreements, "correct_1": self.correct_1,
            "correct_2": self.correct_2, "intuitiveness_1": _plain(self.intuitiveness_1),
            "intuitiveness_2": _plain(self.intuitiveness_2),
        }

    def to_frame(self) -> Any:
        """A one-row pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame([self.to_dict()])


def _preference(values: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """sign(x_i − x_j) per topic and pair, 0 where equal under docs/conventions.md#equality,
    shape (T, pairs), int8."""
    a, b = values[:, pairs[:, 0]], values[:, pairs[:, 1]]
    return np.where(equal(a, b), 0, np.sign(a - b)).astype(np.int8)


def intuitiveness(data: Any, measure_1: str, measure_2: str, gold: str | Sequence[str]) -> Intuitiveness:
    """Intuitiveness of two measures by preference agreement with gold standards (Figure 6).

    Over every topic t and system pair (i, j): ΔM = M(t, i) − M(t, j). Where ΔM1·ΔM2 < 0 (the
    measures disagree; differences equal under docs/conventions.md#equality are 0), M1 is *correct* if
    ΔM1·ΔGS ≥ 0 for every gold standard GS (a gold-standard tie counts as agreement; with two
    gold standards both must agree, as in Sakai, WWW 2012, §4); likewise M2. Intuitiveness(M1 | M2)
    = correct_1 / disagreements.

    Parameters
    ----------
    data : multi-measure scores (see :mod:`cranfield.meta.scores`)
    measure_1, measure_2 : str
        The measures compared.
    gold : str or sequence of str
        The gold standard(s), e.g. ``"I-rec@10"`` (diversity) or ``["I-rec@10", "Ef-P@10"]``.

    Examples
    --------
    >>> scores = {"M1": [[1, 0], [0, 1]], "M2": [[0, 1], [0, 1]], "GS": [[1, 0], [1, 1]]}
    >>> r = intuitiveness(scores, "M1", "M2", "GS")
    >>> r.disagreements, r.correct_1, r.correct_2
    (1, 1, 0)
    """
    golds = (gold,) if isinstance(gold, str) else tuple(gold)
    if not golds:
        raise CranfieldError("intuitiveness needs at least one gold-standard measure")
    matrices = as_score_matrices(data, [measure_1, measure_2, *golds])
    m1, m2, gs = matrices[0], matrices[1], matrices[2:]
    pairs = all_pairs(m1.n_systems)
    disagreements = correct_1 = correct_2 = 0
    for block in chunks(len(pairs), m1.n_topics * (2 + len(gs))):
        p1, p2 = _preference(m1.values, pairs[block]), _preference(m2.values, pairs[block])
        split = p1 * p2 < 0
        agree_1, agree_2 = split.copy(), split.copy()
        for g in gs:
            pg = _preference(g.values, pairs[block])
            agree_1 &= p1 * pg >= 0
            agree_2 &= p2 * pg >= 0
        disagreements += int(split.sum())
        correct_1 += int(agree_1.sum())
        correct_2 += int(agree_2.sum())
    return Intuitiveness(
        measure_1=m1.measure, measure_2=m2.measure, gold=tuple(g.measure for g in gs),
        cases=m1.n_topics * len(pairs), disagreements=disagreements, correct_1=correct_1,
        correct_2=correct_2, intuitiveness_1=_ratio(correct_1, disagreements),
        intuitiveness_2=_ratio(correct_2, disagreements),
    )


def _ratio(a: int, b: int) -> float:
    return a / b if b else float("nan")


# --------------------------------------------------------------------------- leaderboards of two judges
LEADERBOARD_CORRELATIONS = ("tau_b", "tau_ap", "spearman", "pearson")
LEADERBOARD_STATISTICS = (*LEADERBOARD_CORRELATIONS, "rmse", "bias", "loa_low", "loa_high", "max_drop", "same_top")
BOOTSTRAP_CI_RESAMPLES = 1_000


@dataclass(frozen=True, eq=False)
class LeaderboardAgreement:
    """How a judge's leaderboard (system means under its labels) agrees with the reference's.

    Attributes
    ----------
    measure : str
    systems : tuple of str
    reference_means, judge_means : ndarray, shape (S,)
    statistics : dict of str to float
        ``tau_b``, ``tau_ap`` (the reference's ranking as the truth), ``spearman``, ``pearson``,
        ``rmse``, ``bias``, ``loa_low``, ``loa_high``, ``max_drop``, ``same_top``, and for each
        correlation its bootstrap interval ``name[low]``, ``name[high]`` (NaN: undefined).
    n_resamples : int
        B of the bootstrap intervals (0: none).
    confidence : float
    """

    measure: str
    systems: tuple[str, ...]
    reference_means: np.ndarray
    judge_means: np.ndarray
    statistics: dict[str, float]
    n_resamples: int
    confidence: float


def _row_kendall(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Kendall's τ_b (as :func:`kendall_tau`) of every row pair of a, b (R, n)."""
    n = a.shape[1]
    small = np.int16 if n < 2**15 else np.int64  # tie groups are < n: narrow integers halve the traffic
    ga, gb = _row_tie_groups(a).astype(small), _row_tie_groups(b).astype(small)
    i, k = np.triu_indices(n, 1)
    n0 = float(i.size)
    out = np.empty(a.shape[0])
    for rows in chunks(a.shape[0], i.size):
        da = np.sign(ga[rows][:, i] - ga[rows][:, k])
        db = np.sign(gb[rows][:, i] - gb[rows][:, k])
        score = (da * db).sum(axis=1, dtype=np.int64)
        out[rows] = nan_div(score, np.sqrt((n0 - (da == 0).sum(axis=1)) * (n0 - (db == 0).sum(axis=1))))
    return out


def _row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson's r of every row pair of a, b (R, n), by fixed-order sums; NaN for a constant row."""
    da = a - a.mean(axis=1, keepdims=True)
    db = b - b.mean(axis=1, keepdims=True)
    return nan_div((da * db).sum(axis=1), np.sqrt((da * da).sum(axis=1) * (db * db).sum(axis=1)))


def _row_positions(x: np.ndarray, name_rank: np.ndarray) -> np.ndarray:
    """Each system's position (0 = best) in every row of x (R, S), by descending score, tied
    scores (docs/conventions.md#equality) by ascending name (``name_rank``: the names' sort order)."""
    n = x.shape[1]
    order = np.argsort(-_row_tie_groups(x) * n + name_rank[None, :], axis=1, kind="stable")
    positions = np.empty(x.shape, dtype=np.int64)
    np.put_along_axis(positions, order, np.broadcast_to(np.arange(n), x.shape), axis=1)
    return positions


def _row_tau_ap(evaluated: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """:func:`_tau_ap_positions` of every row pair of positions (R, n)."""
    r, n = evaluated.shape
    ref = np.empty(evaluated.shape, dtype=np.int64)
    np.put_along_axis(ref, evaluated, reference, axis=1)  # reference position at each evaluated rank
    above = np.tril(np.ones((n, n), dtype=bool), -1)  # [i, k]: k above i
    out = np.empty(r)
    for rows in chunks(r, n * n):
        correct = ((ref[rows, None, :] < ref[rows, :, None]) & above).sum(axis=2)[:, 1:]  # C(i), i = 2..n
        out[rows] = 2.0 * (correct / np.arange(1, n)).sum(axis=1) / (n - 1) - 1.0
    return out


def _correlations(reference: np.ndarray, judge: np.ndarray, name_rank: np.ndarray) -> dict[str, np.ndarray]:
    """The four correlations of every row pair of mean vectors (R, S)."""
    return {
        "tau_b": _row_kendall(reference, judge),
        "tau_ap": _row_tau_ap(_row_positions(judge, name_rank), _row_positions(reference, name_rank)),
        "spearman": _row_pearson(_row_average_ranks(reference), _row_average_ranks(judge)),
        "pearson": _row_pearson(reference, judge),
    }


def _resampled_means(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The system means over each resample of topics ``draws`` (B, T): shape (B, S), summed in
    topic order (no matrix product, so the same bits on every machine)."""
    out = np.empty((draws.shape[0], values.shape[1]))
    for rows in chunks(draws.shape[0], values.size):
        out[rows] = values[draws[rows]].sum(axis=1) / draws.shape[1]
    return out


def leaderboard_agreement(reference: Any, judge: Any, *, measure: str | None = None,
                          n_resamples: int = BOOTSTRAP_CI_RESAMPLES, rng: Any = 0, confidence: float = 0.95
                          ) -> LeaderboardAgreement:
    """Agreement of the system ranking under a judge's labels with that under the reference's.

    Both inputs are score matrices of one measure over the same topics and systems (the
    reference's qrels, the judge's qrels). Over the system means r (reference) and j (judge):
    Kendall's τ_b; Yilmaz, Aslam & Robertson's τ_ap (SIGIR 2008, Eq. 3) of the judge's ranking with
    the reference's as the truth (tied means broken by system name); Spearman's ρ; Pearson's r;
    RMSE = √mean((j − r)²); bias = mean(j − r) and Bland & Altman's limits of agreement
    (Lancet, 1986) bias ∓ 1.96·sd(j − r) (ddof 1); max_drop, the most places any system falls in
    the judge's ranking relative to the reference's; same_top, 1 if both rank the same system
    first. The correlations get percentile bootstrap intervals over topics (Efron & Tibshirani,
    1993, §13.3): B resamples of the T topics with replacement, the same for both matrices,
    drawn from the seed's per-block streams (docs/scaling.md#streams).

    Parameters
    ----------
    reference, judge : score matrices (see :mod:`cranfield.meta.scores`)
    measure : str, optional
        Which measure of multi-measure inputs.
    n_resamples : int
        B (0: no intervals).
    rng : int, numpy Generator or None
        The seed of the resamples (default 0).
    confidence : float
        The level of the intervals (default 0.95).

    Examples
    --------
    >>> ref = [[0.1, 0.5, 0.3], [0.2, 0.6, 0.4]]
    >>> llm = [[0.2, 0.4, 0.5], [0.3, 0.5, 0.6]]
    >>> s = leaderboard_agreement(ref, llm, n_resamples=0).statistics
    >>> s["tau_b"], s["tau_ap"], s["max_drop"], s["same_top"], round(s["bias"], 4)
    (0.3333333333333333, 0.0, 1.0, 0.0, 0.0667)
    """
    from cranfield.errors import check_float
    from cranfield.meta._common import check_count, resample_blocks
    from cranfield.meta.scores import as_score_matrix

    r, j = as_score_matrix(reference, measure=measure), as_score_matrix(judge, measure=measure)
    if r.systems != j.systems or r.topics != j.topics:
        raise CranfieldError(f"the reference's and the judge's scores of {r.measure or 'the measure'} must cover "
                             "the same systems and topics, in the same order")
    b = 0 if n_resamples == 0 else check_count(n_resamples, "number of resamples B (n_resamples)")
    level = check_float(confidence, "confidence level", low=0, high=1, open_low=True, open_high=True, text=False)
    rm, jm = r.means(), j.means()
    names = np.array(r.systems, dtype=object).astype(str)
    name_rank = np.argsort(np.argsort(names, kind="stable"), kind="stable")
    pr, pj = _positions(rm, r.systems, "the reference"), _positions(jm, r.systems, "the judge")
    diff = jm - rm
    bias = float(diff.mean())
    sd = float(diff.std(ddof=1)) if diff.size > 1 else float("nan")
    stats: dict[str, float] = {
        "tau_b": kendall_tau(rm, jm), "tau_ap": _tau_ap_positions(pj, pr), "spearman": spearman_rho(rm, jm),
        "pearson": float(_row_pearson(rm[None], jm[None])[0]), "rmse": float(np.sqrt((diff * diff).mean())),
        "bias": bias, "loa_low": bias - 1.96 * sd, "loa_high": bias + 1.96 * sd,
        "max_drop": float((pj - pr).max()), "same_top": float(np.argmin(pr) == np.argmin(pj)),
    }
    if b:
        draws = np.concatenate([block.generator().integers(0, r.n_topics, (block.size, r.n_topics))
                                for block in resample_blocks(b, rng)])
        resampled = _correlations(_resampled_means(r.values, draws), _resampled_means(j.values, draws), name_rank)
        q = [(1 - level) / 2, (1 + level) / 2]
        for name, values in resampled.items():
            low, high = np.nanquantile(values, q) if not np.isnan(values).all() else (np.nan, np.nan)
            stats[f"{name}[low]"], stats[f"{name}[high]"] = float(low), float(high)
    return LeaderboardAgreement(measure=r.measure, systems=r.systems, reference_means=rm, judge_means=jm,
                                statistics=stats, n_resamples=b, confidence=level)
