"""Kernels started ahead, warmed up, and reused by later tasks after a clean reset.

Starting a sandbox kernel and importing the library into it costs a few CPU
seconds -- about what a task's own steps cost on the demo. A run with ``-j N``
keeps a :class:`KernelPool` of ``N`` kernels:

* started ahead, in the background, as soon as the run is prepared, each
  **warmed up**: the library imports of the set-up cell run in a hidden cell,
  then the state is recorded (:func:`genotex.methods.sandbox.reset.take_baseline`)
  and the namespace emptied, so the task's own first cell starts at ``[1]``;
* handed to one task at a time (:meth:`KernelPool.acquire`);
* given back (:meth:`KernelPool.release`): when the task allows -- it ended
  normally and its kernel was never restarted -- the kernel is **reset**
  (:func:`genotex.methods.sandbox.reset.reset`) and reused if the reset found
  nothing it cannot undo; otherwise it is shut down and a new one started
  ahead in its place.

Every kernel of a pool has the same sandbox (settings from
``settings_for(number)``: the same tree, inputs and allow-listed environment --
never the API key -- and a private scratch folder per kernel). A task's
outputs do not depend on whether its kernel is new or reused: a reused
kernel's state after reset is the warmed-up state of a new one.

:func:`warm_kernel` gives a single warmed-up kernel (a task run without a pool,
e.g. on a cluster worker), so both paths run the same cells.
"""

from __future__ import annotations

import concurrent.futures as cf
import json
import logging
import shutil
import threading
from typing import Any, Callable, Dict, List, Optional

from genotex.methods.sandbox.kernel import SandboxKernel, SandboxSettings

logger = logging.getLogger(__name__)

RESET_MODULE = "genotex.methods.sandbox.reset"
BASELINE_CELL = (f"__import__({RESET_MODULE!r}, fromlist=['take_baseline'])"
                 ".take_baseline(get_ipython())")
RESET_CELL = f"__import__({RESET_MODULE!r}, fromlist=['reset']).reset(get_ipython());"
#: Seconds the warm-up and reset cells may take.
HIDDEN_CELL_TIMEOUT = 300.0
MIB = 1 << 20


class KernelError(RuntimeError):
    """A kernel could not be started or warmed up."""


def warm_kernel(settings: SandboxSettings, warmup: str) -> SandboxKernel:
    """Start a kernel, run ``warmup`` hidden, record its baseline (namespace empty after).

    Raises
    ------
    KernelError
        When the warm-up or the baseline cell fails (the kernel is shut down).
    """
    kernel = SandboxKernel(settings).start()
    for code in (warmup, BASELINE_CELL):
        result = kernel.execute(code, timeout=HIDDEN_CELL_TIMEOUT, hidden=True)
        if not result.ok:
            kernel.shutdown()
            first = (result.error or result.status).strip().splitlines()[0]
            raise KernelError(f"the kernel's warm-up failed: {first}")
    return kernel


def reset_kernel(kernel: SandboxKernel) -> Dict[str, Any]:
    """Reset a kernel to its baseline; the reset's report (``clean``, ``problems``)."""
    result = kernel.execute(RESET_CELL, timeout=HIDDEN_CELL_TIMEOUT, hidden=True)
    lines = [line for line in result.text.splitlines() if line.startswith('{"clean"')]
    if not result.ok or not lines:
        return {"clean": False, "problems": [f"reset failed: {result.error or result.status}"]}
    return json.loads(lines[-1])


