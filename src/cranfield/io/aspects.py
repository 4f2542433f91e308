"""Readers of multi-aspect judgments and of the aspect configuration.

Judgments come as one TREC qrels file per aspect (``qid iter docno label``) or as one file with
a label column per aspect (``qid iter docno label_1 .. label_A``); labels are label names or
indices. The configuration (JSON or TOML) declares ``labels``, ``embed``, ``gate``, ``grades``
and ``missing`` (see :class:`cranfield.measures.aspects.AspectSpace`), TOMA's explicit
``class_weights`` (a list, best class first) and CAM/MM's ``aspect_weights`` (aspect → number).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from cranfield.errors import InputError, invalid

if TYPE_CHECKING:
    from cranfield.io._tokens import Columns

CONFIG_KEYS = ("labels", "embed", "gate", "grades", "missing", "class_weights", "aspect_weights")


def load_config(path: str) -> dict[str, Any]:
    """An aspect configuration file, JSON or TOML (``.toml``): a mapping with ``labels``,
    ``embed`` and ``grades`` (mappings of aspects to lists), ``gate`` and ``missing`` (strings),
    the command-line options of the same names; ``class_weights`` (a list of integers, best class first)
    and ``aspect_weights`` (a mapping of aspects to numbers), the options ``--class-weights`` and
    ``--aspect-weights``. Any problem is an :class:`InputError` naming
    the file."""
    import json
    from pathlib import Path

    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, None, f"cannot read the aspect configuration: {exc.strerror or exc}") from None
    try:
        if str(path).endswith(".toml"):
            import tomllib

            config = tomllib.loads(text.decode())
        else:
            config = json.loads(text)
    except (ValueError, ImportError) as exc:
        raise InputError(path, None, f"cannot read the aspect configuration: {exc}") from None
    except RecursionError:  # json and tomllib parse nested values recursively
        raise InputError(path, None, "cannot read the aspect configuration: its values are nested too deeply "
                                     "(an aspect configuration nests two levels)") from None
    return _checked_config(path, config)


def _checked_config(path: str, config: Any) -> dict[str, Any]:
    """The parsed configuration when its keys and value types are those of :func:`load_config`."""
    if not isinstance(config, dict):
        raise InputError(path, None, "the aspect configuration must be a mapping (a JSON object or TOML table) of "
                                     f"{', '.join(CONFIG_KEYS)}; got a {type(config).__name__}")
    unknown = [k for k in config if k not in CONFIG_KEYS]
    if unknown:
        raise InputError(path, None, f"unknown keys {', '.join(map(repr, unknown))} in the aspect configuration; "
                                     f"the keys are {', '.join(CONFIG_KEYS)}")
    for key in ("labels", "embed", "grades"):
        value = config.get(key, {})
        if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
            raise InputError(path, None, f"{key!r} must map each aspect to a list, e.g. "
                                         '{"relevance": ["nr", "mr", "hr"]}; got ' + repr(value))
    weights = config.get("class_weights", [])
    if not isinstance(weights, list) or not all(isinstance(w, int) and not isinstance(w, bool) for w in weights):
        raise InputError(path, None, "'class_weights' must be a list of integers, best class first, e.g. [3, 2, 1, 0]; "
                                     f"got {weights!r}")
    aspects = config.get("aspect_weights", {})
    if not isinstance(aspects, dict) or not all(isinstance(w, (int, float)) and not isinstance(w, bool)
                                                for w in aspects.values()):
        raise InputError(path, None, "'aspect_weights' must map each aspect to a number, e.g. "
                                     '{"relevance": 0.5, "credibility": 0.5}; got ' + repr(aspects))
    for key in ("gate", "missing"):
        if not isinstance(config.get(key, ""), str):
            raise InputError(path, None, f"{key!r} must be a string; got {config[key]!r}")
    return config


def read_aspect_judgments(files: Mapping[str, str], labels: Mapping[str, Sequence[str]] | None = None
                          ) -> dict[str, dict[str, dict[str, str]]]:
    """{aspect: {topic: {docno: label}}} from one TREC qrels file per aspect (labels are label
    names or indices); with ``labels`` (each aspect's label names), a label that is neither is an
    :class:`InputError` naming the file and line."""
    from cranfield.io._tokens import read_columns, require_columns

    out: dict = {}
    for aspect, path in files.items():
        cols = read_columns(path, 4)
        require_columns(cols, (4,), "qid iter docno label")
        check_labels(cols, 3, aspect, (labels or {}).get(aspect))
        for q, d, label in zip(*(cols.text[j].tolist() for j in (0, 2, 3))):
            out.setdefault(aspect, {}).setdefault(q.decode(), {})[d.decode()] = label.decode()
    return out


def read_multi_aspect_qrels(path: str, names: Sequence[str], labels: Mapping[str, Sequence[str]] | None = None
                            ) -> dict[str, dict[str, dict[str, str]]]:
    """{aspect: {topic: {docno: label}}} from one file ``qid iter docno label_1 .. label_A``
    (``names``: the A distinct aspect names of the label columns); ``labels`` as for
    :func:`read_aspect_judgments`."""
    from cranfield.io._tokens import read_columns, require_columns

    if isinstance(names, str) or not names or not all(names) or len(set(names)) != len(names):
        raise invalid("aspect names of the label columns", "distinct non-empty names, e.g. relevance,correctness",
                      ",".join(names) if not isinstance(names, str) else names)

    width = 3 + len(names)
    cols = read_columns(path, width)
    require_columns(cols, (width,), "qid iter docno " + " ".join(names))
    out: dict = {a: {} for a in names}
    for k, aspect in enumerate(names):
        check_labels(cols, 3 + k, aspect, (labels or {}).get(aspect))
        for q, d, label in zip(cols.text[0].tolist(), cols.text[2].tolist(), cols.text[3 + k].tolist()):
            out[aspect].setdefault(q.decode(), {})[d.decode()] = label.decode()
    return out


def check_labels(cols: Columns, column: int, aspect: str, names: Sequence[str] | None) -> None:
    """An :class:`InputError` at the first row of ``cols`` whose label in ``column`` is neither one
    of ``names`` (aspect ``aspect``'s label names, worst first) nor the index of one; nothing
    when ``names`` is None."""
    import numpy as np

    if names is None:
        return
    values = cols.text[column]
    unique = np.unique(values)
    bad = [u for u in unique.tolist() if not _is_label(u.decode(), names)]
    if bad:
        row = int(np.flatnonzero(np.isin(values, bad))[0])
        raise InputError(cols.source, int(cols.line[row]), f"label {values[row].decode()!r} of aspect {aspect!r} "
                                                            f"is not one of {', '.join(names)} (or 0-{len(names) - 1})")


def _is_label(label: str, names: Sequence[str]) -> bool:
    """A label name of ``names``, or the index of one (as :func:`cranfield.measures.aspects.label_indices` reads it)."""
    return label in names or (label.lstrip("-").isdigit() and 0 <= int(label) < len(names))
