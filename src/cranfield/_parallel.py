"""Where independent blocks of work run: in this process, or on a Dask cluster (docs/scaling.md).

Every distributed computation in cranfield is a list of independent blocks (runs × topic
blocks, resample blocks, prefixes of a ranking space) mapped by one pure function whose
results are combined in block order, so the numbers never depend on where a block ran.
Dask (``pip install 'cranfield[dask]'``) is imported only when a client is given.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import numpy as np

from cranfield.errors import CranfieldError

T = TypeVar("T")
R = TypeVar("R")

DASK_HINT = "the Dask backend needs dask.distributed: pip install 'cranfield[dask]'"


def map_blocks(fn: Callable[[T], R], blocks: Iterable[T], *, client: Any = None) -> list[R]:
    """``[fn(b) for b in blocks]``, in this process (``client=None``) or as one Dask task per
    block on ``client`` (a ``dask.distributed.Client``); results come back in block order.

    Tasks are submitted with ``pure=False``, so equal blocks are never merged, and Dask
    reruns a block whose worker died (its ``allowed-failures`` setting).
    """
    items = list(blocks)
    if client is None:
        return [fn(b) for b in items]
    futures = client.map(fn, items, pure=False)
    return list(client.gather(futures))


def block_seeds(seed: int | np.random.SeedSequence, n_blocks: int) -> list[np.random.SeedSequence]:
    """``n_blocks`` independent random streams derived from ``seed`` with numpy's
    ``SeedSequence.spawn``: block k always draws from stream k, wherever it runs."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return list(root.spawn(n_blocks))


def connect(address: str | None = None, workers: int | None = None) -> Any:
    """A ``dask.distributed.Client``: to the scheduler at ``address`` (``tcp://host:8786``), or
    to a new ``LocalCluster`` of ``workers`` single-threaded worker processes. Close it (it is
    a context manager) to stop a local cluster."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise CranfieldError(DASK_HINT) from None
    if address is not None:
        return Client(address)
    cluster = LocalCluster(n_workers=workers or 1, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    return Client(cluster)


def chunks(n: int, size: int) -> Sequence[slice]:
    """``range(n)`` cut into consecutive slices of at most ``size`` items."""
    return [slice(start, min(start + size, n)) for start in range(0, n, max(size, 1))]
