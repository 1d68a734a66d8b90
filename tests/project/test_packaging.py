"""Packaging: ``pip install .`` (not editable) ships everything the code imports and reads.

Fast checks read ``pyproject.toml``: the dependencies agree with the pinned
``requirements.txt``, every command line has a ``genotex-*`` entry point, and
every file the packages read at run time is package data.

The slow test runs ``pip install .`` in a copy of this checkout (which must stay as it
was: no ``build/`` or egg-info left), into a fresh virtual environment that sees the
running environment's dependencies but not the project (:mod:`tests.nested_venv`), and
runs the installed commands from an unrelated
folder: help, the demo's analysis (byte-identical to the committed
``output/regress``), the evaluator, the synthetic generator with the packaged
demo plan (byte-identical to the committed inputs and truth), and the clear
exit-2 error of a default that needs a checkout.
"""

from __future__ import annotations

import ast
import importlib
import json
import shutil
import subprocess
import tomllib
from pathlib import Path, PurePosixPath
from typing import Dict

import pytest
from packaging.requirements import Requirement

from tests.conftest import REPO_ROOT
from tests.genotex.demo.test_demo import assert_same_tree
from tests.nested_venv import (check_build_requirements, clean_environment, nested_venv,
                                pip)

PYPROJECT = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
PACKAGES = ("utils", "tools", "download", "genotex")
COMMAND_MODULES = ("download.download_geo", "download.download_tcga", "download.get_gene_synonyms",
                   "download.build_task_info", "download.select_pairs", "download.manifest")


