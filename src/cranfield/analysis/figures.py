"""Figures: writing plot files, and the data behind the figures of the documentation.

Every ``--plot FILE`` of cranfield goes through :func:`check_plot_path` before any work (the
file can be written, its extension names a format matplotlib writes, matplotlib is installed)
and :func:`save_figure`, which renders into a temporary file renamed over ``FILE`` only when
rendering succeeded (:func:`cranfield._output.atomic_write`). Figures are plain
``matplotlib.figure.Figure`` objects on the Agg canvas: pyplot's global state and the
caller's backend are left alone.
"""

from __future__ import annotations

import numpy as np

from cranfield.batch import Batch, Topics
from cranfield.errors import check_int, invalid
from cranfield.measures.registry import parse_measure

UTILITY_CURVES = ["RBPU(p=0.8)", "RBPU(p=0.9)", "RBPU(p=0.98)", "RBPU(p=0.99)",
                  "RBU(p=0.8)", "RBU(p=0.9)", "RBU(p=0.98)", "DCGU", "ERRU"]


def utility_curves(relevant: int = 20, leading: int = 10, e: float = 0.05,
                   measures: list[str] = UTILITY_CURVES) -> dict[str, np.ndarray]:
    """Amigó, Mizzaro & Spina, SIGIR 2022, Figure 1: each utility measure at every truncation
    n' = 0..leading + relevant of a ranking of ``leading`` non-relevant documents followed by
    ``relevant`` relevant ones (binary labels, the collection's relevant documents are exactly those), with effort e.
    Each curve is divided by its largest magnitude, as in the figure. ``relevant`` (1..10,000),
    ``leading`` (0..10,000) and every measure (a truncation measure with an effort ``e``) are
    checked first."""
    relevant = check_int(relevant, "number of relevant documents", low=1, high=10_000)
    leading = check_int(leading, "number of leading non-relevant documents", low=0, high=10_000)
    parsed = {name: parse_measure(name).with_params(e=e) for name in measures}
    for name, m in parsed.items():
        if m.spec.prefix is None:
            raise invalid("utility measure", "a truncation measure with an effort e, e.g. RBU or DCGU", name)
    labels = np.array([[[0] * leading + [1] * relevant]])
    batch = Batch.from_labels(labels, Topics.from_ideal(np.ones((1, relevant), dtype=int)))
    curves = {}
    for name, m in parsed.items():
        assert m.spec.prefix is not None  # checked above
        values = m.spec.prefix(batch, **m.params)[0, 0]
        top = np.abs(values).max()
        curves[name] = values / top if top > 0 else values
    return curves
