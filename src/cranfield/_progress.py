"""A dependency-free progress bar on stderr, shown only when stderr is a terminal."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int, label: str, enabled: bool | None = None) -> Iterator[T]:
    """Yield ``items``, drawing ``label [#####     ] i/total`` on stderr at most 10 times a second.

    ``enabled=None`` shows the bar when stderr is a terminal and the work lasts over half a
    second; nothing is written otherwise, so pipes and logs stay clean.
    """
    stream = sys.stderr
    show = stream.isatty() if enabled is None else enabled
    start = last = time.monotonic()
    drawn = False
    for done, item in enumerate(items, start=1):
        yield item
        now = time.monotonic()
        if show and total > 1 and now - last > 0.1 and (drawn or now - start > 0.5 or enabled):
            filled = int(30 * done / total)
            stream.write(f"\r{label} [{'#' * filled}{' ' * (30 - filled)}] {done}/{total}")
            stream.flush()
            last, drawn = now, True
    if drawn:
        stream.write("\r" + " " * (len(label) + 45) + "\r")
        stream.flush()
