"""Stochastic runs (several sampled rankings per topic), document groups and target distributions.

A stochastic ranking policy is evaluated from samples of its rankings (Diaz, Mitra, Ekstrand,
Biega & Carterette, CIKM 2020). A stochastic run file has expeval's layout
``qid sample docno rank score tag``: column 2, where a TREC run has ``Q0``, numbers the sample.
It is read with the TREC run reader, each (topic, sample) pair being one ranked list, so the
order, tie and duplicate rules are those of every run (docs/conventions.md#order); a run read
without ``--stochastic`` is one sample per topic. Groups (``docno group [weight]``) and targets
(``group weight`` or ``qid group weight``) are cranfield's own formats (docs/fairness.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cranfield.errors import InputError
from cranfield.io._tokens import FLOAT, INTEGER, parse_ints, python_numbers, read_columns, require_columns, shown
from cranfield.io.arrow import is_arrow_table, is_parquet_path, read_parquet, table_to_frame
from cranfield.io.fastcsv import read_run_columns
from cranfield.io.run import (
    RUN_COLUMNS,
    Order,
    Run,
    build_run,
    frame_run_name,
    group_codes,
    pick_column,
    python_ids,
    python_values,
    run_from_frame,
)

SAMPLE_COLUMNS = ("sample", "iteration", "Q0")


@dataclass(frozen=True, eq=False)
class SampledRun:
    """Samples of a stochastic ranking policy: one ranked list per (topic, sample).

    Attributes
    ----------
    run : Run
        Every ranked list; list ``k`` is sample ``sample[k]`` (its slot among the topic's
        samples, 0-based, in order of first appearance) of topic ``topic[k]``.
    topic : ndarray of int64, shape (L,)
        The topic of each list, an index into :attr:`topic_ids`.
    sample : ndarray of int64, shape (L,)
        The slot of each list among its topic's samples.
    topic_ids : tuple of str
    """

    run: Run
    topic: np.ndarray
    sample: np.ndarray
    topic_ids: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.run.name

    @property
    def source(self) -> str:
        return self.run.source

    @property
    def n_samples(self) -> int:
        """The largest number of samples of a topic."""
        return int(self.sample.max()) + 1 if self.sample.size else 0

    def samples(self) -> list[Run]:
        """One :class:`Run` per sample slot: slot ``n`` holds the ``n``-th sample of every topic
        that has one (topics with fewer samples are absent from the later slots)."""
        lengths = self.run.lengths
        out = []
        for n in range(self.n_samples):
            lists = np.flatnonzero(self.sample == n)
            rows = list_rows(self.run.offsets, lists)
            offsets = np.concatenate(([0], np.cumsum(lengths[lists]))).astype(np.int64)
            out.append(Run(self.run.name, self.run.source, tuple(self.topic_ids[t] for t in self.topic[lists]),
                           offsets, self.run.docno[rows], self.run.score[rows],
                           None if self.run.line is None else self.run.line[rows], self.run.doc_key[rows]))
        return out

    def with_name(self, name: str) -> SampledRun:
        return replace(self, run=replace(self.run, name=name))

    @classmethod
    def single(cls, run: Run) -> SampledRun:
        """A deterministic run as a policy with one sample per topic."""
        n = len(run.topic_ids)
        return cls(run, np.arange(n, dtype=np.int64), np.zeros(n, dtype=np.int64), run.topic_ids)


def list_rows(offsets: np.ndarray, lists: np.ndarray) -> np.ndarray:
    """The row indices of the ranked lists ``lists`` (in that order) of a run with ``offsets``,
    without a Python loop."""
    lens = offsets[lists + 1] - offsets[lists]
    starts = np.repeat(offsets[lists] - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return starts + np.arange(int(lens.sum()))


def _sampled(topic: np.ndarray, topic_ids: list[str], sample: np.ndarray, sample_ids: list[str], docno: np.ndarray,
             score: np.ndarray, *, name: str, source: str, line: np.ndarray | None, rank: np.ndarray | None,
             order: Order, on_duplicate: Any, doc_key: np.ndarray | None, score_dtype: str) -> SampledRun:
    """Assemble a :class:`SampledRun` from row arrays: each (topic, sample) pair is one list,
    ranked and checked by :func:`~cranfield.io.run.build_run`."""
    pair = topic.astype(np.int64) * max(len(sample_ids), 1) + sample
    _, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    by_first = np.argsort(first, kind="stable")
    code = np.empty(first.size, dtype=np.int64)
    code[by_first] = np.arange(first.size)
    list_pair = pair[first[by_first]]
    list_topic, list_sample_id = list_pair // max(len(sample_ids), 1), list_pair % max(len(sample_ids), 1)
    ids = [f"{topic_ids[t]} (sample {sample_ids[s]})" for t, s in zip(list_topic.tolist(), list_sample_id.tolist())]
    run = build_run(code[inverse.ravel()], ids, docno, score, name=name, source=source, line=line, rank=rank,
                    order=order, on_duplicate=on_duplicate, doc_key=doc_key, score_dtype=score_dtype)
    # slot of each list among its topic's samples, in order of first appearance
    slot = np.zeros(list_topic.size, dtype=np.int64)
    by_topic = np.argsort(list_topic, kind="stable")
    t_sorted = list_topic[by_topic]
    starts = np.flatnonzero(np.concatenate(([True], t_sorted[1:] != t_sorted[:-1])))
    counts = np.diff(np.append(starts, t_sorted.size))
    slot[by_topic] = np.arange(t_sorted.size) - np.repeat(starts, counts)
    used = np.unique(list_topic)
    remap = np.full(len(topic_ids), -1, dtype=np.int64)
    remap[used] = np.arange(used.size)
    return SampledRun(run, remap[list_topic], slot, tuple(topic_ids[t] for t in used.tolist()))


def read_stochastic_run(path: str | Path, *, order: Order = "score", on_duplicate: Any = "error",
                        name: str | None = None, score_dtype: str = "float32") -> SampledRun:
    """Read a stochastic run ``qid sample docno rank score tag`` (expeval's layout; plain or gzip).

    Each (qid, sample) pair is one ranked list, ordered by ``order`` as :func:`~cranfield.io.read_run`
    orders a topic (``"rank"`` reproduces expeval, which ranks by the rank column and ignores
    the score). Errors name the file and line, as for any run.
    """
    source = str(path)
    # pyarrow's CSV reader for the usual file (cranfield.io.fastcsv); else the tokenizer
    cols = read_run_columns(path, codes=(0, 1), text=(3,) if order == "rank" else ())
    if cols is None:
        cols = read_columns(path, 6, text=[2, 3] if order == "rank" else [2], numbers={4: "score"}, keys=[2],
                            codes=[0, 1], uniform=[5], compact=True, ignore_extra=True)
    require_columns(cols, (6,), "qid sample docno rank score tag")
    rank = parse_ints(cols.text[3], source, cols.line, "rank", column=4) if order == "rank" else None
    if name is None:
        name = cols.first[5].decode() if cols.same[5] else Path(path).name
    return _sampled(cols.code[0], cols.names[0], cols.code[1].astype(np.int64), cols.names[1], cols.text[2],
                    cols.number[4], name=name, source=source, line=cols.line, rank=rank, order=order,
                    on_duplicate=on_duplicate, doc_key=cols.key[2], score_dtype=score_dtype)


def sampled_from_frame(df: Any, *, name: str | None = None, order: Order = "score", on_duplicate: Any = "error",
                       source: str = "<DataFrame>") -> SampledRun:
    """A :class:`SampledRun` from a DataFrame with a ``sample`` column besides a run's columns
    (:func:`~cranfield.io.run_from_frame`); without one, each topic is one sample."""
    column = pick_column(df.columns, SAMPLE_COLUMNS[:1])
    if column is None:
        return SampledRun.single(run_from_frame(df, name=name, order=order, on_duplicate=on_duplicate,
                                                source=source))
    cols = {role: pick_column(df.columns, opts) for role, opts in RUN_COLUMNS.items()}
    for role in ("qid", "docno", "score"):
        if cols[role] is None:
            raise InputError(source, None, f"no {role} column: expected one of {RUN_COLUMNS[role]}, "
                                           f"found {list(df.columns)}")
    if order == "rank" and cols["rank"] is None:
        raise InputError(source, None, "order='rank' needs a rank column")
    ids = python_ids(source, {"topic": df[cols["qid"]], "document": df[cols["docno"]], "sample": df[column]})
    score = python_values(source, df[cols["score"]].to_numpy(), FLOAT, "score", ids["topic"], ids["document"],
                          cols["score"])
    rank = (python_values(source, df[cols["rank"]].to_numpy(), INTEGER, "rank", ids["topic"], ids["document"],
                          cols["rank"]) if order == "rank" else None)
    topic_ids, topic = group_codes(ids["topic"])
    sample_ids, sample = group_codes(ids["sample"])
    return _sampled(topic, topic_ids, sample.astype(np.int64), sample_ids, ids["document"], score,
                    name=name or frame_run_name(df) or "run", source=source, line=None, rank=rank, order=order,
                    on_duplicate=on_duplicate, doc_key=None, score_dtype="float32")


def as_sampled_run(obj: Any, *, order: Order = "score", on_duplicate: Any = "error", name: str | None = None,
                   score_dtype: str = "float32") -> SampledRun:
    """A stochastic run from a path (:func:`read_stochastic_run`; Parquet: a ``sample`` column),
    a DataFrame or Arrow table with a ``sample`` column, a :class:`SampledRun`, or a :class:`Run`
    (one sample)."""
    if isinstance(obj, SampledRun):
        return obj
    if isinstance(obj, Run):
        return SampledRun.single(obj)
    if isinstance(obj, (str, Path)):
        if is_parquet_path(obj):
            frame = read_parquet(obj)
            return sampled_from_frame(frame, name=name or frame_run_name(frame) or Path(obj).name, order=order,
                                      on_duplicate=on_duplicate, source=str(obj))
        return read_stochastic_run(obj, order=order, on_duplicate=on_duplicate, name=name, score_dtype=score_dtype)
    if is_arrow_table(obj):
        return sampled_from_frame(table_to_frame(obj), name=name, order=order, on_duplicate=on_duplicate,
                                  source="<Table>")
    if hasattr(obj, "columns") and hasattr(obj, "to_numpy"):
        return sampled_from_frame(obj, name=name, order=order, on_duplicate=on_duplicate)
    raise TypeError(f"a stochastic run must be a path, a DataFrame or a Run, not {type(obj).__name__}")


# --------------------------------------------------------------------------- groups and targets
@dataclass(frozen=True, eq=False)
class Groups:
    """Group membership of documents (docs/fairness.md#groups).

    Attributes
    ----------
    group_ids : tuple of str
        The groups, in order of first appearance.
    docno : ndarray of bytes, shape (n,)
        The documents with a group, sorted.
    offsets : ndarray of int64, shape (n + 1,)
        Rows ``offsets[k]:offsets[k + 1]`` of ``group``/``weight`` belong to ``docno[k]``.
    group : ndarray of int64
    weight : ndarray of float64
        Each document's weights sum to 1.
    source : str
    """

    group_ids: tuple[str, ...]
    docno: np.ndarray
    offsets: np.ndarray
    group: np.ndarray
    weight: np.ndarray
    source: str

    def matrix(self, docnos: np.ndarray) -> np.ndarray:
        """The group weights of ``docnos``, shape (len(docnos), G); a zero row for a document
        in no group."""
        if not docnos.size or not self.docno.size:
            return self.rows(np.full(docnos.size, -1, dtype=np.int64))
        at = np.minimum(np.searchsorted(self.docno, docnos.astype(self.docno.dtype) if docnos.dtype.kind == "S"
                                        else np.array(docnos.tolist(), dtype="S")), self.docno.size - 1)
        return self.rows(np.where(self.docno[at] == docnos, at, -1))

    def rows(self, at: np.ndarray) -> np.ndarray:
        """The group weights of the documents ``docno[at]``, shape (len(at), G); a zero row
        where ``at`` is -1 (a document in no group)."""
        out = np.zeros((at.size, len(self.group_ids)))
        found = np.flatnonzero(at >= 0)
        lens = self.offsets[at[found] + 1] - self.offsets[at[found]]
        rows = list_rows(self.offsets, at[found])
        out[np.repeat(found, lens), self.group[rows]] = self.weight[rows]
        return out


def read_groups(path: str | Path) -> Groups:
    """Read ``docno group [weight]`` lines (plain or gzip). A document may be in several groups:
    with weights (in [0, 1]), they must sum to 1; without, each of its k lines weighs 1/k. Mixing weighted
    and unweighted lines of one document, a weight that is not a number, a group
    twice for one document, or weights not summing to 1 is an error naming the line."""
    source = str(path)
    cols = read_columns(path, 3, text=[0, 2], codes=[1], min_cols=2)
    require_columns(cols, (2, 3), "docno group [weight]")
    docno, group, line = cols.text[0], cols.code[1].astype(np.int64), cols.line
    weighted = cols.ncols == 3
    weight = np.ones(docno.size)
    if weighted.any():
        text = cols.text[2][weighted]
        values, bad = python_numbers(text, FLOAT)
        if bad is not None:
            raise InputError(source, int(line[weighted][bad]), f"the weight {shown(text[bad])} is not a number")
        wrong = np.flatnonzero(~((values >= 0) & (values <= 1)))
        if wrong.size:
            raise InputError(source, int(line[weighted][wrong[0]]),
                             f"the weight {shown(text[wrong[0]])} must be a number in [0, 1]")
        weight[weighted] = values
    order = np.lexsort((group, docno))
    docno, group, weight, line, weighted = docno[order], group[order], weight[order], line[order], weighted[order]
    head = np.concatenate(([True], docno[1:] != docno[:-1]))
    starts = np.flatnonzero(head)
    counts = np.diff(np.append(starts, docno.size))
    doc = np.repeat(np.arange(starts.size), counts)
    twice = np.flatnonzero(~head[1:] & (group[1:] == group[:-1])) + 1
    if twice.size:
        k = int(twice[0])
        raise InputError(source, int(max(line[k], line[k - 1])),
                         f"document {shown(docno[k])} is in group {cols.names[1][group[k]]!r} twice")
    mixed = np.flatnonzero(np.add.reduceat(weighted.astype(np.int64), starts) % counts != 0) if starts.size else \
        np.zeros(0, dtype=np.int64)
    if mixed.size:
        k = int(starts[mixed[0]])
        raise InputError(source, int(line[k]), f"document {shown(docno[k])} has lines with and without a weight")
    weight = np.where(weighted, weight, 1.0 / counts[doc])
    totals = np.add.reduceat(weight, starts) if starts.size else np.zeros(0)
    off = np.flatnonzero(np.abs(totals - 1.0) > 1e-9)
    if off.size:
        k = int(starts[off[0]])
        raise InputError(source, int(line[k]),
                         f"the weights of document {shown(docno[k])} sum to {totals[off[0]]:g}, not 1")
    offsets = np.append(starts, docno.size).astype(np.int64)
    return Groups(tuple(cols.names[1]), docno[starts], offsets, group, weight, source)


@dataclass(frozen=True)
class Target:
    """A target distribution over groups: one for every topic (``topic`` None) or one per topic.

    ``weights`` maps a topic (or ``None``: any topic) to ``{group: weight}``."""

    weights: dict[str | None, dict[str, float]]
    source: str


def read_target(path: str | Path) -> Target:
    """Read a target distribution: ``group weight`` lines (every topic) or ``qid group weight``
    lines (per topic; a topic not listed takes the ``group weight`` lines, if any). Weights
    are numbers >= 0, normalised to sum to 1 per topic."""
    source = str(path)
    cols = read_columns(path, 3, text=[0, 1, 2], min_cols=2)
    require_columns(cols, (2, 3), "[qid] group weight")
    three = cols.ncols == 3
    value_text = np.where(three, cols.text[2], cols.text[1])
    values, bad = python_numbers(value_text, FLOAT)
    if bad is not None or bool((values < 0).any()) or not np.isfinite(values).all():
        k = bad if bad is not None else int(np.flatnonzero((values < 0) | ~np.isfinite(values))[0])
        raise InputError(source, int(cols.line[k]), f"the weight {shown(value_text[k])} must be a number >= 0")
    weights: dict[str | None, dict[str, float]] = {}
    for k, (a, b, w) in enumerate(zip(cols.text[0].tolist(), cols.text[1].tolist(), values.tolist())):
        topic, group = (a.decode(), b.decode()) if three[k] else (None, a.decode())
        table = weights.setdefault(topic, {})
        if group in table:
            raise InputError(source, int(cols.line[k]), f"group {group!r} is listed twice"
                             + (f" for topic {topic!r}" if topic is not None else ""))
        table[group] = w
    for topic, table in weights.items():
        if sum(table.values()) <= 0:
            raise InputError(source, None, "the target weights" + (f" of topic {topic!r}" if topic else "")
                             + " sum to 0")
    return Target(weights, source)
