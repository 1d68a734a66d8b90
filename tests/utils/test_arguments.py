"""Value types of command-line flags (utils.arguments), and the commands that use them."""

from __future__ import annotations

import argparse

import pytest

from utils.arguments import (base_url_setting, fraction, http_url, non_negative_float,
                             positive_float, positive_int)


def confine_commands(monkeypatch, tmp_path) -> None:
    """Point every path of the project at ``tmp_path`` and every server at a dead local port."""
    for variable, value in (("GENOTEX_INPUT", tmp_path / "input"),
                            ("GENOTEX_OUTPUT", tmp_path / "output"),
                            ("GENOTEX_METADATA", tmp_path / "metadata"),
                            ("GENOTEX_TASK_INFO", tmp_path / "task_info.json"),
                            ("GENOTEX_DOWNLOAD_STATE", tmp_path / "state"),
                            ("GENOTEX_EUTILS_URL", "http://127.0.0.1:9/"),
                            ("GENOTEX_GEO_URL", "http://127.0.0.1:9/"),
                            ("GENOTEX_XENA_URL", "http://127.0.0.1:9/")):
        monkeypatch.setenv(variable, str(value))


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
    confine_commands(monkeypatch, tmp_path)
    main = importlib.import_module(command).main
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}" in err and "Traceback" not in err


def test_a_base_url_comes_from_the_flag_then_the_variable_then_the_default():
    environ = {"GENOTEX_TEST_URL": "http://127.0.0.1:9/hub"}
    assert base_url_setting("https://a.example/x", environ, "GENOTEX_TEST_URL",
                            "https://b.example/") == "https://a.example/x/"
    assert base_url_setting(None, environ, "GENOTEX_TEST_URL",
                            "https://b.example/") == "http://127.0.0.1:9/hub/"
    assert base_url_setting(None, {}, "GENOTEX_TEST_URL", "https://b.example") == \
        "https://b.example/"
    with pytest.raises(ValueError, match=r"\$GENOTEX_TEST_URL: 'ftp:/x' is not an http"):
        base_url_setting(None, {"GENOTEX_TEST_URL": "ftp:/x"}, "GENOTEX_TEST_URL",
                         "https://b.example/")


@pytest.mark.parametrize("command, argv, variable", [
    ("download.download_geo", [], "GENOTEX_EUTILS_URL"),
    ("download.download_geo", [], "GENOTEX_GEO_URL"),
    ("download.download_tcga", [], "GENOTEX_XENA_URL"),
])
def test_a_base_url_variable_that_is_no_url_stops_the_downloader_naming_it(
        command, argv, variable, capsys, tmp_path, monkeypatch):
    """Checked like the flags, before any request (every other URL is a dead local port)."""
    import importlib
    (tmp_path / "task_info.json").write_text(
        '{"Asthma": {"related_genes": [], "conditions": []}}', encoding="utf-8")
    confine_commands(monkeypatch, tmp_path)
    monkeypatch.setenv(variable, "notaurl")
    code = importlib.import_module(command).main(argv + ["--no-progress"])
    err = capsys.readouterr().err
    assert code == 2
    assert f"error: ${variable}: 'notaurl' is not an http" in err and "Traceback" not in err
    assert not (tmp_path / "input").exists()
