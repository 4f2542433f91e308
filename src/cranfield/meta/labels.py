"""Agreement between two sets of labels of the same units: counts, the confusion matrix of grades,
raw agreement, Cohen's κ on binarised labels, weighted κ and Krippendorff's α (docs/judges.md).

The input is a generic long table per coder — (topic, unit, label) — so the same kernels compare
two qrels (unit = document, or (intent, document) with diversity qrels) or two assignments of
nuggets (unit = (run, nugget)). Topics and units are integer codes; labels are numbers (grades).
Every statistic is computed from one array, the per-topic confusion matrix ``C[t, a, b]``
(the number of units of topic t the reference labels with grade a and the judge with grade b),
built with one grouped ``bincount``; the pooled statistic is the same formula on ``C.sum(0)``.
Nothing loops over units or topics in Python.

- Cohen's κ (Educational and Psychological Measurement, 1960) on the labels binarised at each
  threshold ``label >= L``: κ = (p_o − p_e) / (1 − p_e).
- Weighted κ (Cohen, Psychological Bulletin, 1968): κ_w = 1 − Σ w·O / Σ w·E with
  E = outer(row, column marginals) / n and w = |g_a − g_b| (linear) or (g_a − g_b)² (quadratic),
  the distance between the grades themselves, not between their positions in a list.
- Krippendorff's α (Content Analysis, 2004, §11.3; "Computing Krippendorff's alpha-reliability",
  2011) for two coders and no missing values: the coincidence matrix o = C + Cᵀ, n_c its row sums,
  n = 2N, α = 1 − (n − 1) · Σ o_ck δ²_ck / Σ n_c n_k δ²_ck with δ² nominal (c ≠ k), ordinal
  ((Σ_{g=c..k} n_g − (n_c + n_k)/2)²) and interval ((c − k)²).

An undefined κ or α (1 − p_e = 0: both coders give every unit one same class; or no expected
disagreement) is NaN, with one warning per statistic naming the topics.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from cranfield._numeric import nan_div
from cranfield.errors import CranfieldError, listing, warn

__all__ = ["LabelTable", "LabelAgreement", "NoCommonUnits", "label_agreement", "cohen_kappa", "weighted_kappa",
           "krippendorff_alpha", "confusion_matrices", "ALPHA_METRICS", "KAPPA_WEIGHTS"]

ALPHA_METRICS = ("nominal", "ordinal", "interval")
KAPPA_WEIGHTS = ("linear", "quadratic")


class NoCommonUnits(CranfieldError):
    """The two label tables share no (topic, unit): there is nothing to compare."""


@dataclass(frozen=True, eq=False)
class LabelTable:
    """One coder's labels as a long table: ``topic`` (int codes), ``unit`` (int64 codes of the
    unit within the topic: a document, an (intent, document) pair, a (run, nugget) pair) and
    ``label`` (numeric grades), all of the same length; each (topic, unit) at most once."""

    topic: np.ndarray
    unit: np.ndarray
    label: np.ndarray

    @classmethod
    def of(cls, topic: Any, unit: Any, label: Any) -> LabelTable:
        """The table of three equally long array-likes (checked)."""
        t = np.asarray(topic, dtype=np.int64)
        u = np.asarray(unit, dtype=np.int64)
        g = np.asarray(label, dtype=np.float64)
        if not (t.ndim == u.ndim == g.ndim == 1 and t.size == u.size == g.size):
            raise CranfieldError("a label table needs three vectors of one length: topic, unit, label")
        if not np.isfinite(g).all():
            raise CranfieldError("labels must be finite numbers")
        if t.size and (t.min() < 0 or u.min() < 0):
            raise CranfieldError("topic and unit codes must be integers >= 0")
        return cls(t, u, g)


@dataclass(frozen=True, eq=False)
class LabelAgreement:
    """Agreement of a judge's labels with a reference's, per topic and pooled.

    Attributes
    ----------
    topics : ndarray of int, shape (T,)
        The topic codes, ascending (every topic either coder labels).
    grades : ndarray, shape (G,)
        Every grade either coder gives to a commonly labelled unit, ascending.
    confusion : ndarray of int, shape (T, G, G)
        ``confusion[t, a, b]``: units of topic t the reference labels ``grades[a]`` and the judge
        ``grades[b]``.
    n_both, n_reference_only, n_judge_only : ndarray of int, shape (T + 1,)
        Units labelled by both, by the reference only, by the judge only: per topic, then the total.
    thresholds : ndarray, shape (L,)
        The thresholds of the binarised κ (``label >= L``).
    statistics : dict of str to ndarray, shape (T + 1,)
        Per topic, then pooled (last): ``agreement``, ``kappa(rel=L)`` per threshold,
        ``weighted_kappa(linear|quadratic)``, ``alpha(nominal|ordinal|interval)``; NaN where undefined.
    """

    topics: np.ndarray
    grades: np.ndarray
    confusion: np.ndarray
    n_both: np.ndarray
    n_reference_only: np.ndarray
    n_judge_only: np.ndarray
    thresholds: np.ndarray
    statistics: dict[str, np.ndarray]

    def pooled(self, name: str) -> float:
        """The pooled value of statistic ``name`` (over one table of all commonly labelled units)."""
        return float(self.statistics[name][-1])


def _join(reference: LabelTable, judge: LabelTable, codes: Sequence[np.ndarray], n_grades: int
          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The units both label — their topic and the reference's and the judge's grade codes
    (``codes``: each table's labels as indices 0..n_grades−1) — and the topic of every unit only
    one labels: (topic, x, y, reference-only topics, judge-only topics).

    Each row is packed into one 64-bit code (topic, unit, grade code) and the codes are sorted
    (a plain sort, several times faster than an argsort); equal (topic, unit) prefixes are then
    matched by a binary search.
    """
    width = max(1, (n_grades - 1).bit_length())
    top = int(max(reference.unit.max(initial=0), judge.unit.max(initial=0))).bit_length() + width
    high = int(max(reference.topic.max(initial=0), judge.topic.max(initial=0))).bit_length()
    if top + high > 62:
        raise CranfieldError("too many distinct topics, units and grades to join (more than 2**62 codes)")
    mask = np.int64((1 << width) - 1)
    keys = []
    for table, grade, who in ((reference, codes[0], "reference"), (judge, codes[1], "judge")):
        code = table.topic << top
        code |= table.unit << width
        code |= grade
        code.sort()
        key = code >> width
        if key.size > 1 and (key[1:] == key[:-1]).any():
            raise CranfieldError(f"the {who} labels a unit of a topic twice")
        keys.append((key, code & mask))
    (ka, xa), (kb, yb) = keys
    at = np.minimum(np.searchsorted(kb, ka), max(kb.size - 1, 0))
    in_b = kb[at] == ka if kb.size else np.zeros(ka.size, dtype=bool)
    in_a = np.zeros(kb.size, dtype=bool)
    in_a[at[in_b]] = True
    shift = top - width
    return ka[in_b] >> shift, xa[in_b], yb[at[in_b]], ka[~in_b] >> shift, kb[~in_a] >> shift


