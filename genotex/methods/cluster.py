"""The Dask glue of ``run_agent.py --scheduler``: one function, a ``concurrent.futures`` view.

Everything the runner sends to a cluster goes through :func:`dask_executor`:
the runner submits ``fn(*args)`` and waits on standard futures, exactly as with
its local thread and process pools. The workers must import this project (same
code) and see the inputs, the metadata and the run folder at the same paths (a
shared file system), as ``regress.py``'s workers see the preprocess tree.
"""

from __future__ import annotations

import concurrent.futures as cf
from dataclasses import dataclass
from typing import Any, Callable

#: How long connecting to the scheduler may take.
CONNECT_TIMEOUT = "10s"


class SchedulerError(RuntimeError):
    """The Dask scheduler cannot be reached."""


@dataclass
class ClusterExecutor:
    """A Dask client seen as an executor.

    Attributes
    ----------
    executor : concurrent.futures.Executor
        ``submit(fn, *args)`` returns a :class:`concurrent.futures.Future`.
    workers : int
        Worker processes of the cluster when connecting.
    threads : int
        Task slots (worker threads) of the cluster when connecting.
    close : callable
        Disconnects.
    """

    executor: cf.Executor
    workers: int
    threads: int
    close: Callable[[], Any]


def dask_executor(address: str) -> ClusterExecutor:
    """Connect to the scheduler at ``address`` (``tcp://host:8786``).

    Raises
    ------
    SchedulerError
        When the scheduler cannot be reached (naming the address).
    """
    from distributed import Client

    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as exc:
        raise SchedulerError(f"cannot reach the Dask scheduler at {address}: {exc}") from exc
    slots = client.nthreads()          # {worker address: threads}
    return ClusterExecutor(client.get_executor(pure=False), len(slots),
                           max(sum(slots.values()), 1), client.close)
