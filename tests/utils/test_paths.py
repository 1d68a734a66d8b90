"""Path resolution: explicit argument > environment variable > default."""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from utils import paths


def test_defaults_live_under_repo_root():
    resolved = paths.resolve_paths(environ={})
    root = Path(paths.__file__).resolve().parent.parent
    assert resolved.root == root
    assert resolved.input == root / "input"
    assert resolved.output == root / "output"
    assert resolved.metadata == root / "metadata"
    assert resolved.gene_synonyms == root / "metadata" / "gene_synonym.json"
    assert resolved.task_info == root / "metadata" / "task_info.json"
    assert resolved.preprocess == root / "output" / "preprocess"
    assert resolved.regress == root / "output" / "regress"


def test_environment_overrides_defaults(tmp_path):
    env = {paths.ENV_ROOT: str(tmp_path / "r"), paths.ENV_OUTPUT: str(tmp_path / "o"),
           paths.ENV_METADATA: str(tmp_path / "m")}
    resolved = paths.resolve_paths(environ=env)
    assert resolved.root == tmp_path / "r"
    assert resolved.input == tmp_path / "r" / "input"
    assert resolved.output == tmp_path / "o"
    # metadata files follow the metadata override
    assert resolved.task_info == tmp_path / "m" / "task_info.json"


def test_explicit_arguments_beat_environment(tmp_path):
    env = {paths.ENV_INPUT: str(tmp_path / "env_in"),
           paths.ENV_TASK_INFO: str(tmp_path / "env_task.json")}
    resolved = paths.resolve_paths(input_dir=tmp_path / "cli_in",
                                   task_info=tmp_path / "cli_task.json", environ=env)
    assert resolved.input == tmp_path / "cli_in"
    assert resolved.task_info == tmp_path / "cli_task.json"


def test_independent_of_working_directory(tmp_path, monkeypatch):
    before = paths.resolve_paths(environ={})
    monkeypatch.chdir(tmp_path)
    assert paths.resolve_paths(environ={}) == before


def test_cli_flags_round_trip(tmp_path):
    parser = argparse.ArgumentParser()
    paths.add_path_arguments(parser, ("root", "input", "output", "metadata",
                                      "gene_synonyms", "task_info"))
    args = parser.parse_args(["--output-dir", str(tmp_path / "out"),
                              "--gene-synonyms", str(tmp_path / "syn.json")])
    resolved = paths.paths_from_args(args)
    assert resolved.output == tmp_path / "out"
    assert resolved.gene_synonyms == tmp_path / "syn.json"
    help_text = parser.format_help()
    for flag in ("--root", "--input-dir", "--output-dir", "--metadata-dir",
                 "--gene-synonyms", "--task-info"):
        assert flag in help_text


def test_lock_dir_is_per_user_and_outside_any_tree(tmp_path):
    assert paths.lock_dir({paths.ENV_LOCK_DIR: str(tmp_path / "locks")}) == tmp_path / "locks"
    runtime = tmp_path / "run"
    runtime.mkdir()
    assert paths.lock_dir({paths.ENV_RUNTIME_DIR: str(runtime)}) == runtime / "genotex-locks"
    # A runtime folder that does not exist is not used; the system temp folder is.
    fallback = paths.lock_dir({paths.ENV_RUNTIME_DIR: str(tmp_path / "missing")})
    assert fallback.parent == Path(tempfile.gettempdir()).resolve()
    assert fallback.name == f"genotex-locks-{os.getuid()}"


def test_commands_exit_2_with_one_line_when_no_checkout_is_found(tmp_path, monkeypatch,
                                                                 capsys):
    """Outside any checkout (cwd and code location), a default needing the root."""
    monkeypatch.delenv(paths.ENV_ROOT, raising=False)
    monkeypatch.setattr(paths, "find_checkout", lambda start: None)
    monkeypatch.setattr("sys.argv", ["genotex-demo-command"])

    @paths.exits_when_root_is_missing
    def main(argv=None):
        return 0 if argv else len(str(paths.resolve_paths().output))

    assert main(["given"]) == 0
    assert main() == 2
    err = capsys.readouterr().err
    assert err.startswith("genotex-demo-command: error: ")
    assert "not inside a GenoTEX checkout" in err and err.count("\n") == 1
