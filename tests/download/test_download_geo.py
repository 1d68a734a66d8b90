"""GEO search, selection rules and downloads (download/eutils.py, geo.py, download_geo.py)."""

from __future__ import annotations

import gzip
import json
import os
import random
from pathlib import Path

import pytest
from genotex.testing.fake_download import FakeHub

from download import download_geo
from download.eutils import DATASET_TYPES, EutilsClient, EutilsSettings, GdsQuery
from download.fetch import HttpClient
from download.geo import (PLAN_NAME, SizeRules, is_series_accession, load_plans,
                          matrix_file_names, plan_trait, plan_units, series_from_summaries,
                          series_url)
from download.manifest import generate_manifest, validate_manifest
from utils.io.http import RetryPolicy

KIB = 1024


def gz_blob(size: int, seed: int) -> bytes:
    """A valid gzip file of about ``size`` bytes (random content does not compress)."""
    return gzip.compress(random.Random(seed).randbytes(size), mtime=0)


# Fake GEO: (accession, entry type, matrix files {name: size}, soft size or None)
SERIES = [
    ("GSE1001", "GSE", {"GSE1001_series_matrix.txt.gz": 40 * KIB}, 30 * KIB),
    ("GSE1002", "GSE", {"GSE1002_series_matrix.txt.gz": 2 * KIB}, 30 * KIB),   # matrix too small
    ("GSE1003", "GSE", {"GSE1003-GPL96_series_matrix.txt.gz": 20 * KIB,
                        "GSE1003-GPL97_series_matrix.txt.gz": 25 * KIB}, 50 * KIB),
    ("GSE1004", "GSE", {"GSE1004_series_matrix.txt.gz": 20 * KIB}, None),      # no SOFT
    ("GDS99", "GDS", {}, None),                                                # not a series
    ("GSE1005", "GSE", {"GSE1005_series_matrix.txt.gz": 30 * KIB}, 300 * KIB),  # SOFT too big
    ("GSE1006", "GSE", {"GSE1006_series_matrix.txt.gz": 12 * KIB}, 10 * KIB),
    ("GSE1007", "GSE", {"GSE1007_series_matrix.txt.gz": 12 * KIB}, 10 * KIB),
]
# MiB limits scaled down so the fixture stays small: matrix in [4 KiB, 100 KiB], SOFT < 200 KiB
RULES = SizeRules(min_matrix_mb=4 / 1024, max_matrix_mb=100 / 1024, max_soft_mb=200 / 1024,
                  max_series=3)
RULE_FLAGS = ["--min-matrix-mb", str(4 / 1024), "--max-matrix-mb", str(100 / 1024),
              "--max-soft-mb", str(200 / 1024), "--max-series", "3"]


def uid(accession: str) -> str:
    return str(200000000 + int(accession[3:]))


class FakeGeo:
    """E-utilities + GEO HTTPS area on one FakeHub."""

    def __init__(self, hub: FakeHub) -> None:
        self.hub = hub
        self.terms: list[dict] = []
        self.blobs: dict[str, bytes] = {}
        hub.add_route("/eutils/esearch.fcgi", self.esearch)
        hub.add_route("/eutils/esummary.fcgi", self.esummary)
        for seed, (acc, kind, matrices, soft) in enumerate(SERIES):
            if kind != "GSE":
                continue
            folder = f"/geo/series/GSE1nnn/{acc}/"
            for offset, (name, size) in enumerate(matrices.items()):
                self.put(folder + "matrix/" + name, gz_blob(size, seed * 10 + offset))
            if soft is not None:
                self.put(folder + f"soft/{acc}_family.soft.gz", gz_blob(soft, seed * 10 + 9))

    def put(self, path: str, data: bytes) -> None:
        self.blobs[path] = data
        self.hub.add_file(path, data)

    def esearch(self, query):
        self.terms.append(query)
        ids = [uid(acc) if kind == "GSE" else "99" for acc, kind, *_ in SERIES]
        body = {"header": {}, "esearchresult": {"count": str(len(ids)), "idlist": ids}}
        return 200, {"Content-Type": "application/json"}, json.dumps(body).encode()

    def esummary(self, query):
        wanted = query["id"].split(",")
        result = {"uids": wanted}
        for acc, kind, *_ in SERIES:
            key = uid(acc) if kind == "GSE" else "99"
            if key in wanted:
                result[key] = {"uid": key, "accession": acc, "entrytype": kind,
                               "n_samples": 40, "ftplink": f"ftp://example/{acc}/"}
        return 200, {"Content-Type": "application/json"}, json.dumps({"result": result}).encode()


