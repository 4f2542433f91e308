"""Exposure-based fairness over stochastic rankings (docs/fairness.md).

- Expected exposure (Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020, "Evaluating
  stochastic rankings with expected exposure"): EE-L = ‖ε − ε*‖², its disparity EE-D = ‖ε‖²
  and relevance EE-R = ⟨ε, ε*⟩ (the loss and its two terms), ε the exposure each document receives in expectation
  over the sampled rankings and ε* the exposure of an ideal stochastic ranking,
  normalised as the reference code diazf/expeval does by default.
- AWRF, attention-weighted rank fairness (Sapiezynski, Zeng, Robertson, Mislove & Wilson,
  WWW 2019 companion), as the TREC Fair Ranking 2022 code computes it: 1 − the Jensen–Shannon
  divergence (natural log) between the attention-weighted group distribution of a ranking and
  the target distribution, attention 1/log2(max(rank, 2)) in float32; and nDCG*AWRF, the 2022
  track's score (Ekstrand, McDonald, Raj & Johnson, TREC 2022 Fair Ranking overview).

Every kernel reads a :class:`~cranfield.batch.SampledBatch` (P policies × N samples × T topics
× D ranks) and returns (P, T); a plain :class:`~cranfield.batch.Batch` is one sample per run.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from cranfield.batch import SampledBatch
from cranfield.measures.registry import MeasureSpec, Param, register, sample_mean

EXPEVAL = "diazf/expeval (expeval.py, 2020)"
FAIR2022 = "fair-trec/trec2022-fair-public (wptrec.metrics.AWRFMetric)"


# --------------------------------------------------------------------------- exposure
def _continuation(model: str, gamma: float, u: float) -> float:
    """pp, expeval's continuation of the bounds: γ for RBP, γ·u for the cascade (gerr)."""
    return gamma if model == "rbp" else gamma * u


# ranked documents per pass of a kernel: the temporaries of a chunk of rankings (codes, exposures,
# group bins) stay in the CPU's L2 cache, and the passes over the block read each rank once
RANK_CHUNK = 1 << 17


