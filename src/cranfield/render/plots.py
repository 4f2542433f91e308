"""Every figure cranfield draws, and the one place that imports matplotlib.

Each function takes a result object (or its arrays) and a path; the file type follows the
path's extension (PNG, SVG, PDF).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._output import atomic_write, check_writable
from cranfield.analysis.diversity import CollectionDiversity
from cranfield.analysis.dss import DSSResult
from cranfield.analysis.truncation import TruncationResult
from cranfield.errors import CranfieldError, check_int, invalid
from cranfield.meta.power import DiscriminativePower

PLOT_FORMATS = ("png", "svg", "pdf", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


INSTALL_HINT = "plots need matplotlib: pip install 'cranfield[plot]'"


def _matplotlib() -> tuple[Any, Any]:
    """(Figure, FigureCanvasAgg), or a :class:`CranfieldError` saying how to install matplotlib."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise CranfieldError(INSTALL_HINT) from None
    return Figure, FigureCanvasAgg


def new_figure(**options: Any) -> Any:
    """A ``matplotlib.figure.Figure(**options)`` on an Agg canvas (see :func:`_matplotlib`)."""
    figure, canvas = _matplotlib()
    fig = figure(**options)
    canvas(fig)
    return fig


def check_plot_path(path: str | os.PathLike[str]) -> str:
    """The format of the plot file ``path`` (its extension, e.g. ``"png"``), after checking that
    the file can be written, that the extension is one of :data:`PLOT_FORMATS` and that
    matplotlib is installed: call it before the work whose result is plotted."""
    target = check_writable(path, "plot")
    fmt = target.suffix.lower().removeprefix(".")
    if fmt not in PLOT_FORMATS:
        raise invalid("plot file", "named with one of the extensions " + ", ".join(f".{f}" for f in PLOT_FORMATS),
                      str(path))
    _matplotlib()
    return fmt


def save_figure(fig: Any, path: str | os.PathLike[str]) -> None:
    """Render ``fig`` to ``path`` in the format of its extension, atomically."""
    fmt = check_plot_path(path)
    with atomic_write(path, "wb", "plot") as f:
        fig.savefig(f, format=fmt)


def plot_upper_bounds(topics: list[str], values: Mapping[str, np.ndarray], path: str) -> None:
    """Box-plots per topic of each method's scores over the candidate ideal rankings (Figure 2)."""


    if not values:
        raise CranfieldError("no upper bounds to plot")
    fig = new_figure(figsize=(max(6, 0.5 * len(topics) + 2), 4))
    ax = fig.subplots()
    width = 0.8 / max(len(values), 1)
    for k, (label, v) in enumerate(values.items()):
        pos = np.arange(len(topics)) + k * width
        box = ax.boxplot([v[:, t] for t in range(len(topics))], positions=pos, widths=width * 0.9,
                         patch_artist=True, manage_ticks=False)
        for patch in box["boxes"]:
            patch.set_facecolor(f"C{k}")
        ax.plot([], [], color=f"C{k}", label=label, linewidth=6)
    ax.set_xticks(np.arange(len(topics)) + 0.4 - width / 2, topics, rotation=90)
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_ylabel("score of the candidate ideal rankings")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_truncation(result: TruncationResult, path: str) -> None:
    """Bar chart of the distribution of n* over the length bins (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2)."""


    labels, counts = result.distribution()
    frac = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
    fig = new_figure(figsize=(max(6, 0.9 * len(labels) + 2), 4))
    ax = fig.subplots()
    width = 0.8 / max(len(result.measures), 1)
    for m, measure in enumerate(result.measures):
        ax.bar(np.arange(len(labels)) + m * width, frac[m], width, label=measure)
    ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels)
    ax.set_xlabel("optimal ranking length n*")
    ax.set_ylabel("fraction of run × topic pairs")
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_collection_diversity(result: CollectionDiversity, path: str | Path, bins: int = 10) -> None:
    """Histogram of dd over the topics (Golbus, Aslam & Clarke, Inf. Retr. 2013, Figure 2), saved to ``path``."""


    bins = check_int(bins, "number of bins", low=1, high=1000)
    dd = result.stats.dd[result.stats.num_rel > 0]
    fig = new_figure(figsize=(6, 4))
    ax = fig.subplots()
    ax.hist(dd, bins=bins, range=(0.0, 1.0), edgecolor="black")
    ax.set_xlabel(f"diversity difficulty dd (depth {result.depth})")
    ax.set_ylabel("topics")
    ax.set_xlim(0.0, 1.0)
    fig.tight_layout()
    save_figure(fig, path)


