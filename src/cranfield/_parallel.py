"""Where independent blocks of work run: in this process, or on a Dask cluster (docs/scaling.md).

Every distributed computation in cranfield is a list of independent blocks (runs × topic
blocks, resample blocks, prefixes of a ranking space) mapped by one pure function whose
results are combined in block order, so the numbers never depend on where a block ran.
Dask (``pip install 'cranfield[dask]'``) is imported only when a client is given.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from cranfield._progress import progress
from cranfield.errors import CranfieldError

T = TypeVar("T")
R = TypeVar("R")

DASK_HINT = "the Dask backend needs dask.distributed: pip install 'cranfield[dask]'"


def map_blocks(fn: Callable[..., R], blocks: Iterable[T], *, client: Any = None,
               shared: Mapping[str, Any] | None = None, label: str | None = None,
               progress_bar: bool | None = None) -> list[R]:
    """``[fn(b, **shared) for b in blocks]``, in this process (``client=None``) or as one Dask
    task per block on ``client`` (a ``dask.distributed.Client``); results come back in block order.

    ``shared`` holds arguments common to every block (a compiled evaluator, a score matrix):
    on a cluster each is sent to every worker once (``client.scatter(broadcast=True)``), not
    once per task. Tasks are submitted with ``pure=False``, so equal blocks are never merged,
    and Dask reruns a block whose worker died (its ``allowed-failures`` setting). ``label``
    draws a progress bar over the blocks (:func:`cranfield._progress.progress`).
    """
    items = list(blocks)
    extra = dict(shared or {})
    if client is None:
        it = items if label is None else progress(items, len(items), label, progress_bar)
        return [fn(b, **extra) for b in it]
    if extra:
        names = list(extra)
        scattered = client.scatter([extra[k] for k in names], broadcast=True, hash=False)
        extra = dict(zip(names, scattered))
    futures = client.map(fn, items, pure=False, **extra)
    if label is not None:
        from dask.distributed import as_completed

        for _ in progress(as_completed(futures), len(futures), label, progress_bar):
            pass
    return list(client.gather(futures))


def block_seeds(seed: int | np.random.SeedSequence, n_blocks: int) -> list[np.random.SeedSequence]:
    """``n_blocks`` independent random streams derived from ``seed`` with numpy's
    ``SeedSequence.spawn``: block k always draws from stream k, wherever it runs."""
    root = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return list(root.spawn(n_blocks))


def connect(address: str | None = None, workers: int | None = None, timeout: float = 10.0) -> Any:
    """A ``dask.distributed.Client``: to the scheduler at ``address`` (``tcp://host:8786``), or
    to a new ``LocalCluster`` of ``workers`` single-threaded worker processes. Close it (it is
    a context manager) to stop a local cluster.

    Raises :class:`CranfieldError` when dask.distributed is not installed or the scheduler
    does not answer within ``timeout`` seconds.
    """
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise CranfieldError(DASK_HINT) from None
    if address is not None:
        try:
            return Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as e:
            raise CranfieldError(f"cannot reach the Dask scheduler at {address} within {timeout:g} s "
                                 f"({type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'no answer'}); "
                                 "is `dask scheduler` running there?") from None
    try:
        cluster = LocalCluster(n_workers=workers or 1, threads_per_worker=1, processes=True,
                               dashboard_address=":0")
    except (OSError, RuntimeError, TimeoutError) as e:
        raise CranfieldError(f"cannot start a local Dask cluster of {workers or 1} worker processes "
                             f"({type(e).__name__}: {e})") from None
    client = Client(cluster)
    client.register_plugin(_quiet_task_failures())
    return client


# A worker's records that are not news for the user: a failed task (its error, with its traceback,
# which the client raises again) and a heartbeat that finds the scheduler already stopped (the
# local cluster shutting down after that error)
QUIET_WORKER_RECORDS = ("Compute Failed", "Failed to communicate with scheduler during heartbeat")


def drop_task_failure(record: logging.LogRecord) -> bool:
    """A logging filter: False for a Dask worker's records of :data:`QUIET_WORKER_RECORDS`, True
    for every other record."""
    return not str(record.msg).startswith(QUIET_WORKER_RECORDS)


def _quiet_task_failures() -> Any:
    """A Dask worker plugin adding :func:`drop_task_failure` to each worker's log: the workers
    of a local cluster share this process's standard error, where a failed task (bad input)
    is to be one line of cranfield's, not a worker's log with a traceback."""
    from dask.distributed import WorkerPlugin

    class QuietTaskFailures(WorkerPlugin):
        name = "cranfield-quiet-task-failures"

        def setup(self, worker: Any) -> None:
            logging.getLogger("distributed.worker").addFilter(drop_task_failure)

    return QuietTaskFailures()


def chunks(n: int, size: int) -> Sequence[slice]:
    """``range(n)`` cut into consecutive slices of at most ``size`` items."""
    return [slice(start, min(start + size, n)) for start in range(0, n, max(size, 1))]
