"""TREC Dynamic Domain files (docs/conventions.md#files, docs/conventions.md#cube-test; the DD
track: Yang, Frank & Soboroff, TREC 2015; Yang & Soboroff, TREC 2016; Yang, Tang & Soboroff, TREC 2017).

Ground truth, in either form the organisers distributed (told apart by content):

- the truth XML the 2017 scorer reads (trec-dd-jig ``scorer/truth.py``): the root's children are
  domains, theirs ``<topic id>``; a topic's ``<subtopic id>`` children declare its subtopics, and a
  subtopic's ``<passage id>`` children hold ``<docno>`` and ``<rating>`` (other elements are
  ignored). A subtopic declared without a judged passage still counts in the subtopic weight
  1/(declared subtopics) (:func:`read_dd_subtopics`);
- the text form ``topic subtopic docno passage_id rating`` (tab-separated), one line per judged
  passage (the 2016 scorer's input); its subtopics are those with a judged passage.

Passage ids are integers (the jig's database keys passages by a 64-bit integer), and a passage
is rated once for a (topic, subtopic, document). A document's rating for a subtopic combines its
passages' ratings: ``combine="sum"`` (the 2017 scorer; a 0 rating counts as 1) or ``"dcg"`` (the
2016 scorer: Σ_j r_(j)/log2(j + 1) over the ratings sorted descending).

Runs: ``topic iteration docno score on_topic subtopic:rating|...`` (the jig's output). The
ranking is the documents by iteration (0-based), in file order within an iteration; a document
repeated in a later iteration earns nothing (``dup="nonrel"``, as the 2017 scorer, which renames
it) or is an error (``dup="error"``). ``compat="dd2017"`` reads a run exactly as the 2017
scorer's reader does (:func:`read_dd_run`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from cranfield.errors import InputError, check_choice
from cranfield.io._tokens import FLOAT, MAX_FIELD, head_tokens, open_binary, parse_ints, read_columns, require_columns
from cranfield.io.qrels import Intents, Qrels, build_qrels, normalise_intent
from cranfield.io.run import Run, as_bytes, build_run, group_codes

if TYPE_CHECKING:
    from xml.parsers import expat

COMBINE = ("sum", "dcg")
DUP = ("nonrel", "error")
COMPAT = ("dd2017",)
# --compat dd2017 turns each iteration number a run skips into a row (the 2017 reader's filler
# document); a run skipping more than this many is refused rather than filling memory
FILL_LIMIT = 1_000_000
_FILL = b"\x00fill"  # docno prefix of those rows: a NUL byte is in no real docno
JIG_OUTPUT = "every line is as the DD jig writes it"
"""The evidence of a run in the jig's own form, which needs no warning (:func:`dd_run_evidence`)."""
SNIFF_LINES = 200  # lines looked at to tell a DD run from a TREC run (a DD iteration has 5 documents)
_RATINGS = re.compile(r"[^\s:|]+:-?\d+(\|[^\s:|]+:-?\d+)*")


@dataclasses.dataclass(frozen=True)
class _Passages:
    """A DD truth's judged passages as parallel row arrays (ids as bytes), and every declared
    (topic, subtopic) in order of declaration."""

    source: str
    topic: np.ndarray
    subtopic: np.ndarray
    docno: np.ndarray
    passage: np.ndarray  # int64
    rating: np.ndarray  # int64
    line: np.ndarray
    declared: list[tuple[str, str]]


def read_dd_truth(path: str | Path, *, combine: str = "sum") -> Qrels:
    """Read the DD ground truth (truth XML or text, recognised by content; see the module
    docstring) into diversity :class:`~cranfield.io.Qrels` whose labels are the combined (float)
    ratings of each (topic, subtopic, document).

    The Cube Test weighs every declared subtopic, judged or not: evaluate with
    ``intents=read_dd_subtopics(path), empty_intents="keep"`` (``--dd-truth`` does).
    """
    check_choice(combine, "combine", COMBINE)
    p = _read_passages(path)
    rating = np.where(p.rating == 0, 1, p.rating).astype(np.float64)  # both scorers read a 0 rating as 1
    # one row per (topic, subtopic, docno): combine its passages
    keys = np.stack([group_codes(p.topic)[1], group_codes(p.subtopic)[1], group_codes(p.docno)[1]])
    order = np.lexsort((-rating, keys[2], keys[1], keys[0]))
    k, r = keys[:, order], rating[order]
    head = np.concatenate(([True], (k[:, 1:] != k[:, :-1]).any(axis=0)))
    group = np.cumsum(head) - 1
    position = np.arange(r.size) - np.flatnonzero(head)[group]  # rank of the passage within its group
    weight = 1.0 if combine == "sum" else 1.0 / np.log2(position + 2.0)
    combined = np.bincount(group, weights=r * weight)
    first = order[head]
    return build_qrels(p.topic[first], p.subtopic[first], p.docno[first], combined, source=p.source,
                       line=p.line[first], diversity=True)


