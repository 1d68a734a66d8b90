"""A write guard for generated code: a Python audit hook (PEP 578).

:class:`WriteGuard` refuses, with :class:`PermissionError`, every audited
action of the process that would change the file system outside its allowed
roots -- opening a file for writing (``open``/``os.open`` with a write mode or
write flags), renaming, deleting, creating folders or links, truncating,
changing modes, owners or times -- every subprocess start (``subprocess``,
``os.system``, ``os.exec*``, ``os.posix_spawn``, ``os.fork``, ``pty``), every
signal to another process (``os.kill``), every outgoing internet connection
(``socket.connect`` / ``sendto`` to an IPv4 or IPv6 address), and reading
another process's environment or memory (``/proc/<pid>/environ``, ``mem``:
the runner's environment may hold the API key). Other reads are not
restricted.

Limits (an audit hook is not a security boundary; see docs/methods.md):

* C code bypasses it: extension modules that write through their own C calls
  (sqlite3 databases, HDF5 files) or anything loaded with :mod:`ctypes`;
* file descriptors already open for writing before the hook was installed
  (the kernel's own sockets and log pipes) stay usable;
* paths are resolved when checked (``realpath``), so a symbolic link swapped
  between the check and the write (a race) is not caught.

It is a guard against mistakes and sloppy code (the realistic failure of an LLM
agent), not against code written to escape it; run untrusted code in a
container as well.

The module uses the standard library only: the sandbox kernel imports it
before anything else.
"""

from __future__ import annotations

import os
import re
import socket
import sys
from typing import Any, Iterable, Optional, Tuple

#: ``os.open`` flags that mean "write".
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND
#: Mode letters of ``open`` that mean "write".
WRITE_MODE_LETTERS = frozenset("wax+")
#: Audit events that start another program.
PROCESS_EVENTS = frozenset({"subprocess.Popen", "os.system", "os.exec", "os.posix_spawn",
                            "os.spawn", "os.fork", "os.forkpty", "pty.spawn", "os.startfile"})
#: Audit events that change the file system: ``{event: (path argument, dir_fd argument)}``
#: (several entries for events with two paths).
PATH_EVENTS = {
    "os.rename": ((0, 2), (1, 3)),
    "os.remove": ((0, 1),),
    "os.rmdir": ((0, 1),),
    "os.mkdir": ((0, 2),),
    "os.symlink": ((1, 2),),
    "os.link": ((1, 3),),
    "os.truncate": ((0, None),),
    "os.chmod": ((0, 2),),
    "os.chown": ((0, 3),),
    "os.utime": ((0, 4),),
    "os.chflags": ((0, None),),
    "os.lchflags": ((0, None),),
    "os.setxattr": ((0, None),),
    "os.removexattr": ((0, None),),
    "shutil.rmtree": ((0, 1),),
    "shutil.chown": ((0, None),),
}
#: Audit events that send data to another machine: ``(socket, address)`` arguments.
NETWORK_EVENTS = frozenset({"socket.connect", "socket.sendto", "socket.sendmsg"})
#: Audit events that signal a process: ``(pid, signal)`` arguments.
SIGNAL_EVENTS = frozenset({"os.kill", "os.killpg"})
_INTERNET_FAMILIES = (socket.AF_INET, socket.AF_INET6)
#: Files of another process that may hold secrets (its environment, its memory).
_PROCESS_PRIVATE = re.compile(r"^/proc/(\d+)(?:/task/\d+)?/(?:environ|mem)$")


class SandboxError(PermissionError):
    """An action the sandbox refuses (a :class:`PermissionError`, so ``except OSError`` sees it)."""


def _is_write_open(mode: Optional[str], flags: Optional[int]) -> bool:
    if mode:
        return bool(WRITE_MODE_LETTERS & set(str(mode)))
    return bool((flags or 0) & WRITE_FLAGS)


def _resolve(path: Any, dir_fd: Optional[int]) -> Optional[str]:
    """Absolute, symlink-resolved path (None for a file descriptor)."""
    if isinstance(path, int):
        return None
    path = os.fsdecode(os.fspath(path))
    if not os.path.isabs(path) and isinstance(dir_fd, int) and dir_fd >= 0:
        path = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), path)
    return os.path.realpath(path)


class WriteGuard:
    """Audit hook allowing writes below ``allowed_roots`` only.

    Parameters
    ----------
    allowed_roots : iterable of path-like
        Folders (resolved now) below which writes are allowed.
    allow_processes : bool, default False
        Let generated code start other programs.
    allow_network : bool, default False
        Let generated code connect to IPv4 / IPv6 addresses.
    """

    def __init__(self, allowed_roots: Iterable[Any], allow_processes: bool = False,
                 allow_network: bool = False) -> None:
        self.roots: Tuple[str, ...] = tuple(os.path.realpath(os.fspath(r))
                                            for r in allowed_roots)
        self.allow_processes = allow_processes
        self.allow_network = allow_network

    def allows(self, path: Optional[str]) -> bool:
        """Whether a resolved path lies in an allowed root (file descriptors: yes)."""
        if path is None:
            return True
        return any(path == root or path.startswith(root + os.sep) for root in self.roots)

    def _check_path(self, event: str, path: Any, dir_fd: Optional[int]) -> None:
        resolved = _resolve(path, dir_fd)
        if not self.allows(resolved):
            raise SandboxError(f"sandbox: {event} outside the prediction tree refused: "
                                   f"{resolved}")

    @staticmethod
    def _check_private(path: Any) -> None:
        if isinstance(path, int) or os.path.basename(os.fsdecode(os.fspath(path))) not in (
                "environ", "mem"):
            return
        resolved = _resolve(path, None)
        match = _PROCESS_PRIVATE.match(resolved) if resolved else None
        if match is not None and int(match.group(1)) != os.getpid():
            raise SandboxError(f"sandbox: reading another process's {resolved.rsplit('/', 1)[1]} "
                               "is refused")

    def __call__(self, event: str, args: Tuple[Any, ...]) -> None:
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            if path is not None and _is_write_open(mode, flags):
                self._check_path("write", path, None)
            elif path is not None:
                self._check_private(path)
        elif event in PATH_EVENTS:
            for path_index, fd_index in PATH_EVENTS[event]:
                if path_index < len(args) and args[path_index] is not None:
                    dir_fd = args[fd_index] if fd_index is not None and fd_index < len(args) \
                        else None
                    self._check_path(event, args[path_index], dir_fd)
        elif event in PROCESS_EVENTS and not self.allow_processes:
            raise SandboxError(f"sandbox: starting programs is refused ({event})")
        elif event in SIGNAL_EVENTS and args and args[0] != os.getpid():
            raise SandboxError(f"sandbox: signalling other processes is refused ({event})")
        elif event in NETWORK_EVENTS and not self.allow_network:
            sock = args[0] if args else None
            if getattr(sock, "family", None) in _INTERNET_FAMILIES:
                raise SandboxError(f"sandbox: network access is refused ({event})")


def install(allowed_roots: Iterable[Any], allow_processes: bool = False,
            allow_network: bool = False) -> WriteGuard:
    """Install a :class:`WriteGuard` for the rest of this process (cannot be removed)."""
    guard = WriteGuard(allowed_roots, allow_processes, allow_network)
    sys.addaudithook(guard)
    return guard
