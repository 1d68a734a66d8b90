"""What the documentation names exists: paths, command-line flags, benchmark scripts.

Three classes of claim are checked mechanically over the README, the datasheet, the
benchmark figures and every page of ``docs/``:

* every repository path quoted in backticks (``genotex/croissant.py``,
  ``tests/genotex/demo/test_demo.py``) is a file or folder of the checkout, every
  dotted name of the four packages (``utils.problems.load_task_info``) resolves, and
  every test file or test function named (``test_pairs.py``) exists;
* every ``--flag`` of a command ``python <script> ...`` or ``python -m <module> ...`` of
  this repository is an option of that script's parser;
* every benchmark script starts as ``python benchmarks/<name>.py`` from any working
  directory (it finds the packages of its own checkout);
* every repository file a command's ``--help`` names (``docs/statistics.md``,
  ``genotex/recompress.py``) exists, and every flag of a command has a help text.

Old paths kept on purpose (benchmark history: "``X``, now ``Y``") and the few paths that
name something outside the checkout are listed in :data:`NOT_PATHS` with the reason.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import runpy
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import pytest

from tests.conftest import REPO_ROOT
from tests.nested_venv import clean_environment

PAGES = [REPO_ROOT / "README.md", REPO_ROOT / "datasheet.md",
         REPO_ROOT / "benchmarks" / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]

NOT_PATHS = {
    "output/synthetic_truth.json": "docs/croissant.md: where trees generated before the "
                                   "truth moved to metadata/ keep it (still read)",
}
NOT_MODULES = {
    "score.py": "the development split's own scorer, in ../shared/data/clinical_dev",
    "keyword_baseline.py": "the development split's baseline, in ../shared/data/clinical_dev",
}

FLAG = re.compile(r"(?<![\w-])(--[a-z][\w-]*)")
COMMAND = re.compile(r"\bpython3? +(?:-m +([\w.]+)|([\w./-]+\.py))\b([^`|;&#)]*)")


def page_lines(page: Path) -> Iterator[Tuple[int, str]]:
    """(line number, line) of ``page``, a backslash-continued line joined to the next."""
    lines = page.read_text(encoding="utf-8").splitlines()
    number = 0
    while number < len(lines):
        start, line = number + 1, lines[number]
        while line.endswith("\\") and number + 1 < len(lines):
            number += 1
            line = line[:-1] + " " + lines[number].strip()
        yield start, line
        number += 1


def tracked_paths() -> Set[str]:
    """Every tracked file of the checkout and every folder above one."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=REPO_ROOT, capture_output=True,
                           check=True).stdout.decode("utf-8").split("\0")
    found = set()
    for name in filter(None, files):
        parts = name.split("/")
        found.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return found


def quoted_paths(line: str, tops: Set[str]) -> Iterator[str]:
    """Repository paths quoted in backticks on ``line``: a token with a slash under a
    top-level entry of the checkout, without placeholders or globs; a path followed by
    ", now `...`" is history and skipped."""
    for match in re.finditer(r"`([^`\s]+)`", line):
        token, history = match.group(1), line.startswith(", now `", match.end())
        path = token.split(":")[0].rstrip("/.,;")
        if history or "/" not in path or re.search(r"[<>*${}\[\]]|\.\.\.", path):
            continue
        if path.split("/")[0] in tops:
            yield path


def script_file(module: str, script: str) -> Path | None:
    """The file a ``python -m module`` or ``python script`` command of the docs runs, when
    it is one of this repository's."""
    if script:
        path = REPO_ROOT / script
        return path if path.is_file() else None
    base = REPO_ROOT / module.replace(".", "/")
    for path in (base / "__main__.py", base.with_suffix(".py")):
        if path.is_file():
            return path
    return None


def parser_options(path: Path) -> Set[str]:
    """The option strings a script accepts: from its ``build_parser()`` when it has one
    (the CLIs), else from the ``add_argument("--x", ...)`` calls in its source."""
    source = path.read_text(encoding="utf-8")
    if "def build_parser" in source or "import build_parser" in source \
            or "build_parser,\n" in source:
        namespace = runpy.run_path(str(path), run_name="docs_check")
        parser: argparse.ArgumentParser = namespace["build_parser"]()
        return {option for action in parser._actions for option in action.option_strings}
    options = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == "add_argument":
            options.update(arg.value for arg in node.args
                           if isinstance(arg, ast.Constant) and isinstance(arg.value, str))
    return options


def documented_commands() -> Iterator[Tuple[str, Path, List[str]]]:
    """(where, script file, flags) of every command of a repository script in the docs."""
    for page in PAGES:
        for number, line in page_lines(page):
            for match in COMMAND.finditer(line):
                path = script_file(match.group(1) or "", match.group(2) or "")
                if path is not None:
                    yield (f"{page.relative_to(REPO_ROOT)}:{number}", path,
                           FLAG.findall(match.group(3)))


def test_the_scanners_see_paths_flags_and_history():
    """The checks are not vacuous: each extractor finds what it must and skips the rest."""
    line = ("see `genotex/croissant.py`, `tools/fdr.py`, now `tools/statistics/fdr.py`, "
            "`code/<Trait>/x.ipynb`, `tests/a.py::test_b`, `tests/b.py:main`, "
            "`elsewhere/x.py`, `GSE1`")
    assert list(quoted_paths(line, {"genotex", "tools", "code", "tests"})) == [
        "genotex/croissant.py", "tools/statistics/fdr.py", "tests/a.py", "tests/b.py"]
    text = "`python regress.py --force -j 2` and python -m utils.schemas --out /tmp/x # --no"
    found = [(m.group(1), m.group(2), FLAG.findall(m.group(3)))
             for m in COMMAND.finditer(text)]
    assert found == [(None, "regress.py", ["--force"]), ("utils.schemas", None, ["--out"])]
    assert "--traits" in parser_options(REPO_ROOT / "regress.py")
    assert "--skip-full-set" in parser_options(REPO_ROOT / "benchmarks" / "bench_regress.py")


