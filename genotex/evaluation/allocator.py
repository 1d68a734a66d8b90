"""Letting the evaluator's processes reuse the memory they free (glibc ``malloc``).

The preprocessing comparison parses tables of tens to hundreds of MB one after
the other, each through several buffers of the table's size (the file's bytes,
the parser's copy, the values). With glibc's default settings a buffer above
the mmap threshold (dynamic, at most 32 MB) is a fresh mapping: the kernel
zero-fills it page by page on first touch and unmaps it when it is freed, so
every table pays its size several times over in page faults. On the full-size
synthetic tree that was 30-40 % of the comparison's CPU time, as system time
(``benchmarks/README.md``, "Performance v3"). :func:`retain_freed_memory` raises
the mmap and trim thresholds so that freed buffers stay in the process's heap
and the next table reuses them: the process keeps its peak size instead of
returning memory between tables, which a short-lived evaluation does not need.

It changes a setting of the calling process only (the evaluator calls it in
its own process when it compares in it, and in each worker process); on a
C library without ``mallopt`` (not glibc) it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import logging
import sys

logger = logging.getLogger(__name__)

#: ``mallopt`` parameters (glibc ``malloc.h``).
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
#: Buffers up to this size come from the heap rather than from their own mapping.
MMAP_THRESHOLD = 1 << 30
#: glibc's largest mmap threshold on 64-bit systems when it refuses the above.
MMAP_THRESHOLD_CAP = 32 << 20
#: Free memory at the top of the heap kept rather than returned to the system.
TRIM_THRESHOLD = 1 << 30


def retain_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds in this process.

    Returns
    -------
    bool
        Whether both settings were accepted (False off Linux/glibc).
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    # a C library that caps the threshold (older glibc: 32 MB) gets its cap
    mapped = mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) or mallopt(M_MMAP_THRESHOLD,
                                                                  MMAP_THRESHOLD_CAP)
    accepted = bool(mapped) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    logger.debug("malloc thresholds raised: %s", accepted)
    return accepted
