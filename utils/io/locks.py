"""Inter-process locks for read-modify-write cycles, kept out of the data trees.

:func:`locked` serialises read-modify-write cycles across processes with a lock
file in :func:`utils.paths.lock_dir`, never in the folder of the file it guards
(a data tree holds only the files of SPEC section 2). The OS releases a lock
when its holder dies, so a killed writer never blocks the next one.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
from pathlib import Path
from typing import Iterator

from filelock import FileLock

from utils.io.atomic import make_folder
from utils.io.types import PathLike
from utils.paths import lock_dir

LOCK_NAME_CHARS = re.compile(r"[^A-Za-z0-9._-]")


def lock_file(path: PathLike, environ=None) -> Path:
    """The lock file :func:`locked` uses for ``path`` (in :func:`utils.paths.lock_dir`).

    The name is the file's name plus a digest of its folder's identity (device
    and inode, so every spelling of the path, symbolic links and bind mounts
    included, gives the same lock) and of the name. The folder must exist.
    """
    target = Path(path)
    folder = os.stat(target.parent)
    digest = hashlib.sha256(f"{folder.st_dev}:{folder.st_ino}/{target.name}".encode(
        "utf-8", "surrogatepass")).hexdigest()[:24]
    readable = LOCK_NAME_CHARS.sub("_", target.name)[:40]
    return lock_dir(environ) / f"{readable}-{digest}.lock"


def _private_dir(folder: Path) -> Path:
    """Create ``folder`` (mode 0700) and refuse one owned by another user."""
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    if hasattr(os, "getuid") and folder.stat().st_uid != os.getuid():
        raise PermissionError(f"{folder}: lock folder owned by another user; set "
                              "GENOTEX_LOCK_DIR to a folder of your own")
    return folder


@contextlib.contextmanager
def locked(path: PathLike, timeout: float = 120.0) -> Iterator[None]:
    """Hold an inter-process lock tied to ``path``; the lock file is not in its folder.

    The lock file is :func:`lock_file` (``<lock dir>/<name>-<digest>.lock``),
    so a data tree never holds one. The OS releases the lock when its holder
    dies, so a killed writer never blocks the next one.

    Parameters
    ----------
    path : path-like
        The file whose read-modify-write cycle must be serialised; its folder
        is created.
    timeout : float
        Seconds to wait before giving up with :class:`TimeoutError`.

    Raises
    ------
    utils.errors.OutputFileError
        The folder of ``path`` cannot be created (:func:`utils.io.make_folder`).
    """
    target = Path(path)
    make_folder(target.parent)
    lock_path = lock_file(target)
    _private_dir(lock_path.parent)
    with FileLock(str(lock_path), timeout=timeout):
        yield