def read_dd_subtopics(path: str | Path) -> Intents:
    """Every subtopic the DD truth declares, with probability 1/(its topic's declared subtopics):
    the Cube Test's subtopic weights as the 2017 scorer takes them (``DDTruth.truth4CT`` returns
    ``len(subtopics)``), a subtopic without a judged passage included (Luo, Wing, Yang & Hearst,
    CIKM 2013: one column per subtopic, of equal area)."""
    p = _read_passages(path)
    per_topic = Counter(t for t, _ in p.declared)
    return Intents(p.source, tuple(t for t, _ in p.declared), tuple(normalise_intent(s) for _, s in p.declared),
                   np.array([1.0 / per_topic[t] for t, _ in p.declared]), (None,) * len(p.declared))


def _read_passages(path: str | Path) -> _Passages:
    source = str(path)
    passages = _xml_passages(path, source) if _is_xml(path) else _text_passages(path, source)
    _check_rated_once(passages)
    return passages


def _is_xml(path: str | Path) -> bool:
    """Whether a file (plain or gzip) is XML: its first character other than a byte-order mark or
    white space is ``<``."""
    with open_binary(path) as f:
        head = f.read(1024)
    return head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"<")


def _text_passages(path: str | Path, source: str) -> _Passages:
    cols = read_columns(path, 5)
    require_columns(cols, (5,), "topic subtopic docno passage_id rating")
    topic, subtopic = cols.text[0], cols.text[1]
    pairs = np.stack([group_codes(topic)[1], group_codes(subtopic)[1]])
    first = np.sort(np.unique(pairs, axis=1, return_index=True)[1])
    declared = [(topic[i].decode(), subtopic[i].decode()) for i in first.tolist()]
    return _Passages(source, topic, subtopic, cols.text[2], parse_ints(cols.text[3], source, cols.line, "passage id"),
                     parse_ints(cols.text[4], source, cols.line, "rating"), cols.line, declared)


