"""ir_metadata headers of run files: read the leading ``# ir_metadata.start`` … ``# ir_metadata.end``
block, and write one.

ir_metadata (Breuer et al., SIGIR 2022, "ir_metadata: An Extensible Metadata Schema for IR
Experiments") annotates a TREC run with the PRIMAD components of the experiment that produced it
(platform, research goal, implementation, method, actor, data) as YAML, each line behind ``# ``,
between the two marker lines at the top of the file; repro_eval and the TIREx tracker write it,
and CLEF LongEval asks participants for it. The run readers skip ``#`` lines as trec_eval 10 does;
this module keeps the header's fields.

Only the YAML those tools write is read: block mappings and block sequences, indented by spaces,
of plain, single- or double-quoted scalars (``true``/``false``, ``null``/``~``, integers and
floats become Python values; everything else stays text). Anything else (flow collections, anchors,
multi-line scalars) is an :class:`~cranfield.errors.InputError` naming the line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cranfield.errors import InputError
from cranfield.io._tokens import open_binary

START = "# ir_metadata.start"
END = "# ir_metadata.end"
_KEY = re.compile(r"^(?P<key>[^\s#'\"\[\]{},:][^:#]*?|'[^']*'|\"[^\"]*\")\s*:(?:\s+(?P<value>.*))?$")
_NUMBER = re.compile(r"^[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)$")


def read_ir_metadata(path: str | Path) -> dict[str, Any] | None:
    """The ir_metadata header of the run file ``path`` (plain or gzip) as nested dicts and lists,
    or None when the file does not start with ``# ir_metadata.start``.

    Raises
    ------
    InputError
        For a header without its end line or with YAML outside the subset read (file and line named).
    """
    lines: list[tuple[int, str]] = []
    with open_binary(path) as f:
        first = f.readline().decode("utf-8", "replace").rstrip("\r\n")
        if first.strip() != START:
            return None
        for number, raw in enumerate(f, start=2):
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.strip() == END:
                return parse_block(lines, str(path))
            if not line.startswith("#"):
                break
            lines.append((number, line[2:] if line.startswith("# ") else line[1:]))
    raise InputError(str(path), None, f"the ir_metadata header has no {END!r} line")


def parse_block(lines: list[tuple[int, str]], source: str) -> dict[str, Any]:
    """The YAML subset of :mod:`cranfield.io.ir_metadata` from (line number, text) pairs."""
    body = [(n, text) for n, text in lines if text.strip() and not text.lstrip().startswith("#")]
    if not body:
        return {}
    value, end = _node(body, 0, _indent(body[0][1]), source)
    if end != len(body):
        n, text = body[end]
        raise InputError(source, n, f"unexpected indentation in the ir_metadata header: {text.strip()!r}")
    if not isinstance(value, dict):
        raise InputError(source, body[0][0], "the ir_metadata header must be a mapping of keys to values")
    return value


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _node(body: list[tuple[int, str]], i: int, indent: int, source: str) -> tuple[Any, int]:
    """The mapping or sequence whose items start at ``body[i]`` with ``indent`` spaces."""
    is_list = body[i][1].strip().startswith("- ") or body[i][1].strip() == "-"
    out: Any = [] if is_list else {}
    while i < len(body):
        n, text = body[i]
        depth = _indent(text)
        if depth < indent:
            break
        if depth > indent:
            raise InputError(source, n, f"unexpected indentation in the ir_metadata header: {text.strip()!r}")
        item = text.strip()
        if is_list:
            if not (item.startswith("- ") or item == "-"):
                raise InputError(source, n, f"expected a list item '- ...' in the ir_metadata header: {item!r}")
            rest = item[1:].strip()
            if not rest:
                value, i = _child(body, i + 1, indent, source)
            elif _KEY.match(rest):  # a mapping inside the item: its keys are indented past the dash
                j = _consumed(body, i, depth)
                value, _ = _node([(n, " " * (depth + 2) + rest), *body[i + 1:j]], 0, depth + 2, source)
                i = j
            else:
                value, i = _scalar(rest, n, source), i + 1
            out.append(value)
            continue
        match = _KEY.match(item)
        if not match:
            raise InputError(source, n, f"expected 'key: value' in the ir_metadata header: {item!r}")
        key = _scalar(match["key"], n, source)
        if match["value"] is None or not match["value"].strip():
            value, i = _child(body, i + 1, indent, source)
        else:
            value, i = _scalar(match["value"], n, source), i + 1
        out[str(key)] = value
    return out, i


def _consumed(body: list[tuple[int, str]], i: int, depth: int) -> int:
    """The index after a list item whose mapping starts on line ``i``: the following lines indented
    past the item's dash belong to it."""
    j = i + 1
    while j < len(body) and _indent(body[j][1]) > depth:
        j += 1
    return j


