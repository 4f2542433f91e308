"""Every figure cranfield draws, and the one place that imports matplotlib.

Each function takes a result object (or its arrays) and a path; the file type follows the
path's extension (PNG, SVG, PDF).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from cranfield._output import atomic_write, check_writable
from cranfield.analysis.diversity import CollectionDiversity
from cranfield.analysis.dss import DSSResult
from cranfield.analysis.repro import ReproResult
from cranfield.analysis.truncation import TruncationResult
from cranfield.errors import CranfieldError, check_int, invalid
from cranfield.evaluation.evaluator import Results

if TYPE_CHECKING:
    from cranfield.meta.power import DiscriminativePower

PLOT_FORMATS = ("png", "svg", "pdf", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


INSTALL_HINT = ("plots need matplotlib, which cranfield depends on but which cannot be imported here: "
                "reinstall it (pip install --force-reinstall matplotlib)")


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
        If matplotlib cannot be imported (:data:`INSTALL_HINT`), ``powers`` is empty, or
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


# --------------------------------------------------------------------------- everyday results
# The figures of `eval --plot`, `compare --plot` and the HTML report (cranfield report): each
# `draw_*` function draws into one Axes from result arrays, each `*_figure` function returns a
# Figure, and :func:`plot_results` puts every measure's figures into one file.

TOP_RUNS = 10
"""Line plots colour and name this many runs (the best by the first measure); the others are grey."""


def plot_label(text: Any, limit: int = 40) -> str:
    """``text`` (a run tag, a topic id: input) as matplotlib draws it literally: every ``$`` escaped,
    so that no mathtext is parsed, and cut to ``limit`` characters."""
    text = str(text)
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("$", r"\$")


HOVER_PREFIX = "hover-"
"""The gid prefix of an artist whose SVG element gets a ``<title>`` (:func:`hover`)."""


def hover(artist: Any, text: str) -> None:
    """Give ``artist`` the tooltip ``text``: :func:`figure_svg` writes it as the SVG ``<title>`` of the
    artist's element, which browsers show on hover and screen readers read (the text is carried,
    hex-encoded, in the artist's gid, and escaped when written)."""
    artist.set_gid(HOVER_PREFIX + str(text).encode("utf-8").hex())


def _hover_bars(ax: Any, x: np.ndarray, bottom: Any, height: Any, texts: Sequence[str]) -> None:
    """Invisible bars one unit wide centred on ``x``, each with a tooltip (:func:`hover`): the
    hover targets of a figure's columns."""
    for bar, text in zip(ax.bar(x, height, width=1.0, bottom=bottom, color="none", edgecolor="none",
                                linewidth=0, label="_hover"), texts):
        bar.set_facecolor((1, 1, 1, 0))  # painted (so it can be hovered) but transparent
        hover(bar, text)


def run_order(means: np.ndarray) -> np.ndarray:
    """Run indices by decreasing mean (NaN last, ties in input order)."""
    means = np.asarray(means, dtype=float)
    return np.argsort(-np.where(np.isnan(means), -np.inf, means), kind="stable")


def measure_index(results: Results, measure: int | str) -> int:
    """The position of ``measure`` (a name of ``results.measures`` or an index) in ``results``."""
    if isinstance(measure, str):
        if measure not in results.measures:
            raise invalid("measure", "one of " + ", ".join(results.measures), measure)
        return results.measures.index(measure)
    return check_int(measure, "measure index", low=0, high=len(results.measures) - 1)


def baseline_index(results: Results, baseline: int | str) -> int:
    """The position of the baseline run (a name of ``results.runs`` or an index) in ``results``."""
    if isinstance(baseline, str):
        if baseline not in results.runs:
            raise invalid("baseline", "one of the runs (" + ", ".join(results.runs[:10])
                          + (", ..." if len(results.runs) > 10 else "") + ")", baseline)
        return results.runs.index(baseline)
    return check_int(baseline, "baseline run index", low=0, high=len(results.runs) - 1)


