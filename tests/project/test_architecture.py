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


# Cycles on main when this test was written, to be broken by their owners; the lead empties this
# list then (every entry is a set of modules importing each other, directly or not).
KNOWN_CYCLES: list[frozenset[str]] = []


def _type_checking(node: ast.If) -> bool:
    """``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``): imports for the type checker only."""
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _executed_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import that can run: at module level and inside functions alike, ``import_module("x")``
    with a literal name too, but not those under ``if TYPE_CHECKING:`` (its ``else:`` branch does run)."""
    out: list[ast.Import | ast.ImportFrom] = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _type_checking(node):
            for other in node.orelse:
                out += _executed_imports(ast.Module(body=[other], type_ignores=[]))
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            out.append(node)
        elif isinstance(node, ast.Call) and isinstance(node.func, (ast.Attribute, ast.Name)) and \
                getattr(node.func, "attr", getattr(node.func, "id", None)) == "import_module" and node.args and \
                isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
            out.append(ast.Import(names=[ast.alias(name=node.args[0].value)]))
        out += _executed_imports(node)
    return out


def import_graph() -> dict[str, set[str]]:
    """module → the modules of cranfield it imports (``from pkg import module`` names the module;
    the package root, which only re-exports lazily, and a module's own name are left out)."""
    modules = {_name(p) for p in MODULES}
    graph: dict[str, set[str]] = {}
    for path in MODULES:
        here = _name(path)
        targets: set[str] = set()
        for node in _executed_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets.update(alias.name for alias in node.names)
            else:
                base = node.module or ""
                if node.level:  # relative: from the package of this module, up level - 1
                    package = here.split(".") if path.name == "__init__.py" else here.split(".")[:-1]
                    base = ".".join(package[:len(package) - node.level + 1] + ([base] if base else []))
                targets.update(f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names)
        graph[here] = {t for t in targets if t in modules and t not in (here, "cranfield")}
    return graph


def import_cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively): each is a
    set of modules every one of which imports every other, directly or not."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(frozenset(component))
    return out


def test_import_cycles_are_found() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_cycles(graph) == [frozenset({"a", "b", "c"})]
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x\nelse:\n    import y\n"
                     "def f():\n    import z\n    return importlib.import_module('w')\n")
    assert sorted(n.names[0].name for n in _executed_imports(tree) if isinstance(n, ast.Import)) == ["w", "y", "z"]


def test_no_import_cycle_between_modules() -> None:
    """No two modules import each other, directly or through others, counting imports inside
    functions (a cycle hidden in a function is still a cycle: each module needs the other)."""
    cycles = [c for c in import_cycles(import_graph()) if not any(c <= known for known in KNOWN_CYCLES)]
    assert not cycles, "import cycles between modules:\n" + "\n".join(
        "  " + " <-> ".join(sorted(c)) for c in cycles)


def test_no_long_function_in_the_command_line():
    """The command line is glue: every function of ``cli/`` fits on a screen (60 lines); the work
    it would hold belongs in a library function."""
    long = []
    for path in sorted((PACKAGE / "cli").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.end_lineno - node.lineno >= 60:
                long.append(f"{path.name}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)")
    assert not long, long
