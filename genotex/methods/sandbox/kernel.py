"""A persistent Jupyter kernel that runs generated code inside the sandbox.

:class:`SandboxKernel` starts an IPython kernel through
:mod:`genotex.methods.sandbox.boot` (address-space limit and write guard
installed before anything else), with

* its working directory in the run folder (the prediction tree by default);
* writes allowed only below the prediction tree and a private scratch folder
  (kernel files, ``TMPDIR``);
* an environment built from an allow-list (:data:`PASSED_VARIABLES`: locale,
  ``PATH``, ``HOME``, virtual environments, CPU settings) rather than a copy of
  the runner's: an API key under any name never reaches the kernel; a passed
  variable whose value holds a secret (``hidden_values``) is dropped too;
  ``GENOTEX_OUTPUT`` points at the prediction tree, so the library's path
  resolution writes there;
* single-threaded BLAS (``OPENBLAS_NUM_THREADS=1`` ...), which also keeps the
  address space small.

:meth:`SandboxKernel.execute` runs one step with a timeout: on timeout the
kernel is interrupted, and restarted (its state lost) when it does not come
back; a kernel that dies (killed by the memory limit) is restarted too. The
result says which happened.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import os
import queue
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

from genotex.methods.sandbox.boot import SETTINGS_ENV
from utils.kernel_transport import kernel_transport, remove_transport

logger = logging.getLogger(__name__)

KERNEL_NAME = "genotex-sandbox"
GIB = 1 << 30
#: Variables of the runner's environment the kernel gets (all others are left out).
PASSED_VARIABLES = frozenset({
    "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM",
    "PYTHONPATH", "PYTHONHASHSEED", "PYTHONUTF8", "VIRTUAL_ENV", "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH", "OPENBLAS_CORETYPE", "SSL_CERT_FILE",
    "SSL_CERT_DIR", "XDG_CACHE_HOME", "SYSTEMROOT"})
#: Prefixes of passed variables (locale categories).
PASSED_PREFIXES = ("LC_",)
#: Passed variables whose names contain one of these are still left out.
SECRET_NAME_PARTS = ("KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL")
#: Seconds an interrupted step gets to stop before the kernel is restarted.
INTERRUPT_GRACE_SECONDS = 5.0
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


@dataclass(frozen=True)
class SandboxSettings:
    """Where and how generated code runs.

    Attributes
    ----------
    writable_root : Path
        The prediction tree: generated code may write below it (and below ``scratch``).
    scratch : Path
        Private folder of the kernel (connection file, kernelspec, ``TMPDIR``).
    cwd : Path, optional
        Working directory (default: ``writable_root``).
    memory_bytes : int
        Address-space limit of the kernel process (0: none).
    step_timeout : float
        Default seconds per executed step.
    startup_timeout : float
        Seconds the kernel may take to start.
    environment : mapping
        Extra variables for the kernel (``GENOTEX_INPUT`` ...).
    hidden_variables : sequence of str
        Variables never passed on (e.g. the API-key variable), even if allowed.
    hidden_values : sequence of str
        Secrets (the API key): a variable whose value contains one is not passed
        on, whatever its name (never shown by ``repr``).
    allow_processes, allow_network : bool
        Let generated code start programs / connect to the network.
    lock_dir : Path, optional
        Folder of the inter-process lock files (``GENOTEX_LOCK_DIR``), writable; the
        kernels of one run share it, so that two of them updating one
        ``cohort_info.json`` take turns (default: ``scratch/locks``).
    """

    writable_root: Path
    scratch: Path
    cwd: Optional[Path] = None
    memory_bytes: int = 4 * GIB
    step_timeout: float = 600.0
    startup_timeout: float = 60.0
    environment: Mapping[str, str] = field(default_factory=dict)
    hidden_variables: Sequence[str] = ()
    hidden_values: Sequence[str] = field(default=(), repr=False)
    allow_processes: bool = False
    allow_network: bool = False
    lock_dir: Optional[Path] = None

    @property
    def locks(self) -> Path:
        """The lock folder (``lock_dir``, else ``scratch/locks``)."""
        return self.lock_dir if self.lock_dir is not None else self.scratch / "locks"


@dataclass
class ExecutionResult:
    """What one executed step produced.

    Attributes
    ----------
    status : {"ok", "error", "timeout", "died"}
    text : str
        Everything printed or returned, as plain text (ANSI colours removed).
    error : str
        ``Name: message`` and the traceback when ``status`` is not ok.
    outputs : list
        nbformat output nodes (for the stored notebook).
    seconds : float
    execution_count : int or None
    restarted : bool
        The kernel was restarted after this step (its variables are gone).
    """

    status: str
    text: str = ""
    error: str = ""
    outputs: List[Any] = field(default_factory=list)
    seconds: float = 0.0
    execution_count: Optional[int] = None
    restarted: bool = False

    @property
    def ok(self) -> bool:
        """Whether the step ran without error."""
        return self.status == "ok"


def kernel_environment(settings: SandboxSettings,
                       base: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """The kernel's environment: the allowed variables of ``base``, plus the sandbox's own.

    Variables named in ``hidden_variables``, named like secrets, or holding one of
    ``hidden_values`` are left out, also from ``settings.environment``.
    """
    base = os.environ if base is None else base
    hidden = {name.upper() for name in settings.hidden_variables}
    secrets = [value for value in settings.hidden_values if value]

    def passed(name: str, value: str) -> bool:
        upper = name.upper()
        return (upper not in hidden and not any(part in upper for part in SECRET_NAME_PARTS)
                and not any(secret in value for secret in secrets))

    env = {name: value for name, value in base.items()
           if (name in PASSED_VARIABLES or name.startswith(PASSED_PREFIXES))
           and passed(name, value)}
    tmp = settings.scratch / "tmp"
    # the folder holding this library (a checkout or site-packages): the kernel imports
    # the same code as the runner, never another copy
    repo_root = str(Path(importlib.util.find_spec("tools").submodule_search_locations[0])
                    .resolve().parent)
    pythonpath = [repo_root] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update({
        "PYTHONPATH": os.pathsep.join(dict.fromkeys(pythonpath)),
        "PYTHONDONTWRITEBYTECODE": "1",
        "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp),
        "IPYTHONDIR": str(settings.scratch / "ipython"),
        "MPLCONFIGDIR": str(settings.scratch / "matplotlib"),
        "JUPYTER_RUNTIME_DIR": str(settings.scratch / "runtime"),
        "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "GENOTEX_OUTPUT": str(settings.writable_root),
        # cohort_info.json writers lock in a folder the guard allows (utils.paths.lock_dir)
        "GENOTEX_LOCK_DIR": str(settings.locks),
    })
    env.update({name: value for name, value in settings.environment.items()
                if passed(name, value)})
    roots = [str(settings.writable_root), str(settings.scratch)]
    if settings.lock_dir is not None:
        roots.append(str(settings.lock_dir))
    env[SETTINGS_ENV] = json.dumps({
        "allowed_roots": roots,
        "memory_bytes": int(settings.memory_bytes),
        "allow_processes": settings.allow_processes,
        "allow_network": settings.allow_network,
    })
    return env


def write_kernelspec(folder: Path) -> Path:
    """Write the sandbox kernelspec below ``folder``; returns the kernels folder."""
    kernels = folder / "kernels"
    spec = kernels / KERNEL_NAME
    spec.mkdir(parents=True, exist_ok=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "genotex.methods.sandbox.boot", "-f",
                 "{connection_file}", "--HistoryManager.enabled=False"],
        "display_name": "GenoTEX sandbox (Python 3)", "language": "python"}), "utf-8")
    return kernels


def plain_output_text(outputs: Sequence[Any]) -> str:
    """Streams, results and errors of nbformat outputs as one plain text."""
    parts: List[str] = []
    for output in outputs:
        kind = output.get("output_type")
        if kind == "stream":
            parts.append(output.get("text", ""))
        elif kind in ("execute_result", "display_data"):
            text = output.get("data", {}).get("text/plain", "")
            parts.append(text if text.endswith("\n") else text + "\n")
        elif kind == "error":
            parts.append("\n".join(output.get("traceback", [])) + "\n")
    return _ANSI.sub("", "".join(parts))


def _error_text(outputs: Sequence[Any]) -> str:
    for output in outputs:
        if output.get("output_type") == "error":
            trace = _ANSI.sub("", "\n".join(output.get("traceback", [])))
            return f"{output.get('ename')}: {output.get('evalue')}\n{trace}"
    return ""


class SandboxKernel:
    """A persistent sandboxed IPython kernel (use as a context manager)."""

    def __init__(self, settings: SandboxSettings) -> None:
        self.settings = settings
        self._manager: Any = None
        self._client: Any = None
        self._ipc_dir: Optional[str] = None
        #: Restarts so far (a timed-out or dead step restarts the kernel).
        self.restarts = 0

    # -- life cycle -------------------------------------------------------------------
    def start(self) -> "SandboxKernel":
        """Start the kernel and wait until it answers."""
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        settings = self.settings
        for folder in (settings.scratch / "tmp", settings.scratch / "runtime",
                       settings.writable_root):
            folder.mkdir(parents=True, exist_ok=True)
        specs = KernelSpecManager(kernel_dirs=[str(write_kernelspec(settings.scratch))])
        runtime = settings.scratch / "runtime"
        transport, self._ipc_dir = kernel_transport()
        self._manager = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs,
                                      connection_file=str(runtime / "kernel-connection.json"),
                                      **transport)
        self._manager.start_kernel(cwd=str(settings.cwd or settings.writable_root),
                                   env=kernel_environment(settings))
        self._connect()
        return self

    def _connect(self) -> None:
        self._client = self._manager.client()
        self._client.start_channels()
        self._client.wait_for_ready(timeout=self.settings.startup_timeout)

    def restart(self) -> None:
        """Restart the kernel (its variables are lost)."""
        self.restarts += 1
        self._client.stop_channels()
        self._manager.restart_kernel(now=True)
        self._connect()

    @property
    def pid(self) -> Optional[int]:
        """The kernel's process id (None when not running)."""
        provisioner = getattr(self._manager, "provisioner", None)
        return getattr(provisioner, "pid", None)

    def peak_memory_bytes(self) -> Optional[int]:
        """The kernel process's peak resident memory (``VmHWM``; None where /proc lacks it)."""
        pid = self.pid
        if pid is None:
            return None
        try:
            status = Path(f"/proc/{pid}/status").read_text()
        except OSError:
            return None
        match = re.search(r"^VmHWM:\s+(\d+)\s+kB", status, re.M)
        return int(match.group(1)) * 1024 if match else None

    def shutdown(self) -> None:
        """Stop the kernel (idempotent)."""
        if self._client is not None:
            self._client.stop_channels()
            self._client = None
        if self._manager is not None:
            if self._manager.has_kernel:
                self._manager.shutdown_kernel(now=True)
            self._manager = None
        remove_transport(self._ipc_dir)
        self._ipc_dir = None

    def __enter__(self) -> "SandboxKernel":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.shutdown()

    # -- execution --------------------------------------------------------------------
    def execute(self, code: str, timeout: Optional[float] = None,
                hidden: bool = False) -> ExecutionResult:
        """Run ``code`` in the kernel; never raises for errors of the code itself.

        Parameters
        ----------
        code : str
            Python source (one step).
        timeout : float, optional
            Seconds (default: the settings' ``step_timeout``).
        hidden : bool
            The runner's own cell (warm-up, reset): not counted in the execution
            numbers of the task's cells.
        """
        from nbformat.v4 import output_from_msg

        timeout = self.settings.step_timeout if timeout is None else timeout
        start = time.monotonic()
        msg_id = self._client.execute(code, store_history=not hidden, allow_stdin=False,
                                      stop_on_error=False)
        outputs: List[Any] = []
        count: Optional[int] = None
        status = self._collect(msg_id, start + timeout, outputs, output_from_msg)
        restarted = False
        if status == "timeout":
            restarted = self._stop_runaway(msg_id)
        elif status == "died":
            self.restart()
            restarted = True
        else:
            count, status = self._reply(msg_id)
        result = ExecutionResult(status=status, outputs=outputs,
                                 text=plain_output_text(outputs), error=_error_text(outputs),
                                 seconds=time.monotonic() - start, execution_count=count,
                                 restarted=restarted)
        if status == "timeout":
            result.error = f"Timeout: the step did not finish within {timeout:g} s"
        elif status == "died":
            result.error = "KernelDied: the kernel process ended (memory limit?); restarted"
        return result

    def _collect(self, msg_id: str, deadline: float, outputs: List[Any], convert) -> str:
        """Gather the step's outputs until the kernel is idle; the status so far."""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return "timeout"
            try:
                message = self._client.get_iopub_msg(timeout=min(remaining, 1.0))
            except queue.Empty:
                if not self._manager.is_alive():
                    return "died"
                continue
            if message.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind = message["msg_type"]
            if kind == "status" and message["content"].get("execution_state") == "idle":
                return "ok"
            if kind in ("stream", "execute_result", "display_data", "error"):
                outputs.append(convert(message))

    def _reply(self, msg_id: str) -> tuple:
        """Execution count and status from the shell reply."""
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            try:
                reply = self._client.get_shell_msg(timeout=1.0)
            except queue.Empty:
                continue
            if reply.get("parent_header", {}).get("msg_id") == msg_id:
                content = reply["content"]
                return content.get("execution_count"), \
                    "ok" if content.get("status") == "ok" else "error"
        return None, "error"

    def _stop_runaway(self, msg_id: str) -> bool:
        """Interrupt a step that ran out of time; restart when it will not stop."""
        self._manager.interrupt_kernel()
        if self._collect(msg_id, time.monotonic() + INTERRUPT_GRACE_SECONDS, [],
                         lambda message: message) == "ok":
            self._reply(msg_id)
            return False
        logger.warning("kernel did not stop after an interrupt: restarting it")
        self.restart()
        return True
