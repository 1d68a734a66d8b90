"""recompress_files.py on an unpacked copy of a generated tree."""

from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

import pytest

from genotex.cli import recompress as recompress_files
from genotex.recompress import (COMPRESS, COMPRESS_RENAME, CONFLICT, DEDUPE, RENAME, plan_actions,
                                recompress_tree)
from genotex.testing.synthetic_world import generate_world
from genotex import recompress

SMALL_COHORTS = [
    {"id": "GSE9100002", "trait": "Rheumatoid_Arthritis", "platform": "GPL91002",
     "n_samples": 20, "missing_token": "null", "missing_rate": 0.02},
    {"id": "GSE9100005", "trait": "Heart_rate", "platform": "GPL91004", "n_samples": 12,
     "scale": "counts"},
    {"id": "Xena", "trait": "Prostate_Cancer", "source": "tcga", "code": "PRAD",
     "n_samples": 24, "n_other": 2},
]
RA = "GEO/Rheumatoid_Arthritis/GSE9100002"
HR = "GEO/Heart_rate/GSE9100005"
PRAD = "TCGA/TCGA_Prostate_Cancer_(PRAD)"


def snapshot(root: Path) -> dict:
    """Relative path -> SHA-256 of every file (names and contents)."""
    return {p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generated") / "input"
    generate_world(root, cohorts=SMALL_COHORTS)
    return root


@pytest.fixture
def unpacked(generated, tmp_path) -> Path:
    """A copy as a data platform might leave it.

    * series matrix of RA: decompressed, name kept (``.gz`` with plain content);
    * family SOFT of RA and both Xena matrices: gunzipped (suffix lost);
    * count table of HR: suffix lost but content still gzip;
    * series matrix of HR: plain copy beside the intact ``.gz`` (duplicate);
    * clinicalMatrix and an unrelated note: plain by design, must stay.
    """
    root = tmp_path / "input"
    shutil.copytree(generated, root)

    def unpack_in_place(rel):
        path = root / rel
        path.write_bytes(gzip.decompress(path.read_bytes()))

    def gunzip(rel):
        path = root / rel
        path.with_name(path.name[:-3]).write_bytes(gzip.decompress(path.read_bytes()))
        path.unlink()

    unpack_in_place(f"{RA}/GSE9100002_series_matrix.txt.gz")
    gunzip(f"{RA}/GSE9100002_family.soft.gz")
    gunzip(f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2.gz")
    gunzip(f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2_PANCAN.gz")
    counts = root / HR / "GSE9100005_raw_counts_GRCh38.p13_NCBI.tsv.gz"
    counts.rename(counts.with_name(counts.name[:-3]))
    matrix = root / HR / "GSE9100005_series_matrix.txt.gz"
    matrix.with_name(matrix.name[:-3]).write_bytes(gzip.decompress(matrix.read_bytes()))
    (root / "NOTES.txt").write_text("left alone\n")
    return root


def expected_actions(root: Path) -> set:
    return {
        (COMPRESS, f"{RA}/GSE9100002_series_matrix.txt.gz"),
        (COMPRESS_RENAME, f"{RA}/GSE9100002_family.soft"),
        (COMPRESS_RENAME, f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2"),
        (COMPRESS_RENAME, f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2_PANCAN"),
        (RENAME, f"{HR}/GSE9100005_raw_counts_GRCh38.p13_NCBI.tsv"),
        (DEDUPE, f"{HR}/GSE9100005_series_matrix.txt"),
    }


def kinds(report, root: Path) -> set:
    return {(a.kind, a.source.relative_to(root).as_posix()) for a in report.done}


def test_dry_run_changes_nothing(unpacked):
    before = snapshot(unpacked)
    report = recompress_tree(unpacked, dry_run=True)
    assert snapshot(unpacked) == before
    assert kinds(report, unpacked) == expected_actions(unpacked)
    assert report.dry_run and report.ok


def test_run_restores_the_generated_tree_byte_for_byte(generated, unpacked):
    report = recompress_tree(unpacked)
    assert report.ok and kinds(report, unpacked) == expected_actions(unpacked)
    restored = snapshot(unpacked)
    assert restored.pop("NOTES.txt")
    # Same content, and (deterministic gzip: no name, mtime 0) the same bytes.
    assert restored == snapshot(generated)
    assert not list(unpacked.rglob(".*.tmp"))


def test_second_run_is_a_no_op(unpacked):
    recompress_tree(unpacked)
    after_first = snapshot(unpacked)
    report = recompress_tree(unpacked)
    # 7 canonical .gz files: RA matrix + SOFT, HR matrix + SOFT + counts, 2 Xena matrices.
    assert report.done == [] and report.ok and report.unchanged == 7
    assert snapshot(unpacked) == after_first


def test_clinical_matrix_and_other_files_are_left_alone(unpacked):
    clinical = unpacked / PRAD / "TCGA.PRAD.sampleMap_PRAD_clinicalMatrix"
    before = clinical.read_bytes()
    recompress_tree(unpacked)
    assert clinical.read_bytes() == before and not clinical.with_suffix(".gz").exists()
    assert (unpacked / "NOTES.txt").read_text() == "left alone\n"


def test_failed_verification_leaves_originals_intact(unpacked, monkeypatch):
    before = snapshot(unpacked)
    monkeypatch.setattr(recompress, "_copy_matches", lambda temp, digest: False)
    report = recompress_tree(unpacked)
    failed = {a.source.relative_to(unpacked).as_posix() for a, _ in report.errors}
    assert failed == {f"{RA}/GSE9100002_series_matrix.txt.gz", f"{RA}/GSE9100002_family.soft",
                      f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2",
                      f"{PRAD}/TCGA.PRAD.sampleMap_HiSeqV2_PANCAN"}
    assert all("verification failed" in message for _, message in report.errors)
    after = snapshot(unpacked)
    for rel in failed:
        assert after[rel] == before[rel]
    assert not list(unpacked.rglob(".*.tmp")) and not report.ok


def test_crash_while_writing_leaves_original_and_no_temp(unpacked, monkeypatch):
    target = unpacked / RA / "GSE9100002_series_matrix.txt.gz"
    before = target.read_bytes()

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(recompress.os, "replace", broken_replace)
    report = recompress_tree(unpacked)
    assert any("disk full" in message for _, message in report.errors)
    assert target.read_bytes() == before
    assert not list(unpacked.rglob(".*.tmp"))


def test_interrupted_run_is_finished_by_the_next(unpacked, generated):
    """A run killed after writing <name>.gz but before removing <name>."""
    soft = unpacked / RA / "GSE9100002_family.soft"
    shutil.copy(generated / RA / "GSE9100002_family.soft.gz", soft.with_name(soft.name + ".gz"))
    report = recompress_tree(unpacked)
    assert (DEDUPE, f"{RA}/GSE9100002_family.soft") in kinds(report, unpacked)
    assert not soft.exists()


def test_conflicting_twin_is_reported_not_touched(unpacked):
    plain = unpacked / RA / "GSE9100002_family.soft"
    twin = plain.with_name(plain.name + ".gz")
    twin.write_bytes(gzip.compress(b"something else\n"))
    report = recompress_tree(unpacked)
    assert [(a.kind, a.source) for a in report.conflicts] == [(CONFLICT, plain)]
    assert plain.exists() and gzip.decompress(twin.read_bytes()) == b"something else\n"
    assert not report.ok


def test_verify_reports_truncated_gzip(unpacked):
    damaged = unpacked / PRAD / "TCGA.PRAD.sampleMap_HiSeqV2.gz"
    full = gzip.compress(b"x" * 100000)
    damaged.write_bytes(full[: len(full) // 2])
    report = plan_actions(unpacked, verify=True)
    assert any(a.source == damaged and a.kind == "corrupt" for a in report.conflicts)


@pytest.mark.parametrize("name", ["GSE9100002_series_matrix.txt.gz", "GSE9100002_family.soft"])
def test_an_empty_file_is_reported_corrupt_and_left_empty(unpacked, name):
    # gzipping it would turn an interrupted download into a valid-looking empty gzip
    empty = unpacked / RA / name
    empty.write_bytes(b"")
    report = recompress_tree(unpacked, verify=False)
    assert [(a.kind, a.source) for a in report.conflicts] == [("corrupt", empty)]
    assert empty.read_bytes() == b"" and not empty.with_name(name + ".gz").exists()
    assert not report.ok


def test_cli(unpacked, capsys):
    before = snapshot(unpacked)
    assert recompress_files.main(["--input-dir", str(unpacked), "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "dry run: would change 6 file(s)" in out and snapshot(unpacked) == before
    assert recompress_files.main(["--input-dir", str(unpacked), "--quiet"]) == 0
    assert capsys.readouterr().out.startswith("changed 6 file(s)")
    assert recompress_files.main(["--input-dir", str(unpacked / "missing")]) == 2
    assert all(action.help for action in recompress_files.build_parser()._actions)


def test_cli_root_is_the_repository_and_the_old_spelling_still_works(unpacked, tmp_path,
                                                                        capsys):
    """--root names the repository (its input/ is repaired), as in every command; the
    former --root TREE (a folder that is no checkout) still works, with a warning."""
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "pyproject.toml").write_text('[project]\nname = "genotex"\n')
    shutil.copytree(unpacked, checkout / "input")
    assert recompress_files.main(["--root", str(checkout), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "dry run: would change 6 file(s)" in captured.out and captured.err == ""
    assert recompress_files.main(["--root", str(unpacked), "--dry-run"]) == 0
    captured = capsys.readouterr()
    assert "dry run: would change 6 file(s)" in captured.out
    assert f"use --input-dir {unpacked}" in captured.err