def topic_means(results: Results) -> np.ndarray:
    """The value each run's marker shows, (S, M): :meth:`Results.summary` (the topic average the
    results use), except for counts (``aggregate="sum"``), whose marker is the mean over topics so
    that it sits on the per-topic scale."""
    means = results.summary()
    for m, how in enumerate(results.aggregate):
        if how == "sum":
            v = results.values[:, m]
            scored = ~np.isnan(v)
            means[:, m] = np.where(scored, v, 0.0).sum(axis=1) / np.maximum(scored.sum(axis=1), 1)
    return means


def _boxes(ax: Any, data: list[np.ndarray], show_fliers: bool) -> None:
    """Horizontal box plots at y = 1..len(data) (``orientation`` since matplotlib 3.10, ``vert`` before)."""
    import inspect

    layout = ({"orientation": "horizontal"} if "orientation" in inspect.signature(ax.boxplot).parameters
              else {"vert": False})
    ax.boxplot([d if d.size else np.array([np.nan]) for d in data], widths=0.6, manage_ticks=False,
               showfliers=show_fliers, flierprops={"markersize": 2, "alpha": 0.5},
               medianprops={"color": "C1"}, **layout)


def _run_ticks(ax: Any, names: Sequence[str]) -> None:
    """Run names on the y axis (1..S, the first name at the bottom), smaller for many runs."""
    ax.set_yticks(np.arange(1, len(names) + 1), [plot_label(n) for n in names],
                  fontsize="small" if len(names) <= 30 else 6)
    ax.set_ylim(0.3, len(names) + 0.7)


def draw_distribution(ax: Any, values: np.ndarray, runs: Sequence[str], means: np.ndarray, measure: str) -> None:
    """Per-topic scores of every run (S, T) as horizontal box plots, the best run (by ``means``) on
    top, each run's mean as a diamond (the line with gid ``means``). NaN (unscored topics) are left out."""
    order = run_order(means)[::-1]
    _boxes(ax, [v[~np.isnan(v)] for v in np.asarray(values)[order]], show_fliers=True)
    ax.plot(np.asarray(means)[order], np.arange(1, len(order) + 1), "D", color="C3", markersize=3,
            label="mean", gid="means")
    _run_ticks(ax, [runs[s] for s in order])
    ax.set_xlabel(f"{plot_label(measure)} per topic")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")


def draw_ranking(ax: Any, means: np.ndarray, ci: np.ndarray, runs: Sequence[str], measure: str,
                 confidence: float = 0.95) -> None:
    """The runs sorted by mean, best on top, each with its confidence interval ``ci`` (S, 2) as
    error bars (the line with gid ``ranking``)."""
    order = run_order(means)[::-1]
    m, lo, hi = np.asarray(means)[order], np.asarray(ci)[order, 0], np.asarray(ci)[order, 1]
    y = np.arange(1, len(order) + 1)
    bars = ax.errorbar(m, y, xerr=np.vstack([np.maximum(m - lo, 0), np.maximum(hi - m, 0)]), fmt="o",
                       markersize=3, capsize=2, elinewidth=1, color="C0", label=f"mean, {confidence:.0%} CI")
    bars.lines[0].set_gid("ranking")
    _run_ticks(ax, [runs[s] for s in order])
    ax.set_xlabel(f"{plot_label(measure)}: mean and {confidence:.0%} confidence interval")
    ax.grid(axis="x", alpha=0.3)


