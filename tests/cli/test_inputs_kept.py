"""Issue #30: an output option (``-o``, ``--provenance``, ``--plot``) never replaces an input.

Every command of the argparse tree (as :mod:`test_cli_uniform` finds them) is started with each
of its output options naming one of its input files — by the same name, ``./name``,
``sub/../name``, a symbolic link and a hard link — and must refuse before any work: one error
line, exit status 2, the input's bytes unchanged. Every command takes ``--plugin FILE``, so even
those without input files (``measures``, ``axioms``) are tried with one.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
from pathlib import Path

import pytest
from test_cli_uniform import args_of, commands, quiet_main

from cranfield.cli.main import build_parser

OUTPUT_OPTIONS = ("-o", "--provenance", "--plot")
PLUGIN = "from cranfield import register_measure  # noqa: F401\n"


def output_options(parser: argparse.ArgumentParser) -> list[str]:
    """The output options of a command's parser."""
    given = {s for action in parser._actions for s in action.option_strings}
    return [o for o in OUTPUT_OPTIONS if o in given]


CASES = [(name, option) for name, parser in commands(build_parser()).items() for option in output_options(parser)]


def test_every_command_has_a_case() -> None:
    assert {name for name, _ in CASES} == set(commands(build_parser()))


def local_inputs(argv: list[str], tmp: Path) -> tuple[list[str], list[str]]:
    """``argv`` with each input file (also the FILE of NAME=FILE) copied into ``tmp`` under a
    short name, given relative to ``tmp``; and those names."""
    names: list[str] = []

    def local(value: str) -> str:
        if not Path(value).is_file():
            return value
        name = f"in{len(names)}{''.join(Path(value).suffixes)}"
        if not (tmp / name).exists():
            shutil.copyfile(value, tmp / name)
        names.append(name)
        return name

    out = []
    for value in argv:
        key, eq, rest = value.partition("=")
        out.append(f"{key}={local(rest)}" if eq and not value.startswith("-") and Path(rest).is_file()
                   else local(value))
    return out, names


def spellings(name: str, tmp: Path) -> list[str]:
    """Other names of the file ``tmp / name``: ./name, sub/../name, a symbolic and a hard link."""
    (tmp / "sub").mkdir(exist_ok=True)
    symlink, hardlink = tmp / f"sym-{name}", tmp / f"hard-{name}"
    if not symlink.exists():
        symlink.symlink_to(tmp / name)
        os.link(tmp / name, hardlink)
    return [name, f"./{name}", f"sub/../{name}", symlink.name, hardlink.name]


@pytest.mark.parametrize(("command", "option"), CASES)
def test_an_output_never_replaces_an_input(command: str, option: str, tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plugin.py").write_text(PLUGIN)
    argv, inputs = local_inputs(args_of(command, tmp_path), tmp_path)
    argv += ["--plugin", "plugin.py"]  # every command takes it: an input file of every command
    monkeypatch.chdir(tmp_path)
    if command == "report":  # -o is required; give it as another file when --provenance is tried
        argv += ["-o", "out.md"]
    for name in [*inputs, "plugin.py"]:
        before = (tmp_path / name).read_bytes()
        for spelled in spellings(name, tmp_path):
            given = [a for a in argv if a not in ("-o", "out.md")] if option == "-o" else argv
            status = quiet_main([*given, option, spelled])
            err = capsys.readouterr().err
            assert status == 2, (name, spelled)
            assert re.fullmatch(r"cranfield: error: \S+ names the input file '[^']+': cranfield never replaces "
                                r"its inputs; write the output to another file\n", err), err
            assert (tmp_path / name).read_bytes() == before, (name, spelled)
    assert not (tmp_path / "out.md").exists()  # refused before any work


@pytest.mark.parametrize("command", ["eval", "compare"])
def test_output_and_provenance_are_two_files(command: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """-o and --provenance naming one file by two names (a hard link too) is refused like one name."""
    monkeypatch.chdir(tmp_path)
    Path("out.txt").write_text("kept\n")
    argv = args_of(command, tmp_path)
    for other in spellings("out.txt", tmp_path):
        assert quiet_main([*argv, "-o", "out.txt", "--provenance", other]) == 2
        assert capsys.readouterr().err == ("cranfield: error: -o/--output and --provenance name the same file "
                                           "'out.txt'\n")
    assert Path("out.txt").read_text() == "kept\n"