class KernelPool:
    """Warm kernels for the tasks of a run (see module docstring; thread-safe).

    Parameters
    ----------
    settings_for : callable
        ``settings_for(number)``: the sandbox of the pool's ``number``-th kernel.
    size : int
        Kernels at most (the run's concurrent tasks).
    warmup : str
        The hidden first cell (library imports).
    reuse : bool
        Reuse kernels after a clean reset (False: every task gets a new kernel).
    log : RunLog, optional
        Gets a ``kernel`` event per kernel let go (peak memory, reuses, why).
    """

    def __init__(self, settings_for: Callable[[int], SandboxSettings], size: int,
                 warmup: str, reuse: bool = True, log: Any = None) -> None:
        self.settings_for = settings_for
        self.size = max(1, size)
        self.warmup = warmup
        self.reuse = reuse
        self.log = log
        self._cond = threading.Condition()
        self._idle: List[SandboxKernel] = []
        self._errors: List[BaseException] = []
        self._live = 0
        self._started = 0
        self._uses: Dict[int, int] = {}
        self._closed = False
        self._starter = cf.ThreadPoolExecutor(max_workers=self.size,
                                              thread_name_prefix="kernel-start")
        #: Peak resident memory of every kernel let go, in bytes (benchmarks read it).
        self.peaks: List[int] = []

    def start(self) -> "KernelPool":
        """Start ``size`` kernels in the background."""
        with self._cond:
            while self._live < self.size:
                self._start_one()
        return self

    @property
    def ready(self) -> int:
        """Kernels started, warmed up and free (waiting for a task)."""
        with self._cond:
            return len(self._idle)

    def _start_one(self) -> None:
        """Start a kernel in the background (the condition's lock is held)."""
        self._live += 1
        self._started += 1
        number = self._started
        self._starter.submit(self._boot, number)

    def _boot(self, number: int) -> None:
        try:
            kernel = warm_kernel(self.settings_for(number), self.warmup)
        except BaseException as exc:  # noqa: BLE001 - handed to the task waiting for it
            logger.warning("kernel %d did not start: %s", number, exc)
            with self._cond:
                self._live -= 1
                self._errors.append(exc)
                self._cond.notify_all()
            return
        with self._cond:
            if self._closed:
                kernel.shutdown()
                self._live -= 1
                return
            self._uses[id(kernel)] = 0
            self._idle.append(kernel)
            self._cond.notify_all()

    def acquire(self) -> SandboxKernel:
        """A warm kernel for one task (waits for one to be free or started).

        Raises
        ------
        KernelError
            A kernel could not be started (the task fails with the reason).
        """
        with self._cond:
            while not self._idle:
                if self._closed:
                    raise KernelError("the kernel pool is closed")
                if self._errors:
                    raise KernelError(str(self._errors.pop(0)))
                if self._live < self.size:
                    self._start_one()
                self._cond.wait()
            kernel = self._idle.pop(0)
            self._uses[id(kernel)] = self._uses.get(id(kernel), 0) + 1
            return kernel

    def release(self, kernel: SandboxKernel, reusable: bool = True) -> None:
        """Give a kernel back after its task; ``reusable`` False when the task failed."""
        why = ""
        if not self.reuse:
            why = "kernels are not reused (--no-kernel-reuse)"
        elif not reusable:
            why = "its task did not end normally"
        elif kernel.restarts:
            why = "it was restarted during its task"
        if not why:
            report = reset_kernel(kernel)
            if report.get("clean"):
                with self._cond:
                    if not self._closed:
                        self._idle.append(kernel)
                        self._cond.notify_all()
                        return
                why = "the run is over"
            else:
                why = "the reset found state it cannot undo: " + "; ".join(
                    report.get("problems", []))
        self._let_go(kernel, why)
        with self._cond:
            self._live -= 1
            if not self._closed and self._live < self.size:
                self._start_one()           # a replacement, started ahead
            self._cond.notify_all()

    def _let_go(self, kernel: SandboxKernel, why: str) -> None:
        peak = kernel.peak_memory_bytes()
        uses = self._uses.pop(id(kernel), 0)
        if peak is not None:
            self.peaks.append(peak)
        if self.log is not None:
            self.log.write("kernel", tasks=uses, reason=why,
                           peak_rss_mb=None if peak is None else round(peak / MIB, 1))
        scratch = kernel.settings.scratch
        kernel.shutdown()
        shutil.rmtree(scratch, ignore_errors=True)

    def close(self) -> None:
        """Shut every kernel down (kernels still starting are shut down when ready)."""
        with self._cond:
            self._closed = True
            idle, self._idle = self._idle, []
            self._cond.notify_all()
        for kernel in idle:
            self._let_go(kernel, "the run is over")
        self._starter.shutdown(wait=True)

    def peak_summary(self) -> Optional[Dict[str, float]]:
        """Peak resident memory of the kernels let go so far (MiB): max and mean."""
        if not self.peaks:
            return None
        return {"kernels": len(self.peaks), "max_mib": round(max(self.peaks) / MIB, 1),
                "mean_mib": round(sum(self.peaks) / len(self.peaks) / MIB, 1)}
