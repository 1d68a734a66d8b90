"""Benchmarks and the packages import no test module (issue 26).

Fixtures the benchmarks share with the tests live in :mod:`genotex.testing`; the
tests may import the package, never the other way round. Files are read with
:mod:`ast`, so an import inside a function or under ``if TYPE_CHECKING`` counts too.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Iterator, List, Tuple

import pytest

from tests.conftest import REPO_ROOT

FOLDERS = ("benchmarks", "utils", "tools", "download", "genotex")


def imported_modules(tree: ast.AST) -> Iterator[Tuple[int, str]]:
    """(line, absolute module name) of every import statement in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module


def imports_of_tests(path: Path) -> List[str]:
    """``path:line module`` of each import of ``tests`` or a module below it."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    return [f"{path.relative_to(REPO_ROOT)}:{line} {name}"
            for line, name in imported_modules(tree)
            if name == "tests" or name.startswith("tests.")]


def test_the_scan_finds_an_import_of_tests():
    """The check itself: each spelling of an import of a test module is caught."""
    source = ("import tests\nfrom tests.conftest import REPO_ROOT\n"
              "def f():\n    import tests.genotex.x as y\n"
              "from testsuite import z\nimport tests_other\n")
    tree = ast.parse(source)
    found = [name for _, name in imported_modules(tree)
             if name == "tests" or name.startswith("tests.")]
    assert found == ["tests", "tests.conftest", "tests.genotex.x"]


@pytest.mark.parametrize("folder", FOLDERS)
def test_folder_imports_no_test_module(folder):
    files = sorted((REPO_ROOT / folder).rglob("*.py"))
    assert files, f"{folder}: no Python file found"
    offenders = [hit for path in files for hit in imports_of_tests(path)]
    assert not offenders, "imports of test modules (move the fixture to genotex.testing):\n" \
        + "\n".join(offenders)
