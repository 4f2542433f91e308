"""Score matrices: the input of every meta-evaluation function (docs/conventions.md#meta).

A :class:`ScoreMatrix` holds one measure's scores as a topics × systems array with the
systems (and topics) named. Every function of :mod:`cranfield.meta` accepts, where it wants
one measure's scores,

- a :class:`ScoreMatrix`;
- a 2-D numpy array (rows = topics, columns = systems; systems named ``"0"``, ``"1"``, ...);
- the tidy DataFrame of :func:`cranfield.evaluate` (columns ``run``, ``topic``, ``measure``,
  ``value``; the ``"all"`` rows are ignored), pivoted for ``measure=``;
- a wide DataFrame (index = topics, columns = systems);
- :class:`cranfield.Results` (``Evaluator.evaluate``), for ``measure=``;
- a mapping ``{measure name: any of the above}``.

Functions over several measures take the same inputs with a list of measure names; all the
measures must cover the same systems and topics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cranfield.errors import CranfieldError, listing

__all__ = ["ScoreMatrix", "as_score_matrix", "as_score_matrices"]

TIDY_COLUMNS = ("run", "topic", "measure", "value")


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """One measure's per-topic scores of a set of systems.

    Parameters
    ----------
    values : array_like, shape (T, S)
        ``values[t, s]`` is the score of system ``s`` on topic ``t``; finite numbers only.
    systems : sequence of str, optional
        The S system (run) names; ``"0"``, ``"1"``, ... by default.
    topics : sequence of str, optional
        The T topic ids; ``"0"``, ``"1"``, ... by default.
    measure : str
        The measure's name, used in results and messages.

    Raises
    ------
    CranfieldError
        If ``values`` is not 2-D, has fewer than two systems or no topic, holds NaN or
        infinity, or the names do not match its shape or repeat.
    """

    values: np.ndarray
    systems: tuple[str, ...] = field(default=())
    topics: tuple[str, ...] = field(default=())
    measure: str = ""

    def __post_init__(self) -> None:
        what = f"the scores of {self.measure}" if self.measure else "the score matrix"
        try:
            values = np.array(self.values, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise CranfieldError(f"{what} must be numbers: {exc}") from None
        if values.ndim != 2:
            raise CranfieldError(f"{what} must be a 2-D topics × systems matrix; got {values.ndim} dimensions")
        n_topics, n_systems = values.shape
        systems = _names(self.systems, n_systems, "systems", what)
        topics = _names(self.topics, n_topics, "topics", what)
        if n_systems < 2:
            raise CranfieldError(f"{what} must cover at least 2 systems; got {n_systems}")
        if n_topics < 1:
            raise CranfieldError(f"{what} must cover at least 1 topic")
        bad = ~np.isfinite(values)
        if bad.any():
            t, s = np.argwhere(bad)[0]
            raise CranfieldError(
                f"{what} hold {int(bad.sum())} NaN or infinite values, e.g. system {systems[s]!r} on "
                f"topic {topics[t]!r} (a topic missing from a run with --missing skip?)"
            )
        values.flags.writeable = False
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "topics", topics)

    @property
    def n_topics(self) -> int:
        """T, the number of topics (rows)."""
        return self.values.shape[0]

    @property
    def n_systems(self) -> int:
        """S, the number of systems (columns)."""
        return self.values.shape[1]

    def means(self) -> np.ndarray:
        """Each system's mean score over the topics, shape (S,)."""
        return self.values.mean(axis=0)

    def system_index(self, name: str | int) -> int:
        """The column of a system given by name (or by position)."""
        if isinstance(name, (int, np.integer)) and not isinstance(name, bool):
            if not 0 <= name < self.n_systems:
                raise CranfieldError(f"system index {name} is out of range: there are {self.n_systems} systems")
            return int(name)
        if name not in self.systems:
            raise CranfieldError(f"unknown system {name!r}; the systems are {listing(list(self.systems))}")
        return self.systems.index(name)


def _names(given: Sequence[str], n: int, kind: str, what: str) -> tuple[str, ...]:
    names = tuple(str(x) for x in given) if len(given) else tuple(str(k) for k in range(n))
    if len(names) != n:
        raise CranfieldError(f"{what}: {len(names)} {kind} names for {n} {kind}")
    if len(set(names)) != n:
        raise CranfieldError(f"{what}: the {kind} names repeat")
    return names