@pytest.fixture
def geo():
    with FakeHub() as hub:
        hub.stall = 1.5
        yield FakeGeo(hub)


def clients(hub: FakeHub, environ=None):
    policy = RetryPolicy(max_attempts=4, backoff_base=0.001, backoff_max=0.01, timeout=1.0)
    http = HttpClient(policy, sleep=lambda s: None, rng=random.Random(0))
    settings = EutilsSettings.from_environ(hub.base_url + "/eutils", environ=environ or {})
    return EutilsClient(settings, http), http


def cli_args(geo: FakeGeo, tmp_path: Path, *extra: str) -> list[str]:
    return ["--traits", "Asthma", "--input-dir", str(tmp_path / "input"),
            "--eutils-url", geo.hub.base_url + "/eutils/", "--geo-url",
            geo.hub.base_url + "/geo/", "--state-dir", str(tmp_path / "state"),
            "--backoff", "0.001", "--timeout", "1.0", "--seed", "1", "--no-progress",
            *RULE_FLAGS, *extra]


def test_query_matches_spec():
    term = GdsQuery().term("Crohns Disease")
    types = " OR ".join(f'"{t}"[DataSet Type]' for t in DATASET_TYPES)
    assert term == ('(30:10000[Number of Samples]) AND ("Homo sapiens"[Organism]) AND '
                    '(2010:2025[Publication Date]) AND (Crohns Disease) AND (' + types + ")")
    assert len(DATASET_TYPES) == 6


def test_series_url_and_listing_parsing():
    assert series_url("https://x/geo/", "GSE55235") == "https://x/geo/series/GSE55nnn/GSE55235/"
    assert series_url("b/", "GSE12") == "b/series/GSEnnn/GSE12/"
    listing = ('<a href="GSE9-GPL2_series_matrix.txt.gz">x</a><a href="GSE9_series_matrix'
               '.txt.gz">y</a><a href="GSE99_series_matrix.txt.gz">z</a>')
    assert matrix_file_names(listing, "GSE9") == ["GSE9-GPL2_series_matrix.txt.gz",
                                                   "GSE9_series_matrix.txt.gz"]
    with pytest.raises(ValueError):
        series_url("b/", "GDS12")


def test_credentials_come_from_environment(geo):
    settings = EutilsSettings.from_environ(environ={"NCBI_API_KEY": "k", "NCBI_EMAIL": "a@b"})
    assert settings.rate == 10.0 and settings.email == "a@b"
    assert EutilsSettings.from_environ(environ={}).rate == 3.0
    eutils, _ = clients(geo.hub, environ={"NCBI_API_KEY": "k", "NCBI_EMAIL": "a@b"})
    eutils.esearch("x")
    assert geo.terms[-1]["api_key"] == "k" and geo.terms[-1]["email"] == "a@b"
    assert geo.terms[-1]["db"] == "gds" and geo.terms[-1]["tool"] == "genotex"


def test_plan_keeps_qualifying_series_in_geo_order(geo):
    eutils, http = clients(geo.hub)
    plan = plan_trait("Asthma", eutils, http, geo.hub.base_url + "/geo/", rules=RULES)
    assert [s.accession for s in plan.series] == ["GSE1001", "GSE1003", "GSE1006"]
    assert "outside" in plan.rejected["GSE1002"]
    assert plan.rejected["GSE1004"] == "no family SOFT file"
    assert "limit" in plan.rejected["GSE1005"]
    assert "GSE1007" not in plan.rejected  # the search stopped at max_series
    multi = plan.series[1]
    assert [f.name for f in multi.files] == ["GSE1003-GPL96_series_matrix.txt.gz",
                                              "GSE1003-GPL97_series_matrix.txt.gz",
                                              "GSE1003_family.soft.gz"]
    units = plan_units([plan], Path("/in/GEO"))
    assert units[0].name == "GSE1001 (Asthma)"
    assert units[0].files[0].dest == Path("/in/GEO/Asthma/GSE1001/GSE1001_series_matrix.txt.gz")
    assert "(Asthma)" in geo.terms[0]["term"]


