"""Resolve the repository root and the data roots.

This is the only module that knows where things live. Every other module asks it.

Precedence for each root: an explicit argument (usually a CLI flag), then an
environment variable, then the default below the repository root.

The repository root is, in order: ``--root``, ``GENOTEX_ROOT``, the GenoTEX
checkout that contains the current working directory (any folder below it:
``code/<Trait>/`` for a notebook), then the checkout the code was imported
from. It is never "wherever the package happens to be installed": with two
clones sharing one environment, work done inside clone B reads and writes
clone B. A checkout is recognised by its ``pyproject.toml`` naming the
``genotex`` project. Outside any checkout (an installed package used from
another folder) a default that needs the root raises
:class:`RootNotFoundError`; explicit flags or environment variables then
name the folders.

=====================  =========================  ==============================
root                   environment variable       default
=====================  =========================  ==============================
repository root        ``GENOTEX_ROOT``           the checkout (see above)
input data             ``GENOTEX_INPUT``          ``<root>/input``
outputs                ``GENOTEX_OUTPUT``         ``<root>/output``
metadata               ``GENOTEX_METADATA``       ``<root>/metadata``
gene synonym map       ``GENOTEX_GENE_SYNONYMS``  ``<metadata>/gene_synonym.json``
task info              ``GENOTEX_TASK_INFO``      ``<metadata>/task_info.json``
=====================  =========================  ==============================

Inter-process lock files never live in a data tree (a shipped tree holds only
the files of SPEC section 2): :func:`lock_dir` is ``GENOTEX_LOCK_DIR``, else
``$XDG_RUNTIME_DIR/genotex-locks``, else ``genotex-locks-<user>`` in the
system's temporary folder; it is per user and per machine.
"""

from __future__ import annotations

import argparse
import functools
import getpass
import os
import tempfile
import sys
import tomllib
from pathlib import Path
from typing import Callable, Dict, Mapping, Optional, Sequence, Union

from utils.errors import InputFileError, command_error, exits_quietly_on_interrupt

PathLike = Union[str, os.PathLike]

ENV_ROOT = "GENOTEX_ROOT"
ENV_INPUT = "GENOTEX_INPUT"
ENV_OUTPUT = "GENOTEX_OUTPUT"
ENV_METADATA = "GENOTEX_METADATA"
ENV_GENE_SYNONYMS = "GENOTEX_GENE_SYNONYMS"
ENV_TASK_INFO = "GENOTEX_TASK_INFO"
ENV_LOCK_DIR = "GENOTEX_LOCK_DIR"
ENV_RUNTIME_DIR = "XDG_RUNTIME_DIR"

PROJECT_NAME = "genotex"
TASK_INFO_NAME = "task_info.json"
GENE_SYNONYM_NAME = "gene_synonym.json"


class RootNotFoundError(InputFileError):
    """No GenoTEX checkout contains the working directory and none was named."""


def is_checkout(folder: Path) -> bool:
    """True when ``folder`` is the root of a GenoTEX checkout (its pyproject names it)."""
    marker = folder / "pyproject.toml"
    if not marker.is_file():
        return False
    try:
        with open(marker, "rb") as handle:
            project = tomllib.load(handle).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return False
    return isinstance(project, dict) and project.get("name") == PROJECT_NAME


def find_checkout(start: Path) -> Optional[Path]:
    """The GenoTEX checkout containing ``start`` (itself or a parent), if any."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if is_checkout(folder):
            return folder
    return None


def repo_root(environ: Optional[Mapping[str, str]] = None,
              cwd: Optional[PathLike] = None) -> Path:
    """Return the repository root (see the module docstring for the order).

    Parameters
    ----------
    environ : mapping, optional
        Environment to read ``GENOTEX_ROOT`` from (defaults to ``os.environ``).
    cwd : path-like, optional
        Working directory to start the search from (defaults to the process's).

    Returns
    -------
    pathlib.Path
        Absolute path of the repository root.

    Raises
    ------
    RootNotFoundError
        When no root is named and no checkout is found.
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_ROOT):
        return Path(environ[ENV_ROOT]).expanduser().resolve()
    here = Path.cwd() if cwd is None else Path(cwd)
    found = find_checkout(here) or find_checkout(Path(__file__).resolve().parent.parent)
    if found is None:
        raise RootNotFoundError(here, "not inside a GenoTEX checkout: run from one, or name "
                                      f"the folders (--root / {ENV_ROOT}, or --input-dir, "
                                      "--output-dir, --metadata-dir ...)")
    return found