def pinned_requirements() -> Dict[str, str]:
    """``{name: version}`` of the ``name==version`` lines of requirements.txt."""
    pins = {}
    for line in (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8").splitlines():
        text = line.split("#")[0].strip()
        if text:
            requirement = Requirement(text)
            (spec,) = requirement.specifier
            assert spec.operator == "==", f"requirements.txt pins exact versions: {text}"
            pins[requirement.name.lower()] = spec.version
    return pins


def declared_requirements() -> Dict[str, Requirement]:
    """Dependencies and optional dependencies of pyproject.toml, by name."""
    project = PYPROJECT["project"]
    texts = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        texts.extend(extra)
    return {Requirement(t).name.lower(): Requirement(t) for t in texts}


def test_dependencies_agree_with_the_pinned_requirements():
    pins, declared = pinned_requirements(), declared_requirements()
    assert set(pins) == set(declared) - {"mlcroissant"}  # mlcroissant: requirements-dev
    for name, version in pins.items():
        assert declared[name].specifier.contains(version), (name, version)


def test_every_command_line_is_an_entry_point():
    scripts = PYPROJECT["project"]["scripts"]
    cli = sorted(p.stem for p in (REPO_ROOT / "genotex" / "cli").glob("*.py")
                 if "\ndef main(" in p.read_text(encoding="utf-8"))  # not common.py
    targets = {target.split(":")[0] for target in scripts.values()}
    assert {f"genotex.cli.{name}" for name in cli} | set(COMMAND_MODULES) == targets
    assert all(name.startswith("genotex-") for name in scripts)
    for target in scripts.values():
        module, function = target.split(":")
        assert callable(getattr(importlib.import_module(module), function)), target


def test_no_module_finds_data_through_its_own_file():
    """Files shipped with the code are found with importlib.resources, never __file__.

    The only uses allowed: a script putting its checkout on ``sys.path``, and
    ``utils.paths`` looking for the checkout the code was imported from.
    """
    offenders = []
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            for node in ast.walk(ast.parse(source)):
                if isinstance(node, ast.Name) and node.id == "__file__":
                    line = source.splitlines()[node.lineno - 1]
                    if "sys.path.insert" not in line and "find_checkout" not in line:
                        offenders.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    assert not offenders, offenders


def _matches_whole(relative: PurePosixPath, pattern: str) -> bool:
    """Whether a setuptools package-data glob matches the whole relative path."""
    return len(relative.parts) == len(PurePosixPath(pattern).parts) and relative.match(pattern)


def test_package_data_covers_the_data_files_in_the_packages():
    """Every data file matches a pattern of its package or of a package above it (a
    pattern like ``data/*.tsv`` of ``utils`` covers a data folder that is no package)."""
    declared = PYPROJECT["tool"]["setuptools"]["package-data"]
    for package in PACKAGES:
        for path in (REPO_ROOT / package).rglob("*"):
            if path.is_file() and path.suffix not in (".py", ".pyc"):
                parts = path.relative_to(REPO_ROOT).parts
                covered = any(
                    _matches_whole(PurePosixPath(*parts[depth:]), pattern)
                    for depth in range(1, len(parts))
                    for pattern in declared.get(".".join(parts[:depth]), []))
                assert covered, f"{path.relative_to(REPO_ROOT)} is not package data"


# --------------------------------------------------------------------------- installed copy

def listing(folder: Path) -> list:
    """Every path below ``folder`` (bytecode caches aside), relative and sorted."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*")
                  if "__pycache__" not in p.parts)


def install_copy(base: Path) -> Path:
    """A venv holding a non-editable install of a copy of this checkout; its bin folder.

    ``pip install .`` runs in the copy, as a user runs it in a checkout, and must leave
    it as it was: no ``build/``, no ``genotex.egg-info`` (the in-tree backend
    ``build_backend/genotex_build.py`` builds in a temporary folder). The nested venv
    (:func:`tests.nested_venv.nested_venv`) builds with the running environment's
    setuptools (pinned by requirements-dev.txt) and sees its dependencies.
    """
    source = base / "source"
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", "__pycache__", "build", "*.egg-info", ".pytest_cache", ".hypothesis",
        ".benchmarks"))
    check_build_requirements()
    python = nested_venv(base / "venv")
    before = listing(source)
    pip(python, "--no-build-isolation", ".", cwd=source)
    assert listing(source) == before, "pip install . changed the checkout: " \
        f"{sorted(set(listing(source)) ^ set(before))}"
    shutil.rmtree(source)  # nothing may still point at the copy
    return python.parent


def run(bin_dir: Path, command: str, *args, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(bin_dir / command), *map(str, args)], cwd=cwd,
                          env=clean_environment(), capture_output=True, text=True, timeout=600)


def check_installed_layout(bin_dir: Path, cwd: Path) -> None:
    """The four layers and their data files in site-packages; nothing else; no checkout."""
    code = ("import importlib.util, json, sysconfig\n"
            "import tools.preprocess, utils, download, genotex\n"
            "print(json.dumps({'site': sysconfig.get_paths()['purelib'],\n"
            "  'files': [m.__file__ for m in (tools.preprocess, utils, download, genotex)],\n"
            "  'absent': [n for n in ('tests', 'benchmarks', 'examples')\n"
            "             if importlib.util.find_spec(n) is None]}))\n")
    done = run(bin_dir, "python", "-c", code, cwd=cwd)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    site = Path(found["site"])
    assert site.is_relative_to(bin_dir.parent)
    assert all(Path(file).is_relative_to(site) for file in found["files"]), found
    assert found["absent"] == ["tests", "benchmarks", "examples"]
    top_level = sorted(p.name for p in site.iterdir()
                       if p.is_dir() and not p.name.endswith(".dist-info")
                       and p.name != "__pycache__")
    assert top_level == sorted(PACKAGES)
    for data in ("utils/data/xena_cohorts.tsv", "utils/data/cancer_traits.txt",
                 "download/trait_diseases.tsv", "genotex/demo/plan.json"):
        assert (site / data).is_file(), data


def check_commands(bin_dir: Path, cwd: Path) -> None:
    """Every command answers --help; a default needing the checkout exits 2 clearly."""
    for command in sorted(PYPROJECT["project"]["scripts"]):
        done = run(bin_dir, command, "--help", cwd=cwd)
        assert done.returncode == 0 and f"usage: {command}" in done.stdout, \
            (command, done.stderr)
    done = run(bin_dir, "genotex-regress", cwd=cwd)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "genotex-regress: error:" in done.stderr
    assert "not inside a GenoTEX checkout" in done.stderr and "Traceback" not in done.stderr


def check_demo_runs(bin_dir: Path, cwd: Path, work: Path) -> None:
    """Analysis, evaluation and generation from copied demo files, with explicit folders."""
    demo, meta = work / "demo", work / "meta"
    shutil.copytree(REPO_ROOT / "output" / "preprocess", demo / "output" / "preprocess")
    meta.mkdir()
    for name in ("task_info.json", "gene_synonym.json", "gene_entrez.json"):
        shutil.copy(REPO_ROOT / "metadata" / name, meta / name)
    task_info = meta / "task_info.json"

    done = run(bin_dir, "genotex-regress", "--output-dir", demo / "output", "--task-info",
               task_info, "--force", "--no-progress", cwd=cwd)
    assert done.returncode == 0 and "37 done" in done.stdout, done.stdout + done.stderr
    assert_same_tree(demo / "output" / "regress", REPO_ROOT / "output" / "regress")

    report = work / "report.json"
    done = run(bin_dir, "genotex-eval", "-p", demo / "output", "-r", demo / "output",
               "--task-info", task_info, "--no-progress", "--report", report, cwd=cwd)
    assert done.returncode == 0, done.stderr
    scores = json.loads(report.read_text(encoding="utf-8"))
    assert scores["analysis"]["summary"]["overall"]["f1"] == {"mean": 100.0, "n": 37}

    done = run(bin_dir, "genotex-synthetic", "--demo-plan", "--gene-synonyms",
               meta / "gene_synonym.json", "--task-info", task_info, "--out",
               work / "syn" / "input", "--truth", work / "syn" / "truth.json", cwd=cwd)
    assert done.returncode == 0, done.stdout + done.stderr
    assert_same_tree(work / "syn" / "input", REPO_ROOT / "input")
    assert (work / "syn" / "truth.json").read_bytes() == \
        (REPO_ROOT / "metadata" / "synthetic_truth.json").read_bytes()


@pytest.mark.slow
def test_non_editable_install_works_from_another_folder(tmp_path):
    """One test (not a shared fixture), so that pytest-xdist builds the venv once."""
    bin_dir = install_copy(tmp_path / "install")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    check_installed_layout(bin_dir, elsewhere)
    check_commands(bin_dir, elsewhere)
    check_demo_runs(bin_dir, elsewhere, tmp_path / "work")


# Pinned requirements that no module imports, with what uses them instead (issue 9:
# "every pinned dependency is used for its purpose or removed").
USED_WITHOUT_IMPORT = {
    "jupyter": "the `jupyter nbconvert` command of the README and notebook front-ends",
    "ipykernel": "the python3 kernel that executes the notebooks (nbclient, the sandbox)",
    "dask": "the scheduler side of regress.py --scheduler (imported through distributed)",
}
IMPORT_NAMES = {"scikit-learn": "sklearn", "jupyter_client": "jupyter_client"}


def imported_top_level_names() -> set:
    """Top-level modules imported anywhere in the four packages and the scripts."""
    names = set()
    files = [p for package in PACKAGES for p in (REPO_ROOT / package).rglob("*.py")]
    files += list(REPO_ROOT.glob("*.py")) + list((REPO_ROOT / "examples").glob("*.py"))
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module.split(".")[0])
    return names


def test_every_pinned_runtime_dependency_is_used():
    pinned = [Requirement(line.split("#")[0].strip()).name
              for line in (REPO_ROOT / "requirements.txt").read_text().splitlines()
              if line.split("#")[0].strip()]
    imported = imported_top_level_names()
    unused = [name for name in pinned if name not in USED_WITHOUT_IMPORT
              and IMPORT_NAMES.get(name, name.replace("-", "_")) not in imported]
    assert not unused, f"pinned in requirements.txt but never imported: {unused}"
    assert not {"mygene", "gseapy"} & set(pinned)
