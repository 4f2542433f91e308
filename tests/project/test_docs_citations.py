"""Citations belong to the project: the code and documentation cite the literature by author,
venue and year (docs/references.md) and the project's own conventions (docs/conventions.md),
never internal names a user cannot look up; and every link to a section of those two pages
points to an anchor that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCANNED = [ROOT / "src", DOCS, ROOT / "README.md", ROOT / "benchmarks"]
LINKING = SCANNED + [ROOT / "tests"]

# internal names of the specification: numbered papers, the spec file and its sections, the
# directory beside the repository that holds them
FORBIDDEN = re.compile(r"papers? 00[0-4]|SPEC §|SPEC\.md|\.\./shared", re.IGNORECASE)
# docs/conventions.md#order, conventions.md#order (relative, from docs/), references.md#sakai2012
LINK = re.compile(r"(?:docs/)?\b(conventions|references)\.md#([A-Za-z0-9_-]+)")
SAME_PAGE = re.compile(r"\]\(#([A-Za-z0-9_-]+)\)")
ANCHOR = re.compile(r"""<a\s+(?:id|name)\s*=\s*["']([^"']+)["']""")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def _text_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for p in candidates:
            if any(part.endswith(".egg-info") or part in ("__pycache__", "_work") for part in p.parts):
                continue  # build output and caches: regenerated from the sources checked here
            try:
                p.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # binary files (figures, compressed data)
            files.append(p)
    return files


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"<[^>]+>", "", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link's text only
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = page.read_text(encoding="utf-8")
    found = set(ANCHOR.findall(text))
    found.update(_slug(h) for h in HEADING.findall(re.sub(r"```.*?```", "", text, flags=re.DOTALL)))
    return found


def test_pages_exist():
    assert (DOCS / "references.md").is_file() and (DOCS / "conventions.md").is_file()


def test_no_internal_specification_names():
    hits = []
    for path in _text_files(SCANNED):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if FORBIDDEN.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not hits, "cite the literature or docs/conventions.md instead:\n" + "\n".join(hits)


def test_every_linked_anchor_exists():
    known = {name: anchors(DOCS / f"{name}.md") for name in ("conventions", "references")}
    missing = []
    for path in _text_files(LINKING):
        text = path.read_text(encoding="utf-8")
        for page, anchor in LINK.findall(text):
            if anchor not in known[page]:
                missing.append(f"{path.relative_to(ROOT)}: {page}.md#{anchor}")
        if path.parent == DOCS and path.stem in known:
            missing.extend(f"{path.relative_to(ROOT)}: #{a}" for a in SAME_PAGE.findall(text)
                           if a not in known[path.stem])
    assert not missing, "links to anchors that do not exist:\n" + "\n".join(sorted(set(missing)))


def test_anchors_are_unique():
    for name in ("conventions", "references"):
        ids = ANCHOR.findall((DOCS / f"{name}.md").read_text(encoding="utf-8"))
        assert len(ids) == len(set(ids)), f"{name}.md: {sorted(i for i in ids if ids.count(i) > 1)}"


@pytest.mark.parametrize("key", ["albahem2018", "golbus2013", "amigo2022", "maistro2021", "sakai2012"])
def test_the_five_papers_are_in_the_bibliography(key):
    assert key in anchors(DOCS / "references.md")
