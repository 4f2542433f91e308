"""The layering rules that import-linter cannot express (it checks the layers themselves, see
pyproject.toml): no import of the package root, no private name imported from another module,
command-line and printing only in ``cli/``, matplotlib only in ``render/plots.py``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "cranfield"
MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> list[tuple[int, str, str | None]]:
    """(line, module, imported name or None) for every import, nested ones included."""
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.lineno, node.module, alias.name) for alias in node.names]
    return out


def _is_module(module: str, name: str) -> bool:
    base = PACKAGE.parent.joinpath(*module.split("."), name)
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_module_imports_the_package_root(path: Path) -> None:
    bad = [line for line, module, _ in _imports(path) if module == "cranfield"]
    assert not bad, f"{_name(path)} imports the package root (cranfield/__init__) at lines {bad}"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_private_name_from_another_module(path: Path) -> None:
    bad = [f"{line}: {module}.{name}" for line, module, name in _imports(path)
           if module.startswith("cranfield") and name and name.startswith("_") and name != "__version__"
           and not _is_module(module, name)]
    assert not bad, f"{_name(path)} imports private names: {bad}"


@pytest.mark.parametrize("path", [p for p in MODULES if "cli" not in p.relative_to(PACKAGE).parts[:1]], ids=_name)
def test_argparse_print_and_stdout_only_in_cli(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [f"{line}: import argparse" for line, module, _ in _imports(path) if module == "argparse"]
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
            bad.append(f"{node.lineno}: print()")
        if isinstance(node, ast.Attribute) and node.attr in ("stdout",) and \
                isinstance(node.value, ast.Name) and node.value.id == "sys":
            bad.append(f"{node.lineno}: sys.stdout")
    assert not bad, f"{_name(path)} talks to the terminal outside cli/: {bad}"


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_matplotlib_only_in_render_plots(path: Path) -> None:
    if _name(path) == "cranfield.render.plots":
        return
    bad = [line for line, module, _ in _imports(path) if module.split(".")[0] == "matplotlib"]
    assert not bad, f"{_name(path)} imports matplotlib at lines {bad}: plots belong in cranfield.render.plots"


RESULT_TYPES = {"cranfield.evaluation.evaluator": {"Results"}}
"""What ``render/`` may import from ``cranfield.evaluation``: the result types it presents."""


def _runtime_imports(path: Path) -> list[tuple[int, str, str | None]]:
    """:func:`_imports` outside ``if TYPE_CHECKING:`` blocks (the imports that run)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hidden = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If) and isinstance(node.test, ast.Name)
              and node.test.id == "TYPE_CHECKING" for stmt in node.body for n in ast.walk(stmt)}
    out: list[tuple[int, str, str | None]] = []
    for node in ast.walk(tree):
        if id(node) in hidden:
            continue
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            out += [(node.lineno, node.module, alias.name) for alias in node.names]
    return out


@pytest.mark.parametrize("path", sorted((PACKAGE / "render").glob("*.py")), ids=_name)
def test_render_presents_results_and_computes_nothing(path: Path) -> None:
    """Results are data: ``render/`` turns result objects into text, files and figures; it reads no
    input (``cranfield.io``), runs no test (``cranfield.meta``) and takes only result types from
    ``cranfield.evaluation`` (importlib included: no import hidden from this check)."""
    bad = []
    for line, module, name in _runtime_imports(path):
        top = ".".join(module.split(".")[:2])
        if top in ("cranfield.io", "cranfield.meta") or module == "importlib":
            bad.append(f"{line}: {module}")
        elif top == "cranfield.evaluation" and name not in RESULT_TYPES.get(module, set()):
            bad.append(f"{line}: {module}.{name}")
    assert not bad, f"{_name(path)} computes in the presentation layer: {bad}"


def test_the_render_rule_catches_a_reader(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cranfield.io import Run\n"
                      "def f():\n    from cranfield.io import as_run\n    from cranfield.evaluation.evaluator import "
                      "Evaluator, Results\n", encoding="utf-8")
    found = [(module, name) for _, module, name in _runtime_imports(sample) if module.startswith("cranfield")]
    assert found == [("cranfield.io", "as_run"), ("cranfield.evaluation.evaluator", "Evaluator"),
                     ("cranfield.evaluation.evaluator", "Results")]
