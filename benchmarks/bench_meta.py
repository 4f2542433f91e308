"""Meta-evaluation benchmark: discriminative power for 100 systems × 50 topics (4,950 pairs).

Times, in one process and on one seeded score matrix,

- cranfield's bootstrap test (B = 1,000) and randomised Tukey HSD (B = 5,000) over all pairs,
  against a per-pair loop written the way published scripts do it (Sakai, WWW 2012, Figures 2 and 4
  translated line by line: one pair at a time, one resample at a time). The loops are timed
  on a sample (``--loop-pairs`` pairs of the bootstrap, ``--loop-resamples`` resamples of
  Tukey HSD) and extrapolated linearly; on that sample their ASLs are checked against
  cranfield's, which are fed the same random draws;
- cranfield's paired t-test and Fisher randomisation test (B = 1,000) against ranx's
  ``compare`` for the tests ranx offers ("student", "fisher"): the timed ranx call is
  ``compute_statistical_significance``, the stage of ``compare`` that runs the tests on the
  per-topic scores (it tests every unordered pair twice, as control and as treatment: 9,900
  tests). ranx's "tukey" is scipy's parametric unpaired test, a different test: not compared.
- cranfield's exact sign test over all pairs against a loop of ``scipy.stats.binomtest`` over
  the pairs (p-values equal within 1e-11: scipy sums floating-point probabilities).

    python benchmarks/bench_meta.py                  # the full benchmark (~30 s on 2 cores)
    python benchmarks/bench_meta.py --systems 30     # quicker
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib.metadata import version
from itertools import combinations
from typing import Any

import numpy as np

from _timing import best_time
from cranfield.meta import discriminative_power, randomization_test, sign_test, t_test


def score_matrix(topics: int, systems: int, seed: int = 0) -> np.ndarray:
    """Seeded AP-like scores in [0, 1]: topic difficulty + system strength + noise, 4 decimals."""
    rng = np.random.default_rng(seed)
    difficulty = rng.beta(2, 5, size=(topics, 1))
    strength = np.sort(rng.normal(0, 0.05, size=(1, systems)))
    noise = rng.normal(0, 0.08, size=(topics, systems))
    return np.round(np.clip(difficulty + strength + noise, 0, 1), 4)



# --------------------------------------------------------------------------- per-pair loops
BLOCK = 250  # resamples per random stream (docs/scaling.md#streams)


def streams(seed: int, b: int) -> list[np.random.Generator]:
    """One generator per block of BLOCK resamples: the children of SeedSequence(seed), in order."""
    return [np.random.default_rng(c) for c in np.random.SeedSequence(seed).spawn(-(-b // BLOCK))]

def bootstrap_draws(n: int, b: int, seed: int) -> np.ndarray:
    """The (B, T) topics drawn by the B resamples, block by block (docs/scaling.md#streams)."""
    return np.concatenate([stream.integers(0, n, (min(BLOCK, b - start), n))
                           for start, stream in zip(range(0, b, BLOCK), streams(seed, b))])


def loop_bootstrap(x: np.ndarray, pairs: list[tuple[int, int]], b: int, seed: int) -> list[float]:
    """Sakai, WWW 2012, Figure 2, one pair and one resample at a time (draws as in docs/scaling.md#streams)."""
    n = x.shape[0]
    idx = bootstrap_draws(n, b, seed)
    asl = []
    for i, j in pairs:
        z = x[:, i] - x[:, j]
        t_z = abs(z.mean() / (z.std(ddof=1) / np.sqrt(n)))
        at_least = t_z - 1e-12 * max(1.0, t_z)  # ">=" under the rule of docs/conventions.md#equality
        w = z - z.mean()
        count = 0
        for r in range(b):
            w_b = w[idx[r]]
            sd = w_b.std(ddof=1)
            t_b = w_b.mean() / (sd / np.sqrt(n)) if sd > 0 else (0.0 if w_b.mean() == 0 else np.inf)
            if abs(t_b) >= at_least:
                count += 1
        asl.append(count / b)
    return asl


def loop_tukey(x: np.ndarray, b: int, seed: int) -> np.ndarray:
    """Sakai, WWW 2012, Figure 4: for each resample, permute every topic's row, then loop over pairs."""
    n, s = x.shape
    blocks = streams(seed, b)
    means = x.mean(axis=0)
    pairs = list(combinations(range(s), 2))
    diffs = [abs(means[i] - means[j]) for i, j in pairs]
    at_least = [d - 1e-12 * max(1.0, d) for d in diffs]  # ">=" under the rule of docs/conventions.md#equality
    count = np.zeros(len(pairs))
    for r in range(b):
        keys = blocks[r // BLOCK].random((n, s))
        x_b = np.empty_like(x)
        for t in range(n):
            x_b[t] = x[t, np.argsort(keys[t], kind="stable")]
        m_b = x_b.mean(axis=0)
        spread = m_b.max() - m_b.min()
        for k in range(len(pairs)):
            if spread >= at_least[k]:
                count[k] += 1
    return count / b


# --------------------------------------------------------------------------- numpy loops
def numpy_bootstrap(x: np.ndarray, pairs: list[tuple[int, int]], b: int, seed: int) -> list[float]:
    """Figure 2 as a researcher writes it with numpy: a loop over pairs, each pair's B resamples
    drawn as one (B, T) array (the same draws as :func:`loop_bootstrap`)."""
    draws, root_n = bootstrap_draws(x.shape[0], b, seed), np.sqrt(x.shape[0])
    asl = []
    for z in (x[:, i] - x[:, j] for i, j in pairs):
        observed = abs(z.mean() / (z.std(ddof=1) / root_n))
        resampled = (z - z.mean())[draws]  # (B, T): every resample of the pair at once
        mean, sd = resampled.mean(axis=1), resampled.std(axis=1, ddof=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            t_b = np.where(sd > 0, mean / (sd / root_n), np.where(mean == 0, 0.0, np.inf))
        asl.append(float(np.mean(np.abs(t_b) >= observed - 1e-12 * max(1.0, observed))))
    return asl


def numpy_tukey(x: np.ndarray, b: int, seed: int) -> np.ndarray:
    """Figure 4 as a researcher writes it with numpy: a loop over resamples, each permuting all
    topics' rows at once and comparing its range with every pair's difference at once."""
    n, s = x.shape
    blocks = streams(seed, b)
    means = x.mean(axis=0)
    i, j = np.triu_indices(s, 1)
    diffs = np.abs(means[i] - means[j])
    at_least = diffs - 1e-12 * np.maximum(1.0, diffs)
    count = np.zeros(len(diffs))
    for r in range(b):
        keys = blocks[r // BLOCK].random((n, s))
        m_b = np.take_along_axis(x, np.argsort(keys, axis=1, kind="stable"), axis=1).mean(axis=0)
        count += (m_b.max() - m_b.min()) >= at_least
    return count / b


# --------------------------------------------------------------------------- ranx
def ranx_tests(x: np.ndarray, test: str, b: int) -> Any:
    from ranx.statistical_tests import compute_statistical_significance

    names = [f"run{s:03d}" for s in range(x.shape[1])]
    scores = {name: {"ap": np.ascontiguousarray(x[:, s])} for s, name in enumerate(names)}
    return compute_statistical_significance(names, scores, test, b, 0.05, 42)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--systems", type=int, default=100)
    ap.add_argument("--loop-pairs", type=int, default=30, help="bootstrap pairs timed in the loop")
    ap.add_argument("--loop-resamples", type=int, default=1000, help="Tukey resamples timed in the loop")
    ap.add_argument("--repeat", type=int, default=5, help="cranfield timings: best of this many")
    ap.add_argument("--no-ranx", action="store_true")
    args = ap.parse_args(argv)

    x = score_matrix(args.topics, args.systems)
    pairs = list(combinations(range(args.systems), 2))
    print(f"# {args.topics} topics × {args.systems} systems = {len(pairs)} pairs; numpy {np.__version__}, "
          f"cranfield {version('cranfield')}" + ("" if args.no_ranx else f", ranx {version('ranx')}"))
    rows = []

    # bootstrap, B = 1,000
    t_boot, dp_boot = best_time(lambda: discriminative_power(x, test="bootstrap", n_resamples=1000, rng=1),
                                args.repeat)
    sample = [pairs[k] for k in np.linspace(0, len(pairs) - 1, args.loop_pairs).astype(int)]
    t0 = time.perf_counter()
    loop_asl = loop_bootstrap(x, sample, 1000, 1)
    t_loop = (time.perf_counter() - t0) * len(pairs) / len(sample)
    where = {p: k for k, p in enumerate(pairs)}
    same = np.array_equal(loop_asl, dp_boot.result.pvalue[[where[p] for p in sample]])
    rows.append(("bootstrap B=1000 (Fig. 2)", t_boot, t_loop, f"{len(sample)} pairs", same, None))
    t0 = time.perf_counter()
    numpy_asl = numpy_bootstrap(x, pairs, 1000, 1)
    numpy_boot = time.perf_counter() - t0
    same_numpy = [np.array_equal(numpy_asl, dp_boot.result.pvalue)]

    # Tukey HSD, B = 5,000
    t_tukey, dp_tukey = best_time(
        lambda: discriminative_power(x, test="tukey-randomised", n_resamples=5000, rng=1), args.repeat)
    t0 = time.perf_counter()
    loop_asl = loop_tukey(x, args.loop_resamples, 1)
    t_loop = (time.perf_counter() - t0) * 5000 / args.loop_resamples
    from cranfield.meta import tukey_hsd

    same = np.array_equal(loop_asl, tukey_hsd(x, n_resamples=args.loop_resamples, rng=1).pvalue)
    rows.append(("Tukey HSD B=5000 (Fig. 4)", t_tukey, t_loop, f"{args.loop_resamples} resamples", same, None))
    t0 = time.perf_counter()
    numpy_asl = numpy_tukey(x, 5000, 1)
    numpy_tukey_s = time.perf_counter() - t0
    same_numpy.append(np.array_equal(numpy_asl, dp_tukey.result.pvalue))

    # the sign test, against scipy's binomial test pair by pair
    from scipy import stats

    t_sign, sign = best_time(lambda: sign_test(x), args.repeat)
    t0 = time.perf_counter()
    scipy_p = [stats.binomtest(int((x[:, i] > x[:, j]).sum()), int((x[:, i] != x[:, j]).sum())).pvalue
               for i, j in pairs]
    t_loop = time.perf_counter() - t0
    rows.append(("sign test vs scipy binomtest", t_sign, t_loop, "all pairs",
                 np.allclose(sign.pvalue, scipy_p, rtol=1e-11, atol=0), None))

    # the tests ranx offers
    t_t, _ = best_time(lambda: t_test(x), args.repeat)
    t_r, _ = best_time(lambda: randomization_test(x, n_resamples=1000, rng=1), args.repeat)
    ranx_t = ranx_f = None
    if not args.no_ranx:
        ranx_tests(x[:, :3], "fisher", 10)  # numba compilation, not timed
        ranx_t, _ = best_time(lambda: ranx_tests(x, "student", 1000), 1)
        ranx_f, _ = best_time(lambda: ranx_tests(x, "fisher", 1000), 1)
    rows.append(("paired t-test", t_t, None, "", None, ranx_t))
    rows.append(("randomisation B=1000", t_r, None, "", None, ranx_f))

    head = ["task", "cranfield s", "per-pair loop s", "loop/cranfield", "loop timed on", "same ASLs",
            "ranx s", "ranx/cranfield"]
    body = []
    for task, ours, loop, sample_note, same, ranx in rows:
        body.append([
            task, f"{ours:.3f}", "" if loop is None else f"{loop:.1f}", "" if loop is None else f"{loop / ours:.0f}×",
            sample_note, "" if same is None else ("yes" if same else "NO"),
            "" if ranx is None else f"{ranx:.2f}", "" if ranx is None else f"{ranx / ours:.0f}×",
        ])
    widths = [max(len(r[c]) for r in [head, *body]) for c in range(len(head))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(head, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in body:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    for task, ours, loop, same_asl in [("bootstrap B=1000", t_boot, numpy_boot, same_numpy[0]),
                                       ("Tukey HSD B=5000", t_tukey, numpy_tukey_s, same_numpy[1])]:
        print(f"# {task}: cranfield {ours:.3f} s, the numpy loop over {'pairs' if 'boot' in task else 'resamples'} "
              f"{loop:.3f} s: cranfield/numpy = {ours / loop:.2f} (same ASLs: {'yes' if same_asl else 'NO'})")
    print(f"# discriminative power: bootstrap {dp_boot.power:.3f} (Δ = {dp_boot.delta:.4f}), "
          f"Tukey HSD {dp_tukey.power:.3f} (Δ = {dp_tukey.delta:.4f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
