"""Where a Jupyter kernel of this machine listens: Unix sockets in a private folder.

A kernel on TCP gets ports that ``jupyter_client`` finds free, closes and hands
to the kernel, which binds them later: in between another process (a second
test worker starting its own kernel, say) can take one, and the kernel fails
to start. Unix sockets in a fresh folder of this user's cannot be taken, nor
reached by other users. Both the GenoAgent sandbox's kernels and the demo's
notebook runs start their kernels here.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from typing import Dict, Optional, Tuple

#: Longest Unix socket path (``sizeof(sockaddr_un.sun_path)`` less the terminator).
IPC_PATH_MAX = 107
#: The kernel's five channels add ``-N`` (one digit) to the address.
_CHANNEL_SUFFIX = 4
TCP_TRANSPORT = {"transport": "tcp", "ip": "127.0.0.1"}


def kernel_transport() -> Tuple[Dict[str, str], Optional[str]]:
    """Connection settings for a new kernel, and the folder to remove once it is shut down.

    Returns
    -------
    settings : dict
        ``transport`` and ``ip`` for ``jupyter_client.KernelManager``: ``ipc`` with
        an address in a fresh private folder (under ``/tmp``, whose short path
        keeps socket names under the OS's limit); TCP on 127.0.0.1 where there
        are no Unix sockets or the folder's path would be too long.
    folder : str or None
        The folder created (remove it with :func:`remove_transport`), or None.
    """
    if os.name != "posix":  # pragma: no cover - no Unix sockets for ZeroMQ there
        return dict(TCP_TRANSPORT), None
    base = "/tmp" if os.path.isdir("/tmp") else None
    folder = tempfile.mkdtemp(prefix="gtx-", dir=base)
    address = os.path.join(folder, "k")
    if len(address) + _CHANNEL_SUFFIX > IPC_PATH_MAX:
        remove_transport(folder)
        return dict(TCP_TRANSPORT), None
    return {"transport": "ipc", "ip": address}, folder


def remove_transport(folder: Optional[str]) -> None:
    """Remove a folder :func:`kernel_transport` created (None: nothing to do)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