def draw_differences(ax: Any, diffs: np.ndarray, topics: Sequence[str], runs: Sequence[str], baseline: str,
                     measure: str) -> None:
    """Per-topic differences against the baseline sorted by size, as TREC overview papers draw
    them. One run (``diffs`` of shape (T,) or (1, T)): filled bars, positive (the run is better) in
    blue and negative in red, titled with its wins, ties and losses, each topic's bar with its id
    and difference as a tooltip (:func:`hover`). Several runs (R, T): each
    run's sorted differences as a step line (the first :data:`TOP_RUNS` coloured and named)."""
    d = np.atleast_2d(np.asarray(diffs, dtype=float))
    if d.shape[0] == 1:
        x = d[0]
        keep = np.flatnonzero(~np.isnan(x))
        order = keep[np.argsort(-x[keep], kind="stable")]
        y = x[order]
        edges = np.arange(y.size + 1)
        ax.stairs(np.where(y > 0, y, 0.0), edges, fill=True, color="C0", label=f"{plot_label(runs[0])} better",
                  gid="better")
        ax.stairs(np.where(y < 0, y, 0.0), edges, fill=True, color="C3", label=f"{plot_label(baseline)} better",
                  gid="worse")
        _hover_bars(ax, np.arange(y.size) + 0.5, 0.0, y, [f"topic {topics[t]}: Δ {v:+.4f}" for t, v in zip(order, y)])
        if y.size <= 60:
            ax.set_xticks(np.arange(y.size) + 0.5, [plot_label(topics[t], 12) for t in order], rotation=90,
                          fontsize=6)
        else:
            ax.set_xticks([])
        wins, ties, losses = int((y > 0).sum()), int((y == 0).sum()), int((y < 0).sum())
        ax.set_title(f"{plot_label(runs[0])} − {plot_label(baseline)}\n{wins} better, {ties} equal, "
                     f"{losses} worse", fontsize="small")
        ax.set_xlim(0, max(y.size, 1))
    else:
        for r, x in enumerate(d):
            y = np.sort(x[~np.isnan(x)])[::-1]
            top = r < TOP_RUNS
            ax.step(np.arange(y.size), y, where="mid", linewidth=1 if top else 0.5,
                    color=f"C{r % 10}" if top else "0.75", label=plot_label(runs[r]) if top else None, zorder=3 - top)
        ax.set_title(f"per-topic difference against {plot_label(baseline)}", fontsize="small")
        ax.set_xticks([])
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("topics, sorted by difference")
    ax.set_ylabel(f"Δ {plot_label(measure)}")
    ax.legend(fontsize="small")


def _draw_curves(ax: Any, x: np.ndarray, y: np.ndarray, runs: Sequence[str], order: np.ndarray | None) -> None:
    """One line per run (S, X): the first :data:`TOP_RUNS` of ``order`` coloured and named, the rest grey."""
    order = np.arange(len(runs)) if order is None else np.asarray(order)
    for rank, s in enumerate(order[::-1]):  # the best drawn last, on top
        top = len(order) - 1 - rank < TOP_RUNS
        ax.plot(x, y[s], marker="o" if top else None, markersize=2.5, linewidth=1 if top else 0.5,
                color=f"C{(len(order) - 1 - rank) % 10}" if top else "0.75", label=plot_label(runs[s]) if top else None,
                gid=f"run{s}")
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(handles[::-1], labels[::-1], fontsize="small",
                  title=f"best {TOP_RUNS} of {len(runs)}" if len(runs) > TOP_RUNS else None)
    ax.grid(alpha=0.3)


