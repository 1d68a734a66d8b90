"""Readers sniff gzip, decode with latin-1 fallback; writers are atomic; locks serialise."""

from __future__ import annotations

import gzip
import json
import multiprocessing
import os

import pandas as pd
import pytest

from utils.errors import InputFileError
from utils.io import (atomic_to_csv, atomic_write, atomic_write_json, decode_text, locked,
                      open_text, read_json, read_text)


def test_plain_and_gzip_read_the_same(tmp_path):
    text = "line one\nline two é\n"
    plain = tmp_path / "a.txt"
    plain.write_text(text, encoding="utf-8")
    zipped = tmp_path / "a.txt.plain_name"  # gzip content, misleading name
    zipped.write_bytes(gzip.compress(text.encode("utf-8")))
    unzipped_named_gz = tmp_path / "b.txt.gz"  # plain content with a .gz name
    unzipped_named_gz.write_text(text, encoding="utf-8")
    assert read_text(plain) == read_text(zipped) == read_text(unzipped_named_gz) == text


def test_latin1_fallback_keeps_every_character(tmp_path):
    # 'Sj\xf6gren' is latin-1 for Sjögren; the UTF-8 part must stay UTF-8.
    data = "caf\u00e9 ".encode("utf-8") + b"Sj\xf6gren\n"
    path = tmp_path / "mixed.txt"
    path.write_bytes(data)
    assert read_text(path) == "caf\u00e9 Sj\u00f6gren\n"
    with open_text(path) as handle:
        assert handle.read() == "caf\u00e9 Sj\u00f6gren\n"
    assert decode_text(b"\xff\xfe") == "\u00ff\u00fe"


def test_truncated_gzip_names_the_file(tmp_path):
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(gzip.compress(b"x" * 10000)[:-20])
    with pytest.raises(InputFileError, match="cut.txt.gz.*truncated"):
        read_text(path)


def test_missing_file_and_folder_errors(tmp_path):
    with pytest.raises(InputFileError, match="nope.txt: file not found"):
        read_text(tmp_path / "nope.txt")
    with pytest.raises(InputFileError, match="is a folder"):
        read_text(tmp_path)


def test_read_json_errors_name_file_and_line(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    with pytest.raises(InputFileError, match="empty.json: empty file"):
        read_json(empty)
    bad = tmp_path / "bad.json"
    bad.write_text('{\n "a": 1,\n oops\n}')
    with pytest.raises(InputFileError, match=r"bad.json:3: invalid JSON"):
        read_json(bad)


def test_atomic_write_failure_keeps_previous_version(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with atomic_write(target) as handle:
            handle.write("half of the new content")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temp file left behind


def test_atomic_json_and_csv(tmp_path):
    atomic_write_json(tmp_path / "d" / "x.json", {"b": 1, "a": [1.5]})
    assert json.loads((tmp_path / "d" / "x.json").read_text()) == {"b": 1, "a": [1.5]}
    with pytest.raises(ValueError):  # NaN is not valid JSON and is refused
        atomic_write_json(tmp_path / "nan.json", {"x": float("nan")})
    assert not (tmp_path / "nan.json").exists()
    df = pd.DataFrame({"g": [1.0, 2.0]}, index=["s1", "s2"])
    atomic_to_csv(df, tmp_path / "t.csv")
    assert pd.read_csv(tmp_path / "t.csv", index_col=0).equals(df)


def _increment(path: str, times: int) -> None:
    for _ in range(times):
        with locked(path):
            value = int(open(path).read()) if os.path.exists(path) else 0
            with atomic_write(path) as handle:
                handle.write(str(value + 1))


def test_lock_serialises_read_modify_write_across_processes(tmp_path):
    counter = str(tmp_path / "counter.txt")
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_increment, args=(counter, 25)) for _ in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert int(open(counter).read()) == 100
