"""Tests for the gene synonym builder (utils/gene_maps.py, SPEC 8.3)."""

from __future__ import annotations

import gzip
import json
import os
from pathlib import Path

import pandas as pd
import pytest
from tests.conftest import shared_file

import utils.gene_maps as builder
from utils.gene_maps import build_gene_maps, build_gene_synonyms, read_gene_info
from download.get_gene_synonyms import main as cli_main
from utils.errors import InputFileError

HEADER = ("#tax_id\tGeneID\tSymbol\tLocusTag\tSynonyms\tdbXrefs\tchromosome\tmap_location\t"
          "description\ttype_of_gene\tSymbol_from_nomenclature_authority\t"
          "Full_name_from_nomenclature_authority\tNomenclature_status\tOther_designations\t"
          "Modification_date\tFeature_type")


def gene_row(gene_id, symbol, synonyms="-", xrefs="-", gene_type="protein-coding",
             authority=None, tax="9606") -> str:
    authority = symbol if authority is None else authority
    return "\t".join([tax, str(gene_id), symbol, "-", synonyms, xrefs, "1", "1p1", "d",
                      gene_type, authority, "-", "O", "-", "20220101", "-"])


def write_gene_info(path: Path, rows, gz: bool = True) -> Path:
    text = "\n".join([HEADER, *rows]) + "\n"
    path.write_bytes(gzip.compress(text.encode()) if gz else text.encode())
    return path


@pytest.fixture(scope="module")
def real_maps(real_gene_maps: Path):
    folder = real_gene_maps.parent
    return {name: json.loads((folder / f"gene_{name}.json").read_text())
            for name in ("synonym", "entrez", "ensembl")}


# ---------------------------------------------------------------------------
# Real NCBI gene_info
# ---------------------------------------------------------------------------
def test_real_official_symbols_map_to_themselves(real_maps):
    info = read_gene_info(shared_file("genes/Homo_sapiens.gene_info.gz"))
    synonyms = real_maps["synonym"]
    symbols = info["Symbol"]
    # an upper-cased official symbol is claimed by exactly one gene except for a few
    # case/duplicate clashes (e.g. HBD: hemoglobin delta vs a phenotype record)
    clashes = set(symbols[symbols.str.upper().duplicated(keep=False)].str.upper())
    unique_symbols = symbols[~symbols.str.upper().isin(clashes)]
    assert len(unique_symbols) > 100000
    wrong = [s for s in unique_symbols if synonyms.get(s.upper()) != s]
    assert wrong == []
    assert synonyms["HBD"] == "HBD"


def test_real_well_known_aliases(real_maps):
    synonyms = real_maps["synonym"]
    expected = {"HER2": "ERBB2", "HER-2": "ERBB2", "NEU": "ERBB2", "P53": "TP53",
                "PD-L1": "CD274", "P16": "CDKN2A", "A2BP1": "RBFOX1", "AARS": "AARS1",
                "C1ORF112": "C1orf112", "TP53": "TP53"}
    assert {k: synonyms.get(k) for k in expected} == expected


def test_real_dash_is_never_an_alias(real_maps):
    synonyms = real_maps["synonym"]
    assert "-" not in synonyms and "" not in synonyms
    assert all(key == key.upper() and key.strip() == key for key in synonyms)
    official = set(synonyms.values())
    assert "-" not in official


def test_real_id_maps(real_maps):
    assert real_maps["entrez"]["7157"] == "TP53"
    assert real_maps["entrez"]["2064"] == "ERBB2"
    assert real_maps["ensembl"]["ENSG00000141510"] == "TP53"
    assert real_maps["ensembl"]["ENSG00000141736"] == "ERBB2"
    # only human records: the Neanderthal/Denisovan mitochondrial genes are not kept
    info = pd.read_csv(shared_file("genes/Homo_sapiens.gene_info.gz"), sep="\t", dtype=str,
                       usecols=["#tax_id", "GeneID"])
    non_human = info.loc[info["#tax_id"] != "9606", "GeneID"]
    assert len(non_human) > 0 and not set(non_human) & set(real_maps["entrez"])


def test_real_files_are_sorted_and_deterministic(real_gene_maps: Path, tmp_path: Path):
    keys = list(json.loads(real_gene_maps.read_text()))
    assert keys == sorted(keys)
    again = build_gene_synonyms(shared_file("genes/Homo_sapiens.gene_info.gz"), tmp_path)
    for name, path in again.items():
        assert path.read_bytes() == (real_gene_maps.parent / path.name).read_bytes(), name


