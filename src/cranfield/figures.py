"""Data behind the figures of the documentation, computed with the ordinary kernels."""

from __future__ import annotations

import numpy as np

from .batch import Batch, Topics
from .measures.truncated import PREFIX
from .registry import parse_measure

UTILITY_CURVES = ["RBPU(p=0.8)", "RBPU(p=0.9)", "RBPU(p=0.98)", "RBPU(p=0.99)",
                  "RBU(p=0.8)", "RBU(p=0.9)", "RBU(p=0.98)", "DCGU", "ERRU"]


def utility_curves(relevant: int = 20, leading: int = 10, e: float = 0.05,
                   measures: list[str] = UTILITY_CURVES) -> dict[str, np.ndarray]:
    """Paper 002 Figure 1: each utility measure at every truncation n' = 0..leading + relevant of
    a ranking of ``leading`` non-relevant documents followed by ``relevant`` relevant ones
    (binary labels, the collection's relevant documents are exactly those), with effort e.
    Each curve is divided by its largest magnitude, as in the figure."""
    labels = np.array([[[0] * leading + [1] * relevant]])
    batch = Batch.from_labels(labels, Topics.from_ideal(np.ones((1, relevant), dtype=int)))
    curves = {}
    for name in measures:
        m = parse_measure(name).with_params(e=e)
        values = PREFIX[m.name](batch, **m.params)[0, 0]
        curves[name] = values / np.abs(values).max()
    return curves