def plot_dss(result: DSSResult, path: str) -> None:
    """DSS of the α#-IA measures against λ (α = 0.3) and against α (λ = 0.5), one line per
    subtopic averaging and cutoff (Golbus, Aslam & Clarke, Inf. Retr. 2013, Figures 8
    and 9; Figure 7's surface is the same data over the whole (α, λ) grid)."""


    points = result.sweep()
    if not any(len(v["lambda"]) > 1 or len(v["alpha"]) > 1 for v in points.values()):
        raise CranfieldError("the DSS plot shows alpha#-IA measures against lambda and alpha: give several "
                             "alpha#-IA measures that differ in lambda (at alpha=0.3) or alpha (at lambda=0.5), "
                             "or use --sweep")
    fig = new_figure(figsize=(11, 4.5))
    axes = fig.subplots(1, 2, sharey=True)
    styles = ["-", "--", ":", "-."]
    colours = {s: f"C{c}" for c, s in enumerate(["cascade", "micro", "geom", "smr"])}
    ks = sorted({k for _, _, k in points})
    for (discount, subtopics, k), entry in sorted(points.items()):
        for ax, key in zip(axes, ("lambda", "alpha")):
            if len(entry[key]) > 1:
                x, y = zip(*entry[key])
                ax.plot(x, y, styles[ks.index(k) % len(styles)], color=colours.get(subtopics, "k"),
                        marker="o", markersize=3, label=f"{subtopics} {discount} @{k}")
    axes[0].set_xlabel("λ (α = 0.3)")
    axes[1].set_xlabel("α (λ = 0.5)")
    axes[0].set_ylabel(f"DSS ({result.average} over topics)")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize="small", ncol=2)
    fig.suptitle(f"Document selection sensitivity of α#-IA (N = {result.n})")
    fig.tight_layout()
    save_figure(fig, path)


def plot_asl_curves(powers: Sequence[DiscriminativePower], path: str, *, title: str | None = None) -> None:
    """Save Sakai's ASL curves: one line per measure, pairs sorted by ASL, α as a dashed line.

    Parameters
    ----------
    powers : sequence of DiscriminativePower
        Typically one per measure, same runs and test.
    path : str
        The image file; its extension picks the format (``.png``, ``.svg``, ``.pdf``).
    title : str, optional
        Defaults to the test, B and α.

    Raises
    ------
    CranfieldError
        If matplotlib is not installed (``pip install 'cranfield[plot]'``), ``powers`` is empty, or
        ``path`` cannot be written or has no extension of :data:`cranfield.analysis.figures.PLOT_FORMATS`.
    """


    if not powers:
        raise CranfieldError("no discriminative power results to plot")
    first = powers[0]
    fig = new_figure(figsize=(6.4, 4.2))
    ax = fig.add_subplot()
    for p in powers:
        ax.plot(np.arange(1, p.n_pairs + 1), p.asl, label=p.measure or "scores", linewidth=1.2)
    ax.axhline(first.alpha, color="grey", linestyle="--", linewidth=0.8, label=f"α = {first.alpha:g}")
    ax.set_xlabel("run pairs sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    resamples = f", B = {first.result.n_resamples}" if first.result.n_resamples else ""
    ax.set_title(title if title is not None else f"ASL curves: {first.test}{resamples}, α = {first.alpha:g}")
    ax.set_xlim(0, max(p.n_pairs for p in powers) + 1)
    ax.set_ylim(0, 1)
    ax.legend(fontsize="small")
    fig.tight_layout()
    save_figure(fig, path)


def plot_property_heat_map(rows: list[dict], measures: list[str], properties: list[str], path: str) -> None:


    grid = np.zeros((len(measures), len(properties)))
    for r in rows:
        grid[measures.index(r["measure"]), properties.index(r["property"])] = r["rate"]
    fig = new_figure(figsize=(1.2 * len(properties) + 3, 0.45 * len(measures) + 1.5))
    ax = fig.subplots()
    im = ax.imshow(grid, cmap="Reds", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(properties)), properties, rotation=30, ha="right")
    ax.set_yticks(range(len(measures)), measures)
    for (i, j), v in np.ndenumerate(grid):
        ax.text(j, i, f"{v:.2f}" if v else "0", ha="center", va="center", fontsize="small")
    fig.colorbar(im, label="violation rate")
    fig.tight_layout()
    save_figure(fig, path)
