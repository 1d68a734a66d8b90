"""What the supported interpreters (CPython 3.11 and later) could see differently.

* The version floor is written once per file a newcomer reads: ``requires-python`` in
  ``pyproject.toml``, the README's first lines and the header of ``requirements.txt``
  say the same, and the interpreters the README reports as verified are above it.
* Worker processes are never forked implicitly. The default start method of
  :mod:`multiprocessing` is ``fork`` on Linux up to Python 3.13 (with a
  DeprecationWarning from 3.12 on when the process runs threads, which ours always
  do: OpenBLAS, progress bars) and ``forkserver`` from 3.14, ``spawn`` on macOS. A
  pool that does not name its start method behaves differently per interpreter and
  platform, so every pool of the library names one, and never ``fork``.

The pools are found with :mod:`ast` in the source of the four packages.
"""

from __future__ import annotations

import ast
import platform
import re
import tomllib
from pathlib import Path
from typing import Iterator, List

import pytest
from packaging.specifiers import SpecifierSet

from tests.conftest import REPO_ROOT

PACKAGES = ("utils", "tools", "download", "genotex")
#: Calls that start worker processes; each must be given an explicit context.
POOL_CALLS = {"ProcessPoolExecutor": "mp_context"}
#: ``multiprocessing.<name>(...)`` that start processes with the default start method.
DEFAULT_CONTEXT_CALLS = {"Process", "Pool", "Manager"}


def requires_python() -> SpecifierSet:
    pyproject = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return SpecifierSet(pyproject["project"]["requires-python"])


def floor_of(specifier: SpecifierSet) -> str:
    (lower,) = [s.version for s in specifier if s.operator == ">="]
    return lower


def test_the_version_floor_is_the_same_everywhere_a_newcomer_reads_it():
    floor = floor_of(requires_python())
    readme_head = (REPO_ROOT / "README.md").read_text(encoding="utf-8")[:2000]
    assert f"Python ≥ {floor}," in readme_head
    requirements_head = (REPO_ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert f"Python >= {floor}." in requirements_head.splitlines()[0]
    assert requires_python().contains(platform.python_version())


def test_the_verified_interpreters_satisfy_requires_python():
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    line = next(line for line in readme.splitlines() if line.startswith("Verified on "))
    versions = re.findall(r"\b3\.\d+\.\d+\b", line)
    assert len(versions) >= 3, line
    assert all(requires_python().contains(v) for v in versions), (versions, line)


def pool_problems(source: str, filename: str) -> Iterator[str]:
    """``file:line: problem`` for each pool that relies on the default start method."""
    for node in ast.walk(ast.parse(source, filename=filename)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        keywords = {k.arg for k in node.keywords}
        if name in POOL_CALLS and POOL_CALLS[name] not in keywords:
            yield f"{filename}:{node.lineno}: {name} without {POOL_CALLS[name]}="
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "multiprocessing" and name in DEFAULT_CONTEXT_CALLS):
            yield f"{filename}:{node.lineno}: multiprocessing.{name} (the default start method)"
        if (name in ("get_context", "set_start_method") and node.args
                and isinstance(node.args[0], ast.Constant) and node.args[0].value == "fork"):
            yield f"{filename}:{node.lineno}: {name}('fork')"


def library_sources() -> Iterator[Path]:
    for package in PACKAGES:
        yield from sorted((REPO_ROOT / package).rglob("*.py"))


def test_every_worker_pool_of_the_library_names_its_start_method():
    problems: List[str] = []
    for path in library_sources():
        problems.extend(pool_problems(path.read_text(encoding="utf-8"),
                                      str(path.relative_to(REPO_ROOT))))
    assert problems == []


def test_the_pool_check_sees_default_and_fork_contexts():
    source = ("import multiprocessing\n"
              "from concurrent.futures import ProcessPoolExecutor\n"
              "import concurrent.futures as cf\n"
              "ProcessPoolExecutor(max_workers=2)\n"
              "cf.ProcessPoolExecutor(2, initializer=print)\n"
              "multiprocessing.Process(target=print)\n"
              "multiprocessing.get_context('fork')\n"
              "cf.ProcessPoolExecutor(2, mp_context=multiprocessing.get_context('spawn'))\n"
              "multiprocessing.get_context('spawn').Process(target=print)\n")
    found = list(pool_problems(source, "m.py"))
    assert [p.split(":")[1] for p in found] == ["4", "5", "6", "7"], found


def test_the_ground_floor_states_the_same_minimum_as_pyproject():
    import utils

    assert ".".join(map(str, utils.MINIMUM_PYTHON)) == floor_of(requires_python())


@pytest.mark.parametrize("version", [(3, 10, 13, "final", 0), (2, 7, 18)])
def test_an_older_interpreter_is_refused_in_one_line_naming_both_versions(version):
    import utils

    with pytest.raises(ImportError) as caught:
        utils.check_python(version)
    message = str(caught.value)
    assert "needs Python >= 3.11" in message
    assert "this is Python " + ".".join(map(str, version[:3])) in message
    assert "\n" not in message


@pytest.mark.parametrize("version", [(3, 11, 0), (3, 12, 1), (3, 13, 0), (4, 0, 0)])
def test_a_supported_interpreter_passes(version):
    import utils

    assert utils.check_python(version) is None


@pytest.mark.parametrize("package", ["genotex", "tools", "download"])
def test_each_package_imports_the_ground_floor_before_anything_else(package):
    """So an old interpreter meets the check, not a missing module or new syntax."""
    tree = ast.parse((REPO_ROOT / package / "__init__.py").read_text(encoding="utf-8"))
    imports = [node for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom))
               and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]
    assert imports, package
    first = imports[0]
    assert isinstance(first, ast.Import) and [a.name for a in first.names] == ["utils"]