def _pick(explicit: Optional[PathLike], env_name: str, default: Optional[Path],
          environ: Mapping[str, str]) -> Optional[Path]:
    if explicit is not None and str(explicit) != "":
        return Path(explicit).expanduser().resolve()
    if environ.get(env_name):
        return Path(environ[env_name]).expanduser().resolve()
    return default


class ProjectPaths:
    """The resolved data roots of one run.

    Each root is the explicit value or environment variable given to
    :func:`resolve_paths`, else its default below the repository root. The
    repository root itself is looked up only when a default needs it, so
    explicit folders work outside any checkout.

    Attributes
    ----------
    root, input, output, metadata : pathlib.Path
        Repository root and the three data roots.
    gene_synonyms, task_info : pathlib.Path
        The two metadata files most functions need.

    Raises
    ------
    RootNotFoundError
        On reading a root whose default needs a checkout when none is found.
    """

    FIELDS = ("root", "input", "output", "metadata", "gene_synonyms", "task_info")

    def __init__(self, given: Mapping[str, Optional[Path]],
                 environ: Optional[Mapping[str, str]] = None) -> None:
        self._given = {name: given.get(name) for name in self.FIELDS}
        self._environ = dict(os.environ if environ is None else environ)

    def _value(self, name: str, default: "Callable[[], Path]") -> Path:
        chosen = self._given[name]
        return chosen if chosen is not None else default()

    @functools.cached_property
    def root(self) -> Path:
        """The repository root."""
        return self._value("root", lambda: repo_root(self._environ))

    @property
    def input(self) -> Path:
        """Input data root."""
        return self._value("input", lambda: self.root / "input")

    @property
    def output(self) -> Path:
        """Output root."""
        return self._value("output", lambda: self.root / "output")

    @property
    def metadata(self) -> Path:
        """Metadata root."""
        return self._value("metadata", lambda: self.root / "metadata")

    @property
    def gene_synonyms(self) -> Path:
        """``gene_synonym.json``."""
        return self._value("gene_synonyms", lambda: self.metadata / GENE_SYNONYM_NAME)

    @property
    def task_info(self) -> Path:
        """``task_info.json``."""
        return self._value("task_info", lambda: self.metadata / TASK_INFO_NAME)

    @property
    def preprocess(self) -> Path:
        """``<output>/preprocess``: gene, clinical and linked tables."""
        return self.output / "preprocess"

    @property
    def regress(self) -> Path:
        """``<output>/regress``: one JSON per problem."""
        return self.output / "regress"

    @property
    def geo_input(self) -> Path:
        """``<input>/GEO``."""
        return self.input / "GEO"

    @property
    def tcga_input(self) -> Path:
        """``<input>/TCGA``."""
        return self.input / "TCGA"

    def as_dict(self) -> Dict[str, Path]:
        """Every root, resolved (raises like the attributes)."""
        return {name: getattr(self, name) for name in self.FIELDS}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProjectPaths) and self.as_dict() == other.as_dict()

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={value!s}" for name, value in self._given.items()
                          if value is not None)
        return f"ProjectPaths({shown})"


def resolve_paths(root: Optional[PathLike] = None,
                  input_dir: Optional[PathLike] = None,
                  output_dir: Optional[PathLike] = None,
                  metadata_dir: Optional[PathLike] = None,
                  gene_synonyms: Optional[PathLike] = None,
                  task_info: Optional[PathLike] = None,
                  environ: Optional[Mapping[str, str]] = None) -> ProjectPaths:
    """Resolve every root: explicit argument, then environment, then default.

    Parameters
    ----------
    root, input_dir, output_dir, metadata_dir, gene_synonyms, task_info : path-like, optional
        Explicit overrides (typically CLI flags).
    environ : mapping, optional
        Environment to read (defaults to ``os.environ``); tests pass a dict.

    Returns
    -------
    ProjectPaths
    """
    environ = os.environ if environ is None else environ
    explicit = {"root": (root, ENV_ROOT), "input": (input_dir, ENV_INPUT),
                "output": (output_dir, ENV_OUTPUT), "metadata": (metadata_dir, ENV_METADATA),
                "gene_synonyms": (gene_synonyms, ENV_GENE_SYNONYMS),
                "task_info": (task_info, ENV_TASK_INFO)}
    given = {name: _pick(value, env_name, None, environ)
             for name, (value, env_name) in explicit.items()}
    return ProjectPaths(given, environ)


