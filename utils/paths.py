"""Resolve the repository root and the data roots.

This is the only module that knows where things live. Every other module asks it,
so nothing depends on the caller's working directory.

Precedence for each root: an explicit argument (usually a CLI flag), then an
environment variable, then the default below the repository root.

=====================  =========================  ==============================
root                   environment variable       default
=====================  =========================  ==============================
repository root        ``GENOTEX_ROOT``           the folder holding ``tools/``
input data             ``GENOTEX_INPUT``          ``<root>/input``
outputs                ``GENOTEX_OUTPUT``         ``<root>/output``
metadata               ``GENOTEX_METADATA``       ``<root>/metadata``
gene synonym map       ``GENOTEX_GENE_SYNONYMS``  ``<metadata>/gene_synonym.json``
task info              ``GENOTEX_TASK_INFO``      ``<metadata>/task_info.json``
=====================  =========================  ==============================
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Optional, Union

PathLike = Union[str, os.PathLike]

ENV_ROOT = "GENOTEX_ROOT"
ENV_INPUT = "GENOTEX_INPUT"
ENV_OUTPUT = "GENOTEX_OUTPUT"
ENV_METADATA = "GENOTEX_METADATA"
ENV_GENE_SYNONYMS = "GENOTEX_GENE_SYNONYMS"
ENV_TASK_INFO = "GENOTEX_TASK_INFO"

TASK_INFO_NAME = "task_info.json"
GENE_SYNONYM_NAME = "gene_synonym.json"


def repo_root(environ: Optional[Mapping[str, str]] = None) -> Path:
    """Return the repository root.

    Parameters
    ----------
    environ : mapping, optional
        Environment to read ``GENOTEX_ROOT`` from (defaults to ``os.environ``).

    Returns
    -------
    pathlib.Path
        Absolute path of the repository root.
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV_ROOT):
        return Path(environ[ENV_ROOT]).expanduser().resolve()
    return Path(__file__).resolve().parent.parent


def _pick(explicit: Optional[PathLike], env_name: str, default: Path,
          environ: Mapping[str, str]) -> Path:
    if explicit is not None and str(explicit) != "":
        return Path(explicit).expanduser().resolve()
    if environ.get(env_name):
        return Path(environ[env_name]).expanduser().resolve()
    return default


@dataclass(frozen=True)
class ProjectPaths:
    """The resolved data roots of one run.

    Attributes
    ----------
    root, input, output, metadata : pathlib.Path
        Repository root and the three data roots.
    gene_synonyms, task_info : pathlib.Path
        The two metadata files most functions need.
    """

    root: Path
    input: Path
    output: Path
    metadata: Path
    gene_synonyms: Path
    task_info: Path

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
    root_path = (Path(root).expanduser().resolve() if root
                 else repo_root(environ))
    metadata = _pick(metadata_dir, ENV_METADATA, root_path / "metadata", environ)
    return ProjectPaths(
        root=root_path,
        input=_pick(input_dir, ENV_INPUT, root_path / "input", environ),
        output=_pick(output_dir, ENV_OUTPUT, root_path / "output", environ),
        metadata=metadata,
        gene_synonyms=_pick(gene_synonyms, ENV_GENE_SYNONYMS,
                            metadata / GENE_SYNONYM_NAME, environ),
        task_info=_pick(task_info, ENV_TASK_INFO, metadata / TASK_INFO_NAME, environ),
    )


def default_gene_synonym_path() -> Path:
    """Path of ``gene_synonym.json`` under the current resolution rules."""
    return resolve_paths().gene_synonyms


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
        "root": ("--root", f"repository root (env {ENV_ROOT}; default: this checkout)"),
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
