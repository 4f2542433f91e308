"""The tutorials of docs/notebooks run: each notebook is executed top to bottom by a real Jupyter
kernel (nbclient) in a temporary directory, as the documentation site executes them
(mkdocs-jupyter, ``execute: true``). A cell that raises fails the test, and so does a shell cell
(``!cranfield ...``) whose command fails, which IPython would only print. The notebooks read only
the data bundled with cranfield: no network."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "docs" / "notebooks").glob("*.ipynb"))
# what a failed shell command prints: cranfield's one-line error, a traceback, or bash's complaint
FAILED = ("cranfield: error:", "Traceback (most recent call last)", "command not found", "No such file")


def test_the_tutorials_are_found() -> None:
    assert len(NOTEBOOKS) >= 4
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        assert not any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), (
            f"{path.name}: stored with outputs (the site executes the notebooks; clear them)")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the kernel and its `!cranfield` cells see this checkout's cranfield and this interpreter's scripts
    monkeypatch.setenv("PATH", str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(ROOT / "src"), os.environ.get("PYTHONPATH"))
                                                     if p))
    monkeypatch.setenv("COLUMNS", "100")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError, naming the cell, on any error
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        printed = "".join(out.get("text", "") for out in cell.outputs if out.output_type == "stream")
        assert not any(s in printed for s in FAILED), f"{path.name}: a cell failed:\n{cell.source}\n{printed}"
    images = sum("image/png" in out.get("data", {}) for cell in nb.cells if cell.cell_type == "code"
                 for out in cell.outputs)
    assert images >= 1, f"{path.name}: no figure was drawn"
    assert list(tmp_path.iterdir()) == [], f"{path.name}: wrote files into its working directory"
