"""Dask clusters started by tests, on ports the OS picks.

Every Dask scheduler also starts an HTTP server; without an address it tries the
dashboard's default port 8787 on all interfaces first (``dashboard_address=None``
included), and where that port is taken -- another test's cluster on the other xdist
worker, another engineer's suite, any program on the machine -- it warns "Port 8787 is
already in use" and moves, or fails the start when warnings are errors. Here both the
scheduler and its HTTP server listen on free ports of 127.0.0.1 chosen by the OS, so a
test never shares a port with anything.
"""

from __future__ import annotations

import pytest

#: Where the scheduler's HTTP server listens: a free port of the loopback interface.
HTTP_ADDRESS = "127.0.0.1:0"


def local_cluster(workers: int):
    """A ``distributed.LocalCluster`` of ``workers`` single-threaded worker processes."""
    distributed = pytest.importorskip("distributed")
    return distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                    host="127.0.0.1", dashboard_address=HTTP_ADDRESS)
