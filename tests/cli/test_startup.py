"""Start-up follows the layers (issue #24): a command imports only what it runs. ``cranfield
--version``, ``cranfield --help`` and every command's ``--help`` import no numerical library
(numpy, pandas, pyarrow, Dask, matplotlib, SciPy): the parsers take their choices, defaults and
limits from numpy-free modules (``_choices``, ``evaluation.options``, ``analysis.options``,
``meta.registry``). Each case runs the entry point in a fresh interpreter and lists, at exit,
which of those modules it imported."""

from __future__ import annotations

import argparse
import functools
import importlib
import subprocess
import sys

import pytest

from cranfield import __version__
from cranfield.cli.main import COMMANDS, SUMMARIES, asks_version, build_parser

HEAVY = ("numpy", "pandas", "pyarrow", "dask", "matplotlib", "scipy")
PROBE = f"""
import sys
from cranfield.cli.main import main
try:
    status = main(sys.argv[1:])
except SystemExit as exc:
    status = exc.code
print("imported:", *sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)
sys.exit(status)
"""
NAMES = [name for names in COMMANDS.values() for name in names]


@functools.cache
def imported(*argv: str) -> tuple[int, str, set[str]]:
    """(exit status, stdout, the modules of :data:`HEAVY` imported) of ``cranfield argv``."""
    proc = subprocess.run([sys.executable, "-c", PROBE, *argv], capture_output=True, text=True, timeout=120)
    line = next(text for text in proc.stderr.splitlines() if text.startswith("imported:"))
    return proc.returncode, proc.stdout, set(line.split()[1:])


def test_version_imports_nothing_heavy() -> None:
    status, out, modules = imported("--version")
    assert (status, out, modules) == (0, f"cranfield {__version__}\n", set())


def test_help_imports_nothing_heavy() -> None:
    status, out, modules = imported("--help")
    assert status == 0 and modules == set()
    for name, summary in SUMMARIES.items():
        assert f"  {name:<15} {summary}" in out


@pytest.mark.parametrize("name", NAMES)
def test_command_help_imports_nothing_heavy(name: str) -> None:
    status, out, modules = imported(name, "--help")
    assert status == 0 and f"usage: cranfield {name}" in out
    assert modules == set()


@pytest.mark.parametrize("argv", [("aspects", "eval", "--help"), ("aspects", "order", "--help")])
def test_subcommand_help_imports_nothing_heavy(argv: tuple[str, ...]) -> None:
    status, out, modules = imported(*argv)
    assert status == 0 and f"usage: cranfield {' '.join(argv[:-1])}" in out
    assert modules == set()


def test_the_probe_sees_a_heavy_import() -> None:
    """The check can fail: a command that runs (``measures`` lists the registry's measures, which
    imports numpy) is seen importing numpy."""
    status, _, modules = imported("measures")
    assert status == 0 and "numpy" in modules


@pytest.mark.parametrize("package", ["cranfield", "cranfield.meta", "cranfield.analysis.options",
                                     "cranfield.meta.registry", "cranfield.evaluation.options"])
def test_the_packages_and_the_declarations_import_nothing_heavy(package: str) -> None:
    """The packages import their names on first use (PEP 562); the modules the parsers read declare
    their constants without numpy (the registry of tests too: its kernels are imported when run)."""
    code = (f"import sys, {package}; from cranfield.meta.registry import names, resampling; names(), resampling(); "
            f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("package", ["cranfield", "cranfield.meta"])
def test_every_public_name_is_listed_and_imported_on_first_use(package: str) -> None:
    module = importlib.import_module(package)
    assert set(module.__all__) <= set(dir(module))
    for name in module.__all__:
        assert getattr(module, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nonexistent'"):
        module.nonexistent  # noqa: B018


def test_summaries_are_the_commands_help() -> None:
    """The listing's lines (:data:`SUMMARIES`) are those each command's module gives its parser."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    assert {action.dest: action.help for action in sub._choices_actions} == SUMMARIES


@pytest.mark.parametrize(("argv", "expected"), [
    (["--version"], True), (["--plugin", "p.py", "--version"], True), (["--version", "-h"], True),
    (["-h", "--version"], False), (["eval", "--version"], False), (["--plugin", "--version"], False), ([], False),
])
def test_asks_version(argv: list[str], expected: bool) -> None:
    """``--version`` is answered without any command's parser exactly when argparse would act on it first."""
    assert asks_version(argv) is expected
