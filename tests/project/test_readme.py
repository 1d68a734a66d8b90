"""The README holds (issue 9): its commands run, and leave the checkout unchanged.

Every command of the README's ``bash`` blocks must be listed below with what this test
does with it:

* ``RUN``: run in a fresh clone of this checkout, the scratch folders ``$SCRATCH`` and
  ``$FULL`` pointed at temporary folders; afterwards ``git status --ignored`` of the
  clone must show nothing new (no file written into the checkout, not even an ignored
  one) and the scratch outputs must exist;
* ``NOT_RUN``: needs the network, a running cluster or a model server, or rewrites the
  whole demo (each with its reason; the behaviour is covered by the tests named).

A README command that is in neither list fails the test, so the two stay in sync.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from typing import Dict, List

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA
from tests.nested_venv import clean_environment, command_path

README = REPO_ROOT / "README.md"
FIRST_COMMANDS = (
    "python -m pip install -q -r requirements.txt && python regress.py --force",
    "python -m pip install -q -r requirements-dev.txt && python -m pytest -n 2",
)

RUN = [
    "python regress.py --force",
    "python regress.py",
    "python regress.py -j 2",
    'python regress.py --traits Hypertension --problems "Heart_rate|Age"',
    "python regress.py --force --regress-dir $SCRATCH/regress",
    "python eval.py -p examples/baseline_prediction",
    "python eval.py --pred-dir examples/baseline_prediction --ref-dir output --tasks "
    "preprocessing --preprocess-subtasks gene linked --report $SCRATCH/report.json",
    "python eval.py -p examples/baseline_prediction -t analysis -g metadata/gene_synonym.json",
    "python eval.py -p baseline=examples/baseline_prediction reference=output "
    "--html $SCRATCH/compare.html",
    "python eval.py -p examples/baseline_prediction --legacy",
    "python run_agent.py --method rules --run-dir $SCRATCH/runs/rules",
    "python eval.py -p $SCRATCH/runs/rules/prediction",
    "python run_agent.py --method random --seed 7 --run-dir $SCRATCH/runs/random",
    "python run_agent.py --method random --repeats 3 --run-dir $SCRATCH/runs/random3",
    "GENOTEX_OUTPUT=$SCRATCH/output jupyter nbconvert --to notebook --execute "
    "code/Heart_rate/GSE9100501.ipynb --output $SCRATCH/GSE9100501.ipynb",
    "cmp $SCRATCH/output/preprocess/Heart_rate/GSE9100501.csv "
    "output/preprocess/Heart_rate/GSE9100501.csv",
    "python download/get_gene_synonyms.py --gene-info Homo_sapiens.gene_info.gz "
    "--output-dir $FULL/metadata",
    "python download/select_pairs.py --threshold 0.1 --metadata-dir $FULL/metadata",
    "python download/manifest.py --generate --metadata-dir $FULL/metadata --input-dir "
    "$FULL/input",
    "python generate_synthetic.py --demo-plan --out $SCRATCH/syn_input",
    "python recompress_files.py --dry-run",
    "python recompress_files.py",
    "python -m genotex.cli.croissant --validate",
]

NOT_RUN = {
    "python -m pip install": "set-up; the suite itself runs in the installed environment",
    "python -m pytest": "the test suite (this test is part of it)",
    "export ": "environment settings",
    "python regress.py --scheduler": "needs a Dask cluster; tests/genotex/regress/"
                                     "test_dask_recipe.py runs the documented recipe",
    "python run_agent.py --method llm-no-data": "needs a model server; tests/genotex/methods "
                                                "use a scripted local one",
    "python run_agent.py --method genoagent": "needs a model server; tests/genotex/methods "
                                              "use a scripted local one",
    "python run_agent.py --replay": "replays a model run; tests/genotex/cli/test_agent_scale.py "
                                    "replays one with the scripted server stopped",
    "python download/build_task_info.py": "needs an Open Targets release; tests/download",
    "python download/download_geo.py": "needs NCBI; tests/download use a local server",
    "python download/download_tcga.py": "needs UCSC Xena; tests/download use a local server",
    "python -m genotex.cli.demo": "rewrites the whole demo (minutes); tests/genotex/demo "
                                  "rebuild and compare it part by part",
}


def readme_commands(text: str) -> List[str]:
    """The commands of the README's bash blocks, continuation lines joined, comments cut."""
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", "", block)
        for line in joined.splitlines():
            command = re.sub(r"\s+#.*$", "", line).strip()
            if command and not command.startswith("#"):
                commands.append(re.sub(r"\s+", " ", command))
    return commands


def test_every_readme_command_is_checked():
    commands = readme_commands(README.read_text(encoding="utf-8"))
    assert commands[:2] == list(FIRST_COMMANDS), "the README must open with the two commands"
    unchecked = [c for c in commands[2:]
                 if c not in RUN and not any(c.startswith(p) for p in NOT_RUN)]
    assert not unchecked, f"README commands this test does not know: {unchecked}"
    missing = [c for c in RUN if c not in commands and c not in FIRST_COMMANDS[0]]
    assert not missing, f"commands listed here but no longer in the README: {missing}"


