"""Shared fixtures: paths of the bundled test data and a trec_eval oracle (pytrec_eval)."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


def read_text(path: Path) -> str:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        return f.read()


def qrels_dict(path: Path) -> dict[str, dict[str, int]]:
    """A qrels file as pytrec_eval's dict (the oracle's own parsing, independent of cranfield)."""
    out: dict[str, dict[str, int]] = {}
    for line in read_text(path).splitlines():
        if line.strip():
            q, _, d, r = line.split()
            out.setdefault(q, {})[d] = int(r)
    return out


def run_dict(path: Path) -> dict[str, dict[str, float]]:
    """A run file as pytrec_eval's dict, keeping the first line of a repeated document."""
    out: dict[str, dict[str, float]] = {}
    for line in read_text(path).splitlines():
        if line.strip():
            q, _, d, _, s, _ = line.split()
            out.setdefault(q, {}).setdefault(d, float(s))
    return out


@pytest.fixture
def write(tmp_path):
    """Write text to a file in a temporary directory and return its path."""

    def _write(name: str, text: str | bytes) -> Path:
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        elif name.endswith(".gz"):
            path.write_bytes(gzip.compress(text.encode()))
        else:
            path.write_text(text)
        return path

    return _write


def run_main(capsys, args) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``cranfield args``; argparse's own exits (``--help``,
    usage errors) are caught and give their status too."""
    from cranfield.cli.main import main

    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err
