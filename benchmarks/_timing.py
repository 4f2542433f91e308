"""Wall-clock timing shared by the benchmarks: the best of a few runs, after a garbage collection."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any


def timed_runs(fn: Callable[[], Any], repeat: int, budget: float = float("inf")) -> tuple[list[float], Any]:
    """Run ``fn`` up to ``repeat`` times, stopping early once ``budget`` seconds are spent;
    return (seconds of each run, the last result)."""
    times, result = [], None
    for _ in range(repeat):
        result = None
        gc.collect()
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        if sum(times) > budget:
            break
    return times, result


def best_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """(best seconds over ``repeat`` runs, the last result)."""
    times, result = timed_runs(fn, repeat)
    return min(times), result
