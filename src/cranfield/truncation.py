"""Optimal truncation analysis (Amigó, Mizzaro & Spina, SIGIR 2022, §4.2–4.3;
docs/conventions.md#optimal-truncation).

For every run × topic and truncation measure, the ranking length n* ∈ [0, n] that maximises
the measure (equal values under the rule of docs/conventions.md#equality → the shortest); the
distribution of n* over the log bins {0}, [1, 4], [5, 8], [9, 16], ... (the paper's Figure 2);
and Kendall's τ between the systems' mean scores on full rankings and on rankings cut at each measure's
optimum (Table 2 layout: full-ranking measures × truncation measures).

Every prefix of every ranking is scored in one pass from cumulative sums (the measures'
prefix functions in :mod:`cranfield.measures.truncated`), never by re-evaluating each length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .errors import CranfieldError, check_int, invalid
from .evaluate import Evaluator
from .io import Run, as_run
from .measures.truncated import PREFIX, _length
from .registry import Measure, parse_measure

DEFAULT_FULL = ["nDCG", "ERR", "RBP(p=0.8)", "RBP(p=0.9)", "RBP(p=0.98)", "AP", "P@10", "RR", "iRBU(p=0.8)"]


def best_prefix(values: np.ndarray, length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(n*, the value there): the first maximum of each row of prefix values over n' ≤ n.

    ``values`` (..., D + 1) holds the measure at every truncation; ``length`` (...) is n. Values
    within 1e-12·max(1, |a|, |b|) of the maximum count as equal, so ties go to the shortest.
    """
    valid = np.arange(values.shape[-1]) <= length[..., None]
    masked = np.where(valid, values, -np.inf)
    top = masked.max(axis=-1, keepdims=True)
    tol = 1e-12 * np.maximum(1.0, np.abs(top))
    best = (masked >= top - tol).argmax(axis=-1)
    return best, np.take_along_axis(values, best[..., None], axis=-1)[..., 0]


def length_bin(n: np.ndarray) -> np.ndarray:
    """Bin index of lengths: 0 for n = 0, 1 for [1, 4], then k for (2^k, 2^(k+1)] (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2)."""
    n = np.asarray(n)
    if n.size and n.min() < 0:
        raise invalid("ranking lengths", "integers >= 0", n.min())
    return np.where(n == 0, 0, np.maximum(1, np.ceil(np.log2(np.maximum(n, 1))) - 1)).astype(int)


def bin_label(k: int) -> str:
    """``0``, ``1-4``, ``5-8``, ``9-16``, ... for the bins k = 0, 1, 2, 3, ..."""
    k = check_int(k, "length bin", low=0)
    if k == 0:
        return "0"
    low = 1 if k == 1 else 2**k + 1
    return f"{low}-{2 ** (k + 1)}"


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    """Kendall's τ-b between two score vectors (scipy's ``kendalltau``); NaN for < 2 systems."""
    from scipy.stats import kendalltau

    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.ndim != 1 or x.shape != y.shape:
        raise invalid("score vectors of Kendall's tau", "two vectors of the same length", f"shapes {x.shape} and {y.shape}")
    if x.size < 2:
        return float("nan")
    return float(kendalltau(x, y).statistic)


