"""How alike two rankings of the same topic are: rank-biased overlap, Kendall's tau union, Jaccard.

These are not relevance measures (they read two rankings and no judgments), so they are not in
the measure registry; they share its name grammar (``RBO(p=0.9,ties=a)``, ``KTU@10``,
``Jaccard@10``; :func:`parse_similarity`) and its parameter declarations (:class:`Param`).

The kernels work on the rankings of one topic by many runs, :class:`TopicRankings` (documents as
integer ids, ``R × D``), for many pairs of runs at once: every quantity is an array over pairs ×
depth, built with gathers, ``bincount`` and ``cumsum``; no loop runs over documents or pairs.

- :func:`rbo` — RBO_min, RBO_res, RBO_ext and RBO_max of Webber, Moffat & Zobel (ACM TOIS 2010,
  Eqs. 11, 30–32) for rankings of uneven length, with Corsi & Urbano's treatments of ties (SIGIR
  2024): ``w`` (ties as equality), ``a`` (the expected value over random tie breaking) and ``b``
  (corrected for the information the ties lose).
- :func:`normalised_rbo` — the truncated sum ``sum_{d<=k} p^(d-1) A_d / sum_{d<=k} p^(d-1)`` that
  repro_eval (Breuer et al., SIGIR 2020) calls RBO, with p = 0.95 there; not Webber's RBO_ext.
- :func:`ktu` — Kendall's tau union exactly as repro_eval computes it.
- :func:`jaccard` — |A_k ∩ B_k| / |A_k ∪ B_k|.
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from cranfield.errors import CranfieldError, MeasureError
from cranfield.measures.registry import REGISTRY, Measure, MeasureSpec, Param, cutoff_param, parse_measure

TIES = ("w", "a", "b")
VARIANTS = ("ext", "min", "max", "res")
ABSENT = np.iinfo(np.int32).max  # the position of a document a ranking does not hold
DEFAULT_TIES = "a"  # Corsi & Urbano's recommendation when ties mean "not known which comes first"


@dataclass(frozen=True, eq=False)
class TopicRankings:
    """The rankings of one topic by R runs, as arrays the kernels read.

    Attributes
    ----------
    docs : ndarray of int64, shape (R, D)
        Document ids (0..U-1, the same document has the same id in every run) in ranked order;
        padded with U (``n_ids``) beyond each ranking's length.
    length : ndarray of int64, shape (R,)
    top, bottom : ndarray of int64, shape (R, D)
        The first and last position (0-based) of the tie group of each position (equal at an
        untied position); Corsi & Urbano's t and b.
    n_ids : int
        U, the number of distinct documents.
    lex : ndarray of int64, shape (U,)
        Each document's place in byte order of the docnos (repro_eval's sorted union), or None.
    """

    docs: np.ndarray
    length: np.ndarray
    top: np.ndarray
    bottom: np.ndarray
    n_ids: int
    lex: np.ndarray | None = None

    @cached_property
    def position(self) -> np.ndarray:
        """``position[r, u]``: where run r ranks document u (0-based), or the dtype's largest
        value (absent; also in the last column, that of the padding id); shape (R, U + 1)."""
        r_, d_ = self.docs.shape
        kind = np.int16 if d_ < np.iinfo(np.int16).max else np.int32  # half the bytes to gather
        pos = np.full((r_, self.n_ids + 1), np.iinfo(kind).max, dtype=kind)
        valid = np.arange(d_) < self.length[:, None]
        rows = np.broadcast_to(np.arange(r_)[:, None], self.docs.shape)[valid]
        pos[rows, self.docs[valid]] = np.broadcast_to(np.arange(d_), self.docs.shape)[valid]
        return pos

    @cached_property
    def has_ties(self) -> bool:
        return bool((self.top != self.bottom).any())

    def cut(self, k: int) -> TopicRankings:
        """The first k documents of each ranking; a tie group cut by k keeps its first members."""
        if k >= self.docs.shape[1]:
            return self
        return TopicRankings(self.docs[:, :k], np.minimum(self.length, k), self.top[:, :k],
                             np.minimum(self.bottom[:, :k], k - 1), self.n_ids, self.lex)


def topic_rankings(ids: Sequence[np.ndarray], scores: Sequence[np.ndarray] | None = None,
                   lex: np.ndarray | None = None) -> TopicRankings:
    """:class:`TopicRankings` from each run's document ids in ranked order (ints 0..U-1, each
    at most once per ranking) and their scores: adjacent documents with equal scores are tied
    (Corsi & Urbano, SIGIR 2024, Section 2); without scores no document is tied."""
    r_ = len(ids)
    if r_ == 0:
        raise CranfieldError("no rankings to compare")
    length = np.array([len(x) for x in ids], dtype=np.int64)
    d_ = max(int(length.max()), 1)
    u = max((int(np.max(x)) + 1 for x in ids if len(x)), default=0)
    docs = np.full((r_, d_), u, dtype=np.int32 if u < ABSENT else np.int64)
    score = np.full((r_, d_), np.nan)
    for r, x in enumerate(ids):
        docs[r, :len(x)] = x
        if scores is not None:
            score[r, :len(x)] = scores[r]
    col = np.arange(d_)
    if scores is None:
        top = np.broadcast_to(col, (r_, d_)).copy()
        return TopicRankings(docs, length, top, top.copy(), u, lex)
    start = np.ones((r_, d_), dtype=bool)
    start[:, 1:] = ~(score[:, 1:] == score[:, :-1])
    end = np.ones((r_, d_), dtype=bool)
    end[:, :-1] = start[:, 1:]
    top = np.maximum.accumulate(np.where(start, col, 0), axis=1)
    bottom = np.minimum.accumulate(np.where(end, col, d_)[:, ::-1], axis=1)[:, ::-1]
    return TopicRankings(docs, length, top, bottom, u, lex)


def _gather(a: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """``a[rows[p], cols[p, i]]`` for every pair p and position i (through flat indices: numpy's
    one-dimensional gather is several times faster than its two-dimensional one)."""
    kind = np.int32 if a.size < ABSENT else np.int64
    return a.ravel()[(rows.astype(kind) * kind(a.shape[1]))[:, None] + cols.astype(kind, copy=False)]


def _partner(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, k: int) -> np.ndarray:
    """For each pair p and each position i < k of ranking ``ia[p]``, the position of that
    document in ranking ``ib[p]``, or k when it is not among its first k; shape (P, k)."""
    docs = rk.docs[:, :k]
    if ia.size > 1 and bool((ia[1:] >= ia[:-1]).all()):  # grouped by a: one gather per run of a, rows as a view
        out = np.empty((ia.size, docs.shape[1]), dtype=rk.position.dtype)
        starts = np.flatnonzero(np.concatenate(([True], ia[1:] != ia[:-1])))
        for lo, hi in zip(starts.tolist(), [*starts[1:].tolist(), ia.size]):
            b, row = ib[lo:hi], docs[ia[lo]]
            out[lo:hi] = (rk.position[int(b[0]):int(b[-1]) + 1][:, row] if bool((np.diff(b) == 1).all())
                          else _gather(rk.position, b, np.broadcast_to(row, (b.size, row.size))))
    else:
        out = _gather(rk.position, ib, docs[ia])
    absent = np.iinfo(out.dtype).max  # every real position is below the width, itself below this
    if k < absent:
        return np.minimum(out, k, out=out)
    wide = out.astype(np.int64)
    wide[wide == absent] = k
    return wide


def overlap(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, k: int, ties: str | None = None) -> np.ndarray:
    """X_d for d = 1..k: the overlap of the first d documents of rankings ``ia[p]`` and ``ib[p]``;
    shape (P, k), float64.

    ``ties=None`` reads the rankings as ordered (ties broken as they are ordered); ``"w"`` counts a
    tied document from the top of its group; ``"a"``/``"b"`` weighs a document at depth d by its
    share of the group seen so far, c = min(1, (d - t + 1) / (b - t + 1)), and X_d is the sum of
    the products of the two rankings' shares (Corsi & Urbano, SIGIR 2024, Eqs. 7 and 10).
    """
    p_ = ia.size
    k = max(k, 1)
    j = _partner(rk, ia, ib, k)
    width = j.shape[1]
    frac = None
    if ties is None:  # a document counts from the deeper of its two positions (k: absent)
        key = np.maximum(np.arange(width, dtype=j.dtype), j)
    else:
        common = j < k
        jc = np.where(common, j, 0)
        if ties == "w":
            key = np.maximum(rk.top[ia, :width], _gather(rk.top, ib, jc))
        else:
            top_a, top_b = rk.top[ia, :width], _gather(rk.top, ib, jc)
            bot_a, bot_b = np.minimum(rk.bottom[ia, :width], k - 1), np.minimum(_gather(rk.bottom, ib, jc), k - 1)
            key = np.maximum(bot_a, bot_b)
            lo = np.maximum(top_a, top_b)
            frac = (common & (lo < key), top_a, bot_a, top_b, bot_b, lo)
        key = np.where(common, key, k)
    flat = (key + (k + 1) * np.arange(p_)[:, None]).ravel()
    counts = np.bincount(flat, minlength=p_ * (k + 1)).reshape(p_, k + 1)[:, :k]
    x = np.cumsum(counts, axis=1, dtype=np.float64)
    if frac is not None and frac[0].any():
        x += _tied_shares(k, key, *frac)
    return x


def _tied_shares(k: int, hi: np.ndarray, mask: np.ndarray, top_a: np.ndarray, bot_a: np.ndarray, top_b: np.ndarray,
                 bot_b: np.ndarray, lo: np.ndarray) -> np.ndarray:
    """The fractional contributions of common documents at the depths where one of them is
    still inside its tie group (d in [max(t), max(b))): c_a(d) · c_b(d), summed per pair and depth."""
    rows, cols = np.nonzero(mask)
    start, stop = lo[rows, cols], hi[rows, cols]
    span = stop - start
    first = np.cumsum(span) - span  # where each document's depths start in the expanded arrays

    def each(values: np.ndarray) -> np.ndarray:  # a per-document value at each of its depths
        return np.repeat(values, span)

    d = each(start) + (np.arange(int(span.sum())) - each(first))
    t_a, t_b = top_a[rows, cols], top_b[rows, cols]
    share_a = np.minimum(1.0, (d - each(t_a) + 1) / each(bot_a[rows, cols] - t_a + 1))
    share_b = np.minimum(1.0, (d - each(t_b) + 1) / each(bot_b[rows, cols] - t_b + 1))
    out = np.bincount(each(rows) * k + d, weights=share_a * share_b, minlength=hi.shape[0] * k)
    return out.reshape(hi.shape[0], k)


def rbo(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, p: float, ties: str = DEFAULT_TIES) -> dict[str, np.ndarray]:
    """RBO_ext, RBO_min, RBO_max and RBO_res (shape (P,) each) between rankings ``ia[p]`` and
    ``ib[p]`` of possibly different lengths s <= l, with ties treated as ``ties``.

    Webber, Moffat & Zobel (ACM TOIS 2010): with the agreement A_d = X_d / d,
    RBO_min = (1-p)/p (sum_{d<=l} A_d p^d + X_l (ln 1/(1-p) - sum_{d<=l} p^d/d)) (Eq. 11 for uneven
    lengths), RBO_max the bound where the unseen documents of the shorter ranking match the longer
    one's as soon as possible (Eq. 31), RBO_res = RBO_max - RBO_min and RBO_ext the extrapolation
    of the agreement at depth s (Eq. 32). Ties as Corsi & Urbano (SIGIR 2024): ``w`` counts a
    tied group as present from its top (A_d = 2 X_d / (|S_d| + |L_d|)), ``a`` gives each member the
    expected share of the group (A_d = X_d / d, the expected RBO over random tie breaking), ``b``
    divides by the norms of the shares (A_d = X_d / sqrt(sum c_S^2 sum c_L^2)), so RBO^b(X, X) = 1.
    Without ties the three are RBO.
    """
    if ties not in TIES:
        raise MeasureError(f"ties must be one of {', '.join(TIES)}. Got {ties!r} instead.")
    if not rk.has_ties:
        ties = "w"  # all three agree without ties; w is the cheapest
    la, lb = rk.length[ia], rk.length[ib]
    short_a = la < lb  # the reference's S: the shorter ranking, the second one when the lengths are equal
    rs, rl = np.where(short_a, ia, ib), np.where(short_a, ib, ia)
    s, l_ = np.minimum(la, lb), np.maximum(la, lb)
    k = int(l_.max())
    n = np.arange(1, 2 * k + 2, dtype=np.float64)
    harmonic = np.concatenate(([0.0], np.cumsum(p ** n / n)))  # sum_{d <= n} p^d / d
    geometric = np.concatenate(([0.0], np.cumsum(p ** n)))  # sum_{d <= n} p^d
    d1 = np.arange(1, k + 1, dtype=np.float64)[None, :]  # depth d = 1..k
    weight = p ** d1
    uneven = np.flatnonzero(s < l_)
    if not rk.has_ties or ties == "a":
        head, x_s, x_l = _untied_head(rk, ia, ib, k, s, l_, harmonic, p if rk.has_ties else None)
        a_s = x_s / s
        x = overlap(rk, ia[uneven], ib[uneven], k, ties if rk.has_ties else None) if uneven.size else None
    else:
        x = overlap(rk, ia, ib, k, ties)
        if ties == "a":
            a1 = x / d1
        elif ties == "w":
            count = rk.bottom + 1  # |S_d|: the documents whose group starts at or before d
            a1 = 2 * x / (_rows(count, rs, k) + _rows(count, rl, k))
        else:
            squares = _squares(rk)
            a1 = x / np.sqrt(_rows(squares, rs, k)) / np.sqrt(_rows(squares, rl, k))
        a1 = np.where(d1 <= s[:, None], a1, 0.0)
        head = np.add.reduce(a1 * weight, axis=1)  # sum_{d <= s} A_d p^d, the part of every bound
        a_s = np.take_along_axis(a1, (s - 1)[:, None], axis=1)[:, 0]  # A_s, the agreement the extrapolation keeps
        x_l = np.take_along_axis(x, (l_ - 1)[:, None], axis=1)[:, 0]  # X_l: the common documents, an integer
        x = x[uneven]
    sums = {"min": head.copy(), "max": head.copy(), "ext": head.copy()}
    if uneven.size:
        assert x is not None
        for name, value in _uneven(rk, ia[uneven], ib[uneven], rl[uneven], short_a[uneven], s[uneven],
                                   l_[uneven], x, a_s[uneven], weight, ties).items():
            sums[name][uneven] += value
    scale = (1 - p) / p
    rbo_min = scale * (sums["min"] + x_l * (np.log(1 / (1 - p)) - harmonic[l_]))
    f = (l_ + s - np.rint(x_l)).astype(np.int64)
    tail_max = 2 * (geometric[f] - geometric[l_]) - (l_ + s - x_l) * (harmonic[f] - harmonic[l_]) \
        + p ** (f + 1) / (1 - p)
    rbo_max = scale * (sums["max"] + tail_max)
    rbo_ext = scale * (sums["ext"] + (x_l + (l_ - s) * a_s) / l_ * p ** (l_ + 1) / (1 - p))
    return {"ext": rbo_ext, "min": rbo_min, "max": rbo_max, "res": rbo_max - rbo_min}


def _untied_head(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, k: int, s: np.ndarray, l_: np.ndarray,
                 harmonic: np.ndarray, p: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """sum_{d <= s} A_d p^d, X_s and X_l without building X, for A_d = X_d / d (no ties, or ties
    ``a``). An untied common document counts in X_d from the deeper of its two positions, e (1-based),
    on, so the sum over depths of X_d / d p^d is the sum over common documents of
    sum_{d=e}^{s} p^d / d = H(s) - H(e - 1). With ``p`` (the rankings have ties), the common documents
    of which one copy is tied are then corrected to their shares (:func:`_tied_corrections`)."""
    j = _partner(rk, ia, ib, k)
    key = np.maximum(np.arange(j.shape[1], dtype=j.dtype), j)  # e - 1; k when absent
    if bool((s == k).all()):  # the usual case: one table H(k) - H(e - 1), 0 for absent documents
        table = harmonic[k] - harmonic[:k + 1]
        table[k] = 0.0
        common = np.count_nonzero(j < k, axis=1).astype(np.float64)
        head, x_s, x_l = np.add.reduce(table[key], axis=1), common, common.copy()
    else:
        seen = key < s[:, None]
        head = np.add.reduce(np.where(seen, harmonic[s][:, None] - harmonic[key], 0.0), axis=1)
        x_s = np.count_nonzero(seen, axis=1).astype(np.float64)
        x_l = np.count_nonzero(key < l_[:, None], axis=1).astype(np.float64)
    if p is not None:
        _tied_corrections(rk, ia, ib, k, s, j, key, harmonic, p, head, x_s)
    return head, x_s, x_l


def _tied_corrections(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, k: int, s: np.ndarray, j: np.ndarray,
                      key: np.ndarray, harmonic: np.ndarray, p: float, head: np.ndarray, x_s: np.ndarray) -> None:
    """Add to ``head`` and ``x_s`` (in place) the difference between a tied common document's
    shares and the untied count :func:`_untied_head` gave it: with c(d) = min(1, (d - t)/(b - t + 1))
    in each ranking (1-based d, 0-based group bounds t, b), its part of sum_{d <= s} p^d X_d / d is
    H(s) - H(max b + 1) for the depths where both shares are 1, plus sum p^d / d c_a(d) c_b(d) over
    the depths where one is still inside its group (Corsi & Urbano, SIGIR 2024, Eq. 10)."""
    width = j.shape[1]
    common = j < k
    jc = np.where(common, j, 0)
    tied = rk.top != rk.bottom
    rows, cols = np.nonzero(common & (tied[ia, :width] | _gather(tied, ib, jc)))
    if rows.size == 0:
        return
    pa, pb, jj = ia[rows], ib[rows], jc[rows, cols]
    t_a, b_a = rk.top[pa, cols], np.minimum(rk.bottom[pa, cols], k - 1)
    t_b, b_b = rk.top[pb, jj], np.minimum(rk.bottom[pb, jj], k - 1)
    depth, guess = s[rows], key[rows, cols].astype(np.int64)
    lo, hi = np.maximum(t_a, t_b), np.maximum(b_a, b_b)
    untied = np.where(guess < depth, harmonic[depth] - harmonic[guess], 0.0)
    full = np.where(hi < depth, harmonic[depth] - harmonic[np.minimum(hi, depth)], 0.0)
    span = np.maximum(np.minimum(hi, depth) - lo, 0)  # 0-based depths lo .. min(hi, s) - 1

    def each(values: np.ndarray) -> np.ndarray:
        return np.repeat(values, span)

    e = each(lo) + (np.arange(int(span.sum())) - each(np.cumsum(span) - span))
    share = (np.minimum(1.0, (e - each(t_a) + 1) / each(b_a - t_a + 1))
             * np.minimum(1.0, (e - each(t_b) + 1) / each(b_b - t_b + 1)))
    part = np.bincount(each(rows), weights=p ** (e + 1.0) / (e + 1.0) * share, minlength=head.size)
    head += np.bincount(rows, weights=full - untied, minlength=head.size) + part
    last = depth - 1  # X_s: the shares at depth s
    at_s = (np.clip((last - t_a + 1) / (b_a - t_a + 1), 0.0, 1.0)
            * np.clip((last - t_b + 1) / (b_b - t_b + 1), 0.0, 1.0))
    x_s += np.bincount(rows, weights=at_s - (guess < depth), minlength=head.size)


def _squares(rk: TopicRankings) -> np.ndarray:
    """sum_i c_i(d)^2 of each ranking at each depth (ties a and b): the earlier groups count 1 each,
    the group straddling d its members' shares squared, t + (d - t + 1)^2 / (b - t + 1)."""
    col = np.arange(rk.top.shape[1])
    return rk.top + (col - rk.top + 1.0) ** 2 / (rk.bottom - rk.top + 1)


