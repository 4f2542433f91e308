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

from cranfield._numeric import equal
from cranfield.errors import CranfieldError, listing, warn
from cranfield.meta._common import all_pairs, chunks
from cranfield.meta.scores import as_score_matrices

__all__ = [
    "kendall_tau", "spearman_rho", "tau_ap", "Correlations", "correlation_matrix",
    "Intuitiveness", "intuitiveness",
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
    order = np.argsort(x, kind="stable")
    ranked = x[order]
    new = np.zeros(x.size, dtype=np.int64)
    new[1:] = ~equal(ranked[1:], ranked[:-1])
    groups = np.empty(x.size, dtype=np.int64)
    groups[order] = np.cumsum(new)
    return groups


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n, ties (docs/conventions.md#equality) sharing their average rank."""
    groups = _tie_groups(x)
    counts = np.bincount(groups)
    ends = np.cumsum(counts)
    return (ends - (counts - 1) / 2.0)[groups]


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
