"""Docs that run: every ``bash``/``sh``/``console`` and ``python`` block of README.md and docs/*.md is
executed as written, in a temporary directory where bundled files stand in for the placeholders.

Placeholders (the table :data:`PLACEHOLDERS`; files made by :func:`workdir`):

=====================================================  ===============================================
name in the docs                                       stands for
=====================================================  ===============================================
``qrels.txt``                                          TREC Web 2012 ad hoc qrels (bundled)
``qrels.diversity.txt``, ``qrels.div``,                TREC Web 2012 diversity qrels (bundled)
``diversity-qrels.txt``, ``qrels.ndeval``
``run.txt``, ``run1.txt``, ``a.txt``, ``base.txt``,    the Indri query-likelihood run of Web 2012
``plain-run.txt``, ``*.run`` but ``rm3``/``new*``/...  (bundled; the relevance-model run for ``run2``,
                                                       ``b``, ``rm3``, ``new``, ``new1``, ``a2``...)
``run2.txt.gz``                                        the relevance-model run, gzip-compressed
``runs/``                                              four Web 2012 runs (``runs/base.gz`` first)
``topics.xml``                                         Web 2012 topics with subtopic types (tests/data)
``qrels.parquet``, ``run.parquet``, ``bm25.parquet``,  the files above written as Parquet
``dense.parquet``
``truth.txt``, ``truth.xml``                           TREC DD 2016 truth; ``run.txt`` on a line with
                                                       ``--dd-truth`` is the jig's sample run (tests/data)
``rel/``, ``runA/``, ``runB/``, ``0001.rel``,          NTCIREVAL's sample ``.rel``/``.res`` (tests/data)
``0001.res``
``assignments.jsonl``                                  the bundled RAG nugget assignments
``llm.qrels``, ``umbrela.qrels``, ``mturk.qrels``      copies of the Web 2012 ad hoc qrels (judges)
``my_measures.py``                                     the plugin of docs/plugins.md (tests/data)
``src/``                                               the checkout's ``src/`` (``src/cranfield/data``)
``$D``, ``$N``                                         the bundled data directory, nugget file
=====================================================  ===============================================

Python blocks also start with ``qrels``, ``runs``, ``run_paths`` and ``paths`` (the file names above)
defined, run in a subprocess in the same directory. A shell block runs under ``bash -e -o pipefail``.
Where a block shows output (``$ command`` lines followed by what it prints), the printed output is
compared. A block that cannot run here (network, a cluster, files that are not bundled) is marked in
the Markdown just above it with ``<!-- skip: reason -->``; the reason is the skip's message.
"""

from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "src" / "cranfield" / "data"
TESTS = ROOT / "tests" / "data"
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = ("bash", "sh", "console", "shell")
SKIP = re.compile(r"<!--\s*skip:\s*(.+?)\s*-->\s*$")
QL, RM = DATA / "web2012.ql.run.gz", DATA / "web2012.rm.run.gz"
QL_FILTERED, RM_FILTERED = TESTS / "web2012" / "ql-filtered.run.gz", TESTS / "web2012" / "rm-filtered.run.gz"
# placeholder -> (source, gunzip?)
PLACEHOLDERS: dict[str, tuple[Path, bool]] = {
    "qrels.txt": (DATA / "web2012.adhoc.qrels.gz", True),
    **{name: (DATA / "web2012.diversity.qrels.gz", True)
       for name in ("qrels.diversity.txt", "qrels.div", "diversity-qrels.txt", "qrels.ndeval")},
    **{name: (QL, True) for name in ("run.txt", "run1.txt", "a.txt", "base.txt", "plain-run.txt", "base.run",
                                     "bm25.run", "a.run", "b2.run", "c.run")},
    **{name: (RM, True) for name in ("run2.txt", "b.txt", "new.run", "new1.run", "rm3.run", "b.run", "a2.run")},
    **{name: (RM_FILTERED, True) for name in ("new2.run", "dense.run")},
    "run2.txt.gz": (RM, False),
    "runs/base.gz": (QL, False), "runs/rm.gz": (RM, False),
    "runs/ql-filtered.gz": (QL_FILTERED, False), "runs/rm-filtered.gz": (RM_FILTERED, False),
    "topics.xml": (TESTS / "web2012" / "full-topics.xml", False),
    "truth.txt": (TESTS / "trec-dd" / "trecdd2016-qrels.txt.gz", True),
    "truth.xml": (TESTS / "trec-dd" / "trecdd2016-truth.xml.gz", True),
    "dd-run.txt": (TESTS / "trec-dd" / "trecdd2016-sample-run.txt", False),
    **{name: (TESTS / "ntcireval" / "sample.rel", False) for name in ("0001.rel", "rel/0001.rel")},
    **{name: (TESTS / "ntcireval" / "sample.res", False) for name in ("0001.res", "runA/0001.res", "runB/0001.res")},
    "assignments.jsonl": (DATA / "rag.nuggets.jsonl", False),
    # other judges' qrels stand in as copies of the reference (every agreement 1: the command runs)
    **{name: (DATA / "web2012.adhoc.qrels.gz", True) for name in ("llm.qrels", "umbrela.qrels", "mturk.qrels")},
    "my_measures.py": (TESTS / "plugins" / "my_measures.py", False),
}
PARQUET = {"qrels.parquet": "qrels.txt", "run.parquet": "run.txt", "bm25.parquet": "run1.txt",
           "dense.parquet": "run2.txt"}
