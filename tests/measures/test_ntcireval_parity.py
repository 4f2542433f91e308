"""Agreement with NTCIREVAL (pyNTCIREVAL 0.0.3) on its sample and on random cases: Q, P+, AP,
Järvelin & Kekäläinen's nDCG, MSnDCG, nERR, ERR, RBP (p = 0.95, NTCIREVAL's default) and Hit,
with NTCIREVAL's per-level gain vectors."""

from __future__ import annotations

import numpy as np
import pytest

import cranfield
from conftest import DATA

metrics = pytest.importorskip("pyNTCIREVAL.metrics")


def reference(labels: dict[str, int], ranked: list[str], gains: list[float], cutoff: int) -> dict[str, float]:
    levels = len(gains)
    xrelnum = [sum(1 for v in labels.values() if v == level) for level in range(levels + 1)]
    ranked_list = [(d, labels.get(d)) for d in ranked]
    return {
        "Q": metrics.QMeasure(xrelnum, gains, 1.0).compute(ranked_list),
        "Q@l": metrics.QMeasure(xrelnum, gains, 1.0, cutoff).compute(ranked_list),
        "P+": metrics.PPlusMeasure(xrelnum, gains, 1.0).compute(ranked_list),
        "AP": metrics.AP(xrelnum, gains).compute(ranked_list),
        "jk": metrics.nDCG(xrelnum, gains, 2, cutoff).compute(ranked_list),
        "ms": metrics.MSnDCG(xrelnum, gains, cutoff).compute(ranked_list),
        "nERR": metrics.nERR(xrelnum, gains, cutoff).compute(ranked_list),
        "ERR": metrics.ERR(xrelnum, gains).compute(ranked_list),
        "RBP": metrics.RBP(xrelnum, gains, 0.95).compute(ranked_list),
        "Hit": metrics.Hit(cutoff).compute(ranked_list),
    }


def ours(labels: dict[str, int], ranked: list[str], gains: list[float], cutoff: int) -> dict[str, float]:
    g = ":".join(f"{x:g}" for x in gains)
    names = {"Q": f"Q(gains={g})", "Q@l": f"Q(gains={g})@{cutoff}", "P+": f"P+(gains={g})", "AP": "AP",
             "jk": f"nDCG(gains={g},discount=jk)@{cutoff}", "ms": f"nDCG(gains={g})@{cutoff}",
             "nERR": f"nERR(gains={g})@{cutoff}", "ERR": f"ERR(sat=ntcir,gains={g})",
             "RBP": f"RBP(p=0.95,gains={g})", "Hit": f"Hit@{cutoff}"}
    run = {"t": {d: float(len(ranked) - k) for k, d in enumerate(ranked)}}
    df = cranfield.evaluate({"t": labels}, run, list(names.values()), per_topic=False)
    values = dict(zip(df.measure, df.value))
    return {k: values[v] for k, v in names.items()}


def test_sample():
    rel = (DATA / "ntcireval" / "sample.rel").read_text().split()
    labels = {rel[k]: int(rel[k + 1][1:]) for k in range(0, len(rel), 2)}
    ranked = (DATA / "ntcireval" / "sample.res").read_text().split()
    ref, got = reference(labels, ranked, [1, 2, 3], 1000), ours(labels, ranked, [1, 2, 3], 1000)
    for key in ref:
        assert got[key] == pytest.approx(ref[key], abs=1e-12), key
    assert round(ref["jk"], 4) == 0.3380 and round(ref["ms"], 4) == 0.2760  # res_test_compute.txt


@pytest.mark.parametrize("seed", range(100))
def test_random_cases(seed):
    rng = np.random.default_rng(seed)
    levels = int(rng.integers(1, 5))
    gains = sorted(float(x) for x in rng.choice([1, 2, 3, 5, 7, 15], size=levels, replace=False))
    docs = [f"d{k}" for k in range(int(rng.integers(1, 25)))]
    labels = {d: int(rng.integers(0, levels + 1)) for d in docs}
    if not any(labels.values()):
        labels[docs[0]] = levels
    pool = docs + [f"u{k}" for k in range(5)]
    ranked = [str(d) for d in rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)]
    cutoff = int(rng.integers(1, 12))
    ref, got = reference(labels, ranked, gains, cutoff), ours(labels, ranked, gains, cutoff)
    for key in ref:
        assert got[key] == pytest.approx(ref[key], abs=1e-9), (key, gains, labels, ranked, cutoff)