def _child(body: list[tuple[int, str]], i: int, indent: int, source: str) -> tuple[Any, int]:
    """The nested block after ``key:`` or ``-`` (None when nothing is indented deeper)."""
    if i < len(body) and _indent(body[i][1]) > indent:
        return _node(body, i, _indent(body[i][1]), source)
    if i < len(body) and _indent(body[i][1]) == indent and body[i][1].strip().startswith("- "):
        return _node(body, i, indent, source)  # a sequence at the key's own indentation
    return None, i


def _scalar(text: str, line: int, source: str) -> Any:
    """A plain or quoted YAML scalar."""
    text = text.strip()
    if " #" in text and not text.startswith(("'", '"')):
        text = text[:text.index(" #")].rstrip()
    if text in ("[]", "{}"):
        return [] if text == "[]" else {}
    if text.startswith(("[", "{", "&", "*", "|", ">", "!")):
        raise InputError(source, line, f"YAML {text[0]!r} is not read in ir_metadata headers: {text!r}")
    if len(text) >= 2 and text[0] == text[-1] == "'":
        return text[1:-1].replace("''", "'")
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return json.loads(text)
        except ValueError:
            return text[1:-1]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("null", "~", ""):
        return None
    if _NUMBER.match(text):
        return int(text) if re.fullmatch(r"[-+]?\d+", text) else float(text)
    return text


def format_ir_metadata(metadata: Mapping[str, Any]) -> str:
    """``metadata`` (nested dicts, lists and scalars) as an ir_metadata header: the start line,
    the YAML block behind ``# ``, the end line; :func:`read_ir_metadata` reads it back."""
    lines = [START, *("# " + line for line in _yaml(metadata, 0)), END]
    return "\n".join(lines) + "\n"


def _yaml(value: Any, indent: int) -> list[str]:
    """The block-style YAML lines of a mapping (``key: value``) or a sequence (``- value``)."""
    pad = " " * indent
    entries = ([(f"{_plain(str(k))}:", v) for k, v in value.items()] if isinstance(value, Mapping)
               else [("-", v) for v in value])
    out: list[str] = []
    for lead, item in entries:
        if isinstance(item, (Mapping, list, tuple)) and item:
            out.append(f"{pad}{lead}")
            out += _yaml(item, indent + 2)
        else:
            out.append(f"{pad}{lead} {_text(item)}")
    return out


def _text(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (Mapping, list, tuple)):
        return "{}" if isinstance(value, Mapping) else "[]"
    return _plain(str(value))


def _plain(text: str) -> str:
    """``text`` as a YAML scalar: plain when it reads back as itself, else double-quoted."""
    if text and _scalar_is_text(text):
        return text
    return json.dumps(text)


def _scalar_is_text(text: str) -> bool:
    return (text == text.strip() and not text.startswith(("-", "[", "{", "&", "*", "|", ">", "!", "'", '"', "#", "?"))
            and ": " not in text and " #" not in text and not text.endswith(":")
            and text.lower() not in ("true", "false", "null", "~") and not _NUMBER.match(text))