def test_every_quoted_repository_path_exists():
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    tracked = tracked_paths()
    tops = {path for path in tracked if "/" not in path}
    missing = [f"{page.relative_to(REPO_ROOT)}:{number} {path}"
               for page in PAGES for number, line in page_lines(page)
               for path in quoted_paths(line, tops)
               if path not in tracked and path not in NOT_PATHS]
    assert not missing, "paths the docs name that are not in the checkout:\n" \
        + "\n".join(missing)
    stale = [path for path in NOT_PATHS if path in tracked]
    assert not stale, f"listed as absent but tracked: {stale}"


def resolves(name: str) -> bool:
    """Whether a dotted name is a module or an attribute chain of one."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:end]))
        except ImportError:
            continue
        for part in parts[end:]:
            if not hasattr(found, part):
                return False
            found = getattr(found, part)
        return True
    return False


def test_every_quoted_package_name_resolves():
    quoted = [(f"{page.relative_to(REPO_ROOT)}:{number}", name)
              for page in PAGES for number, line in page_lines(page)
              for name in re.findall(r"`((?:utils|tools|genotex|download)(?:\.\w+)+)", line)]
    assert len(quoted) > 50, f"only {len(quoted)} names found: the scan is broken"
    unknown = [f"{where} {name}" for where, name in quoted if not resolves(name)]
    assert not unknown, "names the docs quote that do not exist:\n" + "\n".join(unknown)


def test_every_named_python_file_exists():
    """A module named by its file name alone (`` `cohort_cache.py` ``) is a file of the
    checkout, whatever its folder."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to list the tracked files")
    names = {path.rsplit("/", 1)[-1] for path in tracked_paths()}
    missing = [f"{page.relative_to(REPO_ROOT)}:{number} {name}"
               for page in PAGES for number, line in page_lines(page)
               for name in re.findall(r"`(\w+\.py)`", line)
               if name not in names and name not in NOT_MODULES]
    assert not missing, "Python files the docs name that do not exist:\n" + "\n".join(missing)


def test_every_named_test_exists():
    sources = [path.read_text(encoding="utf-8") for path in (REPO_ROOT / "tests").rglob("*.py")]
    functions = {name for text in sources for name in re.findall(r"def (test_\w+)", text)}
    files = {path.name for path in (REPO_ROOT / "tests").rglob("test_*.py")}
    named = [(f"{page.relative_to(REPO_ROOT)}:{number}", name)
             for page in PAGES for number, line in page_lines(page)
             for name in re.findall(r"`(test_\w+(?:\.py)?)`", line)]
    missing = [f"{where} {name}" for where, name in named
               if name not in (files if name.endswith(".py") else functions)]
    assert not missing, "tests the docs name that do not exist:\n" + "\n".join(missing)


def test_every_documented_flag_is_an_option_of_its_script():
    options: Dict[Path, Set[str]] = {}
    unknown, checked = [], 0
    for where, path, flags in documented_commands():
        if path not in options:
            options[path] = parser_options(path)
        for flag in flags:
            checked += 1
            if flag not in options[path]:
                unknown.append(f"{where} {path.relative_to(REPO_ROOT)} {flag}")
    assert checked > 100, f"only {checked} flags found: the scan is broken"
    assert not unknown, "flags the docs give that the script does not accept:\n" \
        + "\n".join(unknown)


HELP_PATH = re.compile(r"\b(?:docs|utils|tools|genotex|download|examples|benchmarks|schemas)"
                       r"/[\w./-]*\w\.(?:py|md|json|toml|tsv)\b")


def command_modules() -> List[str]:
    """Every module of the packages (and examples/) that defines a ``build_parser``."""
    found = []
    for folder in ("genotex", "download", "utils", "tools", "examples"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            if "def build_parser" in path.read_text(encoding="utf-8"):
                found.append(".".join(path.relative_to(REPO_ROOT).with_suffix("").parts))
    return found


def test_every_file_a_help_text_names_exists():
    modules = command_modules()
    assert "genotex.cli.recompress" in modules and "utils.schemas.__main__" in modules
    missing = []
    for name in modules:
        module = importlib.import_module(name)
        text = module.build_parser().format_help() + (module.__doc__ or "")
        missing += [f"{name}: {path}" for path in sorted(set(HELP_PATH.findall(text)))
                    if not (REPO_ROOT / path).is_file()]
    assert not missing, "files named by --help that do not exist:\n" + "\n".join(missing)


def test_every_flag_of_every_command_has_help():
    """``--help`` explains every flag: no option of a command line without a help text."""
    silent = [f"{name}: {'/'.join(action.option_strings)}" for name in command_modules()
              for action in importlib.import_module(name).build_parser()._actions
              if action.option_strings and not action.help]
    assert not silent, "flags without help: " + ", ".join(silent)


STARTER = """
import runpy, sys
script = sys.argv[1]
sys.path[0] = script.rsplit('/', 1)[0]  # as for ``python script``
runpy.run_path(script, run_name='not_main')
"""


@pytest.mark.parametrize("script", sorted(p.name for p in
                                          (REPO_ROOT / "benchmarks").glob("*.py")))
def test_benchmark_script_starts_from_another_directory(script, tmp_path):
    """Its imports resolve as ``python benchmarks/<script>`` run elsewhere does them
    (``main`` is not run: the module is loaded under another name)."""
    done = subprocess.run([sys.executable, "-c", STARTER,
                           str(REPO_ROOT / "benchmarks" / script)], cwd=tmp_path,
                          env=clean_environment(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