class _TruthXML:
    """Expat callbacks collecting a DD truth XML's passages, with the structure the 2017 scorer
    reads (trec-dd-jig ``scorer/truth.py``): root > domain > ``topic[id]`` > ``subtopic[id]`` >
    ``passage[id]`` > ``docno``, ``rating``. Elements of a topic other than subtopics are skipped,
    as the scorer skips them."""

    def __init__(self, source: str, parser: expat.XMLParserType) -> None:
        self.source, self.parser = source, parser
        self.open: list[str] = []  # the names of the open elements, root first
        self.topic = self.subtopic = ""
        self.passage: dict[str, list[str]] = {}  # the open passage: id, docno and rating text, in pieces
        self.passage_line = 0
        self.field: str | None = None  # the passage child whose text is being read
        self.rows: list[tuple[str, str, str, str, str, int]] = []
        self.declared: dict[tuple[str, str], int] = {}  # (topic, subtopic) -> line

    def start(self, name: str, attrs: dict[str, str]) -> None:
        depth, line = len(self.open), self.parser.CurrentLineNumber
        self.open.append(name)
        in_subtopic = depth >= 4 and self.open[3] == "subtopic"
        if depth == 2:
            if name != "topic":
                raise InputError(self.source, line, f"<{name}> where a <topic> belongs (root > domain > topic)")
            self.topic = self._id(name, attrs, line)
        elif depth == 3 and name == "subtopic":
            self.subtopic = self._id(name, attrs, line)
            key = (self.topic, self.subtopic)
            if key in self.declared:
                raise InputError(self.source, line, f"subtopic {self.subtopic!r} of topic {self.topic!r} is "
                                                    f"declared twice (lines {self.declared[key]} and {line})")
            self.declared[key] = line
        elif depth == 4 and in_subtopic:
            if name != "passage":
                raise InputError(self.source, line, f"<{name}> inside <subtopic>, where only <passage> belongs")
            self.passage, self.passage_line = {"id": [self._id(name, attrs, line)]}, line
        elif depth == 5 and in_subtopic and name in ("docno", "rating"):
            self.field = name
            self.passage[name] = []

    def text(self, data: str) -> None:
        if self.field is not None:  # pieces joined once, at the passage's end: linear in the text
            self.passage[self.field].append(data)

    def entity(self, name: str, *_: object) -> None:
        """A DD truth declares no entity: refused at the declaration, before any expansion (an
        entity expanding to gigabytes, "billion laughs", would otherwise be expanded first)."""
        raise InputError(self.source, self.parser.CurrentLineNumber,
                         f"an entity declaration (<!ENTITY {name} ...>), which a DD truth file never has")

    def end(self, name: str) -> None:
        self.open.pop()
        self.field = None
        if len(self.open) == 4 and self.open[3] == "subtopic":
            p = {part: "".join(pieces).strip() for part, pieces in self.passage.items()}
            for part in ("docno", "rating"):
                if not p.get(part):
                    raise InputError(self.source, self.passage_line, f"passage {p['id']!r} has no <{part}>")
                if len(p[part]) > MAX_FIELD:
                    raise InputError(self.source, self.passage_line, f"passage {p['id'][:60]!r}: a <{part}> of "
                                     f"{len(p[part]):,} characters; no id or number may be longer than "
                                     f"{MAX_FIELD >> 10} KB")
            self.rows.append((self.topic, self.subtopic, p["docno"], p["id"], p["rating"], self.passage_line))

    def _id(self, name: str, attrs: dict[str, str], line: int) -> str:
        value = attrs.get("id", "").strip()
        if not value:
            raise InputError(self.source, line, f"<{name}> without an id attribute")
        return value


def _xml_passages(path: str | Path, source: str) -> _Passages:
    from xml.parsers import expat  # lazily: every run path is sniffed here, few need the XML parser

    parser = expat.ParserCreate()
    reader = _TruthXML(source, parser)
    parser.StartElementHandler, parser.EndElementHandler = reader.start, reader.end
    parser.CharacterDataHandler = reader.text
    parser.EntityDeclHandler = reader.entity
    try:
        with open_binary(path) as f:
            parser.ParseFile(f)
    except expat.ExpatError as exc:
        raise InputError(source, exc.lineno, f"not well-formed XML: {expat.ErrorString(exc.code)} "
                                             f"(column {exc.offset + 1})") from None
    except (OSError, EOFError) as exc:
        raise InputError(source, None, f"cannot read: {exc}") from None
    if not reader.rows:
        raise InputError(source, None, "no judged passage: a DD truth XML is root > domain > topic[id] > "
                                       "subtopic[id] > passage[id] > docno, rating")
    topic, subtopic, docno, passage, rating, line = (list(c) for c in zip(*reader.rows))
    lines = np.array(line, dtype=np.int64)
    return _Passages(source, as_bytes(topic), as_bytes(subtopic), as_bytes(docno),
                     parse_ints(as_bytes(passage), source, lines, "passage id"),
                     parse_ints(as_bytes(rating), source, lines, "rating"), lines, list(reader.declared))


def _check_rated_once(p: _Passages) -> None:
    """A passage rated twice for a (topic, subtopic, document) is an error naming both lines
    (both scorers would keep whichever rating they read last)."""
    keys = [group_codes(a)[1] for a in (p.topic, p.subtopic, p.docno)] + [p.passage]
    order = np.lexsort((p.line, *reversed(keys)))
    same = np.logical_and.reduce([k[order][1:] == k[order][:-1] for k in keys])
    if same.any():
        i, j = order[:-1][same], order[1:][same]
        first = int(np.argmin(p.line[j]))
        a, b = int(i[first]), int(j[first])
        raise InputError(p.source, int(p.line[b]),
                         f"passage {int(p.passage[b])} of document {p.docno[b].decode()!r} is rated twice for "
                         f"subtopic {p.subtopic[b].decode()!r} of topic {p.topic[b].decode()!r} "
                         f"(lines {int(p.line[a])} and {int(p.line[b])})")


