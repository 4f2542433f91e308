"""NTCIREVAL's per-topic input files: ``<topic>.rel`` judgments and ``<topic>.res`` ranked lists.

NTCIREVAL (Sakai; README "How to use NTCIREVAL for ranked retrieval evaluation", steps 1–2)
evaluates one topic at a time:

- a relevance file ``<topic>.rel`` has one judged document per line, ``<docID> L<n>``, where
  ``L0`` is judged non-relevant and ``L1``, ``L2``, ... are the relevance levels;
- a ranked list ``<topic>.res`` has one docID per line, best first: the file's order *is* the
  ranking, and there are no scores. The output of NTCIREVAL's ``label`` command, a *labelled*
  ranked list ``<docID> L<n>``, is accepted as a ranked list too (its labels are ignored).

The layouts are those of pyNTCIREVAL's readers (``utils.read_rel_file``, ``read_ranked_list``,
``read_labelled_ranked_list``), except that fields are separated by any run of spaces or tabs
(pyNTCIREVAL takes one ``--sep`` character). A file's topic is its name without ``.rel``/``.res``
(and ``.gz``): ``0001.rel.gz`` is topic ``0001``. A directory holds one such file per topic. The
files are parsed with the TREC readers' tokeniser and assembled with
:func:`~cranfield.io.qrels.build_qrels` / :func:`~cranfield.io.run.build_run`, so the duplicate
rules and error messages are theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np

from cranfield.errors import InputError
from cranfield.io._tokens import LEVEL, head_tokens, read_columns, require_columns, require_tokens
from cranfield.io.qrels import Qrels, build_qrels, parse_labels
from cranfield.io.run import OnDuplicate, Run, build_run

__all__ = ["looks_like_ntcir_rel", "looks_like_ntcir_res", "read_ntcir_rel", "read_ntcir_res"]

REL, RES = ".rel", ".res"
SNIFF_LINES = 5  # non-blank lines looked at to tell NTCIREVAL files from TREC ones
Part = TypeVar("Part", Qrels, Run)


def _named(name: str, suffix: str) -> bool:
    """Whether a file name ends with ``suffix``, optionally followed by ``.gz``."""
    return name.endswith((suffix, suffix + ".gz"))


def topic_of(path: str | Path, suffix: str) -> str:
    """The topic id a file name gives: the name without ``.gz`` and ``suffix`` (else its stem).

    >>> topic_of("runs/0001.rel.gz", ".rel"), topic_of("0002.res", ".res"), topic_of("q7.txt", ".res")
    ('0001', '0002', 'q7')
    """
    name = Path(path).name.removesuffix(".gz")
    return name[: -len(suffix)] if name.endswith(suffix) else Path(name).stem


def _topic_files(path: Path, suffix: str, topic: str | None) -> list[tuple[Path, str]]:
    """(file, topic id) pairs: the file itself, or a directory's ``*<suffix>[.gz]`` files by name."""
    if not path.is_dir():
        return [(path, topic_of(path, suffix) if topic is None else topic)]
    if topic is not None:
        raise InputError(str(path), None, "topic= names the topic of one file; in a directory "
                                          "each file's name is its topic")
    files = sorted(p for p in path.iterdir() if p.is_file() and _named(p.name, suffix))
    if not files:
        what = "relevance files" if suffix == REL else "ranked lists"
        raise InputError(str(path), None, f"no *{suffix} or *{suffix}.gz files in the directory: a directory is "
                                          f"read only as NTCIREVAL's per-topic {what} (one {suffix} file per topic); "
                                          f"give TREC files one by one (e.g. {Path(path).as_posix()}/*)")
    seen: dict[str, Path] = {}
    for f in files:
        t = topic_of(f, suffix)
        if t in seen:
            raise InputError(str(f), None, f"topic {t!r} is also given by {seen[t].name}")
        seen[t] = f
    return [(f, t) for t, f in seen.items()]