def as_score_matrix(data: Any, *, measure: str | None = None) -> ScoreMatrix:
    """One measure's :class:`ScoreMatrix` from any of the inputs listed in the module docs.

    Parameters
    ----------
    data : ScoreMatrix, ndarray (T, S), DataFrame, Results or mapping
    measure : str, optional
        Which measure to take from a DataFrame, :class:`~cranfield.Results` or mapping that
        holds several; required when there is more than one.

    Examples
    --------
    >>> m = as_score_matrix([[0.1, 0.3], [0.2, 0.2], [0.0, 0.4]])
    >>> m.systems, m.means().round(3).tolist()
    (('0', '1'), [0.1, 0.3])
    """
    if isinstance(data, ScoreMatrix):
        return data
    if isinstance(data, Mapping):
        key = _pick(list(data), measure)
        return _named(as_score_matrix(data[key]), key)
    if hasattr(data, "values") and hasattr(data, "measures") and hasattr(data, "runs"):
        return _from_results(data, measure)
    if hasattr(data, "columns"):
        if all(c in data.columns for c in TIDY_COLUMNS):
            return _from_tidy(data, measure)
        return ScoreMatrix(data.to_numpy(dtype=np.float64), tuple(map(str, data.columns)),
                           tuple(map(str, data.index)), measure or "")
    return ScoreMatrix(np.asarray(data), measure=measure or "")


def as_score_matrices(data: Any, measures: Sequence[str]) -> list[ScoreMatrix]:
    """The score matrices of several measures, checked to cover the same systems and topics."""
    if len(measures) == 0:
        raise CranfieldError("no measures given")
    out = [as_score_matrix(data, measure=m) for m in measures]
    first = out[0]
    for other in out[1:]:
        if other.systems != first.systems or other.topics != first.topics:
            raise CranfieldError(
                f"{other.measure} and {first.measure} must cover the same systems and topics in the same order"
            )
    return out


def _named(matrix: ScoreMatrix, measure: str) -> ScoreMatrix:
    if matrix.measure == measure:
        return matrix
    return ScoreMatrix(matrix.values, matrix.systems, matrix.topics, measure)


def _pick(available: list[str], measure: str | None) -> str:
    if measure is None:
        if len(available) == 1:
            return available[0]
        raise CranfieldError(f"several measures are given ({listing(available)}); say which with measure=")
    if measure not in available:
        raise CranfieldError(f"no scores for measure {measure!r}; there are {listing(available)}")
    return measure


def _from_results(results: Any, measure: str | None) -> ScoreMatrix:
    key = _pick(list(results.measures), measure)
    m = list(results.measures).index(key)
    return ScoreMatrix(np.asarray(results.values)[:, m, :].T, tuple(results.runs), tuple(results.topics), key)


def _from_tidy(frame: Any, measure: str | None) -> ScoreMatrix:
    frame = frame[frame["topic"].astype(str) != "all"]
    key = _pick(list(dict.fromkeys(frame["measure"].astype(str))), measure)
    rows = frame[frame["measure"].astype(str) == key]
    runs = list(dict.fromkeys(rows["run"].astype(str)))
    topics = list(dict.fromkeys(rows["topic"].astype(str)))
    run_at = {r: k for k, r in enumerate(runs)}
    topic_at = {t: k for k, t in enumerate(topics)}
    s = np.fromiter((run_at[r] for r in rows["run"].astype(str)), dtype=np.int64, count=len(rows))
    t = np.fromiter((topic_at[x] for x in rows["topic"].astype(str)), dtype=np.int64, count=len(rows))
    seen = np.zeros((len(topics), len(runs)), dtype=np.int64)
    np.add.at(seen, (t, s), 1)
    if (seen > 1).any():
        tt, ss = np.argwhere(seen > 1)[0]
        raise CranfieldError(f"{key}: run {runs[ss]!r} has several values for topic {topics[tt]!r}")
    values = np.full(seen.shape, np.nan)
    values[t, s] = rows["value"].to_numpy(dtype=np.float64)
    return ScoreMatrix(values, tuple(runs), tuple(topics), key)
