"""Qrels and intent types of an ``ir_datasets`` dataset, named ``irds:<dataset-id>``.

ir_datasets (MacAvaney, Yates, Feldman, Downey, Cohan & Goharian, SIGIR 2021) gives each
collection's judgments as records of its ``qrels_cls()``: ad hoc judgments carry ``query_id``,
``doc_id`` and ``relevance`` (``TrecQrel``, ``TrecPrel``, ``GenericQrel``, ...); diversity
judgments also carry a ``subtopic_id`` (``TrecSubQrel``, the TREC Web track 2009-2014
``.../diversity`` datasets). Those datasets' topics (``queries_iter()``) list their subtopics
with a type, ``inf`` or ``nav`` (Clarke, Craswell & Soboroff, TREC 2009 Web track overview),
which are the intent types of :func:`~cranfield.io.qrels.read_intent_types`.

``ir_datasets`` is optional (``pip install 'cranfield[datasets]'``) and imported when a dataset
is read. See docs/datasets.md.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from typing import Any

import numpy as np

from cranfield.errors import CranfieldError, InputError
from cranfield.io._tokens import LABEL
from cranfield.io.qrels import Qrels, build_qrels, normalise_intent
from cranfield.io.run import python_ids, python_values

PREFIX = "irds:"
INSTALL = "pip install 'cranfield[datasets]'"


def is_irds(obj: Any) -> bool:
    """Whether ``obj`` names an ir_datasets dataset (a string ``irds:<dataset-id>``)."""
    return isinstance(obj, str) and obj.startswith(PREFIX)


def dataset_id(spec: str) -> str:
    """The dataset id of ``irds:<dataset-id>`` (an error when it is empty)."""
    name = spec[len(PREFIX):].strip() if spec.startswith(PREFIX) else spec.strip()
    if not name:
        raise CranfieldError(f"{spec!r} names no dataset: write irds:<dataset-id>, e.g. "
                             "irds:msmarco-passage/trec-dl-2019/judged")
    return name


def _ir_datasets(spec: str) -> Any:
    try:
        import ir_datasets
    except ImportError:
        raise CranfieldError(f"reading {spec} needs ir_datasets: {INSTALL}") from None
    return ir_datasets


def load_dataset(spec: str) -> Any:
    """The ir_datasets dataset named by ``irds:<dataset-id>`` (or the bare id).

    An unknown id is an error naming the closest registered ids."""
    name = dataset_id(spec)
    ir_datasets = _ir_datasets(spec)
    try:
        return ir_datasets.load(name)
    except KeyError:
        import difflib  # only for an unknown id (start-up: docs/architecture.md#start-up)

        close = difflib.get_close_matches(name, list(ir_datasets.registry), n=3, cutoff=0.6)
        hint = f"; did you mean {', '.join(repr(c) for c in close)}?" if close else \
            " (the ids are listed at https://ir-datasets.com)"
        raise CranfieldError(f"unknown ir_datasets id {name!r}{hint}") from None


def _has(dataset: Any, what: str) -> bool:
    return bool(getattr(dataset, f"has_{what}")())


def _records(spec: str, iterate: Any, what: str) -> list[Any]:
    """Every record of ``iterate()``; a failed download or read is one error naming the dataset
    (ir_datasets' own log of its attempts, retries included, is silenced meanwhile)."""
    log = logging.getLogger("ir_datasets")
    disabled, log.disabled = log.disabled, True
    try:
        return list(iterate())
    except (OSError, RuntimeError) as exc:
        raise CranfieldError(_failure(spec, what, exc)) from None
    finally:
        log.disabled = disabled


def _failure(spec: str, what: str, exc: BaseException) -> str:
    """The one-line message for a dataset's records that could not be read: a download that
    failed says so and how to get them another way; anything else, its first line (at most 200
    characters)."""
    name = dataset_id(spec)
    if any(kind.__name__ in ("ConnectionError", "Timeout", "HTTPError") for kind in type(exc).__mro__) \
            or "download" in str(exc).lower():
        export = "qrels" if what == "qrels" else "queries"
        return (f"{spec}: the {what} are not downloaded and could not be fetched ({type(exc).__name__}: no "
                f"network?); on a machine with one, run `ir_datasets export {name} {export} > {export}.txt` and "
                f"pass that file, or copy its ~/.ir_datasets directory here")
    reason = (str(exc).splitlines() or [type(exc).__name__])[0]
    return f"{spec}: could not load the {what} from ir_datasets: {reason[:200]}"


def read_irds_qrels(spec: str, *, diversity: bool | None = None, on_duplicate: str = "error") -> Qrels:
    """:class:`~cranfield.io.qrels.Qrels` of the ir_datasets dataset ``irds:<dataset-id>``.

    Records with a ``subtopic_id`` (``TrecSubQrel``) are diversity qrels, the subtopic being the
    intent; the others are ad hoc. ``diversity`` and ``on_duplicate`` are as for
    :func:`~cranfield.io.qrels.read_qrels`: ``diversity=False`` reads diversity records as ad hoc,
    ``diversity=True`` reads an ad hoc record's ``iteration`` as the intent, as the second column
    of a qrels file. The source named in messages is ``irds:<dataset-id>``.
    """
    name = dataset_id(spec)
    source = PREFIX + name
    dataset = load_dataset(source)
    if not _has(dataset, "qrels"):
        raise CranfieldError(f"ir_datasets dataset {name!r} has no qrels")
    fields = tuple(dataset.qrels_cls()._fields)
    for needed in ("query_id", "doc_id", "relevance"):
        if needed not in fields:
            raise CranfieldError(f"{source}: its qrels records ({dataset.qrels_cls().__name__}) have no "
                                 f"{needed} field: not relevance judgments cranfield can read")
    records = _records(source, dataset.qrels_iter, "qrels")
    subtopics = "subtopic_id" in fields
    intent_field = "subtopic_id" if subtopics else "iteration" if diversity and "iteration" in fields else None
    if subtopics and diversity is None:
        diversity = True
    if intent_field is None and diversity is None:
        diversity = False
    ids: dict[str, Iterable[Any]] = {"topic": [r.query_id for r in records], "document": [r.doc_id for r in records]}
    if intent_field is not None:
        ids["intent"] = [getattr(r, intent_field) for r in records]
    arrays = python_ids(source, ids)
    rel = python_values(source, [r.relevance for r in records], LABEL, "label", arrays["topic"], arrays["document"])
    return build_qrels(arrays["topic"], arrays.get("intent"), arrays["document"], rel.astype(np.int64),
                       source=source, diversity=diversity, on_duplicate=on_duplicate)


def read_irds_intent_types(spec: str) -> dict[tuple[str, str], str]:
    """Intent types ``{(qid, subtopic): "inf" | "nav"}`` from the subtopics of the dataset's
    topics (``TrecWebTrackQuery.subtopics``, each a ``TrecSubtopic(number, text, type)``).

    Empty when the dataset's topics have no subtopics (or it has no topics); a type other than
    ``inf`` or ``nav`` is an error."""
    name = dataset_id(spec)
    source = PREFIX + name
    dataset = load_dataset(source)
    if not _has(dataset, "queries") or "subtopics" not in dataset.queries_cls()._fields:
        return {}
    out: dict[tuple[str, str], str] = {}
    for query in _records(source, dataset.queries_iter, "topics"):
        for sub in query.subtopics or ():
            kind = (getattr(sub, "type", None) or "inf").strip().lower()
            if kind not in ("inf", "nav"):
                raise InputError(source, None, f"topic {query.query_id}: subtopic {sub.number} has type "
                                               f"{kind!r}, not inf or nav")
            out[(str(query.query_id).strip(), normalise_intent(str(sub.number).strip()))] = kind
    return out


def intent_types_for(qrels: Qrels) -> dict[tuple[str, str], str] | None:
    """The intent types that go with diversity qrels read by :func:`read_irds_qrels` (None for
    other qrels, or when the dataset declares no subtopic types)."""
    if not qrels.diversity or not is_irds(qrels.source):
        return None
    return read_irds_intent_types(qrels.source) or None


def refuse_run(spec: str) -> CranfieldError:
    """The error for a run given as ``irds:<dataset-id>``."""
    return CranfieldError(f"{spec}: runs cannot be read from ir_datasets (irds: names qrels only); "
                          "give a TREC run file")
