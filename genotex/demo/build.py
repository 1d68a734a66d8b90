"""Rebuild the bundled demo from scratch: ``python -m genotex.cli.demo``.

Steps, in order (``--steps`` picks some; each step only reads what earlier steps
wrote, so any suffix of the list can be re-run). Each is a function of this
module taking the trees as a :class:`~utils.paths.ProjectPaths`; every step runs
in this process (no subprocess), and none changes ``os.environ``.

``maps``
    gene maps limited to the demo's genes: the full maps are built into a
    temporary folder, the plan's gene universe is listed with them, then
    :func:`utils.gene_maps.build_gene_synonyms` (what
    ``download/get_gene_synonyms.py --restrict-to`` runs) writes the three maps
    into ``metadata/``.
``task-info``
    ``metadata/task_info.json`` for the plan's traits, from the real 132-trait
    task info (:func:`genotex.synthetic.demo_task_info`).
``input``
    ``input/GEO`` and ``input/TCGA`` from the plan, and the planted truth in
    ``metadata/synthetic_truth.json`` (outside ``output/``, which is the
    reference tree ``eval.py`` reads).
``notebooks``
    ``code/<Trait>/<cohort>.ipynb`` from the decisions in
    :mod:`genotex.demo.cohorts`, then executed in place (nbclient) from a clean
    ``output/preprocess`` and stored with their outputs; the kernels get the
    trees through their own environment.
``regress``
    ``output/regress``: every problem, forced (what ``regress.py --force`` does).
``baseline``
    the deliberately imperfect prediction tree ``examples/baseline_prediction``
    (:func:`genotex.demo.baseline.write_baseline`).
``croissant``
    ``metadata.json``, validated with mlcroissant.

The equivalent commands are listed in ``docs/demo.md``.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
from pathlib import Path
from typing import Dict, Sequence

from genotex.demo.cohorts import GeoDecisions, all_cohorts
from genotex.demo.notebooks import (execute_notebook, geo_notebook, notebook_path, tidy_notebook,
                                    write_notebook, xena_notebook)
from genotex.demo.plan import demo_plan, demo_plan_file
from genotex.synthetic.options import TRUTH_NAME
from utils.io import atomic_write_text
from utils.logs import progress
from utils.paths import ENV_INPUT, ENV_METADATA, ENV_OUTPUT, ENV_ROOT, ProjectPaths

logger = logging.getLogger(__name__)

BASELINE_TREE = Path("examples") / "baseline_prediction"


class DemoBuildError(RuntimeError):
    """A step of the demo build did not complete (the message says which and why)."""


def _plan_and_sources(gene_synonyms: Path, task_info: Path):
    from genotex.synthetic import read_sources

    return demo_plan(), read_sources(gene_synonyms, task_info)


def _catalog(plan, sources):
    from genotex.synthetic.genes import build_catalog

    return build_catalog(plan, sources.synonyms, sources.task_info, sources.entrez,
                         str(demo_plan_file()))


def write_gene_universe(gene_synonyms: Path, task_info: Path, target: Path) -> None:
    """The demo plan's gene universe, one official symbol a line, into ``target``."""
    plan, sources = _plan_and_sources(gene_synonyms, task_info)
    atomic_write_text(target, "".join(g + "\n" for g in _catalog(plan, sources).universe))


def build_maps(paths: ProjectPaths, gene_info: Path, source_task_info: Path) -> None:
    """Demo-restricted gene maps into ``<metadata>`` (the full maps first, in a scratch
    folder, to find the demo plan's gene universe)."""
    from utils.gene_maps import build_gene_synonyms

    with tempfile.TemporaryDirectory(prefix="genotex_full_maps_") as scratch:
        full = Path(scratch)
        build_gene_synonyms(gene_info, full)
        genes = full / "demo_genes.txt"
        write_gene_universe(full / "gene_synonym.json", source_task_info, genes)
        build_gene_synonyms(gene_info, paths.metadata, restrict_to_path=genes)


