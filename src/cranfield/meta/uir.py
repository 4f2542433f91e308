"""Unanimous Improvement Ratio and Quality Aspect Coverage (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4;
docs/conventions.md#uir).

UIR (Amigó et al., JAIR 2011) asks how often one system beats another on *every* measure of a reference
set at once; Cov asks how well a single measure's differences follow those unanimous
improvements. Following Amigó, Mizzaro & Spina, systems are compared across random pairs of topics
(t1, t2), which captures topic-dependent aspects such as recall.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._parallel import map_blocks
from cranfield.errors import CranfieldError
from cranfield.meta._common import at_least, check_count, chunks, make_rng
from cranfield.meta.agreement import spearman_rho
from cranfield.meta.scores import as_score_matrices

__all__ = ["UnanimousImprovement", "unanimous_improvement_ratio", "QualityAspectCoverage",
           "quality_aspect_coverage"]


@dataclass(frozen=True, eq=False)
class UnanimousImprovement:
    """UIR of every ordered pair of systems over a reference set of measures.

    Attributes
    ----------
    systems : tuple of str
    reference : tuple of str
        The reference measures 𝕄.
    uir : ndarray, shape (S, S)
        ``uir[s, s2]`` = UIR(s, s2) ∈ [−1, 1]; NaN on the diagonal.
    topic_pairs : ndarray of int, shape (n, 2)
        The sampled (t1, t2) topic indices.
    """

    systems: tuple[str, ...]
    reference: tuple[str, ...]
    uir: np.ndarray
    topic_pairs: np.ndarray

    def to_frame(self) -> Any:
        """One row per ordered pair of distinct systems: system_1, system_2, uir."""
        import pandas as pd

        s1, s2 = _off_diagonal(len(self.systems))
        names = np.array(self.systems, dtype=object)
        return pd.DataFrame({"system_1": names[s1], "system_2": names[s2], "uir": self.uir[s1, s2]})


def _off_diagonal(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of every ordered pair (s, s2), s ≠ s2, row by row."""
    s1, s2 = np.nonzero(~np.eye(n, dtype=bool))
    return s1, s2


def unanimous_improvement_ratio(data: Any, reference: Sequence[str], *, n_pairs: int = 1000, rng: Any = None,
                                client: Any = None) -> UnanimousImprovement:
    """UIR_𝕄(s, s') for every ordered pair of systems (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4).

    ``n_pairs`` ordered topic pairs are drawn once, uniformly from T × T with replacement
    (t1 = t2 allowed): ``rng.integers(0, T, (n_pairs, 2))``, columns t1 and t2. With
    s ≥_𝕄 s' meaning m(s, t1) ≥ m(s', t2) for every m in 𝕄 (≥ with the equality of docs/conventions.md#equality),

        UIR(s, s') = (#{(t1, t2): s_t1 ≥_𝕄 s'_t2} − #{(t1, t2): s'_t2 ≥_𝕄 s_t1}) / n_pairs.

    Parameters
    ----------
    data : multi-measure scores (see :mod:`cranfield.meta.scores`)
    reference : sequence of str
        The reference measures 𝕄 (Amigó, Mizzaro & Spina use P@10, R@100 and RR).
    n_pairs : int
        Number of sampled topic pairs (default 1,000, as in the paper).
    rng : int, numpy Generator or None
    client : dask.distributed.Client, optional
        Count blocks of topic pairs as tasks on a Dask cluster (the pairs are drawn here, the
        counts are integers): the same result, bit for bit.

    References
    ----------
    E. Amigó, J. Gonzalo, J. Artiles, F. Verdejo. Combining evaluation metrics via the unanimous
    improvement ratio and its application to clustering tasks. JAIR 42, 2011 (UIR).
    E. Amigó, S. Mizzaro, D. Spina. Ranking Interruptus: when truncated rankings are better and
    how to measure that. SIGIR 2022, §4.4 (UIR over topic pairs, Cov).
    """
    if not reference:
        raise CranfieldError("UIR needs at least one reference measure")
    matrices = as_score_matrices(data, list(reference))
    n = check_count(n_pairs, "number of topic pairs n_pairs")
    topics = make_rng(rng).integers(0, matrices[0].n_topics, (n, 2))
    values = [m.values for m in matrices]
    s = matrices[0].n_systems
    counts = map_blocks(_uir_counts, [topics[block] for block in chunks(len(topics), 2 * s * s)],
                        client=client, shared={"values": values}, label="UIR")
    wins = np.sum([w for w, _ in counts], axis=0, dtype=np.int64)
    losses = np.sum([lo for _, lo in counts], axis=0, dtype=np.int64)
    uir = (wins - losses) / len(topics)
    np.fill_diagonal(uir, np.nan)
    return UnanimousImprovement(matrices[0].systems, tuple(m.measure for m in matrices), uir, topics)


