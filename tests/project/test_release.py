"""Release metadata agree (docs: CHANGELOG.md): one version in the package, pyproject.toml and
CITATION.cff; every ``pip install 'cranfield[extra]'`` that a message or a page prints names an
extra that exists and that every pip installs (no "_", which pip ≥ 23 normalises to "-")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cranfield._version import __version__

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_one_version_everywhere() -> None:
    assert PYPROJECT["project"]["version"] == __version__ == "1.0.0rc1"
    cff = re.search(r"^version: (\S+)$", (ROOT / "CITATION.cff").read_text(encoding="utf-8"), re.M)
    assert cff and cff.group(1) == __version__
    assert f"## {__version__} (unreleased)" in (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")


def test_printed_extras_exist_and_install_with_every_pip() -> None:
    extras = set(PYPROJECT["project"]["optional-dependencies"])
    assert PYPROJECT["project"]["optional-dependencies"]["irmeasures"] == \
        PYPROJECT["project"]["optional-dependencies"]["ir_measures"]
    files = [*(ROOT / "src").rglob("*.py"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md"]
    printed = {(path.name, extra) for path in files
               for group in re.findall(r"cranfield\[([^\]]+)\]", path.read_text(encoding="utf-8"))
               for extra in group.split(",")}
    assert {extra for _, extra in printed} >= {"irmeasures", "parquet", "dask", "datasets"}
    bad = sorted((name, extra) for name, extra in printed if extra not in extras or "_" in extra)
    assert not bad, f"install lines naming extras that pip 23 refuses or that do not exist: {bad}"
