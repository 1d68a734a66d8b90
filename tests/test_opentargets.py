"""Open Targets related genes and the task-info builder (download/opentargets.py)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from download import build_task_info
from download.opentargets import (association_files, build_related_genes, check_table,
                                  collect_scores, rank_related_genes, read_trait_diseases,
                                  TraitDiseases, TRAIT_DISEASES)
from fake_download_server import FakeHub
from utils.errors import InputFileError

ENSEMBL = {"ENSG01": "TP53", "ENSG02": "BRCA1", "ENSG03": "OLDNAME", "ENSG04": "IL6",
           "ENSG05": "TP53", "ENSG06": "APOE", "ENSG07": "NOTINSYNONYMS"}
SYNONYMS = {"TP53": "TP53", "BRCA1": "BRCA1", "OLDNAME": "NEWNAME", "NEWNAME": "NEWNAME",
            "IL6": "IL6", "APOE": "APOE"}
ROWS = [
    # Asthma (EFO_A): IL6 0.9, ENSG03 (alias -> NEWNAME) 0.5, ENSG07 unmapped 0.45,
    # TP53 twice (ENSG01 0.4, ENSG05 0.35 -> one TP53), BRCA1 exactly 0.2 (dropped)
    ("EFO_A", "ENSG04", 0.9), ("EFO_A", "ENSG03.7", 0.5), ("EFO_A", "ENSG07", 0.45),
    ("EFO_A", "ENSG01", 0.4), ("EFO_A", "ENSG05", 0.35), ("EFO_A", "ENSG02", 0.2),
    # Obesity has two ids: APOE best score is max(0.3, 0.8) = 0.8 > TP53 0.7
    ("EFO_O1", "ENSG06", 0.3), ("EFO_O2", "ENSG06", 0.8), ("EFO_O1", "ENSG01", 0.7),
    ("EFO_OTHER", "ENSG02", 0.99),
]
TABLE = ("trait\tdisease_ids\tsearch_name\tsource\n"
         "Asthma\tEFO_A\tasthma\tcurated\n"
         "Obesity\tEFO_O1;EFO_O2\tobesity\tcurated\n"
         "Hypertension\tEFO_H\thypertension\tcurated\n"
         "Rare_Thing\t-\trare thing\tunresolved\n")


def json_line(disease: str, target: str, score: float) -> str:
    return json.dumps({"diseaseId": disease, "targetId": target, "score": score,
                       "evidenceCount": 3}) + "\n"


@pytest.fixture
def release(tmp_path) -> Path:
    folder = tmp_path / "associationByOverallDirect"
    folder.mkdir()
    half = len(ROWS) // 2
    (folder / "part-00000-x.json").write_text("".join(json_line(*r) for r in ROWS[:half]))
    (folder / "part-00001-x.json.gz").write_bytes(
        gzip.compress("".join(json_line(*r) for r in ROWS[half:]).encode()))
    (folder / "_SUCCESS").write_text("")
    return folder


@pytest.fixture
def metadata(tmp_path) -> Path:
    md = tmp_path / "metadata"
    md.mkdir()
    (md / "gene_synonym.json").write_text(json.dumps(SYNONYMS))
    (md / "gene_ensembl.json").write_text(json.dumps(ENSEMBL))
    (tmp_path / "table.tsv").write_text(TABLE)
    return md


def test_related_genes_rules(release, metadata, tmp_path):
    table = read_trait_diseases(tmp_path / "table.tsv")
    related = build_related_genes(association_files(release), table, ENSEMBL, SYNONYMS,
                                  progress=False)
    assert related == {"Asthma": ["IL6", "NEWNAME", "TP53"],
                       "Obesity": ["APOE", "TP53"],
                       "Hypertension": [],
                       "Rare_Thing": []}


def test_ranking_ties_are_deterministic():
    scores = {"ENSG02": 0.5, "ENSG01": 0.5}
    assert rank_related_genes(scores, ENSEMBL, SYNONYMS) == ["TP53", "BRCA1"]
    assert rank_related_genes(scores, ENSEMBL, SYNONYMS, min_score=0.5) == []


def test_release_folder_listing(release):
    names = [p.name for p in association_files(release)]
    assert names == ["part-00000-x.json", "part-00001-x.json.gz"]


def test_parquet_and_bad_lines_are_clear_errors(tmp_path):
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / "part-0.parquet").write_bytes(b"PAR1")
    with pytest.raises(InputFileError, match="parquet files found"):
        association_files(tmp_path / "p")
    with pytest.raises(InputFileError, match="parquet is not supported"):
        association_files(tmp_path / "p" / "part-0.parquet")
    bad = tmp_path / "bad.json"
    bad.write_text(json_line("EFO_A", "ENSG01", 0.5) + '{"diseaseId": "EFO_A"}\n')
    table = [TraitDiseases("Asthma", ("EFO_A",), "asthma", "curated")]
    with pytest.raises(InputFileError, match=r"bad\.json:2: expected a JSON object"):
        collect_scores([bad], table, progress=False)


def test_committed_table_covers_the_benchmark():
    table = read_trait_diseases(TRAIT_DISEASES)
    assert len(table) == 132
    assert {r.source for r in table} == {"curated", "unresolved"}
    assert all(bool(r.disease_ids) == (r.source == "curated") for r in table)
    assert all(i.split("_")[0] in {"EFO", "MONDO", "HP", "Orphanet"}
               for r in table for i in r.disease_ids)


def test_table_errors_name_the_line(tmp_path):
    bad = tmp_path / "t.tsv"
    bad.write_text("trait\tdisease_ids\tsearch_name\tsource\nAsthma\tEFO_1\n")
    with pytest.raises(InputFileError, match=r"t\.tsv:2: expected 4"):
        read_trait_diseases(bad)


def test_check_table_against_disease_index(tmp_path):
    diseases = tmp_path / "diseases.json"
    diseases.write_text(
        json.dumps({"id": "EFO_A", "name": "Asthma"}) + "\n"
        + json.dumps({"id": "EFO_O1", "name": "obesity disorder"}) + "\n"
        + json.dumps({"id": "MONDO_9", "name": "rare disease X",
                      "synonyms": {"hasExactSynonym": ["rare thing"]}}) + "\n")
    (tmp_path / "table.tsv").write_text(TABLE)
    from download.opentargets import read_disease_index
    report = check_table(read_trait_diseases(tmp_path / "table.tsv"),
                         read_disease_index([diseases]))
    assert report == ["Obesity: EFO_O1 is named 'obesity disorder' (table says 'obesity')",
                      "Obesity: EFO_O2 is not in the release",
                      "Hypertension: EFO_H is not in the release",
                      "Rare_Thing: unresolved; 'rare thing' -> MONDO_9"]


def cli_common(tmp_path: Path, metadata: Path) -> list[str]:
    return ["--table", str(tmp_path / "table.tsv"), "--metadata-dir", str(metadata),
            "--state-dir", str(tmp_path / "state"), "--no-progress"]


def test_cli_writes_task_info_with_conditions(release, metadata, tmp_path, capsys):
    code = build_task_info.main(["--associations", str(release),
                                 *cli_common(tmp_path, metadata)])
    assert code == 0, capsys.readouterr().err
    info = json.loads((metadata / "task_info.json").read_text())
    assert info["Asthma"]["related_genes"] == ["IL6", "NEWNAME", "TP53"]
    # Asthma/Obesity Jaccard = |{TP53}| / |{IL6, NEWNAME, TP53, APOE}| = 0.25 -> paired anyway
    # (Obesity pairs with every trait); Hypertension pairs with every trait too
    assert info["Asthma"]["conditions"] == ["Age", "Gender", "Obesity", "Hypertension"]
    assert info["Rare_Thing"]["related_genes"] == []
    assert "1 have no disease id in the table" in capsys.readouterr().out


def test_cli_fetches_release_files_by_url(metadata, tmp_path, capsys):
    body = "".join(json_line(*r) for r in ROWS).encode()
    with FakeHub() as hub:
        hub.add_file("/ot/part-00000.json", body)
        hub.fail("/ot/part-00000.json", "truncate")
        url = hub.base_url + "/ot/part-00000.json"
        code = build_task_info.main(["--associations", url, "--backoff", "0.001",
                                     "--output", str(tmp_path / "out.json"),
                                     "--keep-conditions", *cli_common(tmp_path, metadata)])
    assert code == 0, capsys.readouterr().err
    assert json.loads((tmp_path / "out.json").read_text())["Obesity"]["related_genes"] == \
        ["APOE", "TP53"]
    assert (tmp_path / "state" / "opentargets" / "part-00000.json").read_bytes() == body


def test_cli_missing_maps_is_a_clear_error(release, tmp_path, capsys):
    (tmp_path / "table.tsv").write_text(TABLE)
    code = build_task_info.main(["--associations", str(release), "--table",
                                 str(tmp_path / "table.tsv"), "--metadata-dir",
                                 str(tmp_path / "empty"), "--no-progress"])
    assert code == 2
    assert "gene_ensembl.json: gene map not found" in capsys.readouterr().err
