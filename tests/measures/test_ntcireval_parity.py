"""Agreement with NTCIREVAL (pyNTCIREVAL 0.0.3) on its sample and on random cases: Q, P+, AP,
Järvelin & Kekäläinen's nDCG, MSnDCG, nERR, ERR, RBP (p = 0.95, NTCIREVAL's default), Hit,
O-measure, P-measure, AP@l and the four NCU variants, with NTCIREVAL's per-level gain vectors."""

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
        "O": metrics.OMeasure(xrelnum, gains, 1.0).compute(ranked_list),
        "P": metrics.PMeasure(xrelnum, gains, 1.0).compute(ranked_list),
        "AP@l": metrics.AP(xrelnum, gains, cutoff).compute(ranked_list),
        "NCUguP": metrics.NCUguP(xrelnum, gains, gains).compute(ranked_list),
        "NCUguBR": metrics.NCUguBR(xrelnum, gains, gains, 1.0).compute(ranked_list),
        "NCUrbP": metrics.NCUrbP(xrelnum, gains, 0.95).compute(ranked_list),
        "NCUrbBR": metrics.NCUrbBR(xrelnum, gains, 0.95, 1.0).compute(ranked_list),
        "NCUgu-stops": metrics.NCUguBR(xrelnum, gains, [1] * len(gains), 1.0).compute(ranked_list),
        "NCUrb-0.5": metrics.NCUrbP(xrelnum, gains, 0.5).compute(ranked_list),
    }


def ours(labels: dict[str, int], ranked: list[str], gains: list[float], cutoff: int) -> dict[str, float]:
    g = ":".join(f"{x:g}" for x in gains)
    names = {"Q": f"Q(gains={g})", "Q@l": f"Q(gains={g})@{cutoff}", "P+": f"P+(gains={g})", "AP": "AP",
             "jk": f"nDCG(gains={g},discount=jk)@{cutoff}", "ms": f"nDCG(gains={g})@{cutoff}",
             "nERR": f"nERR(gains={g})@{cutoff}", "ERR": f"ERR(sat=ntcir,gains={g})",
             "RBP": f"RBP(p=0.95,gains={g})", "Hit": f"Hit@{cutoff}",
             "O": f"O-measure(gains={g})", "P": f"P-measure(gains={g})", "AP@l": f"NCU(stop=u,beta=0)@{cutoff}",
             "NCUguP": f"NCU(stop=gu,beta=0,gains={g})", "NCUguBR": f"NCU(stop=gu,gains={g})",
             "NCUrbP": f"NCU(stop=rb,beta=0,gains={g})", "NCUrbBR": f"NCU(stop=rb,gains={g})",
             "NCUgu-stops": f"NCU(stop=gu,gains={g},stops={':'.join(['1'] * len(gains))})",
             "NCUrb-0.5": "NCU(stop=rb,beta=0,gamma=0.5)"}
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


# NTCIREVAL's published output for its sample (pyNTCIREVAL tests/dat/res_test_compute.txt and
# res_test_compute_cutoff.txt, gains 1:2:3): name -> (cranfield measure, value at l=1000, at l=2)
PUBLISHED = {
    "RR": ("RR", 0.5000, 0.5000), "O-measure": ("O-measure(gains=1:2:3)", 0.5000, 0.5000),
    "P-measure": ("P-measure(gains=1:2:3)", 0.5000, 0.5000), "P-plus": ("P+(gains=1:2:3)", 0.5000, 0.5000),
    "AP": ("AP", 0.1000, 0.1000), "Q-measure": ("Q(gains=1:2:3)", 0.0967, 0.0967),
    "NCUgu,P": ("NCU(stop=gu,beta=0,gains=1:2:3)", 0.1316, 0.1316),
    "NCUgu,BR": ("NCU(stop=gu,gains=1:2:3)", 0.1281, 0.1281),
    "NCUrb,P": ("NCU(stop=rb,beta=0,gains=1:2:3)", 0.1215, 0.1215),
    "NCUrb,BR": ("NCU(stop=rb,gains=1:2:3)", 0.1175, 0.1175),
    "RBP": ("RBP(p=0.95,gains=1:2:3)", 0.0761, 0.0761), "ERR": ("ERR(sat=ntcir,gains=1:2:3)", 0.4062, 0.4062),
    "AP@l": ("NCU(stop=u,beta=0)@{l}", 0.1000, 0.2500), "Q@l": ("Q(gains=1:2:3)@{l}", 0.0967, 0.2500),
    "nDCG@l": ("nDCG(gains=1:2:3,discount=jk)@{l}", 0.3380, 0.5000),
    "MSnDCG@l": ("nDCG(gains=1:2:3)@{l}", 0.2760, 0.3869), "P@l": ("P@{l}", 0.0020, 0.5000),
    "nERR@l": ("nERR(gains=1:2:3)@{l}", 0.4710, 0.4444), "Hit@l": ("Hit@{l}", 1.0000, 1.0000),
}


@pytest.mark.parametrize("cutoff, column", [(1000, 1), (2, 2)])
def test_published_sample_output(cutoff, column):
    """Every number NTCIREVAL prints for its sample, to its four printed decimals."""
    rel = (DATA / "ntcireval" / "sample.rel").read_text().split()
    labels = {rel[k]: int(rel[k + 1][1:]) for k in range(0, len(rel), 2)}
    ranked = (DATA / "ntcireval" / "sample.res").read_text().split()
    run = {"t": {d: float(len(ranked) - k) for k, d in enumerate(ranked)}}
    names = [spec[0].format(l=cutoff) for spec in PUBLISHED.values()]
    df = cranfield.evaluate({"t": labels}, run, names, per_topic=False)
    got = dict(zip(df.measure, df.value))
    for name, spec in PUBLISHED.items():
        assert f"{got[spec[0].format(l=cutoff)]:.4f}" == f"{spec[column]:.4f}", name