def _uneven(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, rl: np.ndarray, short_a: np.ndarray, s: np.ndarray,
            l_: np.ndarray, x: np.ndarray, a_s: np.ndarray, weight: np.ndarray, ties: str) -> dict[str, np.ndarray]:
    """sum_{s < d <= l} A_d p^d of RBO_min, RBO_max and RBO_ext for pairs of uneven lengths s < l:
    the seen overlap X_d, plus at most the d - s unseen documents of S (max), plus the agreement
    A_s extrapolated to them (ext), each divided as the tie treatment divides (Corsi & Urbano, SIGIR
    2024, Section 3.2: d + |L_d| for w, d for a, sqrt(d sum c_L^2) for b)."""
    k = x.shape[1]
    d1 = np.arange(1, k + 1, dtype=np.float64)[None, :]
    sec2 = (d1 > s[:, None]) & (d1 <= l_[:, None])
    unseen = d1 - s[:, None]
    grown, share = (unseen, np.ones_like(x)) if ties == "w" or not rk.has_ties else \
        _unseen_shares(rk, ia, ib, rl, short_a, s, k, unseen)
    if ties == "w":
        den = (d1 + _rows(rk.bottom + 1, rl, k)) / 2
    elif ties == "a":
        den = np.broadcast_to(d1, x.shape)
    else:
        den = np.sqrt(d1) * np.sqrt(_rows(_squares(rk), rl, k))
    den = np.where(sec2, den, 1.0)
    out = {}
    for name, num in (("min", x), ("max", x + grown), ("ext", x + unseen * a_s[:, None] * share)):
        out[name] = np.add.reduce(np.where(sec2, num / den, 0.0) * weight, axis=1)
    return out


