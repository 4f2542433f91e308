"""Relevance judgments: TREC qrels, ndeval diversity qrels, intent files, dicts, DataFrames.

A TREC qrels line is ``qid iter docno rel``; ndeval's diversity qrels use the second column
for the intent (``qid intent docno rel``). A file is read as diversity qrels when asked, or
when its second column takes two or more values within some topic (docs/conventions.md#qrels-kind). Labels are
integers or NTCIR's ``L<d>``; negative labels (spam = -2) are judged but not relevant.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cranfield._numeric import distinct
from cranfield.errors import InputError, check_choice, warn
from cranfield.io._tokens import (
    FLOAT,
    INTEGER,
    LABEL,
    doc_keys,
    open_binary,
    parse_floats,
    parse_ints,
    read_columns,
    require_columns,
    shown,
)
from cranfield.io.run import check_topic_ids, group_codes, has_equal_keys, pick_column, python_ids, python_values

ADHOC_INTENT = "0"
SWAPPED = "a TREC run's six columns: did you swap the qrels and the run?"


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments as parallel row arrays.

    Attributes
    ----------
    source : str
    topic_ids : tuple of str
        Distinct topics in order of first appearance; ``topic`` holds codes into it.
    intent_ids : tuple of str
        Distinct intents (integers normalised, so ``"01"`` is ``"1"``); ``intent`` holds
        codes into it. Ad hoc qrels have the single intent ``"0"``.
    docno : ndarray of bytes, shape (n,)
        dtype ``S``, or an object array of ``bytes`` (see :class:`~cranfield.io.Run`).
    rel : ndarray of int64, shape (n,)
        The labels; ``<= 0`` is not relevant.
    line : ndarray of int64 or None
        Line numbers for messages (None for in-memory input).
    diversity : bool
        Whether the second column was read as an intent.
    comments : int
        The comment lines (``#``) skipped in ``source``, recorded in the provenance.
    judged_by : ndarray of int64, shape (n,), or None
        Layered qrels (docs/judges.md#layered): codes into ``judges``, the source (assessor,
        judge) of each label, from a fifth column; None for plain qrels.
    judges : tuple of str
        The sources named in layered qrels, in order of first appearance.
    """

    source: str
    topic_ids: tuple[str, ...]
    topic: np.ndarray
    intent_ids: tuple[str, ...]
    intent: np.ndarray
    docno: np.ndarray
    rel: np.ndarray
    line: np.ndarray | None
    diversity: bool
    comments: int = 0
    judged_by: np.ndarray | None = None
    judges: tuple[str, ...] = ()

    def __len__(self) -> int:
        return int(self.rel.size)

    def __repr__(self) -> str:
        kind = "diversity" if self.diversity else "ad hoc"
        return f"Qrels({kind}, topics={len(self.topic_ids)}, judgments={len(self)}, source={self.source!r})"


def normalise_intents(values: Sequence[str]) -> list[str]:
    """Integer intent ids compare numerically (docs/conventions.md#labels): ``"01"`` becomes
    ``"1"``. An id is an integer by the files' grammar (:data:`~cranfield.io._tokens.INTEGER`),
    not Python's, so ``"1_0"`` stays as it is."""
    integer = INTEGER.accepts([v.encode() for v in values]).tolist()
    return [str(int(v)) if ok else v for v, ok in zip(values, integer)]


def normalise_intent(value: str) -> str:
    """One intent id, :func:`normalise_intents`."""
    return normalise_intents([value])[0]


def parse_labels(values: np.ndarray, source: str, line: np.ndarray, column: int) -> np.ndarray:
    """Integer labels, accepting NTCIR's ``L<d>`` spelling (:data:`~cranfield.io._tokens.LABEL`)."""
    return parse_ints(values, source, line, "label", column=column, grammar=LABEL)


