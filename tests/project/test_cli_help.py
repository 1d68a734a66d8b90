"""Command lines answer ``--help`` without importing the numeric stack (issue 22).

``--help`` of a script should come back at once: a command parses its arguments before
it imports the heavy modules it runs with. Speed itself is measured, not tested
(``benchmarks/bench_cli_help.py``, figures in benchmarks/README.md); what is tested is
the property that makes it fast: after ``--help``, none of numpy, pandas, scipy or
scikit-learn is in ``sys.modules``. Every script of the checkout and every
``[project.scripts]`` entry point is checked, each in a fresh interpreter.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

from tests.conftest import REPO_ROOT, assert_snippet_runs
from tests.nested_venv import clean_environment

HEAVY = ("numpy", "pandas", "scipy", "sklearn")
SCRIPTS = ("regress.py", "eval.py", "run_agent.py", "generate_synthetic.py",
           "recompress_files.py", "download/download_geo.py", "download/download_tcga.py",
           "download/get_gene_synonyms.py", "download/build_task_info.py",
           "download/select_pairs.py", "download/manifest.py")
ENTRY_POINTS = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["project"]["scripts"]

PROBE = """
import json, runpy, sys
kind, target, name = sys.argv[1:4]
sys.argv = [name, "--help"]
code = None
try:
    if kind == "script":
        runpy.run_path(target, run_name="__main__")
    else:
        module, function = target.split(":")
        getattr(__import__(module, fromlist=[function]), function)()
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print(json.dumps({"code": code, "heavy": [m for m in %r if m in sys.modules]}),
      file=sys.stderr)
""" % (HEAVY,)


def probe(kind: str, target: str, name: str) -> dict:
    done = subprocess.run([sys.executable, "-c", PROBE, kind, target, name], cwd=REPO_ROOT,
                          env=clean_environment(), capture_output=True, text=True,
                          timeout=300)
    assert "usage:" in done.stdout, done.stdout + done.stderr
    result = json.loads(done.stderr.strip().splitlines()[-1])
    assert result["code"] in (0, None), done.stderr
    return result


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_help_imports_no_numeric_module(script):
    heavy = probe("script", script, script)["heavy"]
    assert not heavy, f"{script} --help imports {heavy}: import them after parsing"


@pytest.mark.parametrize("command", sorted(ENTRY_POINTS))
def test_entry_point_help_imports_no_numeric_module(command):
    heavy = probe("entry", ENTRY_POINTS[command], command)["heavy"]
    assert not heavy, f"{command} --help imports {heavy}: import them after parsing"


def test_the_probe_sees_a_heavy_import():
    """The check is not vacuous: a script that imports numpy first is caught."""
    done = subprocess.run([sys.executable, "-c", PROBE, "entry", "numpy:show_config", "x"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert json.loads(done.stderr.strip().splitlines()[-1])["heavy"][0] == "numpy"


def test_the_synthetic_package_exports_resolve_in_any_order():
    """genotex.synthetic imports its exports on first use (so that its light ``options``
    module serves --help); ``generate`` is the function whichever name is asked first."""
    code = ("import sys, genotex.synthetic.options\n"
            "assert 'numpy' not in sys.modules\n"
            "from genotex.synthetic import Sources\n"
            "from genotex.synthetic import generate, Plan, load_plan\n"
            "module = sys.modules['genotex.synthetic.generate']\n"
            "from genotex.synthetic import generate as again\n"
            "assert callable(generate) and again is generate is module.generate\n"
            "assert Sources is module.Sources and Plan.__name__ == 'Plan'\n")
    assert_snippet_runs(code)
