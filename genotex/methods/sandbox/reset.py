"""Inside a pooled kernel: the state after warm-up, and that state restored between tasks.

Runs in the kernel process (:mod:`genotex.methods.sandbox.pool` calls it through
hidden cells). :func:`take_baseline` records, after the warm-up imports:

* the working directory, the environment, ``sys.path``, the warning filters,
  the root logger's level and handlers, ``sys.stdout`` / ``sys.stderr``,
  NumPy's print options, the live threads;
* every loaded module of the project (``tools``, ``utils``, ``genotex``,
  ``download``): each global's identity (and a container's size). Project
  modules imported later are recorded the same way the moment their import
  ends (an import hook), so each is compared with its own pristine state.

:func:`reset` then checks for what it cannot undo -- a project module global
rebound (or a module container grown or shrunk), a thread still running -- and
puts back the rest: the user namespace is emptied and the execution count
starts at 1 again (``InteractiveShell.reset``), the directory, environment,
path, warning filters (and the once-only warning registries), logging and
streams restored, pandas' and NumPy's display options and matplotlib's figures
and settings reset, Python's and NumPy's global random generators reseeded
from the OS (as in a new process), the temporary folder emptied. A kernel whose
reset found something it cannot undo is not reused. What it does not see:
monkey-patches of third-party libraries, in-place changes to a project
container that keep its size, files written outside the temporary folder.
"""

from __future__ import annotations

import gc
import importlib.abc
import json
import logging
import os
import random
import resource
import shutil
import sys
import threading
import warnings
from types import ModuleType
from typing import Any, Dict, List, Optional, Tuple

PROJECT_PACKAGES = ("tools", "utils", "genotex", "download")

Fingerprint = Dict[str, Tuple[int, Optional[int]]]


def _is_project(name: str) -> bool:
    # this module keeps the baseline itself: it is the one project module that changes
    return name.split(".", 1)[0] in PROJECT_PACKAGES and name != __name__


def fingerprint(module: ModuleType) -> Fingerprint:
    """Identity (and size, for containers) of a module's globals (submodules and dunders
    left out: the import system sets those)."""
    marks: Fingerprint = {}
    for name, value in list(vars(module).items()):
        if name.startswith("__") or isinstance(value, ModuleType):
            continue
        size = len(value) if isinstance(value, (dict, list, set)) else None
        marks[name] = (id(value), size)
    return marks


class _Recorder(importlib.abc.MetaPathFinder):
    """Wraps the loader of project modules to fingerprint them right after their import."""

    def __init__(self, pristine: Dict[str, Fingerprint]) -> None:
        self.pristine = pristine

    def find_spec(self, fullname: str, path: Any, target: Any = None) -> Any:
        if not _is_project(fullname):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _Fingerprinting(spec.loader, self.pristine)
        return spec


class _Fingerprinting(importlib.abc.Loader):
    def __init__(self, inner: Any, pristine: Dict[str, Fingerprint]) -> None:
        self._inner = inner
        self._pristine = pristine

    def create_module(self, spec: Any) -> Any:
        return self._inner.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._inner.exec_module(module)
        self._pristine.setdefault(module.__name__, fingerprint(module))

    def __getattr__(self, name: str) -> Any:    # get_source, get_data ... of the real loader
        return getattr(self._inner, name)


class Baseline:
    """The kernel's state after warm-up (see module docstring)."""

    def __init__(self) -> None:
        root = logging.getLogger()
        self.cwd = os.getcwd()
        self.environ = dict(os.environ)
        self.path = list(sys.path)
        self.filters = list(warnings.filters)
        self.log_level = root.level
        self.log_handlers = list(root.handlers)
        self.streams = (sys.stdout, sys.stderr)
        self.threads = {t.ident for t in threading.enumerate()}
        self.modules: Dict[str, Fingerprint] = {
            name: fingerprint(module) for name, module in list(sys.modules.items())
            if _is_project(name) and isinstance(module, ModuleType)}
        numpy = sys.modules.get("numpy")
        self.numpy_print = numpy.get_printoptions() if numpy is not None else None
        self.pandas_options = _pandas_options()
        sys.meta_path.insert(0, _Recorder(self.modules))


_STATE: Dict[str, Baseline] = {}


def take_baseline(shell: Any) -> None:
    """Record the state to come back to, and empty the namespace (count back at 1).

    tqdm's monitor thread (started by the first progress bar, never stopped) is
    switched off: it would outlive the task that started it.
    """
    try:
        import tqdm
    except ImportError:   # pragma: no cover - a project dependency
        pass
    else:
        tqdm.tqdm.monitor_interval = 0
    _STATE["baseline"] = Baseline()
    shell.reset(new_session=True)
    gc.collect()


def _leftovers(baseline: Baseline) -> List[str]:
    """What a reset cannot undo (the kernel must not be reused)."""
    problems = []
    for name, module in list(sys.modules.items()):
        pristine = baseline.modules.get(name)
        if pristine is None or not isinstance(module, ModuleType):
            continue
        now = fingerprint(module)
        changed = sorted(k for k in set(now) | set(pristine) if now.get(k) != pristine.get(k))
        if changed:
            problems.append(f"{name}: {', '.join(changed[:5])} changed")
    running = [t.name for t in threading.enumerate()
               if t.ident not in baseline.threads and t.is_alive()]
    if running:
        problems.append(f"threads still running: {', '.join(running[:5])}")
    return problems


def _restore_process(baseline: Baseline) -> None:
    os.chdir(baseline.cwd)
    os.environ.clear()
    os.environ.update(baseline.environ)
    sys.path[:] = baseline.path
    warnings.filters[:] = baseline.filters
    mutated = getattr(warnings, "_filters_mutated", None)
    if mutated is not None:
        mutated()       # once-only warnings show again, as in a new process
    root = logging.getLogger()
    root.setLevel(baseline.log_level)
    root.handlers[:] = baseline.log_handlers
    sys.stdout, sys.stderr = baseline.streams


def _pandas_options() -> Dict[str, Any]:
    """Every pandas option's value (none when pandas is not loaded)."""
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return {}
    from pandas._config import config

    deprecated = getattr(config, "_deprecated_options", {})
    values = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in list(getattr(config, "_registered_options", {})):
            if key not in deprecated:
                values[key] = pandas.get_option(key)
    return values


def _restore_libraries(baseline: Baseline) -> None:
    random.seed()
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()
        if baseline.numpy_print is not None:
            numpy.set_printoptions(**baseline.numpy_print)
    pandas = sys.modules.get("pandas")
    if pandas is not None:
        now = _pandas_options()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for key, value in baseline.pandas_options.items():
                if now.get(key, value) != value:
                    pandas.set_option(key, value)
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")
        sys.modules["matplotlib"].rcdefaults()


def _empty_temp() -> None:
    folder = os.environ.get("TMPDIR")
    if not folder or not os.path.isdir(folder):
        return
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            try:
                os.unlink(entry.path)
            except OSError:
                pass


def reset(shell: Any) -> Dict[str, Any]:
    """Put the baseline back; prints and returns ``{"clean": bool, "problems": [...],
    "peak_kb": ...}`` (a kernel that is not clean must not be reused)."""
    baseline = _STATE.get("baseline")
    if baseline is None:
        report: Dict[str, Any] = {"clean": False, "problems": ["no baseline was taken"]}
    else:
        problems = _leftovers(baseline)
        _restore_process(baseline)
        _restore_libraries(baseline)
        _empty_temp()
        shell.reset(new_session=True)
        gc.collect()
        report = {"clean": not problems, "problems": problems}
    report["peak_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps(report))
    return report
