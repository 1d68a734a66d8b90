"""The layers of docs/architecture.md hold: every import points down, no package cycles.

Layers, lowest first (a module may import its own package and lower layers only):

0. ``utils``: paths, io, errors, file-format schemas, problems, cohort selection,
   metrics, logging, precision; ``utils.io`` imports no other part of ``utils`` but
   errors, input_safety and paths;
1. ``tools``: the analysis library; its subpackages ``tools.preprocess`` and
   ``tools.statistics`` do not import each other;
2. ``download``: fetching inputs and building metadata; it reads and writes through
   ``utils.io`` and imports nothing from ``tools``;
3. ``genotex``: applications (regress runner, evaluator, synthetic and demo builders,
   automated methods) and their command lines (``genotex.cli``, the top); they do not
   import ``download`` (the data builders): what both need (HTTP) is in ``utils.io``.

``benchmarks/`` import no test module. No module imports another that imports it back,
directly or through others: there is no import circle at all.

The graph is read from the source with :mod:`ast` (imports inside functions and under
``TYPE_CHECKING`` count too), so a lazy import cannot hide a cycle.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

from tests.conftest import REPO_ROOT

LAYERS = {"utils": 0, "tools": 1, "download": 2, "genotex": 3}
SIBLINGS = [("tools.preprocess", "tools.statistics")]
#: Imports that layering alone allows but the floors forbid: (importer package, target).
FORBIDDEN = [("download", "tools"), ("genotex", "download")]
#: What the I/O floor may import from the rest of ``utils``.
IO_MAY_IMPORT = {"utils.errors", "utils.input_safety", "utils.paths"}


def python_modules() -> Iterator[Tuple[str, Path]]:
    """``(dotted module name, path)`` of every module of the four packages."""
    for package in LAYERS:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            yield ".".join(parts), path


def imported_modules(path: Path, module: str) -> Set[str]:
    """Absolute names of the project modules ``path`` imports (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found: Set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base if is_package else base[:-1]
                base = base[:len(base) - (node.level - 1)]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return {name for name in found if name.split(".")[0] in LAYERS}


def unit(module: str) -> str:
    """The package a module belongs to for the cycle check (subpackage depth 2)."""
    parts = module.split(".")
    if parts[0] == "utils":
        return "utils"
    return ".".join(parts[:2]) if len(parts) > 1 else parts[0]


def known_modules() -> Dict[str, Path]:
    return dict(python_modules())


def import_graph() -> Dict[str, Set[str]]:
    """Module -> the existing project modules (or packages) it imports."""
    modules = known_modules()
    graph: Dict[str, Set[str]] = {}
    for module, path in modules.items():
        targets = set()
        for name in imported_modules(path, module):
            # "from pkg import name" may name an attribute, not a module: keep the longest
            # prefix that is a known module or package
            parts = name.split(".")
            while parts and ".".join(parts) not in modules:
                parts.pop()
            if parts:
                targets.add(".".join(parts))
        graph[module] = targets - {module}
    return graph


def test_every_import_points_down_the_layers():
    upward: List[str] = []
    for module, targets in import_graph().items():
        layer = LAYERS[module.split(".")[0]]
        for target in targets:
            if LAYERS[target.split(".")[0]] > layer:
                upward.append(f"{module} imports {target}")
    assert not upward, "imports that reach up a layer:\n" + "\n".join(sorted(upward))


def test_sibling_subpackages_do_not_import_each_other():
    crossing = []
    for module, targets in import_graph().items():
        for left, right in SIBLINGS:
            for a, b in ((left, right), (right, left)):
                if (module == a or module.startswith(a + ".")) and any(
                        t == b or t.startswith(b + ".") for t in targets):
                    crossing.append(f"{module} -> {b}")
    assert not crossing, "\n".join(sorted(crossing))


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def forbidden_imports(graph: Dict[str, Set[str]]) -> Set[Tuple[str, str]]:
    """``(module, target)`` of every import :data:`FORBIDDEN` names."""
    return {(module, target) for module, targets in graph.items() for target in targets
            for importer, package in FORBIDDEN
            if _inside(module, importer) and _inside(target, package)}


def test_download_does_not_import_tools_and_genotex_not_download():
    found = forbidden_imports(import_graph())
    assert not found, "forbidden imports:\n" + "\n".join(
        f"{module} imports {target}" for module, target in sorted(found))


def benchmark_test_imports() -> List[str]:
    """``benchmarks/<file> imports <module>`` for every test module a benchmark imports."""
    test_names = {path.stem for path in (REPO_ROOT / "tests").glob("*.py")} | {"tests"}
    found = []
    for path in sorted((REPO_ROOT / "benchmarks").glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            names = ([alias.name for alias in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom)
                     and not node.level else [])
            found += [f"benchmarks/{path.name} imports {name}" for name in names
                      if name.split(".")[0] in test_names]
    return sorted(found)


def test_benchmarks_import_no_test_module():
    found = benchmark_test_imports()
    assert not found, "\n".join(found)


def test_the_io_floor_imports_only_the_base_of_utils():
    reaching = [f"{module} imports {target}" for module, targets in import_graph().items()
                if _inside(module, "utils.io") for target in targets
                if not _inside(target, "utils.io") and target not in IO_MAY_IMPORT]
    assert not reaching, "\n".join(sorted(reaching))


def test_the_forbidden_import_check_sees_them():
    graph = {"download.geo": {"tools.preprocess.soft", "utils.io"},
             "genotex.methods.inputs": {"download.tcga"}, "tools.x": {"utils.io"}}
    assert forbidden_imports(graph) == {("download.geo", "tools.preprocess.soft"),
                                        ("genotex.methods.inputs", "download.tcga")}


def find_cycle(edges: Dict[str, Set[str]]) -> List[str]:
    """One cycle of a directed graph (empty when there is none)."""
    state: Dict[str, int] = {}
    stack: List[str] = []

    def visit(node: str) -> List[str]:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state:
                cycle = visit(nxt)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return []

    for node in sorted(edges):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return []


def test_no_cycles_between_packages():
    edges: Dict[str, Set[str]] = defaultdict(set)
    for module, targets in import_graph().items():
        for target in targets:
            if unit(module) != unit(target):
                edges[unit(module)].add(unit(target))
    cycle = find_cycle(edges)
    assert not cycle, "package cycle: " + " -> ".join(cycle)


def test_no_module_imports_another_that_imports_it_back():
    cycle = find_cycle(import_graph())
    assert not cycle, "import circle: " + " -> ".join(cycle)


def test_the_cycle_finder_finds_cycles():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_the_graph_sees_lazy_and_relative_imports(tmp_path):
    source = tmp_path / "mod.py"
    source.write_text("from typing import TYPE_CHECKING\n"
                      "if TYPE_CHECKING:\n    from download.fetch import HttpClient\n"
                      "def f():\n    from tools.statistics import lasso\n"
                      "from .sibling import x\n")
    found = imported_modules(source, "genotex.regress.mod")
    assert {"tools.statistics", "tools.statistics.lasso", "genotex.regress.sibling",
            "download.fetch"} <= found
