"""cli.main.keep_freed_memory: glibc keeps freed blocks for reuse, so a command reading many
large run files does not fault every block in again (issue #18)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cranfield.cli import main as cli_main

PROBE = """
import resource, sys
import numpy as np
if sys.argv[1] == "keep":
    from cranfield.cli.main import keep_freed_memory
    keep_freed_memory()
np.ones(5 << 20)  # the first block is faulted in either way
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(20):  # blocks of 40 MiB, beyond the 32 MiB up to which glibc adapts by itself
    np.ones(5 << 20)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
    return int(out.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's allocator")
def test_freed_blocks_are_reused_instead_of_faulted_in_again():
    default, kept = faults("default"), faults("keep")
    # by default every block is mapped afresh (thousands of faults each); kept, it is reused
    assert kept * 10 < default, (kept, default)


def test_elsewhere_it_does_nothing(monkeypatch):
    import ctypes

    opened = []
    monkeypatch.setattr(ctypes, "CDLL", lambda *args: opened.append(args))
    monkeypatch.setattr(sys, "platform", "darwin")
    cli_main.keep_freed_memory()
    assert opened == []  # no C library was even looked up
    monkeypatch.setattr(sys, "platform", "linux")
    cli_main.keep_freed_memory()  # the stand-in has no mallopt: skipped, as for musl
    assert len(opened) == 1