def _uir_counts(topics: np.ndarray, values: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """For a block of topic pairs (t1, t2): wins[s, s2] = #{s_t1 ≥_M s2_t2} and losses[s, s2] =
    #{s2_t2 ≥_M s_t1}, shape (S, S) each."""
    first = np.ones((len(topics), values[0].shape[1], values[0].shape[1]), dtype=bool)
    second = first.copy()
    for x in values:
        a = x[topics[:, 0]][:, :, None]  # (pairs, S, 1): m(s, t1)
        b = x[topics[:, 1]][:, None, :]  # (pairs, 1, S): m(s2, t2)
        first &= at_least(a, b)
        second &= at_least(b, a)
    return first.sum(axis=0), second.sum(axis=0)


@dataclass(frozen=True, eq=False)
class QualityAspectCoverage:
    """Cov of each measure with respect to a reference set (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4,
    Table 3).

    Attributes
    ----------
    measures : tuple of str
    coverage : ndarray, shape (M,)
        Spearman's ρ between M(s) − M(s') and UIR_𝕄(s, s') over ordered pairs s ≠ s'.
    uir : UnanimousImprovement
        The shared UIR (one topic-pair sample for all measures).
    """

    measures: tuple[str, ...]
    coverage: np.ndarray
    uir: UnanimousImprovement

    def rows(self) -> list[dict[str, Any]]:
        """One dict per measure: measure, reference (joined by ``+``), coverage."""
        ref = "+".join(self.uir.reference)
        return [{"measure": m, "reference": ref, "coverage": None if np.isnan(c) else float(c)}
                for m, c in zip(self.measures, self.coverage)]

    def to_frame(self) -> Any:
        """:meth:`rows` as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows())


def quality_aspect_coverage(data: Any, measures: Sequence[str], reference: Sequence[str], *,
                            n_pairs: int = 1000, rng: Any = None, client: Any = None) -> QualityAspectCoverage:
    """Quality Aspect Coverage Cov_𝕄(M) of each measure (Amigó, Mizzaro & Spina, SIGIR 2022, §4.4).

    Cov_𝕄(M) = ρ(M(s) − M(s'), UIR_𝕄(s, s')), Spearman's ρ over all ordered pairs of
    distinct systems, M(s) the mean over topics. UIR is computed once
    (:func:`unanimous_improvement_ratio`, same ``n_pairs``, ``rng`` and ``client``) and shared by all
    measures.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> base = rng.random((40, 6)) + np.linspace(0, 0.5, 6)
    >>> scores = {"A": base, "B": base + rng.normal(0, 0.1, base.shape), "C": rng.random((40, 6))}
    >>> cov = quality_aspect_coverage(scores, ["A", "C"], ["B"], rng=1)
    >>> bool(cov.coverage[0] > cov.coverage[1])
    True
    """
    if not measures:
        raise CranfieldError("no measures given")
    names = list(measures)
    matrices = as_score_matrices(data, names + [r for r in reference if r not in names])
    assessed = matrices[:len(names)]
    uir = unanimous_improvement_ratio({m.measure: m for m in matrices}, reference, n_pairs=n_pairs, rng=rng,
                                      client=client)
    s1, s2 = _off_diagonal(assessed[0].n_systems)
    improvement = uir.uir[s1, s2]
    coverage = np.array([spearman_rho((means := m.means())[s1] - means[s2], improvement) for m in assessed])
    return QualityAspectCoverage(tuple(m.measure for m in assessed), coverage, uir)