def section(text: str, heading: str) -> str:
    """The body of a ``## heading`` section of a Markdown text."""
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_the_first_screen_says_how_to_score_a_method():
    """Right after the two commands: the tree a method writes (with formats and the
    schemas), then one eval.py command."""
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings[0] == "Score your own method", headings
    assert text.index("## Score your own method") < text.index(FIRST_COMMANDS[1]) + 1500
    score = section(text, "Score your own method")
    for part in ("preprocess/<Trait>/", "cohort_info.json", "gene_data/<cohort>.csv",
                 "clinical_data/<cohort>.csv", "<cohort>.csv", "regress/<Trait>/",
                 "significant_genes_condition_<C>.json", "(schemas/)", "docs/formats.md"):
        assert part in score, part
    assert readme_commands(score) == ["python eval.py -p examples/baseline_prediction"]
    assert "Methods: `run_agent.py`" in headings and "docs/methods.md" in section(
        text, "Methods: `run_agent.py`")


def test_readme_and_docs_cite_docs_not_the_spec():
    """Rules are cited by the docs page that holds them (the SPEC is not in the
    repository), in the pages, the Croissant description and the published JSON Schemas;
    every relative link of the README leads to a file."""
    pages = [README, REPO_ROOT / "datasheet.md", REPO_ROOT / "benchmarks" / "README.md",
             REPO_ROOT / "metadata.json", *sorted((REPO_ROOT / "docs").glob("*.md")),
             *sorted((REPO_ROOT / "schemas").glob("*.json"))]
    citing = [f"{page.name}:{n}" for page in pages
              for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1)
              if re.search(r"\bSPEC\b|Appendix[ -]A", line)]
    assert not citing, citing
    text = README.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert (REPO_ROOT / target).exists(), target


def test_readme_timings_are_dated():
    text = README.read_text(encoding="utf-8")
    assert re.search(r"Measured on \d{4}-\d{2}-\d{2}", text)
    assert not re.search(r"[A-Z]+_(TIME|DETAIL|ON)\b", text), "unfilled placeholder"


def test_no_unfilled_placeholder_line():
    """A line that is nothing but an upper-case name (``QUIET_HELP_TABLE``) is a figure
    still to be measured, in the README or the benchmark figures."""
    for page in (README, REPO_ROOT / "benchmarks" / "README.md"):
        lines = page.read_text(encoding="utf-8").splitlines()
        found = [f"{page.name}:{n}" for n, line in enumerate(lines, 1)
                 if re.fullmatch(r"[A-Z][A-Z0-9]*(_[A-Z0-9]+)+", line.strip())]
        assert not found, f"unfilled placeholder: {found}"


def test_ci_runs_the_readme_commands_in_a_fresh_venv():
    """.ci/run makes a venv from the base interpreter, activates it, then runs the two
    commands exactly as the README gives them, and checks the demo outputs."""
    lines = [line.strip() for line in
             (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()]
    made = next(i for i, line in enumerate(lines) if '-m venv' in line)
    activated = next(i for i, line in enumerate(lines)
                     if line.startswith("source") and "bin/activate" in line)
    first, second = lines.index(FIRST_COMMANDS[0]), lines.index(FIRST_COMMANDS[1])
    assert made < activated < first < second
    assert any("_base_executable" in line for line in lines[:made])
    assert any("git status --porcelain -- output" in line for line in lines[first:second])


def git_state(clone: Path) -> List[str]:
    status = subprocess.run(["git", "status", "--porcelain", "--ignored",
                             "--untracked-files=all"], cwd=clone, capture_output=True,
                            text=True, check=True).stdout.splitlines()
    return [line for line in status if "__pycache__" not in line]


@pytest.mark.slow
def test_readme_commands_leave_a_fresh_clone_unchanged(tmp_path):
    if not (REPO_ROOT / ".git").exists():
        pytest.skip("needs a git checkout to clone")
    gene_info = SHARED_DATA / "genes" / "Homo_sapiens.gene_info.gz"
    if not gene_info.is_file():
        pytest.skip(f"real test data not available: {gene_info}")
    clone, scratch, full = tmp_path / "clone", tmp_path / "scratch", tmp_path / "full"
    subprocess.run(["git", "clone", "-q", str(REPO_ROOT), str(clone)], check=True)
    shutil.copytree(clone / "metadata", full / "metadata")
    shutil.copytree(clone / "input", full / "input")
    before = git_state(clone)
    shutil.copy(gene_info, clone / "Homo_sapiens.gene_info.gz")  # the README's relative path
    env: Dict[str, str] = clean_environment({"FULL": str(full), "SCRATCH": str(scratch),
                                             "PATH": command_path(tmp_path / "bin")})
    env["GENOTEX_LOCK_DIR"] = str(tmp_path / "locks")
    for command in [FIRST_COMMANDS[0].split("&& ", 1)[1], *RUN[1:]]:
        done = subprocess.run(command, shell=True, cwd=clone, env=env, capture_output=True,
                              text=True, timeout=900)
        assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    (clone / "Homo_sapiens.gene_info.gz").unlink()
    assert git_state(clone) == before, "README commands changed the checkout"
    for made in ("regress", "report.json", "compare.html", "runs/rules/prediction",
                 "runs/random/prediction", "runs/random3/repeat-3/prediction",
                 "GSE9100501.ipynb", "syn_input"):
        assert (scratch / made).exists(), made
    assert (full / "metadata" / "gene_synonym.json").stat().st_size > 1_000_000
    assert (full / "metadata" / "input_manifest.sha256").is_file()
