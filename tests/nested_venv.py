"""Virtual environments made by a test, holding what the running environment holds.

A test that installs the project (``pip install .``, ``pip install -e``) does it in a
fresh venv, so the environment running the suite stays untouched. Such a venv needs the
dependencies and the build tools, which live in the environment running the suite: a
venv the user made, a conda environment, or an interpreter's own site-packages. A venv
made with ``--system-site-packages`` would not do: it sees the *base* interpreter's
site-packages, which for a user's venv is not where ``requirements-dev.txt`` installed
anything (no numpy, an old setuptools without ``bdist_wheel``).

:func:`nested_venv` therefore makes a venv without system site-packages and appends the
running interpreter's site folders to its ``sys.path`` with a ``.pth`` file: what is
installed into the nested venv comes first, everything else resolves as it does here,
including the build tools (``pip install --no-build-isolation`` builds with the running
environment's setuptools, which ``requirements-dev.txt`` pins; nothing is downloaded).
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
import venv
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Mapping, Optional

from packaging.requirements import Requirement

from tests.conftest import REPO_ROOT

PTH_NAME = "_outer_environment.pth"
SITE_FOLDER_NAMES = ("site-packages", "dist-packages")


def outer_site_dirs() -> List[str]:
    """The site folders on this interpreter's ``sys.path``, in order.

    For a venv these are its own site-packages (and the base's when it was made with
    ``--system-site-packages``); for a conda environment or a plain interpreter, its
    site-packages; the user site folder when it is enabled. The checkout itself, which
    pytest puts on ``sys.path``, is not a site folder and is left out.
    """
    found: List[str] = []
    for entry in sys.path:
        path = Path(entry or ".")
        if path.name in SITE_FOLDER_NAMES and path.is_dir() and str(path) not in found:
            found.append(str(path))
    return found


def venv_site_dir(env_dir: Path) -> Path:
    """The site-packages folder of a POSIX venv made by this interpreter."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    return env_dir / "lib" / version / "site-packages"


def nested_venv(env_dir: Path) -> Path:
    """A new venv at ``env_dir`` that also sees this environment's packages; its python.

    The venv has no pip of its own: ``python -m pip`` runs this environment's pip,
    which installs into the venv it runs in.
    """
    venv.EnvBuilder(system_site_packages=False, with_pip=False, symlinks=True).create(env_dir)
    site = venv_site_dir(env_dir)
    if not site.is_dir():
        raise RuntimeError(f"{env_dir}: no {site.relative_to(env_dir)} after creating the venv")
    (site / PTH_NAME).write_text("".join(f"{path}\n" for path in outer_site_dirs()),
                                 encoding="utf-8")
    return env_dir / "bin" / "python"


def clean_environment(extra: Optional[Mapping[str, str]] = None) -> Dict[str, str]:
    """This process's environment without GENOTEX_* redirections, PYTHONPATH or PYTHONHOME."""
    from tests.genotex.demo.test_demo import GENOTEX_ENV

    env = {k: v for k, v in os.environ.items()
           if k not in GENOTEX_ENV and k not in ("PYTHONPATH", "PYTHONHOME")}
    env.update(extra or {})
    return env


def missing_build_requirements() -> List[str]:
    """The ``[build-system] requires`` of pyproject.toml this environment does not satisfy."""
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    missing = []
    for text in pyproject["build-system"]["requires"]:
        requirement = Requirement(text)
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            missing.append(f"{text} (not installed)")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            missing.append(f"{text} (installed: {version})")
    return missing


def check_build_requirements() -> None:
    """Fail with the fix when this environment cannot build the project."""
    missing = missing_build_requirements()
    if missing:
        raise AssertionError(
            f"{sys.executable} cannot build the project: {'; '.join(missing)}. Install the "
            "test requirements into it: python -m pip install -r requirements-dev.txt")


def pip(python: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m pip install -q --no-deps --no-index ...``; fails with pip's output."""
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                           *args], cwd=cwd, env=clean_environment(), capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, f"pip install {' '.join(args)} failed:\n" \
                                 f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
    return done


def command_path(bin_dir: Path) -> str:
    """A ``PATH`` on which ``python`` and the installed commands are this environment's.

    A README command such as ``python regress.py`` or ``jupyter nbconvert`` must run
    with the interpreter running the tests even when its venv is not activated (then
    ``python`` on the caller's ``PATH`` is another interpreter, or none). ``bin_dir``
    receives a ``python`` that runs ``sys.executable``; this environment's scripts
    folder (``jupyter``, ``dask``, ...) follows, then the caller's ``PATH``.
    """
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "python"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n', encoding="utf-8")
    wrapper.chmod(0o755)
    scripts = sysconfig.get_path("scripts")
    return os.pathsep.join([str(bin_dir), scripts, os.environ.get("PATH", "")])