def _duplicate_rows(
    topic: np.ndarray, intent: np.ndarray, docno: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (a, b), a < b, of rows with equal (topic, intent, docno)."""
    keys = doc_keys(docno)
    pair = topic.astype(np.int64) * (int(intent.max(initial=0)) + 1) + intent  # (topic, intent) as one code
    if not has_equal_keys(pair, keys):  # certainly no repeated row (the usual file)
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    order = np.lexsort((keys, intent, topic))
    t, i, k = topic[order], intent[order], keys[order]
    same = np.flatnonzero((t[1:] == t[:-1]) & (i[1:] == i[:-1]) & (k[1:] == k[:-1]))
    a, b = order[same], order[same + 1]
    real = docno[a] == docno[b]
    a, b = a[real], b[real]
    return np.minimum(a, b), np.maximum(a, b)


def build_qrels(
    topic_values: np.ndarray, intent_values: np.ndarray | None, docno: np.ndarray,
    rel: np.ndarray, *, source: str, line: np.ndarray | None = None,
    diversity: bool | None = None, on_duplicate: str = "error", judged_by: np.ndarray | None = None,
) -> Qrels:
    """Assemble :class:`Qrels` from parallel row arrays (see :func:`read_qrels`); ``judged_by``
    holds the source of each label of layered qrels, as text."""
    check_choice(on_duplicate, "on_duplicate option", ("error", "max"))
    topic_ids, topic = group_codes(topic_values)
    check_topic_ids(topic_ids, topic, line, source)
    if intent_values is None:
        intent_values = np.full(topic.size, ADHOC_INTENT.encode(), dtype="S1")
    raw_ids, raw_intent = group_codes(intent_values)
    names = normalise_intents(raw_ids)
    intent_ids = list(dict.fromkeys(names))
    intent = np.array([intent_ids.index(n) for n in names], dtype=np.int64)[raw_intent]
    if diversity is None:
        diversity = _looks_diverse(topic, intent)
        if diversity:
            _note_detected(source)
    if not diversity:
        intent_ids, intent = [ADHOC_INTENT], np.zeros(topic.size, dtype=np.int64)
    a, b = _duplicate_rows(topic, intent, docno)
    if a.size:
        if on_duplicate == "error":
            first = int(np.argmin(b))
            i, j = int(a[first]), int(b[first])
            where = f"lines {int(line[i])} and {int(line[j])}" if line is not None else "twice"
            what = f"topic {topic_ids[topic[i]]!r}" + (
                f", intent {intent_ids[intent[i]]!r}" if diversity else ""
            )
            raise InputError(
                source, int(line[j]) if line is not None else None,
                f"document {shown(docno[i])} is judged {where} for {what} "
                "(on_duplicate='max' keeps the larger label)",
            )
        if judged_by is not None:  # the larger label keeps its source
            judged_by = judged_by.copy()
            larger = rel[b] > rel[a]
            judged_by[a[larger]] = judged_by[b[larger]]
        rel = rel.copy()
        np.maximum.at(rel, a, rel[b])
        keep = np.ones(rel.size, dtype=bool)
        keep[b] = False
        topic, intent, docno, rel = topic[keep], intent[keep], docno[keep], rel[keep]
        line = line[keep] if line is not None else None
        judged_by = judged_by[keep] if judged_by is not None else None
    judges, code = group_codes(judged_by) if judged_by is not None else ([], None)
    return Qrels(
        source, tuple(topic_ids), topic, tuple(intent_ids), intent, docno, rel, line, bool(diversity),
        judged_by=None if code is None else code.astype(np.int64), judges=tuple(judges),
    )


_NOTED: set[tuple[str, int, int]] = set()  # the files already said to be read as diversity qrels


def _note_detected(source: str) -> None:
    """Say that ``source`` was read as diversity qrels by the rule of docs/conventions.md#qrels-kind:
    once per file (its path, size and modification time) in a process, not at every evaluation of
    it; every time for in-memory judgments, which have no file to remember."""
    try:
        stat = os.stat(source)
        key: tuple[str, int, int] | None = (os.path.realpath(source), stat.st_size, stat.st_mtime_ns)
    except OSError:
        key = None
    if key in _NOTED:
        return
    if key is not None:
        _NOTED.add(key)
    warn(f"{source}: read as diversity qrels (qid intent docno rel) because its second column takes "
         "several values within a topic; pass --adhoc to read it as ad hoc")


def _looks_diverse(topic: np.ndarray, intent: np.ndarray) -> bool:
    """Whether the second column takes two or more values within some topic."""
    if topic.size == 0:
        return False
    pairs = distinct((topic.astype(np.int64) << 32) | intent.astype(np.int64))  # codes: both >= 0
    return bool(distinct(pairs >> 32).size < pairs.size)


def read_qrels(
    path: str | Path, *, diversity: bool | None = None, on_duplicate: str = "error",
) -> Qrels:
    """Read TREC qrels (``qid iter docno rel``) or ndeval diversity qrels (``qid intent docno rel``);
    a fifth column names the source of each label (layered qrels, docs/judges.md#layered:
    ``qid iter docno rel source``, as ``cranfield judges --fill`` writes them).

    Parameters
    ----------
    path : str or Path
        Plain or gzip text.
    diversity : bool, optional
        ``True`` reads column 2 as the intent, ``False`` ignores it (ad hoc); by default a
        file whose column 2 takes two or more values within some topic is read as diversity
        qrels, with a warning (docs/conventions.md#qrels-kind).
    on_duplicate : {"error", "max"}
        A (topic, [intent,] docno) judged twice is an error naming both lines, or keeps the
        larger label.
    """
    source = str(path)
    cols = read_columns(path, 5, compact=True, first_line_hints={6: SWAPPED})
    layered = bool(cols.ncols.size) and int(cols.ncols[0]) == 5
    require_columns(cols, (5,) if layered else (4,), "qid iter docno rel source" if layered else "qid iter docno rel")
    qid, second, docno, label = (cols.text[j] for j in range(4))
    rel = parse_labels(label, source, cols.line, 4)
    qrels = build_qrels(
        qid, second, docno, rel, source=source, line=cols.line, diversity=diversity,
        on_duplicate=on_duplicate, judged_by=cols.text[4] if layered else None,
    )
    names = [j.encode() for j in qrels.judges]
    numbers = (FLOAT.accepts(names) & ~INTEGER.accepts(names)).tolist()
    if any(numbers):  # a prels file (qid docno rel method prob) is not layered qrels
        name = qrels.judges[numbers.index(True)]
        row = int(np.argmax(qrels.judged_by == numbers.index(True))) if qrels.judged_by is not None else 0
        raise InputError(source, None if qrels.line is None else int(qrels.line[row]),
                         f"the fifth column of layered qrels (qid iter docno rel source) names the source of the "
                         f"label, a name; got the fraction {name!r} (a prels file, qid docno rel method prob?)")
    return dataclasses.replace(qrels, comments=cols.comments) if cols.comments else qrels


def qrels_from_dict(qrels: Mapping[str, Mapping[str, Any]], *, diversity: bool | None = None) -> Qrels:
    """:class:`Qrels` from ``{qid: {docno: rel}}`` (pytrec_eval) or, for diversity qrels,
    ``{qid: {intent: {docno: rel}}}``. Labels are integers (or their text, ``L<d>`` included)."""
    qids, intents, docs, rels = [], [], [], []
    for qid, judged in qrels.items():
        if not isinstance(judged, Mapping):
            raise InputError("<dict>", None, f"topic {qid!r}: expected a dict of docno -> label")
        for key, value in judged.items():
            if isinstance(value, Mapping):
                for doc, rel in value.items():
                    qids.append(qid)
                    intents.append(key)
                    docs.append(doc)
                    rels.append(rel)
            else:
                qids.append(qid)
                intents.append(ADHOC_INTENT)
                docs.append(key)
                rels.append(value)
    nested = any(isinstance(v, Mapping) for j in qrels.values() for v in j.values())
    ids = python_ids("<dict>", {"topic": qids, "intent": intents, "document": docs})
    rel = python_values("<dict>", rels, LABEL, "label", ids["topic"], ids["document"])
    return build_qrels(
        ids["topic"], ids["intent"], ids["document"], rel, source="<dict>",
        diversity=nested if diversity is None else diversity,
    )


QRELS_COLUMNS = {
    "qid": ("qid", "query_id", "topic", "query"),
    "intent": ("intent", "subtopic", "iteration", "iter"),
    "docno": ("docno", "doc_id", "docid", "doc"),
    "rel": ("rel", "relevance", "label", "grade"),
}


def qrels_from_frame(df: Any, *, diversity: bool | None = None, on_duplicate: str = "error",
                     source: str = "<DataFrame>") -> Qrels:
    """:class:`Qrels` from a DataFrame with columns ``qid``/``query_id``, ``docno``/``doc_id``,
    ``rel``/``relevance``/``label`` and optionally ``intent``/``iteration`` (``on_duplicate`` as
    for :func:`read_qrels`; ``source`` names the input in messages)."""
    cols = {role: pick_column(df.columns, opts) for role, opts in QRELS_COLUMNS.items()}
    for role in ("qid", "docno", "rel"):
        if cols[role] is None:
            raise InputError(
                source, None,
                f"no {role} column: expected one of {QRELS_COLUMNS[role]}, found {list(df.columns)}",
            )
    columns = {"topic": df[cols["qid"]], "document": df[cols["docno"]]}
    if cols["intent"]:
        columns["intent"] = df[cols["intent"]]
    ids = python_ids(source, columns)
    rel = python_values(source, df[cols["rel"]].to_numpy(), LABEL, "label", ids["topic"], ids["document"], cols["rel"])
    return build_qrels(
        ids["topic"], ids.get("intent"), ids["document"], rel, source=source,
        diversity=diversity if cols["intent"] else False, on_duplicate=on_duplicate,
    )


@dataclass(frozen=True)
class Intents:
    """An intent file ``qid intent probability [inf|nav]``: one row per (topic, intent)."""

    source: str
    topic: tuple[str, ...]
    intent: tuple[str, ...]
    probability: np.ndarray
    kind: tuple[str | None, ...]


def read_intents(path: str | Path) -> Intents:
    """Read an intent file ``qid intent probability [inf|nav]`` (NTCIR Iprob/DIN layout).

    Probabilities must be numbers in [0, 1]; the optional fourth column must be ``inf`` or
    ``nav``; a (topic, intent) listed twice is an error. Whether each topic's probabilities
    sum to 1 is checked when the intents are joined to the qrels (docs/conventions.md#intents).
    """
    source = str(path)
    cols = read_columns(path, 4, compact=True)
    require_columns(cols, (3, 4), "qid intent probability [inf|nav]")
    qid, intent, prob_text, kind_text = (cols.text[j] for j in range(4))
    prob = parse_floats(prob_text, source, cols.line, "probability", column=3)
    bad = np.flatnonzero((prob < 0) | (prob > 1))
    if bad.size:
        raise InputError(source, int(cols.line[bad[0]]), f"probability {prob[bad[0]]} is not in [0, 1]")
    kinds: list[str | None] = []
    for k, (text, n) in enumerate(zip(kind_text.tolist(), cols.ncols.tolist())):
        if n == 3:
            kinds.append(None)
            continue
        word = text.decode().lower()
        if word not in ("inf", "nav"):
            raise InputError(source, int(cols.line[k]), f"intent type {text.decode()!r} is not inf or nav")
        kinds.append(word)
    topics = [q.decode() for q in qid.tolist()]
    intents = normalise_intents([i.decode() for i in intent.tolist()])
    seen: dict[tuple[str, str], int] = {}
    for k, key in enumerate(zip(topics, intents)):
        if key in seen:
            raise InputError(
                source, int(cols.line[k]),
                f"intent {key[1]!r} of topic {key[0]!r} is listed again (first at line {seen[key]})",
            )
        seen[key] = int(cols.line[k])
    return Intents(source, tuple(topics), tuple(intents), prob, tuple(kinds))


def read_intent_types(path: str | Path) -> dict[tuple[str, str], str]:
    """Intent types ``{(qid, intent): "inf" | "nav"}`` from ``qid intent inf|nav`` lines or a
    TREC Web topics XML file (``<topic number=..><subtopic number=".." type="inf|nav">``)."""
    source = str(path)
    with open_binary(path) as f:
        head = f.read(512)
    if head.lstrip().startswith(b"<"):
        return _types_from_xml(path, source)
    cols = read_columns(path, 3, compact=True)
    require_columns(cols, (3,), "qid intent inf|nav")
    out: dict[tuple[str, str], str] = {}
    intents = normalise_intents([i.decode() for i in cols.text[1].tolist()])
    for k, (q, i, t) in enumerate(zip(cols.text[0].tolist(), intents, cols.text[2].tolist())):
        word = t.decode().lower()
        if word not in ("inf", "nav"):
            raise InputError(source, int(cols.line[k]), f"intent type {t.decode()!r} is not inf or nav")
        out[(q.decode(), i)] = word
    return out


def _types_from_xml(path: str | Path, source: str) -> dict[tuple[str, str], str]:
    import xml.etree.ElementTree as ET

    try:
        with open_binary(path) as f:
            root = ET.parse(f).getroot()
    except ET.ParseError as exc:
        raise InputError(source, exc.position[0], f"not well-formed XML: {exc}") from None
    out: dict[tuple[str, str], str] = {}
    for topic in root.iter("topic"):
        qid = topic.get("number", "").strip()
        for sub in topic.iter("subtopic"):
            kind = (sub.get("type") or "inf").strip().lower()
            if kind not in ("inf", "nav"):
                raise InputError(source, None, f"topic {qid}: subtopic type {kind!r} is not inf or nav")
            out[(qid, normalise_intent(sub.get("number", "").strip()))] = kind
    if not out:
        raise InputError(source, None, "no <topic><subtopic type=...> elements found")
    return out