@dataclass(frozen=True)
class TruncationResult:
    """Optimal truncation of runs × topics for each truncation measure.

    Attributes
    ----------
    runs, topics, measures : list of str
    length : ndarray of int, shape (S, M, T)
        n*, the optimal length (0 for a topic missing from the run: the empty ranking).
    value : ndarray of float64, shape (S, M, T)
        The measure at n*.
    full_length : ndarray of int, shape (S, T)
        The returned length n.
    full_measures : list of str
    full_scores : ndarray of float64, shape (S, F)
        Mean over topics of each full-ranking measure on the full rankings.
    """

    runs: list[str]
    topics: list[str]
    measures: list[str]
    length: np.ndarray
    value: np.ndarray
    full_length: np.ndarray
    full_measures: list[str]
    full_scores: np.ndarray

    def distribution(self) -> tuple[list[str], np.ndarray]:
        """(bin labels, counts) with counts of shape (M, bins) over all run × topic pairs."""
        bins = length_bin(self.length)
        top = max(int(bins.max(initial=1)), 1)
        counts = np.stack([np.bincount(bins[:, m].ravel(), minlength=top + 1) for m in range(len(self.measures))])
        return [bin_label(k) for k in range(top + 1)], counts

    def kendall(self) -> np.ndarray:
        """τ between each full-ranking measure (rows) and each truncation measure at its optimum
        (columns), over the systems' mean scores (Amigó, Mizzaro & Spina, SIGIR 2022, Table 2), shape (F, M)."""
        truncated = self.value.mean(axis=2)  # (S, M)
        return np.array([[kendall_tau(self.full_scores[:, f], truncated[:, m])
                          for m in range(len(self.measures))] for f in range(len(self.full_measures))])

    def to_dict(self) -> dict[str, Any]:
        labels, counts = self.distribution()
        tau = self.kendall()
        return {
            "optimal": [
                {"run": run, "topic": topic, "measure": measure, "length": int(self.length[s, m, t]),
                 "returned": int(self.full_length[s, t]), "value": float(self.value[s, m, t])}
                for s, run in enumerate(self.runs) for t, topic in enumerate(self.topics)
                for m, measure in enumerate(self.measures)
            ],
            "distribution": [
                {"measure": measure, "bin": label, "count": int(counts[m, k]),
                 "fraction": float(counts[m, k] / max(counts[m].sum(), 1))}
                for m, measure in enumerate(self.measures) for k, label in enumerate(labels)
            ],
            "kendall": [
                {"full": full, "truncated": measure, "tau": None if np.isnan(tau[f, m]) else float(tau[f, m])}
                for f, full in enumerate(self.full_measures) for m, measure in enumerate(self.measures)
            ],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1) + "\n"

    def to_table(self) -> str:
        """The distribution (percent of run × topic pairs per length bin) and the τ table."""
        labels, counts = self.distribution()
        frac = 100 * counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        lines = ["optimal length n* (% of run × topic pairs per bin)",
                 _grid(["measure", *labels], [[m, *(f"{v:.1f}" for v in row)] for m, row in zip(self.measures, frac)])]
        if len(self.runs) >= 2:
            tau = self.kendall()
            lines += ["", "Kendall's tau: full-ranking measure (rows) vs truncation measure at its optimum (columns)",
                      _grid(["full \\ truncated", *self.measures],
                            [[f, *(f"{v:.2f}" for v in row)] for f, row in zip(self.full_measures, tau)])]
        return "\n".join(lines) + "\n"

    def plot(self, path: str) -> None:
        """Bar chart of the distribution of n* over the length bins (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2)."""
        from .figures import new_figure, save_figure

        labels, counts = self.distribution()
        frac = counts / np.maximum(counts.sum(axis=1, keepdims=True), 1)
        fig = new_figure(figsize=(max(6, 0.9 * len(labels) + 2), 4))
        ax = fig.subplots()
        width = 0.8 / max(len(self.measures), 1)
        for m, measure in enumerate(self.measures):
            ax.bar(np.arange(len(labels)) + m * width, frac[m], width, label=measure)
        ax.set_xticks(np.arange(len(labels)) + 0.4 - width / 2, labels)
        ax.set_xlabel("optimal ranking length n*")
        ax.set_ylabel("fraction of run × topic pairs")
        ax.legend(fontsize="small")
        fig.tight_layout()
        save_figure(fig, path)


def _grid(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(r[c]) for r in [head, *rows]) for c in range(len(head))]
    return "\n".join("  ".join(cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(r, widths)))
                     for r in [head, *rows])


def truncation_measure(name: str | Measure) -> Measure:
    """Parse a measure that has a prefix function (a truncation measure or F)."""
    m = parse_measure(name)
    if m.name not in PREFIX:
        raise CranfieldError(
            f"optimal truncation needs a measure that sees the ranking's length; {m.name} does not. "
            f"Use one of: {', '.join(sorted(PREFIX))}"
        )
    return m


