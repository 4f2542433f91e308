"""trec_eval's multi-judge qrels (``-R qrels_jg``): ``qid jg docno rel`` lines, the second column
naming the judgment group (the user, the assessor) that gave the label. Each group is a qrels of
its own: :func:`read_qrels_jg` splits the file into them (docs/judges.md#qrels_jg)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from cranfield.io._tokens import read_columns, require_columns
from cranfield.io.qrels import SWAPPED, Qrels, build_qrels, parse_labels
from cranfield.io.run import group_codes

__all__ = ["read_qrels_jg"]


def read_qrels_jg(path: str | Path) -> dict[str, Qrels]:
    """Read trec_eval's ``qrels_jg`` file (``qid jg docno rel``; trec_eval 9.0.x's
    ``get_qrels_jg.c``) as ``{group: Qrels}``, the groups in order of first appearance, each
    holding only the topics it judges. A group is named by its text as written (``01`` and ``1``
    are two groups, as trec_eval's ``strcmp`` tells them apart); a document judged twice by one
    group for one topic is an error naming both lines, as trec_eval refuses it."""
    source = str(path)
    cols = read_columns(path, 4, compact=True, first_line_hints={6: SWAPPED})
    require_columns(cols, (4,), "qid jg docno rel")
    qid, group, docno, label = (cols.text[j] for j in range(4))
    rel = parse_labels(label, source, cols.line, 4)
    names, code = group_codes(group)
    out = {}
    for g, name in enumerate(names):
        rows = np.flatnonzero(code == g)
        qrels = build_qrels(qid[rows], None, docno[rows], rel[rows], source=source, line=cols.line[rows],
                            diversity=False)
        out[name] = dataclasses.replace(qrels, source=f"{source}[{name}]")
    return out
