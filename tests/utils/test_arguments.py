"""Value types of command-line flags (utils.arguments), and the commands that use them."""

from __future__ import annotations

import argparse

import pytest

from utils.arguments import (fraction, http_url, non_negative_float, positive_float,
                             positive_int)


@pytest.mark.parametrize("kind, good, bad", [
    (positive_int, {"1": 1, "12": 12}, ["0", "-3", "abc", "1.5"]),
    (positive_float, {"0.5": 0.5, "64": 64.0}, ["0", "-1", "nan", "inf", "x"]),
    (non_negative_float, {"0": 0.0, "2.5": 2.5}, ["-0.1", "nan", "x"]),
    (fraction, {"0": 0.0, "0.1": 0.1, "1": 1.0}, ["-1", "1.01", "nan", "x"]),
    (http_url, {"http://127.0.0.1:9": "http://127.0.0.1:9",
                "https://ftp.ncbi.nlm.nih.gov/geo/": "https://ftp.ncbi.nlm.nih.gov/geo/"},
     ["notaurl", "ftp://host/x", "http://", "file:///etc/hostname"]),
])
def test_each_type_keeps_good_values_and_refuses_bad_ones(kind, good, bad):
    for text, value in good.items():
        assert kind(text) == value
    for text in bad:
        with pytest.raises(argparse.ArgumentTypeError):
            kind(text)


@pytest.mark.parametrize("command, argv, flag", [
    ("genotex.cli.regress", ["-j", "-3"], "-j/--jobs"),
    ("genotex.cli.evaluate", ["-p", ".", "-j", "0"], "-j/--jobs"),
    ("genotex.cli.evaluate", ["-p", ".", "--max-json-mb", "-1"], "--max-json-mb"),
    ("genotex.cli.agent", ["--method", "random", "--genes", "-5"], "--genes"),
    ("genotex.cli.agent", ["--method", "random", "--time-limit", "-1"], "--time-limit"),
    ("download.manifest", ["--validate", "--jobs", "-2"], "--jobs"),
    ("download.select_pairs", ["--threshold", "2"], "--threshold"),
    ("download.select_pairs", ["--threshold", "nan"], "--threshold"),
    ("download.build_task_info", ["--min-score", "-1"], "--min-score"),
    ("download.download_geo", ["--retries", "0"], "--retries"),
    ("download.download_geo", ["--timeout", "-5"], "--timeout"),
    ("download.download_geo", ["--max-series", "-1"], "--max-series"),
    ("download.download_geo", ["--eutils-url", "notaurl"], "--eutils-url"),
    ("download.download_tcga", ["--max-file-mb", "-1"], "--max-file-mb"),
    ("download.download_tcga", ["--xena-url", "ftp:/x"], "--xena-url"),
])
def test_a_flag_out_of_range_stops_the_command_naming_it(command, argv, flag, capsys,
                                                        tmp_path, monkeypatch):
    import importlib
    # were a value let through, the command would only touch tmp_path and 127.0.0.1
    for variable, value in (("GENOTEX_INPUT", tmp_path / "input"),
                            ("GENOTEX_OUTPUT", tmp_path / "output"),
                            ("GENOTEX_METADATA", tmp_path / "metadata"),
                            ("GENOTEX_TASK_INFO", tmp_path / "task_info.json"),
                            ("GENOTEX_DOWNLOAD_STATE", tmp_path / "state"),
                            ("GENOTEX_EUTILS_URL", "http://127.0.0.1:9/"),
                            ("GENOTEX_GEO_URL", "http://127.0.0.1:9/"),
                            ("GENOTEX_XENA_URL", "http://127.0.0.1:9/")):
        monkeypatch.setenv(variable, str(value))
    main = importlib.import_module(command).main
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}" in err and "Traceback" not in err