def optimal_truncation(
    qrels: Any, runs: Sequence[Any], measures: Sequence[str | Measure], *,
    full_measures: Sequence[str | Measure] = DEFAULT_FULL, order: str = "score", **options: Any,
) -> TruncationResult:
    """Where each truncation measure would have each run stop, and what that costs or gains.

    Parameters
    ----------
    qrels, runs : as for :func:`cranfield.evaluate`
    measures : truncation measures (``RBU``, ``DCGU``, ``OIE``, ``NDCGT``, ``F``, ...)
    full_measures : measures evaluated on the full rankings for the τ table
    order, options : passed to :class:`~cranfield.evaluate.Evaluator` (``missing``, ``diversity``, ...)
    """
    parsed = [truncation_measure(m) for m in measures]
    if not parsed:
        raise CranfieldError("optimal truncation needs at least one truncation measure")
    if not runs:
        raise CranfieldError("optimal truncation needs at least one run")
    loaded: list[Run] = [as_run(r, order=order) for r in runs]  # type: ignore[arg-type]
    evaluator = Evaluator(qrels, list(full_measures), **options)
    full = evaluator.evaluate(loaded)
    coll = evaluator.collection
    n_s, n_m = len(loaded), len(parsed)
    length = np.zeros((n_s, n_m, coll.n_topics), dtype=int)
    value = np.zeros((n_s, n_m, coll.n_topics))
    returned = np.zeros((n_s, coll.n_topics), dtype=int)
    for s, run in enumerate(loaded):
        # a topic missing from the run is the empty ranking: its only choice is n* = 0
        for block in evaluator.topic_blocks(run):
            batch = coll.batch([run], topics=block)
            returned[s, block] = batch.length[0]
            for m, measure in enumerate(parsed):
                prefix = PREFIX[measure.name](batch, **measure.params)[0]
                length[s, m, block], value[s, m, block] = best_prefix(prefix, _length(batch, measure.cutoff)[0])
    keep = np.flatnonzero(evaluator.topic_mask)
    return TruncationResult(
        runs=full.runs, topics=full.topics, measures=[str(m) for m in measures], length=length[:, :, keep],
        value=value[:, :, keep], full_length=returned[:, keep], full_measures=[str(f) for f in full_measures],
        full_scores=full.summary(),
    )


TRUNCATION_EPILOG = """\
truncation measures: RBU, DCGU, ERRU, RBPU, FlatUtility (utility: gain minus an effort e per
document), NDCGT, ERRT, RBPT, RRT (a terminal document rewards stopping), OIE (information
theory), F. Each returns the length n* in [0, n] that maximises it (ties: the shortest).

examples:
  cranfield truncation qrels.txt runs/*.gz -m RBU -m 'RBPU(p=0.98)' -m OIE -m NDCGT
  cranfield truncation qrels.txt runs/*.gz -m DCGU --full AP --full nDCG --plot lengths.png
  cranfield truncation qrels.txt run.txt -m OIE --format json > optimal.json
"""


def add_parser(sub: Any) -> None:
    """The ``cranfield truncation`` subcommand."""
    import argparse

    from .cli import _split_measures

    p = sub.add_parser(
        "truncation", help="where should each run have stopped? (optimal truncation analysis)",
        description="For each run × topic, the ranking length that maximises each truncation measure; the "
                    "distribution of those lengths over log bins (Amigó, Mizzaro & Spina, SIGIR 2022, Figure 2) and, with two or more "
                    "runs, Kendall's tau between full-ranking measures and truncation measures at their "
                    "optimum (their Table 2).",
        epilog=TRUNCATION_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("qrels")
    p.add_argument("runs", nargs="+", metavar="run")
    p.add_argument("-m", "--measure", action="append", required=True, metavar="MEASURE",
                   help="a truncation measure (repeatable, or comma-separated)")
    p.add_argument("--full", action="append", metavar="MEASURE",
                   help=f"full-ranking measures for the tau table (default: {' '.join(DEFAULT_FULL)})")
    p.add_argument("--format", choices=("table", "json", "csv"), default="table",
                   help="table (default), json ({optimal, distribution, kendall}) or csv (one row per run, topic, measure)")
    p.add_argument("--plot", metavar="FILE", help="save the length distribution as a bar chart (.png, .svg, .pdf, ...; "
                                                  "needs matplotlib: pip install 'cranfield[plot]')")
    p.add_argument("--order", choices=("score", "rank", "file"), default="score")
    p.add_argument("--diversity", action="store_true", default=None, help="read the qrels as diversity qrels")
    p.set_defaults(handler=lambda args: _run(args, _split_measures(args.measure), _split_measures(args.full)))


def _run(args: Any, measures: list[str], full: list[str]) -> int:
    import sys

    from .figures import check_plot_path

    if args.plot:
        check_plot_path(args.plot)
    result = optimal_truncation(args.qrels, args.runs, measures, full_measures=full or DEFAULT_FULL,
                                order=args.order, diversity=args.diversity)
    if args.format == "json":
        sys.stdout.write(result.to_json())
    elif args.format == "csv":
        rows = result.to_dict()["optimal"]
        sys.stdout.write("run,topic,measure,length,returned,value\n")
        sys.stdout.writelines(f"{r['run']},{r['topic']},\"{r['measure']}\",{r['length']},{r['returned']},{r['value']!r}\n"
                              for r in rows)
    else:
        sys.stdout.write(result.to_table())
    if args.plot:
        result.plot(args.plot)
    return 0
