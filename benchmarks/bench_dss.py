"""Document selection sensitivity benchmark: all N permutations as one batch vs one at a time.

DSS (Golbus, Aslam & Clarke, Inf. Retr. 2013, §7) with N = 1,000 permutations per topic for 100 topics, 20 diversity
measures and cutoffs 5, 10, 20, on the seeded diversity qrels of ``bench_ndeval.py`` (100 topics with 3–6
intents, ~150–400 judged documents each; written to ``benchmarks/_work/``). cranfield scores the
N permutations of a block of topics as one :class:`~cranfield.Batch` per cutoff and measure.
The naive way builds a one-ranking batch for every permutation and calls the same kernels: it
is timed on every permutation of one topic at one cutoff (N × 20 calls) and extrapolated to
all topics and cutoffs (it would take tens of minutes); on that topic the two must give the same
DSS for every measure.

    python benchmarks/bench_dss.py            # N = 1000, 100 topics, 20 measures, k = 5, 10, 20
    python benchmarks/bench_dss.py --n 200 --topics 20
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import cranfield  # noqa: E402
from bench_ndeval import make_data  # noqa: E402
from cranfield import Batch  # noqa: E402
from cranfield.analysis.dss import at_cutoff, coefficient_of_variation, dss, random_prefixes  # noqa: E402
from cranfield.evaluation.collection import load_collection  # noqa: E402

MEASURES = [
    "alpha_nDCG", "ERR_IA", "nERR_IA", "StRecall", "nDCG_IA", "P_IA", "AP_IA", "nNRBP", "D#-nDCG", "D#-ERR",
    "alpha#-IA(subtopics=cascade)", "alpha#-IA", "alpha#-IA(subtopics=geom)", "alpha#-IA(subtopics=smr)",
    "alpha#-IA(discount=err,subtopics=cascade)", "alpha#-IA(discount=err,subtopics=geom)",
    "alpha#-IA(discount=rbp)", "alpha#-IA(discount=rbp,subtopics=smr)", "alpha#-IA(lambda=0.2,alpha=0.5)",
    "IA(ERR)",
]


def one_at_a_time(coll, topic: int, n: int, seed: int, k: int, measures: list[str]) -> tuple[np.ndarray, float]:
    """DSS of one topic at one cutoff, scoring each permutation alone (the draws of ``dss``)."""
    topics = coll.topics
    rng = np.random.default_rng(seed)
    for t in range(topic + 1):  # replay the draws of the topics before this one
        docs = topics.rel_docs[t][(topics.rel_docs[t] >= 1).any(axis=1)]
        if docs.shape[0]:
            idx = random_prefixes(rng, docs.shape[0], n, 20)
    one = topics.take(slice(topic, topic + 1))  # kept: cached ideals are reused across permutations
    parsed = [at_cutoff(m, k) for m in measures]
    scores = np.zeros((len(parsed), n))
    t0 = time.perf_counter()
    for j in range(n):
        batch = Batch.from_labels(docs[idx[j, :k]][None, None], one)
        for m, measure in enumerate(parsed):
            scores[m, j] = measure(batch)[0, 0]
    return coefficient_of_variation(scores, axis=1), time.perf_counter() - t0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--topics", type=int, default=100)
    p.add_argument("--n", type=int, default=1000, help="permutations per topic")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sample-topic", type=int, default=0, help="the topic timed one permutation at a time")
    a = p.parse_args()
    qrels, _ = make_data(HERE / "_work" / f"dss_t{a.topics}_s0", runs=0, topics=a.topics, docs=1000, seed=0)
    warnings.simplefilter("ignore")
    coll = load_collection(str(qrels), diversity=True)
    ks = [5, 10, 20]
    r = (coll.topics.rel_docs >= 1).any(axis=2).sum(axis=1)
    print(f"cranfield {cranfield.__version__}; {coll.n_topics} topics (R = {r.min()}..{r.max()} relevant documents, "
          f"{coll.weights.shape[1]} intents at most); N = {a.n}; {len(MEASURES)} measures; k = 5, 10, 20")

    t0 = time.perf_counter()
    result = dss(coll, MEASURES, k=ks, n=a.n, seed=a.seed, progress_bar=False)
    fast = time.perf_counter() - t0

    k, t = 10, a.sample_topic
    expected, spent = one_at_a_time(coll, t, a.n, a.seed, k, MEASURES)
    got = result.values[:, ks.index(k), result.topics.index(coll.topic_ids[t])]
    assert np.allclose(got, expected, rtol=1e-12, atol=0, equal_nan=True), np.abs(got - expected).max()
    per_call = spent / (a.n * len(MEASURES))
    slow = per_call * a.n * len(MEASURES) * len(ks) * len(result.topics)

    print(f"\n{'method':<52}{'seconds':>10}{'ratio':>10}")
    print("-" * 72)
    print(f"{'cranfield dss (N permutations as one batch)':<52}{fast:>10.1f}{1.0:>9.1f}x")
    print(f"{'one permutation at a time (extrapolated)':<52}{slow:>10.0f}{slow / fast:>9.0f}x")
    print(f"(one at a time: topic {coll.topic_ids[t]} at k = {k}, {a.n} permutations × {len(MEASURES)} measures in "
          f"{spent:.1f} s = {1e6 * per_call:.0f} µs per call, × {len(ks)} cutoffs × {len(result.topics)} topics; "
          "same DSS on that topic for every measure)")
    print("\nDSS (mean over topics)")
    print(result.to_table())


if __name__ == "__main__":
    main()