def default_task_info_path() -> Path:
    """Path of ``task_info.json`` under the current resolution rules."""
    return resolve_paths().task_info


def add_path_arguments(parser: argparse.ArgumentParser,
                       which: tuple = ("input", "output", "metadata")) -> None:
    """Add the standard path flags to a CLI parser.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    which : tuple of str
        Any of ``"root"``, ``"input"``, ``"output"``, ``"metadata"``,
        ``"gene_synonyms"``, ``"task_info"``.
    """
    helps = {
        "root": ("--root", f"repository root (env {ENV_ROOT}; default: the GenoTEX "
                           "checkout holding the working directory, else this one)"),
        "input": ("--input-dir", f"input data root (env {ENV_INPUT}; default: <root>/input)"),
        "output": ("--output-dir", f"output root (env {ENV_OUTPUT}; default: <root>/output)"),
        "metadata": ("--metadata-dir",
                     f"metadata root (env {ENV_METADATA}; default: <root>/metadata)"),
        "gene_synonyms": ("--gene-synonyms",
                          f"gene synonym JSON (env {ENV_GENE_SYNONYMS}; "
                          "default: <metadata>/gene_synonym.json)"),
        "task_info": ("--task-info",
                      f"task info JSON (env {ENV_TASK_INFO}; default: <metadata>/task_info.json)"),
    }
    for key in which:
        flag, text = helps[key]
        parser.add_argument(flag, default=None, metavar="PATH", help=text)


def paths_from_args(args: argparse.Namespace) -> ProjectPaths:
    """Resolve paths from a namespace filled by :func:`add_path_arguments`."""
    return resolve_paths(
        root=getattr(args, "root", None),
        input_dir=getattr(args, "input_dir", None),
        output_dir=getattr(args, "output_dir", None),
        metadata_dir=getattr(args, "metadata_dir", None),
        gene_synonyms=getattr(args, "gene_synonyms", None),
        task_info=getattr(args, "task_info", None),
    )


def lock_dir(environ: Optional[Mapping[str, str]] = None) -> Path:
    """Folder of this user's inter-process lock files (see the module docstring).

    Parameters
    ----------
    environ : mapping, optional
        Environment to read (defaults to ``os.environ``).

    Returns
    -------
    pathlib.Path
        Absolute path; not created here (:func:`utils.io.locked` creates it).
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_LOCK_DIR):
        return Path(environ[ENV_LOCK_DIR]).expanduser().resolve()
    runtime = environ.get(ENV_RUNTIME_DIR)
    if runtime and Path(runtime).is_dir():
        return Path(runtime).resolve() / "genotex-locks"
    user = str(os.getuid()) if hasattr(os, "getuid") else getpass.getuser()
    return Path(tempfile.gettempdir()).resolve() / f"genotex-locks-{user}"


def exits_when_root_is_missing(main: Callable[[Optional[Sequence[str]]], int]
                               ) -> Callable[[Optional[Sequence[str]]], int]:
    """Decorate a command-line ``main``: no checkout and no folder named -> exit code 2.

    An installed command run outside a GenoTEX checkout without the flags that
    name its folders ends with ``<command>: error: <the RootNotFoundError
    message>`` on stderr and exit code 2, not a traceback. So does any other
    :class:`~utils.errors.InputFileError` that ``main`` lets through, e.g. an
    :class:`~utils.errors.OutputFileError` (a report or result that cannot be
    written where the flags say): the message names the file. For the ``main``
    functions of command lines only (library code raises). Ctrl-C ends the
    command with one line and exit code 130
    (:func:`utils.errors.exits_quietly_on_interrupt`).
    """
    @functools.wraps(main)
    def run(argv: Optional[Sequence[str]] = None) -> int:
        try:
            return main(argv)
        except InputFileError as exc:
            sys.stderr.write(command_error(exc) + "\n")
            return 2

    return exits_quietly_on_interrupt(run)