def expected_tree(geo: FakeGeo) -> dict[str, bytes]:
    chosen = ("GSE1001", "GSE1003", "GSE1006")
    tree = {}
    for path, data in geo.blobs.items():
        acc = path.split("/")[4]
        if acc in chosen:
            tree[f"GEO/Asthma/{acc}/{path.rsplit('/', 1)[1]}"] = data
    return tree


def read_tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file()}


def test_cli_downloads_complete_tree_despite_faults(geo, tmp_path, capsys):
    geo.hub.fail("/eutils/esearch.fcgi", "429")
    geo.hub.fail("/eutils/esummary.fcgi", "500")
    geo.hub.fail("/geo/series/GSE1nnn/GSE1001/matrix/GSE1001_series_matrix.txt.gz", "reset")
    geo.hub.fail("/geo/series/GSE1nnn/GSE1003/soft/GSE1003_family.soft.gz", "truncate")
    geo.hub.fail("/geo/series/GSE1nnn/GSE1003/matrix/GSE1003-GPL97_series_matrix.txt.gz",
                 "timeout", "corrupt")
    code = download_geo.main(cli_args(geo, tmp_path))
    out = capsys.readouterr().out
    assert code == 0, out
    assert read_tree(tmp_path / "input") == expected_tree(geo)
    assert "Asthma: 3 series (GSE1001, GSE1003, GSE1006)" in out
    assert "3 units: 3 downloaded" in out or "resumed" in out
    # no partial or temporary file anywhere in the tree; the state folder holds only the plan
    assert [p.name for p in (tmp_path / "state").iterdir()] == [PLAN_NAME]
    manifest = tmp_path / "m.sha256"
    generate_manifest(tmp_path / "input", manifest, progress=False)
    # a re-run with the manifest verifies checksums and finds everything up to date
    assert download_geo.main(cli_args(geo, tmp_path, "--manifest", str(manifest))) == 0
    assert "3 up to date" in capsys.readouterr().out
    assert validate_manifest(tmp_path / "input", manifest, progress=False).ok


def test_plan_is_reused_after_interruption(geo, tmp_path, capsys):
    soft = "/geo/series/GSE1nnn/GSE1006/soft/GSE1006_family.soft.gz"
    assert download_geo.main(cli_args(geo, tmp_path, "--dry-run")) == 0  # plan only
    geo.hub.fail(soft, *["500"] * 4)
    assert download_geo.main(cli_args(geo, tmp_path, "--retries", "2")) == 1
    out = capsys.readouterr().out
    assert "FAILED GSE1006 (Asthma): GSE1006_family.soft.gz: could not fetch" in out
    assert not (tmp_path / "input" / "GEO" / "Asthma" / "GSE1006").exists()
    assert load_plans(tmp_path / "state" / PLAN_NAME)["Asthma"].series[2].accession == "GSE1006"
    searches = len(geo.terms)
    assert download_geo.main(cli_args(geo, tmp_path, "--retries", "2")) == 1  # 2 faults left
    assert download_geo.main(cli_args(geo, tmp_path)) == 0
    assert len(geo.terms) == searches  # no new search: the saved plan was used
    assert read_tree(tmp_path / "input") == expected_tree(geo)


