"""Open Targets related genes and the task-info builder (download/opentargets.py)."""

from __future__ import annotations

import gzip
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.conftest import REPO_ROOT
from genotex.testing.fake_download import FakeHub

from download import build_task_info
from download.opentargets import (TRAIT_DISEASES, TraitDiseases, association_files,
                                  build_related_genes, check_table, collect_scores,
                                  iter_associations, rank_related_genes, read_disease_index,
                                  read_trait_diseases)

# fastparquet through parquet_rows, whose import silences its pandas deprecation warning
from download.parquet_rows import fastparquet, iter_row_groups, verify_parquet
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


def test_bad_json_lines_are_clear_errors(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json_line("EFO_A", "ENSG01", 0.5) + '{"diseaseId": "EFO_A"}\n')
    table = [TraitDiseases("Asthma", ("EFO_A",), "asthma", "curated")]
    with pytest.raises(InputFileError, match=r"bad\.json:2: expected a JSON object"):
        collect_scores([bad], table, progress=False)


@pytest.mark.parametrize("content", ["", '{"diseaseId": "EFO_OTHER", "targetId": "ENSG1", '
                                         '"score": 0.9}\n'])
def test_associations_without_a_disease_of_the_table_are_refused(tmp_path, content):
    # an empty (or wrong) release would give every trait an empty gene list, written
    # over task_info.json
    path = tmp_path / "part-0.json"
    path.write_text(content)
    table = [TraitDiseases("Asthma", ("EFO_A",), "asthma", "curated")]
    with pytest.raises(InputFileError, match="no association of any disease of the table") \
            as info:
        collect_scores([path], table, progress=False)
    assert str(info.value).startswith(str(path))


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


# -- parquet releases ---------------------------------------------------------------------
ASSOCIATION_COLUMNS = ["diseaseId", "targetId", "score"]
# The layout Spark / Arrow write and fastparquet cannot: columns id, code, name,
# synonyms struct<hasBroadSynonym, hasExactSynonym, hasNarrowSynonym, hasRelatedSynonym:
# list<string>>, therapeuticAreas list<string>; 4 rows in 2 row groups, snappy. Made once
# with pyarrow 26.0.1 in a throwaway environment (pyarrow is not a project dependency);
# rows as in test_parquet_diseases_index_matches_json_lines, EFO_A with an empty exact
# list and MONDO_10 with a null entry in it.
NESTED_DISEASES = Path(__file__).parent / "data" / "opentargets_diseases_nested.parquet"


def part_bounds(count: int, parts: int) -> list[tuple[int, int]]:
    edges = np.linspace(0, count, parts + 1).astype(int)
    return list(zip(edges[:-1], edges[1:]))


def association_frame(rows) -> pd.DataFrame:
    """Rows with the release's extra columns around the three that are read."""
    frame = pd.DataFrame(rows, columns=ASSOCIATION_COLUMNS)
    frame.insert(0, "evidenceCount", np.arange(len(frame), dtype=np.int64))
    frame["datasourceScores"] = [[{"id": "gwas", "score": s}] for s in frame["score"]]
    return frame


def write_parquet_release(folder: Path, rows, parts: int = 3, group_rows: int = 2) -> Path:
    """A Spark-like folder: parquet parts of several row groups, _SUCCESS, a .crc file."""
    folder.mkdir()
    frame = association_frame(rows)
    for number, (start, stop) in enumerate(part_bounds(len(frame), parts)):
        compression = ("SNAPPY", "GZIP", None)[number % 3]
        fastparquet.write(str(folder / f"part-{number:05d}-x.parquet"),
                          frame.iloc[start:stop].reset_index(drop=True),
                          row_group_offsets=group_rows, compression=compression,
                          write_index=False)
    (folder / "_SUCCESS").write_text("")
    (folder / ".part-00000-x.parquet.crc").write_bytes(b"crc")
    return folder