# The README's two first commands stay as they are (no marker above them): they make a fresh venv and
# install from the network, and the second runs this very suite; CI (.ci/run) runs both as its own steps.
FRESH_VENV = "python3 -m venv .venv && "
PYTHON_PRELUDE = ('qrels = "qrels.txt"\nruns = run_paths = paths = ["run1.txt", "run2.txt"]\n')


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    lang: str
    code: str
    skip: str | None

    @property
    def id(self) -> str:
        return f"{self.page}:{self.line}"


def blocks() -> list[Block]:
    """Every shell and Python block of the pages, with the reason of its skip marker if any."""
    out = []
    for page in PAGES:
        tokens = MarkdownIt().parse(page.read_text(encoding="utf-8"))
        for before, token in zip([None, *tokens], tokens):
            lang = token.info.strip().split(" ")[0] if token.type == "fence" else ""
            if lang not in (*SHELL, "python"):
                continue
            marker = SKIP.search(before.content.strip()) if before is not None and before.type == "html_block" else None
            reason = marker.group(1) if marker else None
            if token.content.startswith(FRESH_VENV):
                reason = "makes a fresh venv and installs from the network (CI's own steps, .ci/run)"
            out.append(Block(str(page.relative_to(ROOT)), token.map[0] + 1, lang, token.content, reason))
    return out


BLOCKS = blocks()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory with every placeholder file (the table in the module docstring)."""
    root = tmp_path_factory.mktemp("docs-run")
    for name, (source, gunzip) in PLACEHOLDERS.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if gunzip:
            with gzip.open(source, "rb") as f:
                target.write_bytes(f.read())
        else:
            shutil.copyfile(source, target)
    (root / "src").symlink_to(ROOT / "src")
    import pandas as pd

    for name, text in PARQUET.items():
        path = root / text
        if name == "qrels.parquet":
            frame = pd.read_csv(path, sep=r"\s+", header=None, names=["query_id", "iteration", "doc_id", "relevance"],
                                dtype=str)
            frame["relevance"] = frame["relevance"].astype(int)
        else:
            columns = ["query_id", "Q0", "doc_id", "rank", "score", "tag"]
            frame = pd.read_csv(path, sep=r"\s+", header=None, names=columns, dtype={"query_id": str, "doc_id": str})
        frame.to_parquet(root / name, index=False)
    return root


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT / "src"), env.get("PYTHONPATH")) if p)
    env.update(D=str(DATA), N=str(DATA / "rag.nuggets.jsonl"), COLUMNS="100", MPLBACKEND="Agg")
    return env


def _shell(code: str) -> str:
    """The block as a script: a line giving ``--dd-truth`` reads the DD sample run as ``run.txt``."""
    lines = code.splitlines()
    joined: list[str] = []
    for line in lines:  # continuation lines joined, so that the --dd-truth rule sees whole commands
        if joined and joined[-1].endswith("\\"):
            joined[-1] = joined[-1][:-1] + " " + line.strip()
        else:
            joined.append(line)
    return "\n".join(re.sub(r"\brun\.txt\b", "dd-run.txt", line) if "--dd-truth" in line else line
                     for line in joined) + "\n"


def _sessions(code: str) -> list[tuple[str, str]]:
    """``$ command`` lines and the output shown after each (a block with a transcript)."""
    out: list[tuple[str, list[str]]] = []
    for line in code.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return [(cmd, "\n".join(shown).rstrip()) for cmd, shown in out]


def _run(args: list[str], cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, env=_env(), input=stdin, capture_output=True, text=True, timeout=600)


@pytest.mark.slow
@pytest.mark.parametrize("block", BLOCKS, ids=[b.id for b in BLOCKS])
def test_doc_block_runs(block: Block, workdir: Path) -> None:
    if block.skip:
        pytest.skip(block.skip)
    if block.lang == "python":
        done = _run([sys.executable, "-c", PYTHON_PRELUDE + block.code], workdir)
        assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-3000:]}"
        return
    sessions = _sessions(block.code)
    if not sessions:
        done = _run(["bash", "-e", "-o", "pipefail", "-s"], workdir, stdin=_shell(block.code))
        assert done.returncode == 0, f"{block.id} failed:\n{done.stderr[-3000:]}"
        return
    for command, shown in sessions:
        done = _run(["bash", "-e", "-o", "pipefail", "-s"], workdir, stdin=_shell(command))
        assert done.returncode == 0, f"{block.id}: {command} failed:\n{done.stderr[-3000:]}"
        printed = "\n".join(line.rstrip() for line in done.stdout.rstrip().splitlines())
        assert printed == "\n".join(line.rstrip() for line in shown.splitlines()), f"{block.id}: {command}"


def test_every_block_is_found() -> None:
    """The extraction sees the blocks (a change of Markdown parser must not make this test vacuous)."""
    assert len(BLOCKS) >= 70
    assert {b.lang for b in BLOCKS} >= {"bash", "sh", "python"}
    assert all(len(b.skip) > 5 for b in BLOCKS if b.skip), "a skip marker must say why"


def test_transcripts_are_compared(tmp_path: Path) -> None:
    """A ``$ command`` line is run and what it prints compared with the lines shown after it."""
    assert _sessions("$ echo a\na\n$ printf 'b\\nc\\n'\nb\nc\n") == [("echo a", "a"), ("printf 'b\\nc\\n'", "b\nc")]
    assert _sessions("cranfield example\n") == []
    done = _run(["bash", "-e", "-o", "pipefail", "-s"], tmp_path, stdin=_shell("cranfield measures RR | head -1"))
    assert done.returncode == 0 and done.stdout.startswith("RR")
    assert "dd-run.txt" in _shell("cranfield eval --dd-truth truth.txt \\\n    run.txt -m CT@10")