def _check_levels(values: np.ndarray, source: str, line: np.ndarray) -> None:
    """Raise :class:`InputError` at the first value that is not NTCIREVAL's ``L<digits>``."""
    require_tokens(values, LEVEL, source, line, "relevance level")


def _topic_column(topic: str, n: int) -> np.ndarray:
    """``n`` copies of a topic id as a byte-string column."""
    return np.full(n, topic.encode(), dtype=f"S{max(len(topic.encode()), 1)}")


def _read_all(path: str | Path, suffix: str, topic: str | None, read_one: Callable[[Path, str], Part],
              join: Callable[[list[Part], str], Part]) -> Part:
    """Read one file, or each file of a directory (one topic each) and ``join`` them."""
    parts = [read_one(f, t) for f, t in _topic_files(Path(path), suffix, topic)]
    return parts[0] if len(parts) == 1 else join(parts, str(path))


def _joined(parts: list[Qrels] | list[Run], attribute: str) -> np.ndarray:
    """One attribute of single-topic parts, concatenated."""
    return np.concatenate([getattr(p, attribute) for p in parts])


def read_ntcir_rel(path: str | Path, topic: str | None = None, *, on_duplicate: str = "error") -> Qrels:
    """Read NTCIREVAL relevance files (``<docID> L<n>`` per line) as ad hoc :class:`Qrels`.

    Parameters
    ----------
    path : str or Path
        One ``.rel`` file (plain or gzip) holding one topic's judgments, or a directory whose
        ``*.rel`` / ``*.rel.gz`` files (read in name order) hold one topic each.
    topic : str, optional
        The topic id of a single file; by default its name without ``.rel`` (and ``.gz``), so
        ``0001.rel`` is topic ``"0001"``. In a directory each file's name gives its topic.
    on_duplicate : {"error", "max"}
        A document listed twice in one file is an error naming both lines (NTCIREVAL refuses
        such files too), or keeps the larger level.

    Returns
    -------
    Qrels
        Ad hoc judgments; ``L<n>`` is label ``n`` (``L0``: judged non-relevant).

    Raises
    ------
    InputError
        Naming file and line: a line without exactly two columns, a level that is not
        ``L<digits>``, a document listed twice, an empty file, or a directory without
        ``.rel`` files.
    """
    def read_one(f: Path, t: str) -> Qrels:
        source = str(f)
        cols = read_columns(f, 2, compact=True)
        require_columns(cols, (2,), "docID L<n>")
        _check_levels(cols.text[1], source, cols.line)
        rel = parse_labels(cols.text[1], source, cols.line, 2)
        return build_qrels(_topic_column(t, len(cols)), None, cols.text[0], rel, source=source,
                           line=cols.line, diversity=False, on_duplicate=on_duplicate)

    def join(parts: list[Qrels], source: str) -> Qrels:
        topics = np.concatenate([_topic_column(p.topic_ids[0], len(p)) for p in parts])
        return build_qrels(topics, None, _joined(parts, "docno"), _joined(parts, "rel"), source=source,
                           line=_joined(parts, "line"), diversity=False)

    return _read_all(path, REL, topic, read_one, join)


