"""The cohort tasks of a run, found in the input tree (SPEC 2).

GEO cohorts are the folders ``input/GEO/<Trait>/<GSE>/``; TCGA cohorts are the
Xena folders ``input/TCGA/<folder>/``, each serving the traits that
``utils/data/xena_cohorts.tsv`` maps to it (a folder the table does not know is
read as ``TCGA_<Trait>_(<CODE>)``). Order is deterministic: GEO by trait and
accession, then TCGA by trait.
"""

from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Set

from genotex.methods.base import CohortTask
from utils.errors import InputFileError
from utils.paths import ProjectPaths
from utils.problems import Problem
from utils.tcga_cohorts import read_cohort_table

TCGA_COHORT = "Xena"
_FOLDER = re.compile(r"^TCGA_(?P<trait>.+)_\([A-Za-z0-9]+\)$")


def xena_folder_traits() -> Dict[str, List[str]]:
    """``{Xena folder: [traits]}`` from the committed cohort table."""
    folders: Dict[str, List[str]] = {}
    for cohort in read_cohort_table():
        folders.setdefault(cohort.folder, []).extend(cohort.traits)
    return folders


def traits_of(problems: Iterable[Problem]) -> Set[str]:
    """Every trait whose cohorts the problems read (two-step conditions included)."""
    traits: Set[str] = set()
    for problem in problems:
        traits.add(problem.trait)
        if problem.is_two_step:
            traits.add(problem.condition)
    return traits


def cohort_tasks(paths: ProjectPaths, traits: Optional[Iterable[str]] = None
                 ) -> List[CohortTask]:
    """The cohort tasks of the input tree, for ``traits`` (all when None).

    Raises
    ------
    InputFileError
        The input tree has neither a ``GEO/`` nor a ``TCGA/`` folder (a mistyped
        ``--input-dir``): a method that preprocesses would find nothing to do
        and report a run without cohorts as a success.
    """
    if not paths.geo_input.is_dir() and not paths.tcga_input.is_dir():
        raise InputFileError(paths.input, f"input tree not found: no {paths.geo_input.name}/ "
                             f"or {paths.tcga_input.name}/ folder (check --input-dir or "
                             "GENOTEX_INPUT)")
    wanted = None if traits is None else set(traits)
    tasks: List[CohortTask] = []
    if paths.geo_input.is_dir():
        for folder in sorted(p for p in paths.geo_input.glob("*/*") if p.is_dir()):
            tasks.append(CohortTask(folder.parent.name, folder.name, "GEO", folder))
    if paths.tcga_input.is_dir():
        known = xena_folder_traits()
        tcga = []
        for folder in sorted(p for p in paths.tcga_input.iterdir() if p.is_dir()):
            match = _FOLDER.match(folder.name)
            served = known.get(folder.name) or ([match.group("trait")] if match else [])
            tcga.extend(CohortTask(trait, TCGA_COHORT, "TCGA", folder) for trait in served)
        tasks.extend(sorted(tcga, key=lambda t: (t.trait, t.input_dir.name)))
    return [t for t in tasks if wanted is None or t.trait in wanted]
