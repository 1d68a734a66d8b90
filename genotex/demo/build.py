"""Rebuild the bundled demo from scratch: ``python -m genotex.cli.demo``.

Steps, in order (``--steps`` picks some; each step only reads what earlier steps
wrote, so any suffix of the list can be re-run):

``maps``
    gene maps limited to the demo's genes: the full maps are built into a
    temporary folder, the plan's gene universe is listed with them, then
    ``download/get_gene_synonyms.py --restrict-to`` writes the three maps into
    ``metadata/``.
``task-info``
    ``metadata/task_info.json`` for the plan's traits (``generate_synthetic.py
    --task-info-out``) from the real 132-trait task info.
``input``
    ``input/GEO`` and ``input/TCGA`` from the plan, and the planted truth in
    ``metadata/synthetic_truth.json`` (outside ``output/``, which is the
    reference tree ``eval.py`` reads).
``notebooks``
    ``code/<Trait>/<cohort>.ipynb`` from the decisions in
    :mod:`genotex.demo.cohorts`, then executed in place (nbclient) from a clean
    ``output/preprocess`` and stored with their outputs.
``regress``
    ``output/regress`` by ``regress.py --force``.
``baseline``
    the deliberately imperfect prediction tree ``examples/baseline_prediction``
    (``examples/make_baseline.py``).
``croissant``
    ``metadata.json`` (``python -m genotex.cli.croissant --validate``).

Every external command is printed before it runs (they are the commands listed
in ``docs/demo.md``).
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Sequence

from genotex.demo.cohorts import GeoDecisions, all_cohorts
from genotex.demo.notebooks import (execute_notebook, geo_notebook, notebook_path, tidy_notebook,
                                    write_notebook, xena_notebook)
from genotex.synthetic.options import TRUTH_NAME
from utils.logs import progress
from utils.paths import ENV_INPUT, ENV_METADATA, ENV_OUTPUT, ENV_ROOT, ProjectPaths

logger = logging.getLogger(__name__)

BASELINE_SCRIPT = Path("examples") / "make_baseline.py"
BASELINE_TREE = Path("examples") / "baseline_prediction"


def run(command: Sequence[str], cwd: Path, stdout=None) -> None:
    """Print and run one command; raise ``CalledProcessError`` on failure."""
    shown = " ".join(str(part) for part in command)
    print(f"$ {shown}", flush=True)
    subprocess.run([str(part) for part in command], cwd=cwd, check=True, stdout=stdout)


def _python(script: Path, *args) -> List[str]:
    return [sys.executable, str(script), *map(str, args)]


def build_maps(paths: ProjectPaths, gene_info: Path, source_task_info: Path) -> None:
    """Demo-restricted gene maps into ``<metadata>``."""
    root = paths.root
    with tempfile.TemporaryDirectory(prefix="genotex_full_maps_") as scratch:
        full = Path(scratch)
        run(_python(root / "download" / "get_gene_synonyms.py", "--gene-info", gene_info,
                    "--output-dir", full), root)
        genes = full / "demo_genes.txt"
        with genes.open("w") as handle:
            run(_python(root / "generate_synthetic.py", "--demo-plan",
                        "--gene-synonyms", full / "gene_synonym.json",
                        "--task-info", source_task_info, "--list-genes"), root, stdout=handle)
        run(_python(root / "download" / "get_gene_synonyms.py", "--gene-info", gene_info,
                    "--restrict-to", genes, "--output-dir", paths.metadata), root)


def build_task_info(paths: ProjectPaths, source_task_info: Path) -> None:
    """``<metadata>/task_info.json`` for the plan's traits.

    The generator also writes a tree when asked for the task info; that tree
    goes to a temporary folder (the ``input`` step generates the real one from
    the committed metadata).
    """
    with tempfile.TemporaryDirectory(prefix="genotex_scratch_input_") as scratch:
        run(_python(paths.root / "generate_synthetic.py", "--demo-plan",
                    "--gene-synonyms", paths.gene_synonyms, "--task-info", source_task_info,
                    "--task-info-out", paths.task_info, "--out", scratch, "--no-truth"),
            paths.root)


def _clear(folder: Path) -> None:
    if folder.exists():
        print(f"# removing {folder}")
        shutil.rmtree(folder)


def build_input(paths: ProjectPaths) -> None:
    """``<input>/GEO``, ``<input>/TCGA`` and the truth, from a clean input tree."""
    _clear(paths.geo_input)
    _clear(paths.tcga_input)
    run(_python(paths.root / "generate_synthetic.py", "--demo-plan",
                "--gene-synonyms", paths.gene_synonyms, "--task-info", paths.task_info,
                "--out", paths.input, "--truth", paths.metadata / TRUTH_NAME), paths.root)


def build_notebook(decisions) -> "object":
    """The (unexecuted) notebook of one cohort's decisions."""
    if isinstance(decisions, GeoDecisions):
        return geo_notebook(decisions)
    return xena_notebook(decisions)


def _kernel_environment(paths: ProjectPaths) -> None:
    """Point the kernels (they inherit this environment) at the chosen trees."""
    os.environ[ENV_ROOT] = str(paths.root)
    os.environ[ENV_INPUT] = str(paths.input)
    os.environ[ENV_OUTPUT] = str(paths.output)
    os.environ[ENV_METADATA] = str(paths.metadata)


def build_notebooks(paths: ProjectPaths, code_root: Path, cohorts: Sequence = ()) -> None:
    """Write every cohort's notebook, execute it, store it with its outputs."""
    chosen = list(cohorts) or list(all_cohorts())
    if not cohorts:
        _clear(paths.preprocess)
    _kernel_environment(paths)
    with tempfile.TemporaryDirectory(prefix="genotex_nb_cwd_") as cwd:
        for decisions in progress(chosen, desc="notebooks", unit="notebook"):
            notebook = execute_notebook(build_notebook(decisions), cwd=cwd)
            target = notebook_path(code_root, decisions.trait, decisions.cohort)
            write_notebook(tidy_notebook(notebook, f"{decisions.trait}-{decisions.cohort}"),
                           target)


def build_regress(paths: ProjectPaths) -> None:
    """``<output>/regress`` from the preprocess tree (every problem, forced)."""
    _clear(paths.regress)
    run(_python(paths.root / "regress.py", "--force", "--no-progress", "--output-dir",
                paths.output, "--task-info", paths.task_info), paths.root)


def build_baseline(paths: ProjectPaths) -> None:
    """The baseline prediction tree (``examples/make_baseline.py``)."""
    run(_python(paths.root / BASELINE_SCRIPT, "--out", paths.root / BASELINE_TREE,
                "--input-dir", paths.input, "--metadata-dir", paths.metadata), paths.root)


def build_croissant(paths: ProjectPaths) -> None:
    """``<root>/metadata.json``, validated with mlcroissant."""
    run([sys.executable, "-m", "genotex.cli.croissant", "--validate", "--root", paths.root,
         "--input-dir", paths.input, "--output-dir", paths.output,
         "--metadata-dir", paths.metadata], paths.root)