def draw_precision_recall(ax: Any, levels: np.ndarray, precision: np.ndarray, runs: Sequence[str],
                          order: np.ndarray | None = None) -> None:
    """Interpolated precision at the recall ``levels`` (trec_eval's iprec_at_recall, mean over
    topics), one curve per run ((S, L) ``precision``)."""
    _draw_curves(ax, np.asarray(levels), np.asarray(precision), runs, order)
    ax.set_xlabel("recall")
    ax.set_ylabel("interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)


def draw_intent_recall(ax: Any, depths: np.ndarray, irec: np.ndarray, runs: Sequence[str],
                       order: np.ndarray | None = None) -> None:
    """I-rec (subtopic recall, Zhai, Cohen & Lafferty, SIGIR 2003) at each depth, one curve per run ((S, D))."""
    _draw_curves(ax, np.asarray(depths), np.asarray(irec), runs, order)
    ax.set_xlabel("depth k")
    ax.set_ylabel("I-rec@k (mean over topics)")
    ax.set_ylim(0, 1.02)


def draw_coverage(ax: Any, coverage: np.ndarray, runs: Sequence[str], labels: Sequence[str], depth: int,
                  order: np.ndarray | None = None) -> Any:
    """Heat map of runs × intents (S, N): the fraction of each intent covered (a document relevant
    to it in the first ``depth`` ranks); the best run on top; each intent's column has its label as a
    tooltip (:func:`hover`). Returns the image."""
    order = np.arange(len(runs)) if order is None else np.asarray(order)
    grid = np.asarray(coverage, dtype=float)[order[::-1]]
    image = ax.imshow(grid, cmap="Greens", vmin=0, vmax=1, aspect="auto", interpolation="nearest",
                      origin="lower", extent=(-0.5, grid.shape[1] - 0.5, 0.5, grid.shape[0] + 0.5))
    _hover_bars(ax, np.arange(grid.shape[1]), 0.5, grid.shape[0], [str(x) for x in labels])
    ax.set_xlim(-0.5, grid.shape[1] - 0.5)
    ax.set_ylim(0.5, grid.shape[0] + 0.5)
    _run_ticks(ax, [runs[s] for s in order[::-1]])
    topics = [str(x).rsplit(":", 1)[0] for x in labels]
    starts = [k for k in range(len(topics)) if k == 0 or topics[k] != topics[k - 1]]
    if len(labels) <= 60:
        ax.set_xticks(np.arange(len(labels)), [plot_label(x, 20) for x in labels], rotation=90, fontsize=6)
        ax.set_xlabel(f"intents (topic:intent), covered in the first {depth} ranks")
    elif len(starts) <= 60:  # too many intents to name: each topic named at its first intent, topics ruled off
        ax.set_xticks(np.array(starts, dtype=float), [plot_label(topics[k], 12) for k in starts], rotation=90,
                      fontsize=6)
        for k in starts[1:]:
            ax.axvline(k - 0.5, color="0.6", linewidth=0.4)
        ax.set_xlabel(f"intents by topic (hover a column: topic:intent), covered in the first {depth} ranks")
    else:
        ax.set_xticks([])
        ax.set_xlabel(f"intents (hover a column: topic:intent), covered in the first {depth} ranks")
    return image


def draw_run_lengths(ax: Any, lengths: np.ndarray, runs: Sequence[str], order: np.ndarray | None = None) -> None:
    """How many documents each run returns per topic (S, T), as horizontal box plots; the mean
    length as a diamond (gid ``means``)."""
    order = np.arange(len(runs)) if order is None else np.asarray(order)
    order = order[::-1]
    lengths = np.asarray(lengths, dtype=float)
    _boxes(ax, list(lengths[order]), show_fliers=True)
    ax.plot(lengths[order].mean(axis=1), np.arange(1, len(order) + 1), "D", color="C3", markersize=3,
            label="mean", gid="means")
    _run_ticks(ax, [runs[s] for s in order])
    ax.set_xlabel("documents returned per topic")
    ax.grid(axis="x", alpha=0.3)
    ax.legend(fontsize="small", loc="lower right")


def draw_group_exposure(ax: Any, shares: np.ndarray, target: np.ndarray, runs: Sequence[str],
                        groups: Sequence[str], order: np.ndarray | None = None) -> None:
    """Each run's share of the attention per group (S, G), mean over topics, as stacked horizontal
    bars, with the target distribution (G,) as the bar at the top (docs/fairness.md)."""
    order = np.arange(len(runs)) if order is None else np.asarray(order)
    rows = np.vstack([shares[order[::-1]], target[None, :]])
    labels = [runs[s] for s in order[::-1]] + ["target"]
    left = np.zeros(rows.shape[0])
    for g, name in enumerate(groups):
        ax.barh(np.arange(rows.shape[0]), rows[:, g], left=left, label=name, color=f"C{g % 10}")
        left += rows[:, g]
    ax.set_yticks(np.arange(rows.shape[0]), labels)
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the attention (mean over topics)")
    ax.legend(fontsize="small", loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=min(len(groups), 6))


def group_exposure_figure(shares: np.ndarray, target: np.ndarray, runs: Sequence[str], groups: Sequence[str],
                          order: np.ndarray | None = None) -> Any:
    """Exposure per group against the target (:func:`draw_group_exposure`)."""
    fig = new_figure(figsize=(7, run_height(len(runs) + 1) + 0.4), layout="constrained")
    draw_group_exposure(fig.subplots(), shares, target, runs, groups, order)
    return fig


def run_height(n_runs: int) -> float:
    """Inches for a panel listing ``n_runs`` runs on its y axis."""
    return max(2.6, 0.16 * n_runs + 1.2)


def distribution_figure(results: Results, measure: int | str) -> Any:
    """Per-topic score distribution of every run for one measure (:func:`draw_distribution`)."""
    m = measure_index(results, measure)
    fig = new_figure(figsize=(7, run_height(len(results.runs))), layout="constrained")
    draw_distribution(fig.subplots(), results.values[:, m], results.runs, topic_means(results)[:, m],
                      results.measures[m])
    return fig


def ranking_figure(results: Results, measure: int | str, ci: np.ndarray | None = None,
                   confidence: float = 0.95) -> Any:
    """The system ranking with confidence intervals for one measure (:func:`draw_ranking`); ``ci``
    (S, 2) defaults to the t interval of each run's mean (:func:`cranfield.analysis.comparison.t_interval`)."""
    from cranfield.analysis.comparison import t_interval

    m = measure_index(results, measure)
    means = topic_means(results)[:, m]
    ci = t_interval(results.values[:, m], confidence) if ci is None else ci
    fig = new_figure(figsize=(7, run_height(len(results.runs))), layout="constrained")
    draw_ranking(fig.subplots(), means, ci, results.runs, results.measures[m], confidence)
    return fig


def difference_figure(results: Results, measure: int | str, baseline: int | str,
                      runs: Sequence[int | str] | None = None, columns: int = 2) -> Any:
    """Per-topic differences against ``baseline``, sorted by size: one panel per run of ``runs``
    (names or indices; default every other run, best first), ``columns`` panels a row, on one
    y scale (the panels compare at a glance)."""
    m, b = measure_index(results, measure), baseline_index(results, baseline)
    if runs is None:
        picked = [int(s) for s in run_order(topic_means(results)[:, m]) if s != b]
    else:
        picked = [baseline_index(results, r) for r in runs]
    if not picked:
        raise CranfieldError("there is no run other than the baseline to compare with it")
    columns = min(columns, len(picked))
    rows = -(-len(picked) // columns)
    fig = new_figure(figsize=(5 * columns, 2.8 * rows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(rows, columns, squeeze=False, sharey=True)).ravel()
    base = results.values[b, m]
    for ax, s in zip(axes, picked):
        draw_differences(ax, results.values[s, m] - base, results.topics, [results.runs[s]], results.runs[b],
                         results.measures[m])
    for ax in axes[len(picked):]:
        ax.set_visible(False)
    return fig


def precision_recall_figure(levels: np.ndarray, precision: np.ndarray, runs: Sequence[str],
                            order: np.ndarray | None = None) -> Any:
    """Interpolated precision–recall curves (:func:`draw_precision_recall`)."""
    fig = new_figure(figsize=(6, 4.2), layout="constrained")
    draw_precision_recall(fig.subplots(), levels, precision, runs, order)
    return fig


def intent_recall_figure(depths: np.ndarray, irec: np.ndarray, runs: Sequence[str],
                         order: np.ndarray | None = None) -> Any:
    """I-rec at each depth (:func:`draw_intent_recall`)."""
    fig = new_figure(figsize=(6, 4.2), layout="constrained")
    draw_intent_recall(fig.subplots(), depths, irec, runs, order)
    return fig


def coverage_figure(coverage: np.ndarray, runs: Sequence[str], labels: Sequence[str], depth: int,
                    order: np.ndarray | None = None) -> Any:
    """Per-intent coverage heat map, runs × intents (:func:`draw_coverage`), with a colour bar."""
    fig = new_figure(figsize=(min(14.0, max(6.0, 0.12 * len(labels) + 3)), run_height(len(runs))),
                     layout="constrained")
    ax = fig.subplots()
    image = draw_coverage(ax, coverage, runs, labels, depth, order)
    fig.colorbar(image, ax=ax, label="covered", shrink=0.8)
    return fig


def run_lengths_figure(lengths: np.ndarray, runs: Sequence[str], order: np.ndarray | None = None) -> Any:
    """Documents returned per topic by each run (:func:`draw_run_lengths`)."""
    fig = new_figure(figsize=(7, run_height(len(runs))), layout="constrained")
    draw_run_lengths(fig.subplots(), lengths, runs, order)
    return fig


def results_figure(results: Results, *, baseline: int | str | None = None, ci: Sequence[np.ndarray] | None = None,
                   confidence: float = 0.95) -> Any:
    """Every measure of ``results`` in one figure, a row per measure: the per-topic score
    distribution of every run, the system ranking with confidence intervals (``ci``: one (S, 2)
    array per measure, default the t interval), and with a ``baseline`` (a run name or index) the
    sorted per-topic differences of the other runs against it."""
    from cranfield.analysis.comparison import t_interval

    if not results.runs or not results.measures:
        raise CranfieldError("there are no results to plot")
    b = None if baseline is None else baseline_index(results, baseline)
    means = topic_means(results)
    columns = 2 if b is None or len(results.runs) < 2 else 3
    height = run_height(len(results.runs))
    fig = new_figure(figsize=(5.5 * columns, height * len(results.measures)), layout="constrained")
    axes = np.atleast_2d(fig.subplots(len(results.measures), columns, squeeze=False))
    for m, name in enumerate(results.measures):
        draw_distribution(axes[m, 0], results.values[:, m], results.runs, means[:, m], name)
        interval = t_interval(results.values[:, m], confidence) if ci is None else np.asarray(ci[m])
        draw_ranking(axes[m, 1], means[:, m], interval, results.runs, name, confidence)
        if columns == 3 and b is not None:
            others = [int(s) for s in run_order(means[:, m]) if s != b]
            draw_differences(axes[m, 2], results.values[others, m] - results.values[b, m], results.topics,
                             [results.runs[s] for s in others], results.runs[b], name)
    return fig


def plot_results(results: Results, path: str | os.PathLike[str], *, baseline: int | str | None = None,
                 ci: Sequence[np.ndarray] | None = None, confidence: float = 0.95) -> None:
    """Save :func:`results_figure` (every measure: score distributions, the ranking with confidence
    intervals and, with a ``baseline``, the sorted per-topic differences) to ``path``, whose
    extension picks the format (PNG, SVG, PDF, ...: :data:`PLOT_FORMATS`); written whole or not at all."""
    check_plot_path(path)
    save_figure(results_figure(results, baseline=baseline, ci=ci, confidence=confidence), path)


def figure_svg(fig: Any) -> str:
    """``fig`` as inline SVG text for an HTML page: text kept as ``<text>`` elements (matplotlib
    escapes it: a run tagged ``<script>`` is drawn as those characters), without the XML prolog,
    DOCTYPE and metadata, with ids unique to this figure; an artist given a tooltip (:func:`hover`)
    becomes a group with that ``<title>`` (escaped)."""
    import html
    import io
    import re

    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": None}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    text = buf.getvalue()
    text = text[text.index("<svg"):]
    text = re.sub(r"\s*<metadata>.*?</metadata>", "", text, count=1, flags=re.S)
    return re.sub(f'<g id="{HOVER_PREFIX}([0-9a-f]*)">', lambda m: "<g><title>" + html.escape(
        bytes.fromhex(m[1]).decode("utf-8"), quote=False) + "</title>", text)


def figure_png(fig: Any, dpi: int = 96) -> bytes:
    """``fig`` as PNG bytes (for figures too large as SVG, e.g. many runs × topics)."""
    import io

    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def repro_figure(result: ReproResult) -> Any:
    """Breuer et al.'s (SIGIR 2020) figures of a reproduction: per measure, the per-topic
    differences |orig - rep| of the baseline and advanced runs (whose root mean square is the RMSE),
    and KTU and RBO (means over topics) against the cutoff. A replication has neither (its topics
    differ): its figure shows ER against ΔRI, one point per measure (their Figure 3)."""
    if result.kind == "replicability":
        fig = new_figure(figsize=(5, 4))
        ax = fig.subplots()
        er = {r[1]: r[5] for r in result.select("ER")}
        dri = {r[1]: r[5] for r in result.select("DeltaRI")}
        for k, m in enumerate(result.measures):
            ax.scatter(er[m], dri[m], color=f"C{k}", label=plot_label(m))
        ax.axvline(1.0, color="grey", linewidth=0.5)
        ax.axhline(0.0, color="grey", linewidth=0.5)
        ax.set_xlabel("effect ratio (ER)")
        ax.set_ylabel("delta relative improvement (ΔRI)")
        ax.legend(fontsize="small")
        fig.tight_layout()
        return fig
    n = len(result.measures)
    fig = new_figure(figsize=(10, 2.6 * (n + 1)))
    axes = fig.subplots(n + 1, 1, squeeze=False)[:, 0]
    rmse = [r for r in result.select("RMSE") if r[4] != "all"]
    for ax, measure in zip(axes, result.measures):
        for k, role in enumerate(("baseline", "advanced")):
            diffs = [(r[4], r[5]) for r in rmse if r[1] == measure and r[2] == role]
            ax.bar(np.arange(len(diffs)) + 0.4 * k, [d for _, d in diffs], 0.4, label=role, color=f"C{k}")
        ax.set_ylabel(f"|orig − rep|\n{plot_label(measure, 24)}")
        ax.set_xlabel("topic")
        ax.legend(fontsize="small")
    ax = axes[-1]
    for k, (statistic, style) in enumerate((("KTU", "-o"), ("RBO", "--s"))):
        for j, role in enumerate(("baseline", "advanced")):
            points = [(r[3], r[5]) for r in result.select(statistic) if r[2] == role and r[4] == "all"]
            ax.plot([str(c) for c, _ in points], [v for _, v in points], style, color=f"C{2 * k + j}",
                    label=f"{statistic} {role}")
    ax.set_xlabel("cutoff k")
    ax.set_ylabel("mean over topics")
    ax.legend(fontsize="small")
    fig.tight_layout()
    return fig


def plot_repro(result: ReproResult, path: str | os.PathLike[str]) -> None:
    """Save :func:`repro_figure` to ``path``."""
    save_figure(repro_figure(result), path)


def plot_judges(comparison: Any, path: str) -> None:
    """Save the figures of ``cranfield judges``: per judge and measure, the runs' mean scores under
    the judge against the reference's with the diagonal, and Bland & Altman's plot (Lancet, 1986:
    the difference against the mean, with the bias and the limits of agreement); per judge, the
    per-topic Cohen's κ at the lowest threshold, sorted."""
    pairs = list(comparison.leaderboards.items())
    rows = max(1, len(pairs))
    fig = new_figure(figsize=(12, 3.6 * rows))
    axes = fig.subplots(rows, 3, squeeze=False)
    for k, ((judge, measure), lb) in enumerate(pairs):
        ref, jud = lb.reference_means, lb.judge_means
        ax = axes[k, 0]
        ax.scatter(ref, jud, s=12)
        lo, hi = float(min(ref.min(), jud.min())), float(max(ref.max(), jud.max()))
        ax.plot([lo, hi], [lo, hi], color="grey", linestyle="--", linewidth=0.8)
        ax.set_xlabel(f"{measure} under {comparison.reference}")
        ax.set_ylabel(f"{measure} under {judge}")
        ax.set_title(f"τ_b = {lb.statistics['tau_b']:.3f}, τ_ap = {lb.statistics['tau_ap']:.3f}")
        ax = axes[k, 1]
        ax.scatter((ref + jud) / 2, jud - ref, s=12)
        for name, style in (("bias", "-"), ("loa_low", "--"), ("loa_high", "--")):
            ax.axhline(lb.statistics[name], color="grey", linestyle=style, linewidth=0.8)
        ax.set_xlabel("mean of the two")
        ax.set_ylabel(f"{judge} − {comparison.reference}")
        ax.set_title(f"Bland–Altman: {measure}")
    for k, judge in enumerate(comparison.judges[:rows]):
        labels = comparison.labels[judge]
        names = [n for n in labels.statistics if n.startswith("kappa(")]
        ax = axes[k, 2]
        if names:
            kappa = np.sort(labels.statistics[names[0]][:-1])
            ax.plot(np.arange(1, kappa.size + 1), kappa, marker=".", linewidth=0.8)
            ax.axhline(labels.statistics[names[0]][-1], color="grey", linestyle="--", linewidth=0.8, label="pooled")
            ax.set_ylabel(names[0])
            ax.legend(fontsize="small")
        ax.set_xlabel("topics sorted by κ")
        ax.set_title(f"per-topic agreement: {judge}")
    fig.tight_layout()
    save_figure(fig, path)
