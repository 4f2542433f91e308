"""Axiomatic-analysis benchmark: every ranking scored in one vectorised batch vs one by one.

1. h = 10, m = 2 (88,573 rankings): all of Albahem et al.'s (ADCS 2018) properties for the ndeval measures and
   the Cube Test family, timed end to end.
2. h = 14, m = 2 (7,174,453 rankings) for alpha-nDCG@10: time and peak memory (ru_maxrss).
3. The paper's way: each ranking scored separately through pyndeval (ndeval 4.5), timed on a
   sample and extrapolated to the same rankings: to the 88,573 of h = 10 scored once for one measure (less
   than part 1 does: 13 measures, every property checked, Induction's 742,810 induced pairs included)
   and to the 7.2 M of h = 14.

    python benchmarks/bench_axioms.py
"""

from __future__ import annotations

import resource
import time
import warnings

import numpy as np

from cranfield.analysis.axioms import Space, check_space, score_space, synthetic_topics
from cranfield.measures.registry import parse_measure

DIVERSITY = ["alpha_nDCG@10", "ERR_IA@10", "nERR_IA@10", "NRBP", "nNRBP", "AP_IA", "P_IA@10", "StRecall@10",
             "D#-nDCG@10", "P+Q#@10", "CT", "nCT", "ACT"]


def pyndeval_per_ranking(space: Space, sample: int, relevant: int) -> float:
    """Seconds per ranking when each is written as a run and scored by pyndeval."""
    import pyndeval

    qrels = [("1", str(a), f"a{a}-{k}", 1) for a in range(1, space.aspects + 1) for k in range(relevant)]
    ev = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@10"])
    rng = np.random.default_rng(0)
    picks = rng.integers(1, space.size, size=sample)
    t0 = time.perf_counter()
    for i in picks:
        word = space.word(int(i)).split(".")
        seen: dict = {}
        run = []
        for r, ch in enumerate(word):
            if ch == "x":
                doc = f"x{r}"
            else:
                aspect = "abcdefghijklmnopqrstuvw".index(ch) + 1
                doc = f"a{aspect}-{seen.setdefault(aspect, 0)}"
                seen[aspect] += 1
            run.append(("1", doc, float(len(word) - r)))
        ev.evaluate(run)
    return (time.perf_counter() - t0) / sample


def main() -> None:
    warnings.simplefilter("ignore")
    t0 = time.perf_counter()
    checks = check_space(DIVERSITY, depth=10, aspects=2, relevant_per_aspect=10, progress_bar=False)
    t_all = time.perf_counter() - t0
    violated = sorted({c.measure for c in checks if c.violations})
    print(f"h = 10, m = 2: {Space(10, 2).size:,} rankings, {len(DIVERSITY)} measures × 4 properties: "
          f"{t_all:.1f} s (violations: {', '.join(violated)})")

    big = Space(14, 2)
    t0 = time.perf_counter()
    scores = score_space(parse_measure("alpha_nDCG@10"), big, synthetic_topics(2, 14), progress_bar=False)
    t_big = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"h = 14, m = 2: {big.size:,} rankings scored with alpha-nDCG@10 in {t_big:.1f} s, "
          f"peak memory {peak:,.0f} MB (max score {scores.max():.4f})")

    per = pyndeval_per_ranking(Space(10, 2), 2000, 10)
    print(f"\n{'method':<52}{'seconds':>12}{'ratio':>10}")
    print("-" * 74)
    small = Space(10, 2).size
    print(f"{f'cranfield, h = 10: {len(DIVERSITY)} measures x 4 properties':<52}{t_all:>12.1f}{1.0:>9.0f}x")
    print(f"{'pyndeval scoring those rankings once (extrapolated)':<52}{per * small:>12.1f}"
          f"{per * small / t_all:>9.1f}x")
    one = t_big / big.size
    print(f"{'cranfield, h = 14 (7.2 M rankings, one batch stream)':<52}{t_big:>12.1f}{1.0:>9.0f}x")
    print(f"{'pyndeval one ranking at a time (extrapolated)':<52}{per * big.size:>12.0f}{per / one:>9.0f}x")
    print(f"(pyndeval timed on 2,000 sampled rankings: {per * 1e6:.0f} µs each; cranfield {one * 1e6:.2f} µs each)")


if __name__ == "__main__":
    main()