def write_json_release(folder: Path, rows, parts: int = 2) -> Path:
    folder.mkdir()
    for number, (start, stop) in enumerate(part_bounds(len(rows), parts)):
        text = "".join(json_line(*row) for row in rows[start:stop])
        (folder / f"part-{number:05d}-x.json.gz").write_bytes(gzip.compress(text.encode()))
    return folder


def random_rows(seed: int = 7, count: int = 400) -> list[tuple[str, str, float]]:
    """Many rows with score ties, repeated targets, version suffixes and other diseases."""
    rng = random.Random(seed)
    diseases = ["EFO_A", "EFO_O1", "EFO_O2", "EFO_H", "EFO_OTHER", "MONDO_X"]
    targets = [f"ENSG0{i}" for i in range(1, 8)] + ["ENSG03.7", "ENSG01.2", "ENSG99"]
    scores = [0.1, 0.2, 0.2000001, 0.35, 0.5, 0.5, 0.9, 1.0]
    return [(rng.choice(diseases), rng.choice(targets), rng.choice(scores))
            for _ in range(count)]


@pytest.fixture
def parquet_release(tmp_path) -> Path:
    return write_parquet_release(tmp_path / "associationByOverallDirect.parquet", ROWS)


def test_parquet_release_listing_and_rules(parquet_release, tmp_path):
    files = association_files(parquet_release)
    assert [p.name for p in files] == [f"part-0000{i}-x.parquet" for i in range(3)]
    table = read_trait_diseases_from(tmp_path)
    assert build_related_genes(files, table, ENSEMBL, SYNONYMS, progress=False) == \
        {"Asthma": ["IL6", "NEWNAME", "TP53"], "Obesity": ["APOE", "TP53"],
         "Hypertension": [], "Rare_Thing": []}


def read_trait_diseases_from(tmp_path: Path):
    (tmp_path / "table.tsv").write_text(TABLE)
    return read_trait_diseases(tmp_path / "table.tsv")


def test_parquet_reads_only_the_needed_columns_a_row_group_at_a_time(parquet_release):
    part = association_files(parquet_release)[0]
    frames = list(iter_row_groups(part, ASSOCIATION_COLUMNS, optional=("absent",)))
    assert len(frames) == len(fastparquet.ParquetFile(str(part)).row_groups) == 2
    assert all(list(frame.columns) == ASSOCIATION_COLUMNS for frame in frames)
    assert sum(len(frame) for frame in frames) == 3  # rows 0-2 of ROWS


@pytest.mark.parametrize("wanted", [None, {"EFO_A", "EFO_O2", "NOT_THERE"}, set()])
def test_parquet_rows_equal_json_rows(tmp_path, wanted):
    rows = random_rows()
    parquet = association_files(write_parquet_release(tmp_path / "pq", rows, 4, 17))
    lines = association_files(write_json_release(tmp_path / "js", rows, 3))
    from_parquet = list(iter_associations(parquet, wanted, progress=False))
    assert from_parquet == list(iter_associations(lines, wanted, progress=False))
    assert len(from_parquet) == sum(wanted is None or r[0] in wanted for r in rows)


def test_cli_parquet_and_json_give_identical_task_info(metadata, tmp_path, capsys):
    rows = random_rows(seed=11)
    outputs = {}
    for kind, writer in (("pq", write_parquet_release), ("js", write_json_release)):
        folder = writer(tmp_path / kind, rows)
        outputs[kind] = tmp_path / f"task_info_{kind}.json"
        code = build_task_info.main(["--associations", str(folder), "--output",
                                     str(outputs[kind]), *cli_common(tmp_path, metadata)])
        assert code == 0, capsys.readouterr().err
    assert outputs["pq"].read_bytes() == outputs["js"].read_bytes()
    info = json.loads(outputs["pq"].read_text())
    assert info["Asthma"]["related_genes"] and info["Obesity"]["related_genes"]