def confusion_matrices(topic: np.ndarray, a: np.ndarray, b: np.ndarray, n_topics: int, g: int) -> np.ndarray:
    """The (n_topics, g, g) confusion matrices of aligned grade codes a (reference) and b (judge),
    each in 0..g−1: one grouped ``bincount`` over the codes topic·g² + a·g + b."""
    flat = np.bincount((topic * g + a) * g + b, minlength=n_topics * g * g)
    return flat.reshape(n_topics, g, g)


def cohen_kappa(confusion: np.ndarray) -> np.ndarray:
    """Cohen's κ of each (…, K, K) confusion matrix: (p_o − p_e) / (1 − p_e), NaN when
    1 − p_e = 0 or the matrix is empty (Cohen, Educ. Psychol. Meas. 20(1), 1960, Eq. 1)."""
    c = np.asarray(confusion, dtype=np.float64)
    n = c.sum(axis=(-2, -1))
    observed = np.trace(c, axis1=-2, axis2=-1)
    expected = (c.sum(axis=-1) * c.sum(axis=-2)).sum(axis=-1)
    # κ = (n·Σ diag − Σ row·col) / (n² − Σ row·col): the same value, without dividing twice
    return nan_div(n * observed - expected, n * n - expected)


def weighted_kappa(confusion: np.ndarray, grades: np.ndarray, weights: str = "linear") -> np.ndarray:
    """Weighted κ of each (…, G, G) confusion matrix: 1 − Σ w·O / Σ w·E with E the product of
    the marginals over n and w the grade distance |g_a − g_b| (``linear``) or its square
    (``quadratic``) (Cohen, Psychol. Bull. 70(4), 1968; Fleiss & Cohen, Educ. Psychol. Meas. 1973).
    NaN when Σ w·E = 0."""
    if weights not in KAPPA_WEIGHTS:
        raise CranfieldError(f"weights must be one of {', '.join(KAPPA_WEIGHTS)}; got {weights!r}")
    c = np.asarray(confusion, dtype=np.float64)
    distance = np.abs(grades[:, None] - grades[None, :])
    w = distance if weights == "linear" else distance * distance
    n = c.sum(axis=(-2, -1))
    expected = c.sum(axis=-1)[..., :, None] * c.sum(axis=-2)[..., None, :]
    observed_w = (w * c).sum(axis=(-2, -1))
    expected_w = (w * expected).sum(axis=(-2, -1))
    return 1.0 - nan_div(n * observed_w, expected_w)


