"""Handing work to a Dask distributed cluster without the scheduler importing the project.

Dask's scheduler unpickles every task it receives. A task that names a function of this
project (``genotex.regress.runner.analyse_group``) therefore fails on a scheduler
started outside the checkout ("Error during deserialization of the task graph ... No
module named 'utils'"). Here every task is plain data for the scheduler: the function
is :func:`pickle.loads` (the standard library) and its one argument the bytes of the
call (:func:`opaque_call`). A worker runs the call while unpickling it, which imports
the project there, and returns the result as bytes too; the caller unpickles them
(:func:`result_of`). So:

* the scheduler needs Dask only (started anywhere, no ``PYTHONPATH``);
* each worker needs this project importable: the recipe of docs/statistics.md starts
  them with ``PYTHONPATH=<checkout>`` (or they run a ``pip install .`` of the same code);
* :func:`check_workers` asks every worker, before any problem is sent, which project
  code it imports, and stops the run with one line naming a worker that cannot import
  it or imports other code (:func:`code_digest` differs).
"""

from __future__ import annotations

import hashlib
import pickle
import time
from importlib import resources
from typing import Any, Callable, Dict, Mapping, Tuple

#: The packages whose code a worker must share with the caller.
PACKAGES = ("utils", "tools", "download", "genotex")
RECIPE = "docs/statistics.md, 'A Dask cluster'"


class ClusterError(RuntimeError):
    """The cluster cannot run this project's work (one line, naming what to fix)."""


class _Call:
    """A call that is made when unpickled: ``pickle.loads(pickle.dumps(_Call(f, a)))`` is
    ``f(*a)``."""

    __slots__ = ("func", "args")

    def __init__(self, func: Callable[..., Any], args: Tuple[Any, ...]) -> None:
        self.func, self.args = func, args

    def __reduce__(self) -> Tuple[Callable[..., Any], Tuple[Any, ...]]:
        return self.func, self.args


def _pickled_result(func: Callable[..., Any], *args: Any) -> bytes:
    """``func(*args)``, pickled (so that only bytes travel back through the cluster)."""
    return pickle.dumps(func(*args), protocol=pickle.HIGHEST_PROTOCOL)


def opaque_call(func: Callable[..., Any], *args: Any) -> bytes:
    """The bytes that, given to :func:`pickle.loads`, compute ``func(*args)``, pickled.

    ``func`` must be importable by name (a module-level function). Submit them as
    ``client.submit(pickle.loads, opaque_call(func, *args))`` and read the future's
    value with :func:`result_of`.

    >>> import operator
    >>> result_of(pickle.loads(opaque_call(operator.add, 2, 3)))
    5
    """
    return pickle.dumps(_Call(_pickled_result, (func, *args)), protocol=pickle.HIGHEST_PROTOCOL)


def result_of(payload: bytes) -> Any:
    """The value a worker returned for an :func:`opaque_call`."""
    return pickle.loads(payload)


def code_digest() -> str:
    """SHA-256 over the path and bytes of every ``.py`` file of the project's packages.

    The same code gives the same digest wherever it is installed (a checkout on
    ``PYTHONPATH`` or ``pip install .``), so workers can be compared with the caller.
    """
    digest = hashlib.sha256()
    for package in PACKAGES:
        stack = [(package, resources.files(package))]
        while stack:
            prefix, folder = stack.pop()
            for entry in sorted(folder.iterdir(), key=lambda e: e.name):
                if entry.is_dir() and entry.joinpath("__init__.py").is_file():
                    stack.append((f"{prefix}/{entry.name}", entry))  # what pip installs
                elif entry.name.endswith(".py"):
                    digest.update(f"{prefix}/{entry.name}\0".encode())
                    digest.update(entry.read_bytes())
    return digest.hexdigest()


def worker_identity() -> Dict[str, str]:
    """What a worker runs: the digest of the project's code and where it imports it from."""
    return {"digest": code_digest(), "location": str(resources.files("genotex"))}


def _first_line(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    return text.splitlines()[0] if text.strip() else type(error).__name__


def check_identities(identities: Mapping[str, Any], digest: str) -> None:
    """Raise :class:`ClusterError` for the first worker that cannot run this code.

    Parameters
    ----------
    identities : mapping
        Worker address -> :func:`worker_identity` of that worker, or the exception it
        raised.
    digest : str
        :func:`code_digest` of the caller.
    """
    for address, identity in sorted(identities.items()):
        if isinstance(identity, BaseException):
            raise ClusterError(
                f"Dask worker {address} cannot import this project ({_first_line(identity)}); "
                f"start the workers with PYTHONPATH=<checkout> ({RECIPE})")
        if identity.get("digest") != digest:
            raise ClusterError(
                f"Dask worker {address} runs other code of this project (imported from "
                f"{identity.get('location')}); start the workers with PYTHONPATH pointing at "
                f"the checkout regress.py runs from ({RECIPE})")


def check_workers(client: Any, address: str, wait_seconds: float = 60.0) -> int:
    """Wait for a worker, then check that every worker runs this project's code.

    Parameters
    ----------
    client : distributed.Client
    address : str
        The scheduler's address (for messages).
    wait_seconds : float
        How long to wait for the first worker to connect.

    Returns
    -------
    int
        The number of workers.

    Raises
    ------
    ClusterError
        No worker connected in time, or a worker cannot run this code.
    """
    deadline = time.monotonic() + wait_seconds
    while not client.scheduler_info().get("workers"):
        if time.monotonic() > deadline:
            raise ClusterError(f"no Dask worker connected to the scheduler at {address} within "
                               f"{wait_seconds:.0f} s; start workers ({RECIPE})")
        time.sleep(0.2)
    answers = client.run(pickle.loads, opaque_call(worker_identity), on_error="return")
    identities = {worker: (answer if isinstance(answer, BaseException) else result_of(answer))
                  for worker, answer in answers.items()}
    check_identities(identities, code_digest())
    return len(identities)
