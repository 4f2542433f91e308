"""Shared pieces of the meta-evaluation code: the equality rule, random generators and the
per-block random streams of the resampling tests, checks of user parameters, pair enumeration
and memory-bounded chunking."""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from cranfield._numeric import CHUNK_CELLS, RELATIVE_TOLERANCE, equal
from cranfield._parallel import block_seeds
from cranfield._parallel import chunks as parallel_chunks
from cranfield.errors import check_float, check_int, invalid
from cranfield.meta.registry import MAX_SAMPLES

# Resamples per random stream (docs/scaling.md#streams): resample b of a test belongs to block
# b // RESAMPLE_BLOCK, whose draws come from the block's own SeedSequence child of the seed.
RESAMPLE_BLOCK = 250



def lower_bound(b: np.ndarray) -> np.ndarray:
    """The smallest a >= 0 that :func:`at_least` (a, b) accepts, for b >= 0: a >= b or, below b,
    b − a <= 1e-12·max(1, b). Comparing with it costs one pass over a large array."""
    return b - RELATIVE_TOLERANCE * np.maximum(1.0, b)


def at_least(a: Any, b: Any) -> np.ndarray:
    """``a >= b`` where ``a`` and ``b`` that are equal under the rule of docs/conventions.md#equality count as
    equal, so a
    statistic that equals the observed one mathematically counts whatever the rounding."""
    return (np.asarray(a) > np.asarray(b)) | equal(a, b)


def greater(a: Any, b: Any) -> np.ndarray:
    """``a > b`` and not equal under the rule of docs/conventions.md#equality."""
    return (np.asarray(a) > np.asarray(b)) & ~equal(a, b)


def count_at_least(sorted_values: np.ndarray, thresholds: np.ndarray, strict: bool = False) -> np.ndarray:
    """For each threshold d, how many of the ascending ``sorted_values`` v satisfy
    :func:`at_least` (v, d) (or :func:`greater` with ``strict``).

    Both predicates are monotone in v for v, d >= 0, so a vectorised bisection finds the first
    value that satisfies them: O(len(thresholds) · log len(sorted_values)).
    """
    test = greater if strict else at_least
    n = sorted_values.size
    lo = np.zeros(thresholds.shape, dtype=np.int64)
    hi = np.full(thresholds.shape, n, dtype=np.int64)
    while (open_ := lo < hi).any():
        mid = (lo + hi) // 2
        ok = test(sorted_values[np.minimum(mid, n - 1)], thresholds)
        hi = np.where(open_ & ok, mid, hi)
        lo = np.where(open_ & ~ok, mid + 1, lo)
    return n - lo


def make_rng(rng: Any) -> np.random.Generator:
    """``numpy.random.default_rng(rng)``: an int seeds a fresh PCG64 generator, a Generator is
    used (and advanced) as is, None draws fresh entropy. A seed is an integer >= 0."""
    if rng is None or isinstance(rng, np.random.Generator):
        return np.random.default_rng(rng)
    return np.random.default_rng(_check_seed(rng))


def _check_seed(rng: Any) -> int:
    if isinstance(rng, (bool, np.bool_)) or not isinstance(rng, (int, np.integer)):
        raise invalid("seed", "an integer >= 0, a numpy Generator or None", rng)
    return check_int(rng, "seed", low=0)


class ResampleBlock(NamedTuple):
    """Resamples ``resamples`` of a test and the random stream they are drawn from."""

    resamples: slice
    seed: np.random.SeedSequence

    @property
    def size(self) -> int:
        return self.resamples.stop - self.resamples.start

    def generator(self) -> np.random.Generator:
        """A fresh PCG64 generator on this block's stream."""
        return np.random.default_rng(self.seed)


def root_seed(rng: Any) -> np.random.SeedSequence:
    """The SeedSequence every resample block derives from: ``SeedSequence(seed)`` for an int;
    for a Generator, a SeedSequence of four 64-bit words drawn from it (so it is advanced, and
    equal states give equal results); fresh entropy for None. A seed is an integer >= 0."""
    if rng is None:
        return np.random.SeedSequence()
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4, dtype=np.int64).tolist())
    return np.random.SeedSequence(_check_seed(rng))


def resample_blocks(n_resamples: int, rng: Any) -> list[ResampleBlock]:
    """Resamples 0..B−1 cut into blocks of :data:`RESAMPLE_BLOCK`, block k drawing from the
    k-th ``SeedSequence.spawn`` child of :func:`root_seed` (``rng``): the draws of a resample
    depend on the seed and its place b only, never on where or in which order blocks run."""
    slices = parallel_chunks(n_resamples, RESAMPLE_BLOCK)
    return [ResampleBlock(sl, seed) for sl, seed in zip(slices, block_seeds(root_seed(rng), len(slices)))]


def check_alpha(alpha: Any, *, text: bool = False) -> float:
    """The significance level α, a number in the open interval (0, 1) (given as ``text``: the command line's)."""
    return check_float(alpha, "significance level alpha", low=0, high=1, open_low=True, open_high=True, text=text)


def check_count(value: Any, what: str, *, text: bool = False) -> int:
    """A number of sampled topic pairs or of the resamples of an interval: an integer in [1,
    :data:`MAX_SAMPLES`] (given as ``text``: the command line's). A test's B:
    :func:`cranfield.meta.registry.check_resamples`."""
    return check_int(value, what, low=1, high=MAX_SAMPLES, text=text)


def chunks(n: int, cells_per_item: int, budget: int = CHUNK_CELLS) -> list[slice]:
    """Consecutive slices of ``range(n)`` holding at most ``budget`` cells each (at least one item)."""
    size = max(1, budget // max(1, cells_per_item))
    return [slice(a, min(a + size, n)) for a in range(0, n, size)]


def all_pairs(n_systems: int) -> np.ndarray:
    """Every unordered pair (i, j), i < j, in the order (0, 1), (0, 2), ..., (S-2, S-1); shape (P, 2)."""
    i, j = np.triu_indices(n_systems, 1)
    return np.stack([i, j], axis=1)


def baseline_pairs(n_systems: int, baseline: int) -> np.ndarray:
    """The pairs (s, baseline) for every other system s, in system order; shape (S-1, 2)."""
    others = np.array([s for s in range(n_systems) if s != baseline], dtype=np.int64)
    return np.stack([others, np.full_like(others, baseline)], axis=1)
