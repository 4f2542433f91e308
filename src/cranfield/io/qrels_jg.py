"""trec_eval's multi-judge qrels (``-R qrels_jg``): ``qid jg docno rel`` lines, the second column
naming the judgment group (the user, the assessor) that gave the label. Each group is a qrels of
its own: :func:`read_qrels_jg` splits the file into them (docs/judges.md#qrels_jg)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cranfield.io.qrels import Qrels, read_qrels

__all__ = ["read_qrels_jg", "split_groups"]


def split_groups(qrels: Qrels) -> dict[str, Qrels]:
    """Qrels read with the group in the intent column, as one ad hoc :class:`Qrels` per group,
    in order of first appearance; each keeps only the topics the group judges."""
    out = {}
    for code, name in enumerate(qrels.intent_ids):
        rows = np.flatnonzero(qrels.intent == code)
        used, topic = np.unique(qrels.topic[rows], return_inverse=True)
        order = np.argsort(np.array([np.flatnonzero(qrels.topic[rows] == u)[0] for u in used]), kind="stable")
        remap = np.empty(used.size, dtype=np.int64)
        remap[order] = np.arange(used.size)
        out[name] = Qrels(
            source=f"{qrels.source}[{name}]", topic_ids=tuple(qrels.topic_ids[used[k]] for k in order),
            topic=remap[topic], intent_ids=("0",), intent=np.zeros(rows.size, dtype=np.int64),
            docno=qrels.docno[rows], rel=qrels.rel[rows], line=None if qrels.line is None else qrels.line[rows],
            diversity=False)
    return out


def read_qrels_jg(path: str | Path) -> dict[str, Qrels]:
    """Read trec_eval's ``qrels_jg`` file (``qid jg docno rel``; trec_eval's ``get_qrels_jg.c``) as
    ``{group: Qrels}``. A document judged twice by one group for one topic is an error, as in
    trec_eval. Group names are read as intents are: a number's leading zeros are dropped."""
    return split_groups(read_qrels(path, diversity=True))