def dd_run_evidence(path: str | Path) -> str | None:
    """Why a run file is in the DD jig's layout ``topic iteration docno score on_topic
    [subtopic:rating|...]`` rather than TREC's ``qid Q0 docno rank score tag`` (a phrase for
    the warning that says so), or None when it is not; judged from the first
    :data:`SNIFF_LINES` lines (comments skipped), whatever the file's line endings.

    The layout is that of every line: five or six fields, an integer iteration second, a number
    fourth and a 0/1 on-topic flag fifth. The DD jig ignores the sixth field, so anything may be
    there (``x``, ``NULL``); a TREC run may have an integer second field and 0/1 scores too, so
    the run is taken for a DD run only when the shape says more: every line is as the jig writes
    it (:data:`JIG_OUTPUT`: five fields, or a ``subtopic:rating|...`` list sixth; a TREC line
    has six fields, the sixth a tag), or the iteration changes within a topic (a TREC run's second
    field is the constant ``Q0``).
    """
    lines = head_tokens(path, SNIFF_LINES)
    if not lines or not all(_dd_shaped(tokens) for tokens in lines):
        return None
    if all(len(tokens) == 5 or _RATINGS.fullmatch(tokens[5].decode("utf-8", "replace")) for tokens in lines):
        return JIG_OUTPUT
    iterations: dict[bytes, set[bytes]] = {}
    for tokens in lines:
        iterations.setdefault(tokens[0], set()).add(tokens[1].lstrip(b"+0") or b"0")
    if any(len(seen) > 1 for seen in iterations.values()):
        return "its second column is an iteration number that changes within a topic, its fifth a 0/1 on-topic flag"
    return None


def _dd_shaped(tokens: list[bytes]) -> bool:
    """Whether one line's fields fit the DD jig's run layout (see :func:`dd_run_evidence`)."""
    return (len(tokens) in (5, 6) and tokens[4] in (b"0", b"1") and tokens[1].isdigit()
            and bool(FLOAT.accepts(tokens[3:4])[0]))


def looks_like_dd_run(path: str | Path) -> bool:
    """Whether a run file is in the DD jig's layout rather than TREC's (:func:`dd_run_evidence`)."""
    return dd_run_evidence(path) is not None


def read_dd_run(path: str | Path, *, dup: str = "nonrel", name: str | None = None,
                compat: str | None = None) -> Run:
    """Read a DD run; the returned :class:`~cranfield.io.Run` carries each document's iteration.

    The ranking is the documents by iteration, in file order within an iteration; a document met
    again later (by iteration, then line) earns nothing (``dup="nonrel"``) or is an error
    (``dup="error"``). ``compat="dd2017"`` reads the run exactly as the TREC DD 2017 scorer's
    reader does (trec-dd-jig ``scorer/reader.py``, ``DDReader``):

    - within an iteration, documents by score descending (a stable sort: ties in file order);
    - repeats are found walking the iterations in the order the file first mentions them (the
      reader's dict order) rather than by number, each iteration in its ranked order;
    - each iteration number missing below a topic's last becomes one non-relevant document (the
      reader's ``fill-non-relevant-doc``): it takes time in CT and counts as a document in ACT.
    """
    source = str(path)
    check_choice(dup, "dup", DUP)
    jig = compat is not None and check_choice(compat, "compat", COMPAT) == "dd2017"
    cols = read_columns(path, 6, text=[0, 1, 2], numbers={3: "score"}, min_cols=5)
    require_columns(cols, (5, 6), "topic iteration docno score on_topic subtopic:rating|...")
    line = cols.line.astype(np.int64)
    iteration = parse_ints(cols.text[1], source, line, "iteration")
    if (iteration < 0).any():
        i = int(np.flatnonzero(iteration < 0)[0])
        raise InputError(source, int(line[i]), f"iteration {int(iteration[i])} is negative")
    topic_ids, topic = group_codes(cols.text[0])
    topic, score = topic.astype(np.int64), cols.number[3]
    within = -score if jig else line
    met = _first_lines(topic, iteration, line) if jig else iteration
    # repeated documents become unmatchable non-relevant rows
    docno = _mark_repeats(topic, cols.text[2], np.lexsort((line, within, met, topic)), line, source, topic_ids, dup)
    order = np.lexsort((line, within, iteration, topic))
    rows = topic[order], iteration[order], docno[order], score[order], line[order]
    topic, iteration, docno, score, line = _fill_blank_iterations(*rows, source) if jig else rows
    run = build_run(topic, topic_ids, docno, score, name=name or Path(path).name, source=source, line=line,
                    order="file")
    return dataclasses.replace(run, iteration=iteration)