def read_ntcir_res(path: str | Path, topic: str | None = None, name: str | None = None, *,
                   on_duplicate: OnDuplicate = "error") -> Run:
    """Read NTCIREVAL ranked lists (one docID per line, best first) as a :class:`Run`.

    Parameters
    ----------
    path : str or Path
        One ``.res`` file (plain or gzip) holding one topic's ranked list, or a directory whose
        ``*.res`` / ``*.res.gz`` files (read in name order) hold one topic each. A labelled
        ranked list (``<docID> L<n>``, NTCIREVAL's ``label`` output) is read the same way: only
        its docID column is used, but its levels must be ``L<digits>``.
    topic : str, optional
        The topic id of a single file; by default its name without ``.res`` (and ``.gz``).
    name : str, optional
        The run's name; default the directory's name, or the file's topic.
    on_duplicate : {"error", "first"}
        A docID listed twice in one ranked list is an error naming both lines (as for TREC
        runs), or keeps the first.

    Returns
    -------
    Run
        Ranked in file order (``order="file"``). There are no scores; each list's scores are
        n, n − 1, ..., 1, so ranking by score gives the same order.

    Raises
    ------
    InputError
        Naming file and line: a line with more than two columns, a second column that is not
        ``L<digits>``, a repeated docID, an empty file, or a directory without ``.res`` files.
    """
    path = Path(path)
    if name is None:
        name = (path.name or path.resolve().name) if path.is_dir() else topic_of(path, RES)

    def read_one(f: Path, t: str) -> Run:
        source = str(f)
        cols = read_columns(f, 2, keys=[0], compact=True)
        require_columns(cols, (1, 2), "docID, or docID L<n>")
        labelled = cols.ncols == 2
        _check_levels(cols.text[1][labelled], source, cols.line[labelled])
        n = len(cols)
        return build_run(np.zeros(n, dtype=np.int32), [t], cols.text[0], np.arange(n, 0, -1, dtype=np.float64),
                         name=name, source=source, line=cols.line, order="file", on_duplicate=on_duplicate,
                         doc_key=cols.key[0])

    def join(parts: list[Run], source: str) -> Run:
        codes = np.repeat(np.arange(len(parts), dtype=np.int32), [p.docno.size for p in parts])
        return build_run(codes, [p.topic_ids[0] for p in parts], _joined(parts, "docno"),
                         _joined(parts, "score"), name=name, source=source, line=_joined(parts, "line"),
                         order="file", doc_key=_joined(parts, "doc_key"))

    return _read_all(path, RES, topic, read_one, join)


def _sniff(path: str | Path, suffix: str, looks: Callable[[list[bytes]], bool]) -> bool:
    """Whether ``path`` is a directory of ``suffix`` files, or a file whose first lines all
    ``look`` like NTCIREVAL's (every line is checked, so a TREC file with a header line, whose
    first line alone might pass, is not taken for one)."""
    p = Path(path)
    if p.is_dir():
        return any(c.is_file() and _named(c.name, suffix) for c in p.iterdir())
    lines = head_tokens(p, SNIFF_LINES)
    if lines is None:
        return False
    # a file named for NTCIREVAL is read as such unless its lines are clearly wider (a TREC
    # file with 4 or 6 columns), so its errors come from the NTCIR reader
    if _named(p.name, suffix):
        return all(len(tokens) <= 2 for tokens in lines)
    return bool(lines) and all(looks(tokens) for tokens in lines)


def _is_level_pair(tokens: list[bytes]) -> bool:
    return len(tokens) == 2 and bool(LEVEL.accepts(tokens[1:])[0])


def looks_like_ntcir_rel(path: str | Path) -> bool:
    """Whether ``path`` looks like NTCIREVAL relevance files rather than TREC qrels.

    True for a directory holding ``*.rel`` / ``*.rel.gz`` files; a file named ``*.rel`` /
    ``*.rel.gz`` whose first non-blank lines (:data:`SNIFF_LINES`) have at most two fields; or
    any file whose first non-blank lines are ``<docID> L<n>``. A TREC qrels line has four
    fields, so never matches.
    """
    return _sniff(path, REL, _is_level_pair)


def looks_like_ntcir_res(path: str | Path) -> bool:
    """Whether ``path`` looks like NTCIREVAL ranked lists rather than a TREC run.

    True for a directory holding ``*.res`` / ``*.res.gz`` files; a file named ``*.res`` /
    ``*.res.gz`` whose first non-blank lines (:data:`SNIFF_LINES`) have at most two fields; or
    any file whose first non-blank lines are lone docIDs (or labelled ``<docID> L<n>``). A TREC
    run line has six fields, so never matches, nor does a run with a one-word header line.
    """
    return _sniff(path, RES, lambda tokens: len(tokens) == 1 or _is_level_pair(tokens))