def test_persistent_search_failure_is_reported(geo, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("NCBI_API_KEY", "secret-key-123")
    geo.hub.fail("/eutils/esearch.fcgi", *["500"] * 10)
    assert download_geo.main(cli_args(geo, tmp_path, "--retries", "2")) == 1
    captured = capsys.readouterr()
    out = captured.out
    assert "FAILED Asthma: esearch: could not fetch" in out and "HTTP 500" in out
    assert "api_key=***" in out  # the key is redacted from every message
    assert "secret-key-123" not in out + captured.err


def test_a_dry_run_says_why_a_search_failed(geo, tmp_path, capsys):
    geo.hub.fail("/eutils/esearch.fcgi", *["500"] * 10)
    assert download_geo.main(cli_args(geo, tmp_path, "--retries", "2", "--dry-run")) == 1
    out = capsys.readouterr().out
    assert "FAILED Asthma: esearch: could not fetch" in out and "HTTP 500" in out


@pytest.mark.parametrize("low, high", [("--min-samples", "--max-samples"),
                                       ("--first-year", "--last-year")])
def test_a_reversed_range_is_refused_before_any_request(geo, tmp_path, capsys, low, high):
    assert download_geo.main(cli_args(geo, tmp_path, low, "2020", high, "10")) == 2
    assert f"error: {low} 2020 is above {high} 10" in capsys.readouterr().err
    assert not geo.hub.log


def test_a_state_folder_that_cannot_be_made_is_said_before_any_request(geo, tmp_path, capsys):
    (tmp_path / "state_file").write_text("")
    code = download_geo.main(cli_args(geo, tmp_path, "--state-dir",
                                      str(tmp_path / "state_file")))
    assert code == 2 and not geo.hub.log
    err = capsys.readouterr().err
    assert f"error: {tmp_path / 'state_file'}: cannot create this folder" in err


def test_invalid_json_is_retried_then_reported(geo, tmp_path):
    calls = []

    def broken(query):
        calls.append(query)
        return 200, {}, b"<html>busy</html>"

    geo.hub.add_route("/eutils/esearch.fcgi", broken)
    eutils, _ = clients(geo.hub)
    with pytest.raises(Exception, match="invalid JSON"):
        eutils.esearch("x", item="Asthma: esearch")
    assert len(calls) == 4


def test_dry_run_downloads_nothing(geo, tmp_path, capsys):
    assert download_geo.main(cli_args(geo, tmp_path, "--dry-run")) == 0
    assert not (tmp_path / "input").exists()
    assert "GSE1001, GSE1003, GSE1006" in capsys.readouterr().out


def test_help_explains_every_flag(capsys):
    with pytest.raises(SystemExit):
        download_geo.main(["--help"])
    text = capsys.readouterr().out
    for flag in ("--eutils-url", "--geo-url", "--max-series", "--state-dir", "--manifest",
                 "--retries", "--replan", "--dry-run"):
        assert flag in text


def test_missing_task_info_is_a_clear_error(tmp_path, capsys):
    code = download_geo.main(["--task-info", str(tmp_path / "none.json"), "--no-progress"])
    assert code == 2
    assert "none.json: task info not found" in capsys.readouterr().err


def test_environment_never_needs_a_key(monkeypatch):
    monkeypatch.delenv("NCBI_API_KEY", raising=False)
    assert EutilsSettings.from_environ(environ=os.environ).api_key is None


def test_unresolvable_host_stops_the_run_at_once_with_one_message(tmp_path, capsys,
                                                                   monkeypatch):
    """Offline (no DNS), the downloader stops at the first request: no retries, exit 2."""
    import socket

    lookups = []

    def no_dns(host, *args, **kwargs):
        lookups.append(host)
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", no_dns)
    task = tmp_path / "task_info.json"
    task.write_text(json.dumps({"Asthma": {"related_genes": [], "conditions": []},
                                "Obesity": {"related_genes": [], "conditions": []}}))
    code = download_geo.main(["--task-info", str(task), "--input-dir", str(tmp_path / "in"),
                              "--state-dir", str(tmp_path / "state"), "--no-progress",
                              "--eutils-url", "https://eutils.genotex-test.invalid/eutils",
                              "--geo-url", "https://geo.genotex-test.invalid/geo",
                              "--retries", "6", "--backoff", "5"])
    captured = capsys.readouterr()
    assert code == 2
    # one lookup, not one per trait or retry (a retry would look the host up again; no
    # wall-clock assertion, which machine load could break)
    assert lookups == ["eutils.genotex-test.invalid"]
    errors = [line for line in captured.err.splitlines() if ": error: " in line]
    assert len(errors) == 1
    assert "host name 'eutils.genotex-test.invalid' does not resolve" in errors[0]
    assert not (tmp_path / "in").exists()


# ---------------------------------------------------------------------------
# Untrusted answers: accessions, one bad series, traits (issue 14)
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("accession", ["GSE100300\n", "GSE\u0661\u0660\u0660", " GSE1",
                                       "GSE1 ", "GSE", "gse1", "GSE1x"])
def test_only_gse_and_ascii_digits_are_accessions(accession):
    assert not is_series_accession(accession)
    assert list(series_from_summaries([{"accession": accession, "entrytype": "GSE"}])) == []
    with pytest.raises(ValueError):
        series_url("b/", accession)


def test_summaries_fall_back_to_ascii_gse_numbers_only():
    docs = [{"accession": "x", "gse": "\u0663\u0664", "entrytype": "GSE"},
            {"accession": "y", "gse": "34", "entrytype": "GSE", "n_samples": "\u0664\u0660"},
            {"accession": "GSE35", "entrytype": "GSE", "n_samples": 40}]
    assert list(series_from_summaries(docs)) == [("GSE34", None), ("GSE35", 40)]


def add_bad_summaries(geo: FakeGeo) -> None:
    """esummary also answers a newline accession and one in Arabic-Indic digits first."""
    good = geo.esummary

    def esummary(query):
        status, headers, body = good(query)
        data = json.loads(body)
        data["result"]["uids"] = ["1", "2"] + data["result"]["uids"]
        data["result"]["1"] = {"accession": "GSE100300\n", "entrytype": "GSE"}
        data["result"]["2"] = {"accession": "GSE\u0661\u0662", "entrytype": "GSE"}
        return status, headers, json.dumps(data).encode()

    def esearch(query):
        status, headers, body = FakeGeo.esearch(geo, query)
        data = json.loads(body)
        data["esearchresult"]["idlist"] = ["1", "2"] + data["esearchresult"]["idlist"]
        return status, headers, json.dumps(data).encode()

    geo.hub.add_route("/eutils/esummary.fcgi", esummary)
    geo.hub.add_route("/eutils/esearch.fcgi", esearch)


def test_a_trait_plan_goes_on_past_bad_items(geo):
    add_bad_summaries(geo)
    geo.hub.fail("/geo/series/GSE1nnn/GSE1003/matrix/", *["500"] * 4)  # listing fails
    eutils, http = clients(geo.hub)
    plan = plan_trait("Asthma", eutils, http, geo.hub.base_url + "/geo/", rules=RULES)
    assert [s.accession for s in plan.series] == ["GSE1001", "GSE1006", "GSE1007"]
    assert list(plan.failed) == ["GSE1003"] and "HTTP 500" in plan.failed["GSE1003"]
    requested = {path for _, path, _ in geo.hub.log}
    assert not any("\u0661" in p or "GSE100300" in p for p in requested)


def test_cli_reports_a_failed_series_and_plans_the_trait_again(geo, tmp_path, capsys):
    geo.hub.fail("/geo/series/GSE1nnn/GSE1003/matrix/", *["500"] * 2)
    assert download_geo.main(cli_args(geo, tmp_path, "--retries", "2")) == 1
    out = capsys.readouterr().out
    assert "Asthma: 3 series (GSE1001, GSE1006, GSE1007); 3 passed over; 1 could not be " \
           "checked" in out
    assert "FAILED Asthma: GSE1003 matrix listing: could not fetch" in out
    assert (tmp_path / "input" / "GEO" / "Asthma" / "GSE1007").is_dir()  # the rest went on
    searches = len(geo.terms)
    assert download_geo.main(cli_args(geo, tmp_path)) == 0  # planned again: GSE1003 is back
    assert len(geo.terms) == searches + 1
    assert "Asthma: 3 series (GSE1001, GSE1003, GSE1006)" in capsys.readouterr().out


def test_a_trait_name_with_a_path_is_refused(tmp_path, capsys):
    code = download_geo.main(["--traits", "../../x", "--input-dir", str(tmp_path / "in"),
                              "--no-progress"])
    assert code == 2
    assert "trait name '../../x' cannot name a folder" in capsys.readouterr().err
