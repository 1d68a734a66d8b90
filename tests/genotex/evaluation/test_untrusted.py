"""Reading untrusted files (genotex.evaluation.untrusted): confinement, caps, JSON bytes."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from genotex.evaluation.statuses import EMPTY, MALFORMED, MISSING, ItemError
from genotex.evaluation.untrusted import MIB, ConfinedFiles, Limits, parse_json_bytes


def files(root: Path, **limits) -> ConfinedFiles:
    return ConfinedFiles(root, "prediction", strict_utf8=True, limits=Limits(**limits))


def status_of(call) -> ItemError:
    with pytest.raises(ItemError) as info:
        call()
    return info.value


def test_table_cap_is_the_larger_of_the_cap_and_a_multiple_of_the_reference():
    limits = Limits(max_table_bytes=10 * MIB, table_size_ratio=8.0)
    assert limits.table_cap() == 10 * MIB
    assert limits.table_cap(1 * MIB) == 10 * MIB
    assert limits.table_cap(2 * MIB) == 16 * MIB


def test_files_outside_the_tree_are_refused(tmp_path):
    tree, outside = tmp_path / "tree", tmp_path / "outside.json"
    tree.mkdir()
    outside.write_text("{}")
    (tree / "inside.json").write_text('{"a": 1}')
    (tree / "link.json").symlink_to(outside)
    reader = files(tree)
    assert reader.read_json(tree / "inside.json") == {"a": 1}
    error = status_of(lambda: reader.read_json(tree / "link.json"))
    assert error.status == MALFORMED and "outside the prediction tree" in str(error)
    assert str(error).startswith(str(tree / "link.json"))
    assert status_of(lambda: reader.read_json(tree / "absent.json")).status == MISSING


def test_caps_hold_after_decompression(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(gzip.compress(b" " * 4096))
    error = status_of(lambda: files(tmp_path, max_json_bytes=1000).read_json(path))
    assert error.status == MALFORMED and "decompressed content larger" in str(error)


def test_json_bytes():
    path = Path("r.json")
    assert parse_json_bytes(b'{"a": NaN}', path)["a"] != 0  # NaN literal read as a float
    assert status_of(lambda: parse_json_bytes(b'{"a": 1, "a": 2}', path)).status == MALFORMED
    assert status_of(lambda: parse_json_bytes(b" \n", path)).status == EMPTY
    error = status_of(lambda: parse_json_bytes(b'{"a": "\xff"}', path))
    assert error.status == MALFORMED and "not valid UTF-8" in str(error)
    assert parse_json_bytes(b'{"a": "\xe9"}', path, strict=False) == {"a": "\xe9"}


def test_first_line(tmp_path):
    path = tmp_path / "t.csv"
    path.write_bytes(b"\xef\xbb\xbf,T,GENE1\r\nS1,1,2\n")
    assert files(tmp_path).read_first_line(path) == ",T,GENE1"
    path.write_bytes(b"\n,T\n")
    assert status_of(lambda: files(tmp_path).read_first_line(path)).status == EMPTY
    path.write_bytes(b",T," + b"G" * 100 + b"\n")
    error = status_of(lambda: files(tmp_path, max_header_bytes=50).read_first_line(path))
    assert "header line longer" in str(error)


def test_first_line_of_a_gzip_file_cut_short_is_malformed(tmp_path):
    """Only the header is used, yet the whole stream is checked (issue 26)."""
    path = tmp_path / "t.csv"
    packed = gzip.compress(b",T,GENE1\n" + b"S1,1,2\n" * 50_000)
    path.write_bytes(packed)
    assert files(tmp_path).read_first_line(path) == ",T,GENE1"
    path.write_bytes(packed[:-4])
    error = status_of(lambda: files(tmp_path).read_first_line(path))
    assert error.status == MALFORMED and "truncated gzip file" in str(error)
    assert str(error).startswith(str(path))