def _first_lines(topic: np.ndarray, iteration: np.ndarray, line: np.ndarray) -> np.ndarray:
    """For each row, the first line of its (topic, iteration): the order in which the 2017 reader
    meets a topic's iterations."""
    _, group = np.unique(np.stack([topic, iteration]), axis=1, return_inverse=True)
    group = group.ravel()
    first = np.full(int(group.max()) + 1, np.iinfo(np.int64).max)
    np.minimum.at(first, group, line)
    return first[group]


def _mark_repeats(topic: np.ndarray, docno: np.ndarray, walk: np.ndarray, line: np.ndarray, source: str,
                  topic_ids: list[str], dup: str) -> np.ndarray:
    """``docno`` with every document met again for its topic, walking the rows in ``walk``
    order, renamed to match no judgment (``dup="nonrel"``), or an error at the first such line."""
    step = np.empty_like(walk)
    step[walk] = np.arange(walk.size)
    order = np.lexsort((step, docno, topic))
    same = (topic[order][1:] == topic[order][:-1]) & (docno[order][1:] == docno[order][:-1])
    later = order[1:][same]
    if not later.size:
        return docno
    if dup == "error":
        i = int(later[np.argmin(line[later])])
        raise InputError(source, int(line[i]), f"document {docno[i].decode()!r} is returned again for topic "
                                               f"{topic_ids[topic[i]]!r} (dup='nonrel' scores it as non-relevant)")
    marked = docno.astype(f"S{docno.dtype.itemsize + 24}")
    marked[later] = [d + b"\x00repeat" + str(k).encode() for k, d in enumerate(docno[later].tolist())]
    return marked


def _fill_blank_iterations(topic: np.ndarray, iteration: np.ndarray, docno: np.ndarray, score: np.ndarray,
                           line: np.ndarray, source: str) -> tuple[np.ndarray, ...]:
    """The rows (sorted by topic, then iteration) plus one non-relevant row for each iteration
    number missing below its topic's last, as the 2017 reader fills them; still sorted."""
    head = np.flatnonzero(np.concatenate(([True], (topic[1:] != topic[:-1]) | (iteration[1:] != iteration[:-1]))))
    t, it = topic[head], iteration[head]
    previous = np.where(np.concatenate(([True], t[1:] != t[:-1])), -1, np.concatenate(([-1], it[:-1])))
    gap = np.minimum(it - previous - 1, FILL_LIMIT + 1)  # capped: the sum must not overflow
    over = np.flatnonzero(np.cumsum(gap) > FILL_LIMIT)
    if over.size:
        k = int(over[0])
        raise InputError(source, int(line[head[k]]),
                         f"iteration {int(it[k])}: the run skips more than {FILL_LIMIT:,} iteration numbers up to "
                         "here, and --compat dd2017 makes each a non-relevant document, as the 2017 scorer does")
    owner = np.repeat(np.arange(gap.size), gap)
    filled = previous[owner] + 1 + np.arange(owner.size) - np.repeat(np.cumsum(gap) - gap, gap)
    extra = (t[owner], filled, np.char.add(_FILL, filled.astype("S20")), np.zeros(owner.size),
             line[head][owner])
    merged = [np.concatenate((a, b)) for a, b in zip((topic, iteration, docno, score, line), extra)]
    order = np.lexsort((np.arange(merged[0].size), merged[1], merged[0]))
    return tuple(a[order] for a in merged)