# ---------------------------------------------------------------------------
# Precedence rules on hand-made records
# ---------------------------------------------------------------------------
def build(tmp_path: Path, rows, **kwargs):
    return build_gene_maps(read_gene_info(write_gene_info(tmp_path / "gi.gz", rows)),
                           **kwargs)


def test_official_symbol_beats_alias(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "AAA", synonyms="BBB|CCC"), gene_row(2, "BBB")])
    assert maps.synonyms == {"AAA": "AAA", "BBB": "BBB", "CCC": "AAA"}


def test_alias_goes_to_protein_coding_gene(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "PSEUDO1", synonyms="SHARED", gene_type="pseudo"),
                            gene_row(5, "CODING1", synonyms="SHARED")])
    assert maps.synonyms["SHARED"] == "CODING1"


def test_alias_goes_to_approved_symbol_then_lowest_gene_id(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "UNAPPROVED", synonyms="X1|X2", authority="-"),
                            gene_row(9, "APPROVED", synonyms="X1"),
                            gene_row(7, "LATER", synonyms="X2", authority="-")])
    assert maps.synonyms["X1"] == "APPROVED"
    assert maps.synonyms["X2"] == "UNAPPROVED"  # both unapproved: GeneID 1 < 7


def test_dash_and_blank_synonyms_ignored(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "AAA", synonyms="-"),
                            gene_row(2, "BBB", synonyms="b1| |-"),
                            gene_row(3, "-", synonyms="ZZZ")])
    assert maps.synonyms == {"AAA": "AAA", "B1": "BBB", "BBB": "BBB"}


def test_authority_symbol_is_an_alias_and_case_folded_keys(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "C1orf112", synonyms="FLJ10706",
                                     authority="FIRRM")])
    assert maps.synonyms == {"C1ORF112": "C1orf112", "FIRRM": "C1orf112",
                             "FLJ10706": "C1orf112"}


def test_non_human_rows_ignored_and_id_maps(tmp_path: Path):
    maps = build(tmp_path, [
        gene_row(7157, "TP53", xrefs="MIM:191170|HGNC:HGNC:11998|Ensembl:ENSG00000141510"),
        gene_row(8923213, "ATP6", tax="63221"),
        gene_row(99, "DUP", xrefs="Ensembl:ENSG00000141510", gene_type="pseudo")])
    assert "ATP6" not in maps.synonyms
    assert maps.entrez == {"99": "DUP", "7157": "TP53"}
    assert maps.ensembl == {"ENSG00000141510": "TP53"}  # protein-coding wins


def test_restrict_to(tmp_path: Path):
    maps = build(tmp_path, [gene_row(1, "AAA", synonyms="SHARED"),
                            gene_row(2, "BBB", synonyms="SHARED|B2")],
                 restrict_to=["bbb"])
    assert maps.synonyms == {"B2": "BBB", "BBB": "BBB", "SHARED": "BBB"}
    assert maps.entrez == {"2": "BBB"}


# ---------------------------------------------------------------------------
# CLI, bad input, atomic writes
# ---------------------------------------------------------------------------
def test_cli_builds_maps(tmp_path: Path, capsys):
    gene_info = write_gene_info(tmp_path / "gi.txt", [gene_row(1, "AAA", synonyms="A1"),
                                                      gene_row(2, "BBB")], gz=False)
    (tmp_path / "keep.txt").write_text("# demo\nAAA\n")
    out = tmp_path / "meta"
    assert cli_main(["--gene-info", str(gene_info), "--output-dir", str(out),
                     "--restrict-to", str(tmp_path / "keep.txt")]) == 0
    assert json.loads((out / "gene_synonym.json").read_text()) == {"A1": "AAA", "AAA": "AAA"}
    assert json.loads((out / "gene_entrez.json").read_text()) == {"1": "AAA"}
    assert json.loads((out / "gene_ensembl.json").read_text()) == {}
    assert str(out / "gene_synonym.json") in capsys.readouterr().out