def _alpha_distance(grades: np.ndarray, counts: np.ndarray, metric: str) -> np.ndarray:
    """δ²(c, k) of Krippendorff's α for each row of value counts n_g (…, G): shape (…, G, G)."""
    shape = counts.shape[:-1] + (grades.size, grades.size)
    if metric == "nominal":
        return np.broadcast_to(1.0 - np.eye(grades.size), shape)
    if metric == "interval":
        d = grades[:, None] - grades[None, :]
        return np.broadcast_to(d * d, shape)
    cum = np.cumsum(counts, axis=-1)  # Σ_{g<=k} n_g
    lo = np.minimum(np.arange(grades.size)[:, None], np.arange(grades.size)[None, :])
    hi = np.maximum(np.arange(grades.size)[:, None], np.arange(grades.size)[None, :])
    before = np.take(cum, lo, axis=-1) - np.take(counts, lo, axis=-1)
    between = np.take(cum, hi, axis=-1) - before  # Σ_{g=c..k} n_g
    d = between - (counts[..., :, None] + counts[..., None, :]) / 2.0
    return d * d


def krippendorff_alpha(confusion: np.ndarray, grades: np.ndarray, metric: str = "nominal") -> np.ndarray:
    """Krippendorff's α of two coders with no missing values, from each (…, G, G) confusion
    matrix: α = 1 − (n − 1) Σ o_ck δ²_ck / Σ n_c n_k δ²_ck with o = C + Cᵀ and n = 2N
    (Krippendorff, Content Analysis, 2004, §11.3). NaN when the denominator is 0 (one value
    throughout) or fewer than one unit."""
    if metric not in ALPHA_METRICS:
        raise CranfieldError(f"metric must be one of {', '.join(ALPHA_METRICS)}; got {metric!r}")
    c = np.asarray(confusion, dtype=np.float64)
    o = c + np.swapaxes(c, -1, -2)
    counts = o.sum(axis=-1)
    n = counts.sum(axis=-1)
    delta = _alpha_distance(grades, counts, metric)
    observed = (o * delta).sum(axis=(-2, -1))
    expected = (counts[..., :, None] * counts[..., None, :] * delta).sum(axis=(-2, -1))
    return 1.0 - nan_div((n - 1.0) * observed, expected)


def label_agreement(reference: LabelTable, judge: LabelTable, *, thresholds: Sequence[float] | None = None,
                    topic_names: Sequence[str] | None = None) -> LabelAgreement:
    """Agreement of ``judge``'s labels with ``reference``'s over the units both label, per topic
    and pooled (one table of every commonly labelled unit).

    Parameters
    ----------
    reference, judge : LabelTable
    thresholds : sequence of float, optional
        The thresholds L of Cohen's κ on ``label >= L`` (default: every positive grade given).
    topic_names : sequence of str, optional
        Names of the topic codes, for warnings (default: the codes).

    Raises
    ------
    NoCommonUnits
        A :class:`~cranfield.errors.CranfieldError`, when no unit is labelled by both.

    Examples
    --------
    >>> ref = LabelTable.of([0, 0, 0, 0], [1, 2, 3, 4], [0, 1, 2, 1])
    >>> llm = LabelTable.of([0, 0, 0, 0], [1, 2, 3, 4], [0, 1, 1, 1])
    >>> a = label_agreement(ref, llm)
    >>> a.pooled("agreement"), round(a.pooled("kappa(rel=1)"), 4), round(a.pooled("kappa(rel=2)"), 4)
    (0.75, 1.0, 0.0)
    """
    grades, codes = _dense_codes([reference.label, judge.label])
    topic, x, y, ref_only, judge_only = _join(reference, judge, codes, grades.size)
    if topic.size == 0:
        raise NoCommonUnits("the reference and the judge have no labelled unit in common: nothing to compare")
    topics, topic_codes = _dense_codes([reference.topic, judge.topic], also=[topic, ref_only, judge_only])
    topic, ref_only, judge_only = topic_codes[2:]
    n_topics = topics.size
    confusion = confusion_matrices(topic, x, y, n_topics, grades.size)
    given = (confusion.sum(axis=(0, 2)) + confusion.sum(axis=(0, 1))) > 0  # grades of common units only
    grades, confusion = grades[given], confusion[:, given][:, :, given]
    levels = grades[grades > 0] if thresholds is None else np.unique(np.asarray(thresholds, dtype=np.float64))
    tables = np.concatenate([confusion, confusion.sum(axis=0)[None]])
    stats: dict[str, np.ndarray] = {"agreement": nan_div(np.trace(tables, axis1=1, axis2=2).astype(np.float64),
                                                        tables.sum(axis=(1, 2)).astype(np.float64))}
    for level in levels:
        stats[f"kappa(rel={_number(level)})"] = cohen_kappa(_binarised(tables, grades >= level))
    for w in KAPPA_WEIGHTS:
        stats[f"weighted_kappa({w})"] = weighted_kappa(tables, grades, w)
    for metric in ALPHA_METRICS:
        stats[f"alpha({metric})"] = krippendorff_alpha(tables, grades, metric)
    names = [str(t) for t in topics] if topic_names is None else [str(topic_names[t]) for t in topics]
    _warn_undefined(stats, names, tables.sum(axis=(1, 2)) > 0)
    count = np.bincount
    return LabelAgreement(
        topics=topics, grades=grades, confusion=confusion,
        n_both=tables.sum(axis=(1, 2)),
        n_reference_only=_with_total(count(ref_only, minlength=n_topics)),
        n_judge_only=_with_total(count(judge_only, minlength=n_topics)),
        thresholds=levels, statistics=stats,
    )