def _chunks(rows: int, width: int, cells: int = RANK_CHUNK) -> list[tuple[int, int]]:
    """Consecutive ranges of ``rows`` rankings of ``width`` ranks each, about ``cells`` ranks apiece."""
    step = max(1, cells // max(width, 1))
    return [(a, min(a + step, rows)) for a in range(0, rows, step)]


def document_exposure(sb: SampledBatch, model: str, gamma: float, u: float) -> np.ndarray:
    """Expected exposure ε of each document code, shape (U,): the exposure of its rank summed
    over its policy's samples of its topic, over their number (Diaz et al., CIKM 2020). The
    exposure of rank r is RBP's γ^(r−1), or the cascade browsing model's γ^(r−1)·(1−u)^(relevant
    documents above r) (expeval's ``gerr``, Chapelle et al., CIKM 2009, §7.2). One
    ``np.bincount`` over all ranks (a fixed order), chunk of rankings by chunk (each continuing
    the sums so far, placed first: the very sums of one pass); the ranks past the end fall in
    bin U, dropped."""
    batch = sb.batch
    d = batch.depth
    power = np.power(gamma, np.arange(d, dtype=np.float64))
    factor = np.power(1.0 - u, np.arange(d + 1, dtype=np.float64))  # (1 − u)^k, looked up
    bins = sb.codes + 1
    rows = sb.doc.shape[0] * sb.doc.shape[1]
    doc, grades = sb.doc.reshape(rows, d), batch.grades.reshape(rows, d)
    chunks = _chunks(rows, d, max(RANK_CHUNK, 8 * bins))  # the sums so far: at most an eighth more
    size = bins + (chunks[0][1] - chunks[0][0]) * d if chunks else bins
    index, weight = np.empty(size, dtype=np.intp), np.empty(size)  # int64 indices gather fastest
    index[:bins] = np.arange(bins)
    total: np.ndarray = np.zeros(bins)
    for a, b in chunks:
        m = bins + (b - a) * d
        rank, e = index[bins:m].reshape(b - a, d), weight[bins:m].reshape(b - a, d)
        if model == "gerr":
            rank[:, :1] = 0  # the relevant documents above each rank, then their (1 − u)^k
            np.cumsum(grades[a:b, :-1] > 0, axis=1, dtype=np.intp, out=rank[:, 1:])  # grade 0 past the end
            np.take(factor, rank, out=e, mode="clip")
            e *= power
        else:
            e[...] = power
        rank[...] = doc[a:b]
        weight[:bins] = total
        total = np.bincount(index[:m], weight[:m], bins)
    return total[:sb.codes] / np.maximum(sb.n_samples, 1).reshape(-1)[sb.cell]


def level_targets(ideal: np.ndarray, model: str, gamma: float, u: float) -> np.ndarray:
    """ε* of each relevant document, aligned with ``ideal`` (T, K) (positive grades sorted
    descending, 0 pads): the exposure an ideal stochastic ranking gives a document of grade g,
    shared by the m documents of its grade below the b of higher grades (Diaz et al., CIKM 2020,
    as expeval computes it): (pp^b − pp^(b+m)) / (m(1 − pp)) with pp = γ(1−u) (cascade) or γ (RBP)."""
    pp = gamma * (1.0 - u) if model == "gerr" else gamma
    t, k = ideal.shape
    pos = ideal > 0
    new = np.ones((t, k), dtype=bool)
    new[:, 1:] = ideal[:, 1:] != ideal[:, :-1]
    idx = np.arange(k)
    b = np.maximum.accumulate(np.where(new, idx, 0), axis=1)  # first index of each grade's run
    end = np.minimum.accumulate(np.where(np.concatenate((new[:, 1:], np.ones((t, 1), bool)), axis=1), idx, k)
                                [:, ::-1], axis=1)[:, ::-1] + 1  # one past the last index of the run
    m = end - b
    with np.errstate(divide="ignore", invalid="ignore"):
        te = (np.power(pp, b) - np.power(pp, b + m)) / (m * (1.0 - pp))
    return np.where(pos, te, 0.0)


def _grade_target(sb: SampledBatch, te: np.ndarray) -> np.ndarray:
    """ε* of each document code, shape (U,): the level target of its grade in its topic (0 for
    documents that are not relevant), looked up in a (topic, grade) table."""
    ideal = sb.batch.topics.ideal
    t, k = ideal.shape
    if not k:
        return np.zeros(sb.codes)
    grade = sb.grade.astype(np.int64)
    top = int(max(ideal.max(initial=0), grade.max(initial=0))) + 1
    table = np.zeros((t, top))
    pos = ideal > 0
    table[np.nonzero(pos)[0], ideal[pos]] = te[pos]  # a grade's documents share its level target
    return table.reshape(-1)[(sb.cell % t) * top + grade]


def _per_cell(sb: SampledBatch, x: np.ndarray) -> np.ndarray:
    """Sum of a per-code quantity per (policy, topic), shape (P, T)."""
    p, t = sb.policies, sb.batch.labels.shape[1]
    return np.bincount(sb.cell, weights=x, minlength=p * t).reshape(p, t)


class Exposures:
    """Expected and target exposures of a batch for one browsing model (computed once per batch)."""

    def __init__(self, sb: SampledBatch, model: str, gamma: float, u: float) -> None:
        ideal = sb.batch.topics.ideal
        te = level_targets(ideal, model, gamma, u)
        self.run = document_exposure(sb, model, gamma, u)  # ε per document code
        self.target = _grade_target(sb, te)  # ε* per document code
        self.target_norm = np.add.reduce(te * te, axis=1)  # ‖ε*‖² per topic
        self.levels = ((ideal > 0) & np.concatenate((np.ones((ideal.shape[0], 1), bool),
                                                     ideal[:, 1:] != ideal[:, :-1]), axis=1)).sum(axis=1)
        self.level_targets = te


def _exposures(sb: SampledBatch, model: str, gamma: float, u: float) -> Exposures:
    return sb.cached(("exposures", model, gamma, u), lambda: Exposures(sb, model, gamma, u))


def _group_exposures(sb: SampledBatch, ex: Exposures) -> tuple[np.ndarray, np.ndarray]:
    """Group exposures of the run and of the target, (P, T, G) each: Σ_d w_{d,g} ε_d over the
    ranked documents, and Σ_d w_{d,g} ε*_d over the topic's relevant documents."""
    groups = _groups_and_target(sb)[0]
    relevant = sb.relevant_groups if sb.groups.shape[1] else np.ones(sb.relevant_groups.shape[:2] + (1,))
    run = np.stack([_per_cell(sb, ex.run * groups[:, j]) for j in range(groups.shape[1])], axis=-1)
    target = np.add.reduce(ex.level_targets[:, :, None] * relevant, axis=1)  # (T, G)
    return run, np.broadcast_to(target, run.shape)


def _missing(sb: SampledBatch) -> np.ndarray:
    return sb.n_samples == 0


def _ee(sb: SampledBatch, which: str, model: str, gamma: float, u: float, normalize: bool, level: str,
        single_grade: str = "one") -> np.ndarray:
    """EE-L, EE-D or EE-R per policy and topic, (P, T) (Diaz et al., CIKM 2020)."""
    ex = _exposures(sb, model, gamma, u)
    if level == "group":
        return _ee_group(sb, ex, which, gamma, normalize)
    pp = _continuation(model, gamma, u)
    norm = ex.target_norm[None, :]
    if which == "D":
        raw = _per_cell(sb, ex.run * ex.run)
        worst = 1.0 / (1.0 - gamma * gamma)  # a static ranking (expeval's upper bound)
        value = raw / worst if normalize else raw
        return np.where(_missing(sb), 1.0 if normalize else worst, value)
    if which == "R":
        raw = _per_cell(sb, ex.run * ex.target)
        if not normalize:
            return np.where(_missing(sb), 0.0, raw)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(norm > 0, raw / norm, 0.0)
        if single_grade == "one":  # expeval: one relevance grade → bounds 0 and 0 → the default 1
            value = np.where((ex.levels == 1)[None, :], 1.0, value)
        return np.where(_missing(sb), 0.0, value)
    raw = _per_cell(sb, (ex.target - ex.run) ** 2 - ex.target ** 2) + norm
    raw = np.maximum(raw, 0.0)
    worst = norm + 1.0 / (1.0 - pp)  # expeval's upper bound (retrieval setting)
    value = raw / worst if normalize else raw
    return np.where(_missing(sb), 1.0 if normalize else worst, value)


def _ee_group(sb: SampledBatch, ex: Exposures, which: str, gamma: float, normalize: bool) -> np.ndarray:
    """Group-level expected exposure: ε_g = Σ_d w_{d,g} ε_d and ε*_g likewise, normalised by
    bounds over every run exposure (x ≥ 0, Σ_g x_g ≤ M, M = 1/(1−γ) the largest exposure mass):
    EE-D/M², EE-R/(M·max_g ε*_g), EE-L/(‖ε*‖² + max(0, M² − 2M·min_g ε*_g)) (docs/fairness.md#group-level).
    Without groups, all documents are one group."""
    run, target = _group_exposures(sb, ex)
    mass = 1.0 / (1.0 - gamma)
    tnorm = np.add.reduce(target * target, axis=2)
    if which == "D":
        raw, worst = np.add.reduce(run * run, axis=2), np.full(tnorm.shape, mass * mass)
    elif which == "R":
        raw, worst = np.add.reduce(run * target, axis=2), mass * target.max(axis=2)
    else:
        raw = np.add.reduce((run - target) ** 2, axis=2)
        worst = tnorm + np.maximum(0.0, mass * mass - 2 * mass * target.min(axis=2))
    missing_value: float | np.ndarray = 0.0 if which == "R" else 1.0 if normalize else worst
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(worst > 0, raw / worst, 0.0) if normalize else raw
    return np.where(_missing(sb), missing_value, value)


def ee_loss(sb: SampledBatch, *, model: str = "gerr", gamma: float = 0.5, u: float = 0.5, normalize: bool = True,
            level: str = "document") -> np.ndarray:
    """EE-L = ‖ε − ε*‖² (Diaz et al., CIKM 2020), normalised by expeval's upper bound
    ‖ε*‖² + 1/(1 − pp): lower is better."""
    return _ee(sb, "L", model, gamma, u, normalize, level)


def ee_disparity(sb: SampledBatch, *, model: str = "gerr", gamma: float = 0.5, u: float = 0.5,
                 normalize: bool = True, level: str = "document") -> np.ndarray:
    """EE-D = ‖ε‖² (Diaz et al., CIKM 2020), normalised by 1/(1 − γ²), the disparity of a
    deterministic ranking under RBP: lower is more equal exposure."""
    return _ee(sb, "D", model, gamma, u, normalize, level)


def ee_relevance(sb: SampledBatch, *, model: str = "gerr", gamma: float = 0.5, u: float = 0.5,
                 normalize: bool = True, level: str = "document", single_grade: str = "one") -> np.ndarray:
    """EE-R = ⟨ε, ε*⟩ (Diaz et al., CIKM 2020), normalised by ‖ε*‖²; a topic whose
    relevant documents share one grade scores 1 as in expeval (``single_grade=one``) or the
    ratio (``single_grade=ratio``)."""
    return _ee(sb, "R", model, gamma, u, normalize, level, single_grade)


# --------------------------------------------------------------------------- AWRF
def attention(depth: int) -> np.ndarray:
    """The TREC Fair 2022 code's attention 1/log2(max(rank, 2)), computed in float32 as it does,
    for ranks 1..depth (as float64)."""
    ranks = np.maximum(np.arange(1, depth + 1, dtype=np.float32), np.float32(2))
    return np.reciprocal(np.log2(ranks)).astype(np.float64)


def _groups_and_target(sb: SampledBatch) -> tuple[np.ndarray, np.ndarray]:
    """The group weights (U, G) and targets (T, G); without groups, every document is in one
    group, which is the whole target (AWRF is then 1 for every non-empty ranking)."""
    if sb.groups.shape[1]:
        return sb.groups, sb.target
    return np.ones((sb.cell.size, 1)), np.ones((sb.batch.labels.shape[1], 1))


def group_attention(sb: SampledBatch, cutoff: int | None) -> np.ndarray:
    """The attention-weighted group distribution of each sample, (P·N, T, G), not normalised:
    Σ_r a(r)·w_{d_r,g} over the first ``cutoff`` documents (documents in no group add nothing)."""
    d = sb.batch.depth if cutoff is None else min(cutoff, sb.batch.depth)
    return sb.cached(("group_attention", d), lambda: _group_attention(sb, d))


def _group_attention(sb: SampledBatch, d: int) -> np.ndarray:
    """Σ_r a(r)·w_{d_r,g} with the group weights as a sparse matrix (a document's k-th group
    and weight, k = 0, 1, ...): for each k, one bincount over the ranks (for k ≥ 1, those of the
    documents with more than k groups only), the sums of the k-th groups added in the order of k
    (fixed order: independent of BLAS and threads). A bincount adds each bin's weights in the
    order given, so the sums at a shallower cutoff computed before are continued, not redone:
    placed before the ranks past it, they start each bin (0 + s = s), and the sums are those of
    all ranks in one bincount, bit for bit."""
    table = _group_table(sb)
    n, t, _ = sb.doc.shape
    bins = n * t * (table.groups + 1)
    done = max((c for c in sb.cache.get(("group_sums",), {}) if c <= d), default=0)
    sums = sb.cache.setdefault(("group_sums",), {}).get(done, [np.zeros(bins) for _ in table.group])
    out = np.zeros(bins)
    sums = _continue_sums(sb, table, sums, done, d, attention(d))
    for s in sums:
        out += s
    sb.cache[("group_sums",)][d] = sums
    return out.reshape(n, t, table.groups + 1)[..., :table.groups]


def _continue_sums(sb: SampledBatch, table: GroupTable, sums: list[np.ndarray], start: int, stop: int,
                   a: np.ndarray) -> list[np.ndarray]:
    """The sums per (sample, topic, group) of a(r)·w over the k-th groups of the documents at
    ranks ``start``..``stop`` − 1 for each k, continuing ``sums`` (those of the ranks before
    ``start``), chunk of rankings by chunk (each ranking's bins its own): the k-th groups of
    every rank for k = 0, of the ranks of documents with more than k groups for k ≥ 1, found in
    the chunk's codes while they are in the CPU's cache."""
    if not sums:  # no document in a group
        return []
    g1 = table.groups + 1
    n, t, depth = sb.doc.shape
    width = stop - start
    doc, a = sb.doc.reshape(n * t, depth)[:, start:stop], a[start:stop]
    chunks = _chunks(n * t, width)
    step = chunks[0][1] - chunks[0][0] if chunks else 0
    index, weight = np.empty(step * (g1 + width), dtype=np.int64), np.empty(step * (g1 + width))
    several = [table.many > k for k in range(len(sums))]
    out = [np.empty(s.size) for s in sums]
    for i, j in chunks:
        nb, m = (j - i) * g1, (j - i) * (g1 + width)
        codes = doc[i:j] if width == depth else np.ascontiguousarray(doc[i:j])  # one copy, not one per gather
        index[:nb] = np.arange(nb)
        weight[:nb] = sums[0][i * g1:j * g1]
        bins, w = index[nb:m].reshape(j - i, width), weight[nb:m].reshape(j - i, width)
        np.take(table.group[0], codes, out=bins, mode="clip")
        np.take(table.weight[0], codes, out=w, mode="clip")
        bins += (np.arange(j - i, dtype=np.int64) * g1)[:, None]
        w *= a
        out[0][i * g1:j * g1] = np.bincount(index[:m], weight[:m], nb)
        for k in range(1, len(sums)):
            at = np.flatnonzero(np.take(several[k], codes, mode="clip"))
            code, rank = codes.reshape(-1)[at], at % max(width, 1)
            out[k][i * g1:j * g1] = np.bincount(
                np.concatenate((np.arange(nb), at // max(width, 1) * g1 + table.group[k][code])),
                np.concatenate((sums[k][i * g1:j * g1], a[rank] * table.weight[k][code])), nb)
    return out


class GroupTable:
    """The group weights of a batch's document codes as a sparse matrix (computed once per
    batch, for every cutoff).

    ``group[k]``, ``weight[k]``: each code's k-th group and its weight (U + 1 entries each; G,
    an overflow bin, and 0 where the code has fewer groups, and for U, the ranks past the end);
    ``many``: each code's number of groups."""

    def __init__(self, sb: SampledBatch) -> None:
        groups = _groups_and_target(sb)[0]
        self.groups = g = groups.shape[1]
        code, group = np.nonzero(groups)  # by code, then group
        weight = groups[code, group]
        kth = np.arange(code.size) - np.searchsorted(code, code)  # the k-th group of its code
        self.many = np.bincount(code, minlength=sb.codes + 1)
        self.group, self.weight = [], []
        for k in range(int(self.many.max(initial=0))):
            at = kth == k
            group_k = np.full(sb.codes + 1, g, dtype=np.int64)
            weight_k = np.zeros(sb.codes + 1)
            group_k[code[at]], weight_k[code[at]] = group[at], weight[at]
            self.group.append(group_k)
            self.weight.append(weight_k)


def _group_table(sb: SampledBatch) -> GroupTable:
    return sb.cached(("group_table",), lambda: GroupTable(sb))


def _js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Jensen–Shannon divergence (natural log) between distributions along the last axis,
    each normalised to sum 1 first (scipy.spatial.distance.jensenshannon squared)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p = p / p.sum(axis=-1, keepdims=True)
        q = q / q.sum(axis=-1, keepdims=True)
        m = (p + q) / 2.0
        left = np.where(p > 0, p * np.log(p / m), 0.0)
        right = np.where(q > 0, q * np.log(q / m), 0.0)
        return (np.add.reduce(left, axis=-1) + np.add.reduce(right, axis=-1)) / 2.0


def needs_groups(measure: Any) -> bool:
    """Whether a parsed measure needs document groups: AWRF, nDCG*AWRF, group-level EE."""
    return measure.name in ("AWRF", "nDCG*AWRF") or measure.params.get("level") == "group"


def sample_awrf(sb: SampledBatch, cutoff: int | None) -> np.ndarray:
    """AWRF of each sample, (P·N, T) (docs/fairness.md#awrf): NaN for a ranking none of whose
    documents is in a group (the 2022 code's NaN, left out of the mean over samples) and for a
    topic without a target distribution; 0 for an empty ranking (no attention at all)."""
    dist = group_attention(sb, cutoff)
    target = np.broadcast_to(_groups_and_target(sb)[1][None], dist.shape)
    defined = (dist.sum(axis=-1) > 0) & np.isfinite(target).all(axis=-1)
    js = _js_divergence(np.where(defined[..., None], dist, 1.0), np.where(defined[..., None], target, 1.0))
    empty = sb.batch.length == 0
    return np.where(defined, 1.0 - js, np.where(empty & np.isfinite(target).all(axis=-1), 0.0, np.nan))


def awrf(sb: SampledBatch, *, cutoff: int | None = None) -> np.ndarray:
    """AWRF, the mean over samples of 1 − JS(attention-weighted group distribution ‖ target)
    (Sapiezynski et al., WWW 2019 companion; TREC Fair 2022 code)."""
    return sample_mean(sb, sample_awrf(sb, cutoff))


def fair_ndcg(sb: SampledBatch, k: int) -> np.ndarray:
    """The TREC Fair 2022 code's nDCG of each sample, (P·N, T): binary gains, attention discount
    1/log2(max(rank, 2)), the first ``k`` documents, ideal over min(k, R) relevant documents;
    0 for a topic without relevant documents."""
    batch = sb.batch
    d = min(k, batch.depth)
    disc = attention(max(k, 1))
    s, t, depth = batch.grades.shape
    grades = batch.grades.reshape(s * t, depth)
    dcg = np.empty(s * t)
    for i, j in _chunks(s * t, d):  # each ranking's sum pairwise over its d ranks, as in one pass
        dcg[i:j] = np.add.reduce(np.where(grades[i:j, :d] > 0, disc[:d], 0.0), axis=1)  # grade 0 past the end
    dcg = dcg.reshape(s, t)
    r = np.minimum((batch.topics.ideal > 0).sum(axis=1), k)
    ideal = np.concatenate(([0.0], np.cumsum(disc)))[r]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal > 0, dcg / ideal, 0.0)


def ndcg_awrf(sb: SampledBatch, *, k: int = 500) -> np.ndarray:
    """nDCG*AWRF, the TREC Fair 2022 score: the mean over samples of nDCG × AWRF, both over the
    first ``k`` documents (Ekstrand et al., TREC 2022 Fair Ranking overview); 0 for a topic
    without relevant documents (the 2022 code cannot score one)."""
    norel = ~(sb.batch.topics.ideal > 0).any(axis=1)  # nDCG is 0 there, whatever AWRF is (docs/fairness.md)
    return sample_mean(sb, np.where(norel, 0.0, fair_ndcg(sb, k) * sample_awrf(sb, k)))


def group_shares(sb: SampledBatch, cutoff: int | None = None) -> np.ndarray:
    """Each group's share of the attention, the mean over samples of the normalised
    attention-weighted group distribution, (P, T, G) (NaN where no sample has a grouped document)."""
    dist = group_attention(sb, cutoff)
    total = dist.sum(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, dist / total, np.nan)
    return np.stack([sample_mean(sb, share[..., j]) for j in range(share.shape[-1])], axis=-1) \
        if share.shape[-1] else np.zeros((sb.policies, share.shape[1], 0))


# --------------------------------------------------------------------------- registration
def _browsing() -> tuple[Param, ...]:
    return (
        Param("model", "choice", "gerr", "browsing model: gerr, the cascade of expeval (stops at a relevant "
              "document with probability u), or rbp", choices=("gerr", "rbp")),
        Param("gamma", "float", 0.5, "patience: the probability of going on to the next rank (expeval -p)",
              low=0.0, high=1.0, open_high=True),
        Param("u", "float", 0.5, "utility: gerr's probability of stopping at a relevant document (expeval -r)",
              low=0.0, high=1.0),
        Param("normalize", "bool", True, "normalise by expeval's bounds (false: expeval -U)"),
        Param("level", "choice", "document", "document (expeval) or group exposure (needs --groups; "
              "docs/fairness.md#group-level)", choices=("document", "group")),
    )


_CITE = "Diaz, Mitra, Ekstrand, Biega & Carterette, CIKM 2020 ({}); diazf/expeval"
_COMMON: dict[str, Any] = dict(cutoff="none", truncation_aware=True, reference=EXPEVAL, depth=lambda p: None,
                               sampled=True)
register(MeasureSpec("EE-L", ee_loss, _browsing(), cite=_CITE.format("expected exposure loss"),
                     doc="expected exposure loss ‖ε − ε*‖² over sampled rankings (lower is better; at most 1 "
                         "unless model=gerr with u < gamma: expeval's bound uses gamma·u)",
                     value_range=(0.0, math.inf), lower_is_better=True, **_COMMON))
register(MeasureSpec("EE-D", ee_disparity, _browsing(), cite=_CITE.format("disparity"),
                     doc="expected exposure disparity ‖ε‖² (lower: exposure spread more equally)",
                     lower_is_better=True, **_COMMON))
register(MeasureSpec("EE-R", ee_relevance, _browsing() + (
    Param("single_grade", "choice", "one", "a topic whose relevant documents share one grade: one (expeval) "
          "or ratio (⟨ε, ε*⟩/‖ε*‖² as for the others)", choices=("one", "ratio")),),
    cite=_CITE.format("relevance"), doc="expected exposure relevance ⟨ε, ε*⟩ (higher is better)", **_COMMON))
register(MeasureSpec(
    "AWRF", awrf, (Param("cutoff", "int", None, "rank cutoff: only the first k documents count", low=1),),
    cite="Sapiezynski, Zeng, Robertson, Mislove & Wilson, WWW 2019 companion; TREC Fair 2022 code",
    doc="attention-weighted rank fairness: 1 − JS divergence to the target group distribution, mean over samples",
    reference=FAIR2022, sampled=True,
))
register(MeasureSpec(
    "nDCG*AWRF", ndcg_awrf, (Param("k", "int", 500, "ranking length: only the first k documents count", low=1),),
    cite="Ekstrand, McDonald, Raj & Johnson, TREC 2022 Fair Ranking overview; TREC Fair 2022 code",
    doc="the TREC Fair 2022 score: nDCG (binary, ideal over min(k, R)) × AWRF, mean over samples",
    reference=FAIR2022, cutoff="none", depth=lambda p: p["k"], sampled=True,
))