def test_cli_default_output_is_metadata_dir(tmp_path: Path, monkeypatch):
    gene_info = write_gene_info(tmp_path / "gi.gz", [gene_row(1, "AAA")])
    monkeypatch.setenv("GENOTEX_METADATA", str(tmp_path / "md"))
    assert cli_main(["--gene-info", str(gene_info)]) == 0
    assert (tmp_path / "md" / "gene_synonym.json").is_file()


def test_missing_columns_named(tmp_path: Path, capsys):
    path = tmp_path / "bad.tsv"
    path.write_text("#tax_id\tGeneID\tSymbol\n9606\t1\tAAA\n")
    with pytest.raises(InputFileError, match="missing column\\(s\\) Synonyms") as info:
        read_gene_info(path)
    assert str(info.value).startswith(f"{path}:1:")
    assert cli_main(["--gene-info", str(path), "--output-dir", str(tmp_path)]) == 2
    assert "missing column" in capsys.readouterr().err


def test_empty_gene_info(tmp_path: Path):
    path = tmp_path / "empty.gz"
    path.write_bytes(gzip.compress(b""))
    with pytest.raises(InputFileError, match="empty file"):
        read_gene_info(path)


def test_failed_write_leaves_previous_maps_untouched(tmp_path: Path, monkeypatch):
    gene_info = write_gene_info(tmp_path / "gi.gz", [gene_row(1, "AAA")])
    out = tmp_path / "meta"
    build_gene_synonyms(gene_info, out)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    calls = {"n": 0}
    real_dumps = builder.dumps_json

    def failing_dumps(obj, indent=4):
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError("disk full")
        return real_dumps(obj, indent=indent)

    monkeypatch.setattr(builder, "dumps_json", failing_dumps)
    write_gene_info(tmp_path / "gi.gz", [gene_row(1, "AAA"), gene_row(2, "BBB")])
    with pytest.raises(OSError, match="disk full"):
        build_gene_synonyms(gene_info, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert sorted(os.listdir(out)) == ["gene_ensembl.json", "gene_entrez.json",
                                       "gene_synonym.json"]


# ---------------------------------------------------------------------------
# Shifted headers, cut files, wrong formats (issue 14)
# ---------------------------------------------------------------------------
ROWS = [gene_row(1, "A1BG", "A1B|ABG"), gene_row(2, "A2M", "A2MD"), gene_row(3, "NAT1")]


def gene_info_text(rows=ROWS, header=HEADER) -> str:
    return "\n".join([header, *rows]) + "\n"


@pytest.mark.parametrize("text, problem, line", [
    # a column name missing in the middle: every later column would shift
    (gene_info_text(header=HEADER.replace("LocusTag\t", "")),
     "gene_info row has 16 fields, expected 15", 2),
    # cut in the middle of the last row, at a field boundary or inside a field
    (gene_info_text()[:-40], "gene_info row has [0-9]+ fields, expected 16", 4),
    (gene_info_text()[:-1], "the file ends in the middle of this line", 4),
    (gene_info_text(rows=[gene_row(1, "A1BG", tax="10090")]), "no human gene", None),
])
def test_gene_info_shape_problems_are_named(tmp_path: Path, text, problem, line):
    path = tmp_path / "Homo_sapiens.gene_info"
    path.write_text(text)
    with pytest.raises(InputFileError, match=problem) as info:
        read_gene_info(path)
    assert str(info.value).startswith(f"{path}:{line}: " if line else f"{path}: ")


@pytest.mark.parametrize("data, problem", [
    (bytes(range(256)) * 4, "binary data, not text"),
    (gene_info_text().encode("utf-16"), "UTF-16 text"),
    (b"<html><body>gene_info moved</body></html>\n", "an HTML or XML page"),
])
def test_binary_or_utf16_gene_info_names_the_file(tmp_path: Path, data, problem):
    """These used to raise a bare UnicodeDecodeError."""
    path = tmp_path / "Homo_sapiens.gene_info.gz"
    path.write_bytes(gzip.compress(data))
    with pytest.raises(InputFileError, match=problem) as info:
        read_gene_info(path)
    assert str(info.value).startswith(str(path))


def test_a_bom_prefixed_gene_info_keeps_its_first_column(tmp_path: Path):
    path = tmp_path / "gi"
    path.write_bytes(b"\xef\xbb\xbf" + gene_info_text().encode())
    assert list(read_gene_info(path)["GeneID"]) == ["1", "2", "3"]
