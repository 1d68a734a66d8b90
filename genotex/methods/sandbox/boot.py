"""Start-up of a sandbox kernel: limits and write guard first, then ipykernel.

Run as ``python -m genotex.methods.sandbox.boot -f CONNECTION_FILE`` by
:class:`genotex.methods.sandbox.kernel.SandboxKernel` (through a kernelspec it
writes in the run's scratch folder). The sandbox settings come from the
environment variable :data:`SETTINGS_ENV` (JSON): ``allowed_roots`` (folders
generated code may write below), ``memory_bytes`` (address-space limit, 0 for
none), ``allow_processes``, ``allow_network``.

Order matters: the address-space limit (``resource.setrlimit(RLIMIT_AS)``) and
the audit hook are in place before ipykernel and any generated code run, and
neither can be lifted from inside (the hard limit is lowered too; audit hooks
cannot be removed).
"""

from __future__ import annotations

import json
import os
import resource
import sys
from typing import Any, Dict, List, Optional

from genotex.methods.sandbox import guard

SETTINGS_ENV = "GENOTEX_SANDBOX"


def read_settings(environ: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """The sandbox settings from the environment (an empty dict when unset)."""
    text = (os.environ if environ is None else environ).get(SETTINGS_ENV, "")
    return json.loads(text) if text else {}


def limit_memory(memory_bytes: int) -> None:
    """Cap this process's address space (soft and hard limit) at ``memory_bytes``."""
    if memory_bytes > 0:
        resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))


def main(argv: Optional[List[str]] = None) -> None:
    """Apply the settings, then hand over to ipykernel with ``argv``."""
    settings = read_settings()
    limit_memory(int(settings.get("memory_bytes", 0)))
    guard.install(settings.get("allowed_roots", []),
                  allow_processes=bool(settings.get("allow_processes", False)),
                  allow_network=bool(settings.get("allow_network", False)))
    from ipykernel import kernelapp

    kernelapp.launch_new_instance(argv=sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
