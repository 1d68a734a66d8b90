"""Two clones, one environment (issue 9): work done in clone B never touches clone A.

The worst case the issue reports: clone A is installed into the environment in
editable mode (``pip install -e A``), then a user works in clone B with the same
Python. ``regress.py`` run in B, and a notebook run from ``B/code/<Trait>/``, must
read and write B's trees only (the repository root comes from the working tree,
and B's own scripts and notebooks import B's library).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path
from typing import Dict

import nbformat
import pytest

from tests.conftest import REPO_ROOT
from tests.nested_venv import check_build_requirements, clean_environment, nested_venv, pip

pytestmark = pytest.mark.slow

NOTEBOOK = Path("code") / "Heart_rate" / "GSE9100501.ipynb"
PROBE = "\nimport tools, utils.paths\nprint('LIBRARY', tools.__file__)\n" \
        "print('ROOT', utils.paths.resolve_paths().root)\n"


def tree_state(folder: Path) -> Dict[str, tuple]:
    """Relative path -> (size, mtime_ns, sha256) of every file below ``folder``."""
    return {p.relative_to(folder).as_posix():
            (p.stat().st_size, p.stat().st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
            for p in sorted(folder.rglob("*")) if p.is_file()}


def clone(target: Path) -> Path:
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(target)], check=True)
    return target


@pytest.fixture(scope="module")
def two_clones(tmp_path_factory):
    """Clones A and B of this checkout's HEAD, and a venv with A installed editable."""
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to clone")
    base = tmp_path_factory.mktemp("clones")
    clone_a, clone_b = clone(base / "A"), clone(base / "B")
    check_build_requirements()  # pip install -e builds with this environment's setuptools
    python = nested_venv(base / "venv")
    pip(python, "--no-build-isolation", "-e", str(clone_a), cwd=base)
    return clone_a, clone_b, python


def run(python: Path, args, cwd: Path) -> subprocess.CompletedProcess:
    done = subprocess.run([str(python), *map(str, args)], cwd=cwd, env=clean_environment(),
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_editable_install_leaves_the_clone_clean(two_clones):
    """pip install -e builds outside the checkout (build_backend/genotex_build.py)."""
    clone_a, _, _ = two_clones
    status = subprocess.run(["git", "status", "--porcelain", "--ignored",
                             "--untracked-files=all"], cwd=clone_a, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    assert [line for line in status if "__pycache__" not in line] == [], status


def test_clone_a_is_what_the_environment_imports_elsewhere(two_clones, tmp_path):
    clone_a, _, python = two_clones
    done = run(python, ["-c", "import tools; print(tools.__file__)"], tmp_path)
    assert done.stdout.strip().startswith(str(clone_a)), done.stdout


def test_regress_in_clone_b_writes_clone_b_only(two_clones):
    clone_a, clone_b, python = two_clones
    before_a = tree_state(clone_a / "output")
    stale = clone_b / "output" / "regress" / "Heart_rate"
    for path in stale.glob("*.json"):
        path.unlink()
    run(python, ["regress.py", "--traits", "Heart_rate", "--no-progress"], clone_b)
    rebuilt = sorted(p.name for p in stale.glob("*.json"))
    assert rebuilt == sorted(p.name for p in (REPO_ROOT / "output/regress/Heart_rate").glob("*.json"))
    assert tree_state(clone_a / "output") == before_a


def test_notebook_in_clone_b_uses_clone_b(two_clones):
    """A notebook run from ``B/code/<Trait>/`` (Jupyter's working directory) imports B's
    library and writes B's output tree, although A is installed."""
    clone_a, clone_b, python = two_clones
    before_a = tree_state(clone_a / "output")
    notebook = nbformat.read(str(clone_b / NOTEBOOK), as_version=4)
    script = "\n\n".join(c.source for c in notebook.cells if c.cell_type == "code")
    script = "\n".join(line for line in script.splitlines()
                       if not line.lstrip().startswith(("%", "!"))) + PROBE
    runnable = clone_b / NOTEBOOK.parent / "notebook_as_script.py"
    runnable.write_text(script, encoding="utf-8")
    linked = clone_b / "output" / "preprocess" / "Heart_rate" / "GSE9100501.csv"
    committed = linked.read_bytes()
    linked.unlink()
    done = run(python, [runnable.name], runnable.parent)
    lines = dict(line.split(" ", 1) for line in done.stdout.splitlines()
                 if line.startswith(("LIBRARY ", "ROOT ")))
    assert lines["LIBRARY"].startswith(str(clone_b)), lines
    assert lines["ROOT"] == str(clone_b.resolve()), lines
    assert linked.read_bytes() == committed  # rewritten in B, same bytes
    assert tree_state(clone_a / "output") == before_a
    info = json.loads((linked.parent / "cohort_info.json").read_text())
    assert info["GSE9100501"]["is_usable"] is True
