"""SHA-256 manifest of the input tree (download/manifest.py)."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from download import manifest as mf
from utils.errors import InputFileError, command_error

from tests.conftest import REPO_ROOT as _ROOT
REPO = _ROOT


def make_tree(root: Path) -> None:
    (root / "GEO" / "Asthma" / "GSE1").mkdir(parents=True)
    (root / "GEO" / "Asthma" / "GSE1" / "GSE1_series_matrix.txt.gz").write_bytes(b"abc")
    (root / "TCGA" / "TCGA_Lung_Cancer_(LUNG)").mkdir(parents=True)
    (root / "TCGA" / "TCGA_Lung_Cancer_(LUNG)" / "clin").write_bytes(b"x\ty\n")
    (root / "GEO" / "Sjögrens_Syndrome").mkdir()
    (root / "GEO" / "Sjögrens_Syndrome" / "a b.txt").write_bytes(b"")


def test_generate_writes_sha256sum_format(tmp_path):
    make_tree(tmp_path / "input")
    out = tmp_path / "meta" / "m.sha256"
    entries = mf.generate_manifest(tmp_path / "input", out, progress=False)
    lines = out.read_text(encoding="utf-8").splitlines()
    # sha256("abc") is the FIPS 180-2 test vector
    assert ("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  "
            "GEO/Asthma/GSE1/GSE1_series_matrix.txt.gz") in lines
    assert lines == sorted(lines, key=lambda line: line[66:])
    assert len(entries) == 3
    assert mf.read_manifest(out) == entries
    assert entries["GEO/Sjögrens_Syndrome/a b.txt"] == hashlib.sha256(b"").hexdigest()


def test_validate_reports_missing_changed_extra(tmp_path):
    root = tmp_path / "input"
    make_tree(root)
    out = tmp_path / "m.sha256"
    mf.generate_manifest(root, out, progress=False)
    assert mf.validate_manifest(root, out, progress=False).ok
    (root / "GEO" / "Asthma" / "GSE1" / "GSE1_series_matrix.txt.gz").write_bytes(b"abd")
    (root / "TCGA" / "TCGA_Lung_Cancer_(LUNG)" / "clin").unlink()
    (root / "GEO" / "Asthma" / "GSE1" / ".GSE1_family.soft.gz.x.tmp").write_bytes(b"")
    diff = mf.validate_manifest(root, out, progress=False)
    assert diff.changed == ["GEO/Asthma/GSE1/GSE1_series_matrix.txt.gz"]
    assert diff.missing == ["TCGA/TCGA_Lung_Cancer_(LUNG)/clin"]
    assert diff.extra == ["GEO/Asthma/GSE1/.GSE1_family.soft.gz.x.tmp"]
    assert not diff.ok and diff.checked == 2
    assert "1 missing, 1 changed, 1 extra" in diff.summary()


def test_manifest_inside_the_tree_is_not_listed(tmp_path):
    make_tree(tmp_path)
    out = tmp_path / "MANIFEST.sha256"
    mf.generate_manifest(tmp_path, out, progress=False)
    assert "MANIFEST.sha256" not in mf.read_manifest(out)
    assert mf.validate_manifest(tmp_path, out, progress=False).ok


def test_malformed_manifest_names_the_line(tmp_path):
    bad = tmp_path / "m.sha256"
    bad.write_text("a" * 64 + "  ok.txt\nnot a line\n")
    with pytest.raises(InputFileError, match=r"m\.sha256:2: expected"):
        mf.read_manifest(bad)


def test_cli_generate_then_validate(tmp_path):
    make_tree(tmp_path / "input")
    common = ["--input-dir", str(tmp_path / "input"), "--metadata-dir", str(tmp_path / "md"),
              "--no-progress"]
    assert mf.main(["--generate", *common]) == 0
    assert (tmp_path / "md" / mf.MANIFEST_NAME).is_file()
    assert mf.main(["--validate", *common]) == 0
    (tmp_path / "input" / "extra.txt").write_text("x")
    assert mf.main(["--validate", *common]) == 1


def test_cli_script_runs_from_any_directory(tmp_path):
    make_tree(tmp_path / "input")
    result = subprocess.run([sys.executable, str(REPO / "download" / "manifest.py"),
                             "--generate", "--input-dir", str(tmp_path / "input"),
                             "--manifest", str(tmp_path / "m.sha256"), "--no-progress"],
                            cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert "3 files" in result.stdout


@pytest.mark.parametrize("script, args, problem", [
    ("manifest.py", ["--validate", "--manifest", "absent.sha256", "--input-dir", "input"],
     "manifest not found"),
    ("select_pairs.py", ["--task-info", "absent.json", "--output", "out.json"],
     "absent.json"),
])
def test_a_downloader_names_itself_in_its_error_line(tmp_path, script, args, problem):
    """Like argparse's own usage errors: ``<script>: error: <problem>``, exit 2."""
    make_tree(tmp_path / "input")
    result = subprocess.run([sys.executable, str(REPO / "download" / script), *args],
                            cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 2, result.stderr
    assert result.stderr.startswith(f"{script}: error: "), result.stderr
    assert problem in result.stderr and "Traceback" not in result.stderr
    assert not (tmp_path / "out.json").exists()


def test_cli_validate_of_a_malformed_manifest_is_one_clean_error(tmp_path, capsys):
    make_tree(tmp_path / "input")
    manifest = tmp_path / "m.sha256"
    manifest.write_text("a" * 64 + "  ok.txt\nnot a line\n")
    code = mf.main(["--validate", "--input-dir", str(tmp_path / "input"), "--manifest",
                    str(manifest), "--no-progress"])
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.strip() == command_error(f"{manifest}:2: expected '<sha256>  <path>'")
    assert captured.err.startswith(f"{Path(sys.argv[0]).name}: error: ")
    assert "Traceback" not in captured.err + captured.out

