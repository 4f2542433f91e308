"""Whether any installed package declares cranfield measures as entry points: a check cheap
enough for every command's start-up, made before the measure registry (and numpy) is imported
(:mod:`cranfield.measures.plugins` loads them; docs/plugins.md#loading-plugins)."""

from __future__ import annotations

import os
import sys

ENTRY_POINT_GROUP = "cranfield.measures"
"""The entry-point group under which packages declare measures (docs/plugins.md#loading-plugins)."""


def may_declare(group: str = ENTRY_POINT_GROUP) -> bool:
    """Whether an installed distribution may declare entry points of ``group``. False only when
    no import finder but the standard path finder lists distributions and every ``*.dist-info``
    and ``*.egg-info`` directory on ``sys.path`` has no ``entry_points.txt`` naming the group:
    reading those small files takes ~2 ms, where importing :mod:`importlib.metadata` and
    parsing every distribution takes ~30 ms of every command's start-up. Anything else (a zip
    file or an egg on the path, an unreadable file) answers True, and importlib.metadata looks."""
    from importlib.machinery import PathFinder

    if any(hasattr(finder, "find_distributions") and finder is not PathFinder for finder in sys.meta_path):
        return True
    for entry in sys.path:
        folder = entry or "."
        try:
            names = os.listdir(folder)
        except NotADirectoryError:
            return True
        except OSError:
            continue
        for name in names:
            if name.endswith(".egg"):
                return True
            if not name.endswith((".dist-info", ".egg-info")):
                continue
            try:
                with open(os.path.join(folder, name, "entry_points.txt"), encoding="utf-8", errors="replace") as f:
                    if group in f.read():
                        return True
            except (FileNotFoundError, NotADirectoryError):
                continue
            except OSError:
                return True
    return False
