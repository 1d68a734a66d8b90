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
from tests.genotex.demo.test_demo import clean_environment

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
    "python regress.py --scheduler": "needs a Dask scheduler; tests/genotex/regress covers "
                                     "a local Dask cluster",
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
    env: Dict[str, str] = {**clean_environment(), "FULL": str(full), "SCRATCH": str(scratch)}
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
