"""TREC Dynamic Domain files (SPEC §0, §2 Cube Test).

- Ground truth as distributed: ``topic subtopic docno passage_id rating`` (tab-separated),
  one line per judged passage. A document's rating for a subtopic combines its passages'
  ratings: ``combine="sum"`` (the 2017 scorer; a 0 rating counts as 1) or ``"dcg"`` (the 2016
  scorer: Σ_j r_(j)/log2(j + 1) over the ratings sorted descending).
- Runs: ``topic iteration docno score on_topic subtopic:rating|...`` (the jig's output). The
  ranking is the documents by iteration (0-based), in file order within an iteration; a
  document repeated in a later iteration earns nothing (``dup="nonrel"``, as the jig, which
  never returns a document twice) or is an error (``dup="error"``).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from ._tokens import open_binary, parse_ints, read_columns, require_columns
from .qrels import Qrels, build_qrels
from .run import Run, build_run, group_codes

COMBINE = ("sum", "dcg")
_RATINGS = re.compile(r"[^\s:|]+:-?\d+(\|[^\s:|]+:-?\d+)*")


def read_dd_truth(path: str | Path, *, combine: str = "sum") -> Qrels:
    """Read the DD ground truth into diversity :class:`~cranfield.io.Qrels` whose labels are the
    combined (float) ratings of each (topic, subtopic, document)."""
    source = str(path)
    if combine not in COMBINE:
        raise InputError(source, None, f"combine must be one of {COMBINE}, got {combine!r}")
    cols = read_columns(path, 5)
    require_columns(cols, (5,), "topic subtopic docno passage_id rating")
    topic, subtopic, docno = cols.text[0], cols.text[1], cols.text[2]
    rating = parse_ints(cols.text[4], source, cols.line, "rating").astype(np.float64)
    rating = np.where(rating == 0, 1.0, rating)  # the jig reads a 0 rating as 1
    # one row per (topic, subtopic, docno): combine its passages
    keys = np.stack([group_codes(topic)[1], group_codes(subtopic)[1], group_codes(docno)[1]])
    order = np.lexsort((-rating, keys[2], keys[1], keys[0]))
    k, r = keys[:, order], rating[order]
    head = np.concatenate(([True], (k[:, 1:] != k[:, :-1]).any(axis=0)))
    group = np.cumsum(head) - 1
    position = np.arange(r.size) - np.flatnonzero(head)[group]  # rank of the passage within its group
    weight = 1.0 if combine == "sum" else 1.0 / np.log2(position + 2.0)
    combined = np.bincount(group, weights=r * weight)
    first = order[head]
    return build_qrels(topic[first], subtopic[first], docno[first], combined, source=source,
                       line=cols.line[first], diversity=True)


def looks_like_dd_run(path: str | Path) -> bool:
    """Whether a run file is in the DD jig's layout (an integer iteration in column 2 and an
    on-topic flag in column 5) rather than TREC's ``qid Q0 docno rank score tag``."""
    with open_binary(path) as f:
        for raw in f:
            fields = raw.decode("utf-8", "replace").rstrip("\r\n").split("\t")
            if not raw.strip():
                continue
            ratings = fields[5].strip() if len(fields) == 6 else ""
            return (len(fields) in (5, 6) and fields[1].strip().isdigit() and fields[4].strip() in ("0", "1")
                    and (not ratings or _RATINGS.fullmatch(ratings) is not None))
    return False


def read_dd_run(path: str | Path, *, dup: str = "nonrel", name: str | None = None) -> Run:
    """Read a DD run; the returned :class:`~cranfield.io.Run` carries each document's iteration."""
    source = str(path)
    if dup not in ("nonrel", "error"):
        raise InputError(source, None, f"dup must be 'nonrel' or 'error', got {dup!r}")
    cols = read_columns(path, 6, text=[0, 1, 2], numbers={3: "score"}, min_cols=5)
    require_columns(cols, (5, 6), "topic iteration docno score on_topic subtopic:rating|...")
    topic, docno = cols.text[0], cols.text[2]
    iteration = parse_ints(cols.text[1], source, cols.line, "iteration")
    if (iteration < 0).any():
        i = int(np.flatnonzero(iteration < 0)[0])
        raise InputError(source, int(cols.line[i]), f"iteration {int(iteration[i])} is negative")
    topic_ids, codes = group_codes(topic)
    # rank = iteration, then file order; repeated documents become unmatchable non-relevant rows
    docno = _mark_repeats(codes, iteration, docno, cols.line, source, topic_ids, dup)
    order = np.lexsort((np.arange(codes.size), iteration, codes))
    run = build_run(
        codes[order], topic_ids, docno[order], cols.number[3][order],
        name=name or Path(path).name, source=source, line=cols.line[order], order="file",
    )
    return dataclasses.replace(run, iteration=iteration[order])


def _mark_repeats(topic: np.ndarray, iteration: np.ndarray, docno: np.ndarray, line: np.ndarray,
                  source: str, topic_ids: list[str], dup: str) -> np.ndarray:
    order = np.lexsort((line, iteration, docno, topic))
    same = (topic[order][1:] == topic[order][:-1]) & (docno[order][1:] == docno[order][:-1])
    later = order[1:][same]
    if not later.size:
        return docno
    if dup == "error":
        i = int(later[0])
        raise InputError(source, int(line[i]), f"document {docno[i].decode()!r} is returned again for topic "
                                               f"{topic_ids[topic[i]]!r} (dup='nonrel' scores it as non-relevant)")
    marked = docno.astype(f"S{docno.dtype.itemsize + 24}")
    marked[later] = [d + b"\x00repeat" + str(k).encode() for k, d in enumerate(docno[later].tolist())]
    return marked
