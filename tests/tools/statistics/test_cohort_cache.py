"""Content-keyed cache of linked tables (tools.statistics.cohort_cache)."""

from __future__ import annotations

import gzip
import os

import pytest

from tools.statistics.cohort_cache import CohortCache
from utils.errors import InputFileError

TABLE = "sample,T,G1,G2\nS1,1,0.5,2.0\nS2,0,1.5,3.0\n"


def test_parsed_once_and_reparsed_when_content_changes(tmp_path):
    path = tmp_path / "GSE1.csv"
    path.write_text(TABLE)
    cache = CohortCache()
    first = cache.load(path)
    assert cache.load(path) is first and cache.parses == 1
    assert first.columns == ("T", "G1", "G2") and first.samples[0] == "S1"
    stat = os.stat(path)
    path.write_text(TABLE.replace("0.5", "0.7"))          # same size, new content
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # even with the old mtime
    second = cache.load(path)
    assert second.column("G1")[0] == 0.7 and cache.parses == 2
    assert second.digest != first.digest
    assert cache.digest(path) == second.digest
    os.utime(path)  # touch only: hash unchanged -> no new parse
    assert cache.load(path) is second and cache.parses == 2


def test_gzip_and_errors_name_the_file(tmp_path):
    packed = tmp_path / "GSE2.csv"
    packed.write_bytes(gzip.compress(TABLE.encode()))
    assert CohortCache().load(packed).values.shape == (2, 3)
    truncated = tmp_path / "GSE3.csv"
    truncated.write_bytes(gzip.compress(TABLE.encode() * 50)[:40])
    with pytest.raises(InputFileError, match="GSE3.csv: corrupt or truncated gzip"):
        CohortCache().load(truncated)
    text = tmp_path / "GSE4.csv"
    text.write_text("sample,T,G1\nS1,1,abc\n")
    with pytest.raises(InputFileError, match="GSE4.csv: non-numeric values in 1 column"):
        CohortCache().load(text)
    with pytest.raises(InputFileError, match="GSE5.csv"):
        CohortCache().load(tmp_path / "GSE5.csv")


def test_repeated_columns_and_sample_ids_are_refused(tmp_path):
    # pandas would read a second FEN1 as a gene "FEN1.1" that does not exist
    genes = tmp_path / "GSE6.csv"
    genes.write_bytes(gzip.compress(b"sample,T,FEN1,G2,FEN1\nS1,1,0.5,2.0,0.1\nS2,0,1,3,4\n"))
    with pytest.raises(InputFileError, match=r"GSE6.csv: column 'FEN1' occurs twice "
                                             r"\(columns 3 and 5\)"):
        CohortCache().load(genes)
    samples = tmp_path / "GSE7.csv"
    samples.write_text("sample,T,G1\nS1,1,0.5\nS2,0,1.5\nS1,0,2.5\n")
    with pytest.raises(InputFileError, match=r"GSE7.csv: sample id 'S1' occurs twice "
                                             r"\(data rows 1 and 3\)"):
        CohortCache().load(samples)