def build_task_info(paths: ProjectPaths, source_task_info: Path) -> None:
    """``<metadata>/task_info.json`` for the plan's traits."""
    from genotex.synthetic import demo_task_info
    from utils.schemas.task_info import write_task_info

    plan, sources = _plan_and_sources(paths.gene_synonyms, source_task_info)
    write_task_info(paths.task_info,
                    demo_task_info(plan, sources.task_info, _catalog(plan, sources)))


def _clear(folder: Path) -> None:
    if folder.exists():
        logger.info("removing %s", folder)
        shutil.rmtree(folder)


def build_input(paths: ProjectPaths) -> None:
    """``<input>/GEO``, ``<input>/TCGA`` and the truth, from a clean input tree."""
    from genotex.synthetic import generate
    from genotex.synthetic.files import DEMO_COMPRESSION

    _clear(paths.geo_input)
    _clear(paths.tcga_input)
    plan, sources = _plan_and_sources(paths.gene_synonyms, paths.task_info)
    generate(plan, sources, paths.input, paths.metadata / TRUTH_NAME,
             source=str(demo_plan_file()), progress=True, compression=DEMO_COMPRESSION)


def build_notebook(decisions) -> "object":
    """The (unexecuted) notebook of one cohort's decisions."""
    if isinstance(decisions, GeoDecisions):
        return geo_notebook(decisions)
    return xena_notebook(decisions)


def kernel_environment(paths: ProjectPaths) -> Dict[str, str]:
    """This process's environment with ``GENOTEX_*`` naming the chosen trees (a copy)."""
    env = dict(os.environ)
    env.update({ENV_ROOT: str(paths.root), ENV_INPUT: str(paths.input),
                ENV_OUTPUT: str(paths.output), ENV_METADATA: str(paths.metadata)})
    return env


def build_notebooks(paths: ProjectPaths, code_root: Path, cohorts: Sequence = ()) -> None:
    """Write every cohort's notebook, execute it, store it with its outputs."""
    chosen = list(cohorts) or list(all_cohorts())
    if not cohorts:
        _clear(paths.preprocess)
    env = kernel_environment(paths)
    with tempfile.TemporaryDirectory(prefix="genotex_nb_cwd_") as cwd:
        for decisions in progress(chosen, desc="notebooks", unit="notebook"):
            notebook = execute_notebook(build_notebook(decisions), cwd=cwd, env=env)
            target = notebook_path(code_root, decisions.trait, decisions.cohort)
            write_notebook(tidy_notebook(notebook, f"{decisions.trait}-{decisions.cohort}"),
                           target)


def build_regress(paths: ProjectPaths) -> None:
    """``<output>/regress`` from the preprocess tree (every problem, forced).

    Raises
    ------
    DemoBuildError
        When a problem fails (the summary lists it).
    """
    from genotex.regress.runner import RunSettings, check_inputs, run_problems
    from utils.problems import enumerate_problems, load_task_info

    _clear(paths.regress)
    problems = list(enumerate_problems(load_task_info(paths.task_info)))
    check_inputs(problems, paths.preprocess)
    settings = RunSettings(paths.preprocess, paths.regress, paths.task_info, force=True,
                           log_level=logging.getLogger().getEffectiveLevel())
    summary = run_problems(problems, settings, progress=False)
    logger.info("%s", summary.format())
    if summary.counts()["failed"]:
        raise DemoBuildError(f"regress: {summary.format()}")


def build_baseline(paths: ProjectPaths) -> None:
    """The baseline prediction tree ``<root>/examples/baseline_prediction``."""
    from genotex.demo.baseline import write_baseline

    write_baseline(paths.root / BASELINE_TREE, paths.input, paths.task_info)


def build_croissant(paths: ProjectPaths) -> None:
    """``<root>/metadata.json``, validated with mlcroissant."""
    from genotex.croissant import validate, write_metadata

    trees = ProjectPaths({"root": paths.root, "input": paths.input, "output": paths.output,
                          "metadata": paths.metadata})
    validate(write_metadata(trees))