def _rows(a: np.ndarray, rows: np.ndarray, k: int) -> np.ndarray:
    """``a[rows[p], :k]``, padded by repeating the last column when a is narrower."""
    out = a[rows, :k]
    if out.shape[1] < k:
        out = np.concatenate([out, np.repeat(out[:, -1:], k - out.shape[1], axis=1)], axis=1)
    return out


def _unseen_shares(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, rl: np.ndarray, short_a: np.ndarray,
                   s: np.ndarray, k: int, unseen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For depths d in (s, l] with shares (ties a and b): the overlap the unseen part of S can
    add at most, sum_{j <= d-s} c_L(u_j, d) over the documents u_j of L not in S in L's order,
    and the mean non-zero share c_L(u, d) of those documents (the extrapolation's weight of an
    unseen match). Only the tie group of L that straddles d holds shares below 1."""
    in_a = _partner(rk, ia, ib, k) < k  # is the document at each position of a also in b?
    in_b = _partner(rk, ib, ia, k) < k
    width = min(k, rk.docs.shape[1])
    own = ~np.where(short_a[:, None], in_b[:, :width], in_a[:, :width])  # L's documents not in S
    own &= np.arange(width) < rk.length[rl][:, None]
    before = np.concatenate([np.zeros((own.shape[0], 1), np.int64), np.cumsum(own, axis=1)], axis=1)
    d0 = np.arange(width)
    top, bottom = rk.top[rl, :width], rk.bottom[rl, :width]
    straddle = bottom > d0
    ramp = (d0 - top + 1) / (bottom - top + 1)
    done = np.take_along_axis(before, top, axis=1)  # L-only documents before the group
    members = np.take_along_axis(before, bottom + 1, axis=1) - done
    pad = k - width
    count = np.clip(d0 + 1 - s[:, None] - done, 0, members)  # of the first d - s L-only documents, those in the group
    grown = (d0 + 1 - s[:, None]) - np.where(straddle, count * (1 - ramp), 0.0)
    share = np.where(straddle, (done + members * ramp) / np.maximum(done + members, 1), 1.0)
    if pad:
        grown = np.concatenate([grown, unseen[:, width:]], axis=1)
        share = np.concatenate([share, np.ones((share.shape[0], pad))], axis=1)
    return grown, share


def normalised_rbo(x: np.ndarray, k: int, p: float) -> np.ndarray:
    """repro_eval's RBO at depth k from the overlaps X_1..X_k (shape (P, >=k)):
    ``sum_{d=1}^{k} p^(d-1) X_d / d / sum_{d=1}^{k} p^(d-1)`` (Breuer et al., SIGIR 2020, after
    Clarke et al.'s compatibility code): a truncated RBO normalised by its largest value, so two
    equal top-k rankings score 1. It is not Webber's RBO_ext, which extrapolates past depth k."""
    d = np.arange(1, k + 1, dtype=np.float64)
    weight = p ** (d - 1)
    return np.add.reduce(x[:, :k] / d * weight, axis=1) / np.add.reduce(weight)


def jaccard(x: np.ndarray, k: int, len_a: np.ndarray, len_b: np.ndarray) -> np.ndarray:
    """|A_k ∩ B_k| / |A_k ∪ B_k| of the first k documents (Jaccard, 1912), from the overlap X_k."""
    both = x[:, k - 1]
    union = np.minimum(len_a, k) + np.minimum(len_b, k) - both
    return both / union


def ktu(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, k: int) -> np.ndarray:
    """Kendall's tau union at k as repro_eval computes it (Breuer et al., SIGIR 2020): each of the
    first k documents of both rankings is replaced by its place in the sorted (byte order) union,
    and Kendall's tau_b (scipy's ``kendalltau``) is taken between the two sequences position by
    position: pair i of the sample is (place of a's i-th document, place of b's i-th document).
    Both sequences hold distinct values, so tau = 1 - 4 D / (m (m - 1)) with D the discordant
    position pairs and m the common length; when a ranking has fewer than k documents both are cut
    to m = min(k, |a|, |b|) (repro_eval fails on unequal lengths); NaN for m < 2."""
    if rk.lex is None:
        raise CranfieldError("KTU needs the documents' byte order (TopicRankings.lex)")
    m = np.minimum(np.minimum(rk.length[ia], rk.length[ib]), k)
    width = int(m.max(initial=0))
    out = np.full(ia.size, np.nan)
    if width < 2:
        return out
    lex = np.append(rk.lex, -1)  # the padding id
    xa = lex[rk.docs[ia, :width]]
    xb = lex[rk.docs[ib, :width]]
    upper = np.triu(np.ones((width, width), dtype=bool), 1)
    step = max(1, (1 << 22) // (width * width))
    discordant = np.empty(ia.size, dtype=np.int64)
    for lo in range(0, ia.size, step):  # blocks of pairs under 4M cells
        a, b = xa[lo:lo + step], xb[lo:lo + step]
        disc = (a[:, :, None] < a[:, None, :]) != (b[:, :, None] < b[:, None, :])
        disc &= upper
        per_j = disc.sum(axis=1)  # discordant pairs (i < j) ending at each j
        cum = np.cumsum(per_j, axis=1)
        mm = m[lo:lo + step]
        discordant[lo:lo + step] = np.take_along_axis(cum, np.maximum(mm - 1, 0)[:, None], axis=1)[:, 0]
    ok = m >= 2
    out[ok] = 1 - 4 * discordant[ok] / (m[ok] * (m[ok] - 1.0))
    return out


# --------------------------------------------------------------------------- the catalogue
# Kernels ``kernel(rankings, ia, ib, **params) -> (P,)``: one value per pair of rankings.
def rbo_kernel(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, *, p: float, variant: str, ties: str,
               cutoff: int | None) -> np.ndarray:
    """:func:`rbo`'s ``variant`` of the rankings cut at ``cutoff`` (the whole rankings for None)."""
    return rbo(rk.cut(cutoff) if cutoff is not None else rk, ia, ib, p, ties)[variant]


def nrbo_kernel(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, *, p: float, cutoff: int) -> np.ndarray:
    """:func:`normalised_rbo` at depth ``cutoff``."""
    return normalised_rbo(overlap(rk, ia, ib, cutoff), cutoff, p)


def ktu_kernel(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, *, cutoff: int) -> np.ndarray:
    """:func:`ktu` at ``cutoff``."""
    return ktu(rk, ia, ib, cutoff)


def jaccard_kernel(rk: TopicRankings, ia: np.ndarray, ib: np.ndarray, *, cutoff: int) -> np.ndarray:
    """:func:`jaccard` at ``cutoff``."""
    return jaccard(overlap(rk, ia, ib, cutoff), cutoff, rk.length[ia], rk.length[ib])


def _persistence(default: float) -> Param:
    return Param("p", "float", default, "persistence: depth d weighs p^(d-1)", low=0.0, high=1.0, open_low=True,
                 open_high=True)


SIMILARITIES: dict[str, MeasureSpec] = {spec.name: spec for spec in (
    MeasureSpec("RBO", rbo_kernel, (
        _persistence(0.9),
        Param("variant", "choice", "ext", "ext (extrapolated), min (lower bound), max (upper bound) or res "
              "(residual, max - min)", choices=VARIANTS),
        Param("ties", "choice", DEFAULT_TIES, "w: ties as equality; a: expected value over random tie breaking; "
              "b: a corrected for the information ties lose", choices=TIES),
        cutoff_param("both rankings cut at k first")),
        "Webber, Moffat & Zobel, ACM TOIS 2010, Eqs. 11, 30-32; Corsi & Urbano, SIGIR 2024",
        "rank-biased overlap of two rankings"),
    MeasureSpec("nRBO", nrbo_kernel, (_persistence(0.95), cutoff_param()),
                "Breuer et al., SIGIR 2020 (repro_eval's RBO)",
                "rank-biased overlap truncated at depth k and divided by its largest value", cutoff="required"),
    MeasureSpec("KTU", ktu_kernel, (cutoff_param(),), "Breuer et al., SIGIR 2020 (repro_eval)",
                "Kendall's tau union of the first k documents, as repro_eval computes it", cutoff="required",
                value_range=(-1.0, 1.0)),
    MeasureSpec("Jaccard", jaccard_kernel, (cutoff_param(),), "Jaccard, 1912",
                "size of the intersection over size of the union of the first k documents", cutoff="required"),
)}


def lookup_similarity(name: str) -> MeasureSpec:
    """The similarity called ``name`` (case-insensitive when unambiguous)."""
    folded = [k for k in SIMILARITIES if k.lower() == name.lower()]
    if name in SIMILARITIES or len(folded) == 1:
        return SIMILARITIES[name if name in SIMILARITIES else folded[0]]
    if name in REGISTRY:
        raise MeasureError(f"{name} scores a ranking against qrels, not two rankings against each other (the "
                           f"similarities: {', '.join(SIMILARITIES)})")
    close = difflib.get_close_matches(name, list(SIMILARITIES), n=2, cutoff=0.5)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise MeasureError(f"Unknown similarity {name!r}.{hint} (the similarities: {', '.join(SIMILARITIES)})")


def parse_similarity(text: str | Measure) -> Measure:
    """A similarity from its name, in the measure grammar of :mod:`cranfield.measures.registry`:
    ``RBO``, ``RBO(p=0.95,variant=min,ties=w)@100``, ``nRBO@10``, ``KTU@10``, ``Jaccard@10``.

    Raises
    ------
    MeasureError
        For an unknown name or parameter, a value out of its range, a missing or refused cutoff.
    """
    if isinstance(text, Measure):
        if text.spec is not SIMILARITIES.get(text.spec.name):
            raise MeasureError(f"{text} is not a similarity (the similarities: {', '.join(SIMILARITIES)})")
        return text
    return parse_measure(text, catalogue=lookup_similarity)
