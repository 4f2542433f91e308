"""Did the reproduction succeed? Breuer et al.'s measures (SIGIR 2020) on any cranfield measure.

An original experiment has a baseline and an advanced run; a reproduction reruns both. On the
same collection (reproducibility) the reproduced runs are compared with the original ones

- at the level of documents: Kendall's tau union and repro_eval's RBO (p = 0.95, truncated at k and
  normalised) of each topic's first k documents, for k in the cutoffs
  (:mod:`cranfield.measures.similarity`);
- at the level of scores: the root mean square error of the per-topic scores of each measure,
  RMSE = sqrt(1/T sum_t (orig_t - rep_t)^2), and the paired two-sided t-test p-value;
- at the level of effects: the effect ratio ER = mean_t(rep_a - rep_b) / mean_t(orig_a - orig_b) and
  the delta relative improvement ΔRI = RI_orig - RI_rep, RI = (mean a - mean b) / mean b.

On another collection (replicability, ``rep_qrels``) the topics differ, so only ER, ΔRI and the
unpaired (Student's, equal variances) t-test p-values are defined. The values equal repro_eval's
(Breuer et al.'s implementation) wherever both compute them.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._display import frame_html, frame_repr
from cranfield._version import __version__
from cranfield.analysis.options import REPRO_COLUMNS
from cranfield.analysis.similarity import compare_rankings
from cranfield.errors import CranfieldError, EvaluationWarning
from cranfield.evaluation.evaluator import Evaluator, Results
from cranfield.io import as_run
from cranfield.io.ir_metadata import read_ir_metadata
from cranfield.io.run import MEAN_TOPIC

DEFAULT_CUTOFFS = (5, 10, 20, 50, 100, 1000)  # those of repro_eval's examples
REPRO_RBO_P = 0.95  # repro_eval's RBO_P
ROLES = ("baseline", "advanced")

Row = tuple[str, "str | None", "str | None", "int | None", str, float]


@dataclass(frozen=True, eq=False)
class ReproResult:
    """Breuer et al.'s statistics of a reproduction (``kind="reproducibility"``) or a replication
    (``kind="replicability"``), as rows ``statistic, measure, run, cutoff, topic, value``.

    ``statistic`` is KTU, RBO, RMSE, ER, DeltaRI or p; ``measure`` is None for KTU and RBO;
    ``run`` (baseline or advanced) is None for ER and DeltaRI; ``cutoff`` is set for KTU and RBO
    only; ``topic`` is a topic id or ``all`` (the mean over topics; RMSE's ``all`` is the RMSE, its
    per-topic rows the absolute differences |orig - rep|). ``metadata`` is the provenance: version,
    settings, and each run file with its ir_metadata header (:mod:`cranfield.io.ir_metadata`).
    """

    kind: str
    rows: tuple[Row, ...]
    measures: tuple[str, ...]
    cutoffs: tuple[int, ...]
    metadata: dict[str, Any]

    _repr_html_ = frame_html()
    __repr__ = frame_repr()

    def to_frame(self) -> Any:
        """A DataFrame with the columns ``statistic, measure, run, cutoff, topic, value`` (cutoff
        as a nullable integer)."""
        import pandas as pd

        frame = pd.DataFrame(list(self.rows), columns=list(REPRO_COLUMNS))
        frame["cutoff"] = frame["cutoff"].astype("Int64")
        return frame

    def to_dict(self) -> dict[str, Any]:
        """``{"kind", "measures", "cutoffs", "metadata", "rows": [{statistic, ...}]}`` (NaN as None)."""
        rows = [dict(zip(REPRO_COLUMNS, (*r[:5], None if r[5] != r[5] else r[5]))) for r in self.rows]
        return {"kind": self.kind, "measures": list(self.measures), "cutoffs": list(self.cutoffs),
                "metadata": self.metadata, "rows": rows}

    def select(self, statistic: str) -> list[Row]:
        """The rows of one statistic."""
        return [r for r in self.rows if r[0] == statistic]


def reproduce(qrels: Any, orig_baseline: Any, orig_advanced: Any, rep_baseline: Any, rep_advanced: Any,
              measures: Sequence[str] | str, *, rep_qrels: Any = None, cutoffs: Sequence[int] = DEFAULT_CUTOFFS,
              order: str = "score", on_duplicate: str = "error", score_dtype: str = "float32",
              **evaluator_options: Any) -> ReproResult:
    """Breuer et al.'s (SIGIR 2020) reproducibility measures of ``rep_baseline``/``rep_advanced``
    against ``orig_baseline``/``orig_advanced`` on ``qrels``; with ``rep_qrels`` (the reproduced
    runs are on another collection) their replicability measures.

    ``measures`` are any cranfield measures; ``cutoffs`` those of KTU and RBO; the runs are read
    as ``order`` says, and ``evaluator_options`` (``missing``, ``norel``, ``diversity``, ...) configure
    the :class:`~cranfield.evaluation.evaluator.Evaluator` of both collections.
    """
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names:
        raise CranfieldError("no measure given (-m AP, -m nDCG@10, ...)")
    from cranfield.errors import check_int
    from cranfield.measures.registry import parse_measure

    for name in names:  # every name checked before any file is read
        parse_measure(name)
    cuts = tuple(sorted({check_int(k, "cutoff", low=1) for k in cutoffs}))
    read = {"order": order, "on_duplicate": on_duplicate, "score_dtype": score_dtype}
    orig = [as_run(r, name=role, **read) for r, role in zip((orig_baseline, orig_advanced), ROLES)]  # type: ignore[arg-type]
    rep = [as_run(r, name=role, **read) for r, role in zip((rep_baseline, rep_advanced), ROLES)]  # type: ignore[arg-type]
    evaluator = Evaluator(qrels, names, **evaluator_options)
    orig_scores = evaluator.evaluate(orig, names=list(ROLES))
    rep_eval = evaluator if rep_qrels is None else Evaluator(rep_qrels, names, **evaluator_options)
    rep_scores = rep_eval.evaluate(rep, names=list(ROLES))
    measure_names = tuple(orig_scores.measures)
    rows: list[Row] = []
    if rep_qrels is None:
        rows += _document_rows(orig, rep, cuts)
        rows += _rmse_rows(orig_scores, rep_scores)
    rows += _effect_rows(orig_scores, rep_scores)
    rows += _p_rows(orig_scores, rep_scores, paired=rep_qrels is None)
    kind = "reproducibility" if rep_qrels is None else "replicability"
    meta = {"cranfield": __version__, "kind": kind,
            "qrels": str(qrels) if isinstance(qrels, (str, Path)) else "<qrels>",
            "rep_qrels": str(rep_qrels) if isinstance(rep_qrels, (str, Path)) else None,
            "measures": list(measure_names), "cutoffs": list(cuts), "order": order,
            "runs": {f"{which}_{run.name}": {"source": run.source, "ir_metadata": _header(run.source)}
                     for which, runs in (("orig", orig), ("rep", rep)) for run in runs}}
    return ReproResult(kind, tuple(rows), measure_names, cuts if rep_qrels is None else (), meta)


def _header(source: str) -> dict[str, Any] | None:
    """The ir_metadata header of a run file (None for in-memory runs and files without one)."""
    path = Path(source)
    return read_ir_metadata(path) if path.is_file() else None


def _document_rows(orig: list[Any], rep: list[Any], cutoffs: tuple[int, ...]) -> Iterator[Row]:
    """KTU and RBO (repro_eval's, p = 0.95) of each role's original and reproduced rankings per cutoff."""
    sims = [f"KTU@{k}" for k in cutoffs] + [f"nRBO@{k}" for k in cutoffs]
    for o, r, role in zip(orig, rep, ROLES):
        result = compare_rankings({"orig": o, "rep": r}, sims)
        means = result.means[0]
        for m, name in enumerate(sims):
            statistic, k = ("KTU" if name.startswith("KTU") else "RBO"), cutoffs[m % len(cutoffs)]
            for t in np.flatnonzero(result.present[0]):
                yield statistic, None, role, k, result.topics[t], float(result.values[0, m, t])
            yield statistic, None, role, k, MEAN_TOPIC, float(means[m])


def _paired(orig: Results, rep: Results, s: int, m: int) -> tuple[list[str], np.ndarray, np.ndarray]:
    """The topics both scores have for run s and measure m, with the two score vectors; a warning
    names topics scored in only one."""
    a, b = orig.values[s, m], rep.values[s, m]
    both = ~np.isnan(a) & ~np.isnan(b)
    if not both.all() and (np.isnan(a) != np.isnan(b)).any():
        warnings.warn(f"{int((np.isnan(a) != np.isnan(b)).sum())} topic(s) scored for only one of the original "
                      f"and reproduced {ROLES[s]} runs are left out of RMSE and p", EvaluationWarning, stacklevel=4)
    return [orig.topics[t] for t in np.flatnonzero(both)], a[both], b[both]


def _rmse_rows(orig: Results, rep: Results) -> Iterator[Row]:
    """RMSE per measure and role; per topic |orig - rep| (Breuer et al., SIGIR 2020, Eq. 1)."""
    for s, role in enumerate(ROLES):
        for m, measure in enumerate(orig.measures):
            topics, a, b = _paired(orig, rep, s, m)
            diff = a - b
            for topic, d in zip(topics, np.abs(diff).tolist()):
                yield "RMSE", measure, role, None, topic, d
            rmse = float(np.sqrt(np.add.reduce(diff * diff) / diff.size)) if diff.size else float("nan")
            yield "RMSE", measure, role, None, MEAN_TOPIC, rmse


def _means(scores: Results, s: int, m: int) -> float:
    values = scores.values[s, m]
    values = values[~np.isnan(values)]
    return float(np.add.reduce(values) / values.size) if values.size else float("nan")


def _effect_rows(orig: Results, rep: Results) -> Iterator[Row]:
    """ER (Breuer et al., SIGIR 2020, Eq. 3) and ΔRI (Eq. 5) per measure."""
    for m, measure in enumerate(orig.measures):
        ob, oa, rb, ra = _means(orig, 0, m), _means(orig, 1, m), _means(rep, 0, m), _means(rep, 1, m)
        with np.errstate(divide="ignore", invalid="ignore"):
            er = float(np.float64(_mean_difference(rep, m)) / np.float64(_mean_difference(orig, m)))
            dri = float((np.float64(oa) - ob) / ob - (np.float64(ra) - rb) / rb)
        yield "ER", measure, None, None, MEAN_TOPIC, er
        yield "DeltaRI", measure, None, None, MEAN_TOPIC, dri


def _mean_difference(scores: Results, m: int) -> float:
    """The mean over topics of advanced − baseline (topics both runs have)."""
    d = scores.values[1, m] - scores.values[0, m]
    d = d[~np.isnan(d)]
    return float(np.add.reduce(d) / d.size) if d.size else float("nan")


def _p_rows(orig: Results, rep: Results, paired: bool) -> Iterator[Row]:
    """Two-sided t-test p-values between original and reproduced scores: paired (scipy's
    ``ttest_rel``) on the same topics, unpaired (``ttest_ind``) for a replication. Two identical
    score vectors give p = 1 (the test itself is undefined: zero variance)."""
    from scipy import stats

    for s, role in enumerate(ROLES):
        for m, measure in enumerate(orig.measures):
            if paired:
                _, a, b = _paired(orig, rep, s, m)
            else:
                a, b = orig.values[s, m], rep.values[s, m]
                a, b = a[~np.isnan(a)], b[~np.isnan(b)]
            if a.size == b.size and bool(np.array_equal(a, b)):
                p = 1.0
            else:
                test = stats.ttest_rel(a, b) if paired else stats.ttest_ind(a, b)
                p = float(test.pvalue)
            yield "p", measure, role, None, MEAN_TOPIC, p