def test_cli_reads_a_parquet_release_folder(parquet_release, metadata, tmp_path):
    script = REPO_ROOT / "download" / "build_task_info.py"
    done = subprocess.run([sys.executable, str(script), "--associations", str(parquet_release),
                           *cli_common(tmp_path, metadata)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert "4 traits, " in done.stdout
    info = json.loads((metadata / "task_info.json").read_text())
    assert info["Asthma"]["related_genes"] == ["IL6", "NEWNAME", "TP53"]
    assert info["Obesity"]["related_genes"] == ["APOE", "TP53"]
    assert info["Asthma"]["conditions"] == ["Age", "Gender", "Obesity", "Hypertension"]


def test_mixed_or_empty_folders_are_refused(parquet_release, tmp_path):
    (parquet_release / "part-00009-x.json").write_text(json_line("EFO_A", "ENSG01", 0.5))
    with pytest.raises(InputFileError, match=re.escape(str(parquet_release))
                       + ": mixes 1 JSON-lines and 3 parquet part files"):
        association_files(parquet_release)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "_SUCCESS").write_text("")
    with pytest.raises(InputFileError, match=re.escape(str(empty)) + ": no part files"):
        association_files(empty)


def damaged_page(good: Path, target: Path) -> Path:
    """``good`` with the second half of its last targetId chunk overwritten (GZIP part)."""
    chunk = next(c.meta_data for c in fastparquet.ParquetFile(str(good)).row_groups[-1].columns
                 if c.meta_data.path_in_schema == ["targetId"])
    data = bytearray(good.read_bytes())
    start, size = chunk.data_page_offset, chunk.total_compressed_size
    data[start + size // 2:start + size] = b"\xaa" * (size - size // 2)
    target.write_bytes(bytes(data))
    return target


def test_corrupt_parquet_is_an_error_naming_the_file(parquet_release, tmp_path):
    good = parquet_release / "part-00001-x.parquet"  # GZIP: damage is always detected
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[:-20])
    not_parquet = tmp_path / "text.parquet"
    not_parquet.write_text(json_line("EFO_A", "ENSG01", 0.5))
    table = [TraitDiseases("Asthma", ("EFO_A",), "asthma", "curated")]
    for path, problem in ((truncated, "not a readable parquet file"),
                          (not_parquet, "not a readable parquet file"),
                          (damaged_page(good, tmp_path / "page.parquet"),
                           "row group 1: cannot decode")):
        with pytest.raises(InputFileError, match=re.escape(f"{path}: {problem}")):
            collect_scores([path], table, progress=False)


def test_parquet_missing_column_or_value_is_an_error(tmp_path):
    table = [TraitDiseases("Asthma", ("EFO_A",), "asthma", "curated")]
    no_score = tmp_path / "no_score.parquet"
    fastparquet.write(str(no_score), pd.DataFrame({"diseaseId": ["EFO_A"],
                                                   "targetId": ["ENSG01"]}))
    with pytest.raises(InputFileError, match="missing parquet column.s. score"):
        collect_scores([no_score], table, progress=False)
    null_target = tmp_path / "null.parquet"
    fastparquet.write(str(null_target), pd.DataFrame(
        {"diseaseId": ["EFO_A", "EFO_Z", "EFO_A"], "targetId": ["ENSG01", "ENSG02", None],
         "score": [0.5, 0.6, 0.7]}), row_group_offsets=2)
    with pytest.raises(InputFileError, match=r"row group 1, row 0: targetId is missing"):
        collect_scores([null_target], table, progress=False)


def test_parquet_diseases_index_matches_json_lines(tmp_path):
    records = [{"id": "EFO_A", "name": "Asthma", "therapeuticAreas": ["EFO_1"]},
               {"id": "EFO_O1", "name": "obesity disorder", "synonyms": None},
               {"id": "MONDO_9", "name": "rare disease X",
                "synonyms": {"hasExactSynonym": ["rare thing"], "hasRelatedSynonym": ["rt"]}},
               {"id": "MONDO_10", "name": "other disease",
                "synonyms": {"hasExactSynonym": ["Rare Thing"], "hasBroadSynonym": ["b"]}}]
    lines = tmp_path / "diseases.json"
    lines.write_text("".join(json.dumps(r) + "\n" for r in records))
    folder = tmp_path / "diseases"
    folder.mkdir()
    frame = pd.DataFrame({"id": [r["id"] for r in records], "code": "x",
                          "name": [r["name"] for r in records],
                          "synonyms": [r.get("synonyms") for r in records],
                          "therapeuticAreas": [r.get("therapeuticAreas", []) for r in records]})
    for number, (start, stop) in enumerate(part_bounds(len(frame), 2)):
        fastparquet.write(str(folder / f"part-{number}.parquet"),
                          frame.iloc[start:stop].reset_index(drop=True), row_group_offsets=1)
    expected = read_disease_index([lines])
    assert expected["MONDO_10"] == ("other disease", ("Rare Thing",))
    assert read_disease_index(association_files(folder)) == expected
    # a struct of lists, which fastparquet flattens to 'synonyms.hasExactSynonym';
    # empty lists and null entries come out as nothing
    assert read_disease_index([NESTED_DISEASES]) == expected


def test_cli_check_reads_parquet_diseases(metadata, tmp_path, capsys):
    (tmp_path / "table.tsv").write_text(TABLE)
    code = build_task_info.main(["--check", "--diseases", str(NESTED_DISEASES),
                                 *cli_common(tmp_path, metadata)])
    assert code == 1
    assert capsys.readouterr().out.splitlines() == [
        "Obesity: EFO_O1 is named 'obesity disorder' (table says 'obesity')",
        "Obesity: EFO_O2 is not in the release",
        "Hypertension: EFO_H is not in the release",
        "Rare_Thing: unresolved; 'rare thing' -> MONDO_10, MONDO_9"]


def test_cli_corrupt_parquet_exits_2_naming_the_file(parquet_release, metadata, tmp_path,
                                                     capsys):
    part = parquet_release / "part-00002-x.parquet"
    part.write_bytes(part.read_bytes()[:-30])
    code = build_task_info.main(["--associations", str(parquet_release),
                                 *cli_common(tmp_path, metadata)])
    assert code == 2
    assert f"error: {part}: not a readable parquet file" in capsys.readouterr().err


def test_cli_fetches_a_parquet_file_by_url(parquet_release, metadata, tmp_path, capsys):
    body = (parquet_release / "part-00000-x.parquet").read_bytes()
    with FakeHub() as hub:
        hub.add_file("/ot/part-00000.parquet", body)
        hub.fail("/ot/part-00000.parquet", "corrupt")  # right length, first byte changed
        url = hub.base_url + "/ot/part-00000.parquet"
        code = build_task_info.main(["--associations", url, "--backoff", "0.001",
                                     "--output", str(tmp_path / "out.json"),
                                     "--keep-conditions", *cli_common(tmp_path, metadata)])
        gets = [r for r in hub.log if r[0] == "GET"]
    assert code == 0, capsys.readouterr().err
    assert len(gets) == 2  # the corrupt body failed verification and was fetched again
    assert (tmp_path / "state" / "opentargets" / "part-00000.parquet").read_bytes() == body
    # part 0 holds the first 3 rows: Asthma's IL6, ENSG03 (NEWNAME) and ENSG07 (unmapped)
    assert json.loads((tmp_path / "out.json").read_text())["Asthma"]["related_genes"] == \
        ["IL6", "NEWNAME"]


def test_verify_parquet_frame(parquet_release, tmp_path):
    good = parquet_release / "part-00000-x.parquet"
    verify_parquet(good)
    cases = {"short": b"PAR1PAR1", "tail": good.read_bytes()[:-1],
             "footer": good.read_bytes()[:-8] + (10 ** 9).to_bytes(4, "little") + b"PAR1"}
    for name, data in cases.items():
        (tmp_path / name).write_bytes(data)
        with pytest.raises(ValueError):
            verify_parquet(tmp_path / name)