def _dense_codes(arrays: Sequence[np.ndarray], also: Sequence[np.ndarray] = ()
                 ) -> tuple[np.ndarray, list[np.ndarray]]:
    """The sorted distinct values of ``arrays`` and every array of ``arrays`` (then of ``also``,
    whose values must be among them) as indices into them. Integer values in a range of at most
    2**20 go through a lookup table (one pass, no sort); others through a sort and a binary search."""
    low = min((float(a.min()) for a in arrays if a.size), default=0.0)
    high = max((float(a.max()) for a in arrays if a.size), default=0.0)
    integral = high - low <= 1 << 20 and all(
        a.dtype.kind in "iu" or bool((a == np.floor(a)).all()) for a in arrays)
    if not integral:
        distinct = np.union1d(*[np.unique(a) for a in arrays]) if len(arrays) > 1 else np.unique(arrays[0])
        return distinct, [np.searchsorted(distinct, a) for a in (*arrays, *also)]
    offset = int(low)
    present = np.zeros(int(high) - offset + 1, dtype=bool)
    shifted = [a.astype(np.int64) - offset if offset or a.dtype != np.int64 else a for a in arrays]
    for a in shifted:
        present[a] = True
    distinct = (np.flatnonzero(present) + offset).astype(arrays[0].dtype)
    if present.all():  # dense already (codes 0..n−1 shifted): the values minus the offset are the codes
        return distinct, shifted + [a.astype(np.int64) - offset if offset else a for a in also]
    lookup = np.cumsum(present) - 1
    return distinct, [lookup[a] for a in shifted] + [lookup[a.astype(np.int64) - offset] for a in also]


def _binarised(tables: np.ndarray, above: np.ndarray) -> np.ndarray:
    """Collapse (…, G, G) confusion matrices to (…, 2, 2) by ``above`` (grade >= L)."""
    rows = np.stack([tables[..., ~above, :].sum(axis=-2), tables[..., above, :].sum(axis=-2)], axis=-2)
    return np.stack([rows[..., ~above].sum(axis=-1), rows[..., above].sum(axis=-1)], axis=-1)


def _with_total(per_topic: np.ndarray) -> np.ndarray:
    return np.append(per_topic, per_topic.sum())


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _warn_undefined(stats: dict[str, np.ndarray], names: Sequence[str], compared: np.ndarray) -> None:
    """One warning naming the statistics undefined where units were compared, and those topics."""
    labels = [*names, "all"]
    bad = {name: np.isnan(values) & compared for name, values in stats.items()}
    undefined = [name for name, where in bad.items() if where.any()]
    if undefined:
        where = np.logical_or.reduce([bad[name] for name in undefined])
        warn(f"{listing(undefined)} undefined (no expected disagreement: one label throughout) for topics "
             f"{listing([labels[i] for i in np.flatnonzero(where)])}; reported as null")
