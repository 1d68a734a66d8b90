"""Tests for tools.preprocess.soft: platform annotation tables, probe -> gene text mapping and
the column suggestion helper (SPEC 4.2)."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path

import pandas as pd
import pytest
from tests.conftest import shared_file

from tools.preprocess.soft import (get_gene_annotation, get_gene_mapping, read_platform_annotations,
                                   suggest_mapping_columns)
from utils.errors import InputFileError, NoGeneDataError
from utils.symbols import load_synonym_map

GPL96 = "geo/platforms/GPL96.soft.gz"
GSE6344 = "geo/truncated_fixtures/GSE6344_family.soft.gz"
GSE83521 = "geo/GSE83521/GSE83521_family.soft.gz"
GPL570_DERIVED = "geo/platforms/derived_id2symbol/GPL570.txt"


def family_soft(platforms: dict, samples: int = 2, platform_after_samples: dict = None) -> str:
    """A family SOFT with given platform tables and sample tables that must be ignored."""
    lines = ["^DATABASE = GeoMiame", "^SERIES = GSE1", '!Series_title = "t"']

    def platform_block(pid, rows):
        block = [f"^PLATFORM = {pid}", f"!Platform_geo_accession = {pid}", "#ID = probe",
                 "#Gene Symbol = symbol"]
        if rows is not None:
            block += ["!platform_table_begin", "ID\tGene Symbol\tOther"]
            block += ["\t".join(r) for r in rows]
            block += ["!platform_table_end"]
        return block

    for pid, rows in platforms.items():
        lines += platform_block(pid, rows)
    for i in range(samples):
        lines += [f"^SAMPLE = GSM{i}", "!Sample_title = s", "!sample_table_begin",
                  "ID_REF\tVALUE", "p1\t5.0", "SAMPLE_ONLY_PROBE\t1.0", "!sample_table_end"]
    for pid, rows in (platform_after_samples or {}).items():
        lines += platform_block(pid, rows)
    return "\n".join(lines) + "\n"


def write(path: Path, text, gz: bool = False) -> Path:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


ROWS_A = [["p1", "DDR1 /// MIR4640", "x"], ["p2", "RFC2", ""], ["p3", "", "y"],
          ["p4", "TP53", "z"]]


# ---------------------------------------------------------------------------
# Real data
# ---------------------------------------------------------------------------
def test_gpl96_platform_soft():
    annotation = get_gene_annotation(shared_file(GPL96))
    # MANIFEST: 22,283 probes, 16 columns (ID ... Gene Ontology Molecular Function)
    assert annotation.shape == (22283, 16)
    assert annotation.columns[0] == "ID"
    assert annotation.attrs["platform_id"] == "GPL96"
    first = annotation.iloc[0]
    assert first["ID"] == "1007_s_at" and first["Gene Symbol"] == "DDR1"
    assert annotation["ID"].iloc[-1] == "AFFX-TrpnX-M_at"


def test_gpl96_gene_mapping_and_suggestion(real_gene_maps: Path):
    path = shared_file(GPL96)
    annotation = get_gene_annotation(path)
    mapping = get_gene_mapping(annotation, "ID", "Gene Symbol")
    assert list(mapping.columns) == ["ID", "Gene"]
    # independent count: table rows whose 11th field (Gene Symbol) is not empty
    with gzip.open(path, "rt", encoding="latin-1") as handle:
        lines = handle.read().split("!platform_table_begin\n")[1].split(
            "!platform_table_end")[0].splitlines()[1:]
    expected = sum(1 for line in lines if line.split("\t")[10].strip())
    assert len(mapping) == expected
    assert mapping.iloc[0].tolist() == ["1007_s_at", "DDR1"]
    for synonyms in (load_synonym_map(real_gene_maps), None):
        suggestion = suggest_mapping_columns(annotation, synonyms=synonyms,
                                             use_synonyms=synonyms is not None)
        assert (suggestion.probe_col, suggestion.gene_col) == ("ID", "Gene Symbol")
        assert suggestion.scores["Gene Symbol"] > suggestion.scores["Gene Title"]


def test_two_platform_family_soft_excludes_sample_tables():
    tables = read_platform_annotations(shared_file(GSE6344))
    assert list(tables) == ["GPL96", "GPL97"]
    # truncated by Gemma: table lines 144-1145 (GPL96) and 1198-2299 (GPL97)
    assert tables["GPL96"].shape == (1000, 16)
    assert tables["GPL97"].shape == (1100, 16)
    for table in tables.values():
        assert table.columns[0] == "ID" and "VALUE" not in table.columns
        assert "ID_REF" not in set(table["ID"])
    assert tables["GPL97"]["ID"].iloc[0] == "200000_s_at"
    full = read_platform_annotations(shared_file(GSE6344), scan_whole_file=True)
    assert list(full) == ["GPL96", "GPL97"]
    pd.testing.assert_frame_equal(full["GPL97"], tables["GPL97"])
    first = get_gene_annotation(shared_file(GSE6344))
    pd.testing.assert_frame_equal(first, tables["GPL96"])


def test_circrna_platform_has_no_gene_data(real_gene_maps: Path):
    annotation = get_gene_annotation(shared_file(GSE83521))
    assert list(annotation.columns) == ["ID", "circRNA", "SPOT_ID", "PROBE_TYPE", "BUILD",
                                        "SEQUENCE"]
    assert len(annotation) == 5490
    for kwargs in ({"synonyms": load_synonym_map(real_gene_maps)}, {"use_synonyms": False}):
        with pytest.raises(NoGeneDataError, match="no gene data") as info:
            suggest_mapping_columns(annotation, **kwargs)
        assert str(info.value).startswith(str(shared_file(GSE83521)))
        assert "circRNA: 0" in str(info.value)
    with pytest.raises(NoGeneDataError, match="column 'circRNA' holds no gene symbols"):
        get_gene_mapping(annotation, "ID", "circRNA")


def test_derived_plain_table_is_accepted():
    annotation = get_gene_annotation(shared_file(GPL570_DERIVED))
    assert list(annotation.columns) == ["ID", "symbol"]
    assert len(annotation) == 54675
    assert annotation.iloc[0].tolist() == ["1007_s_at", "DDR1 /// MIR4640"]
    suggestion = suggest_mapping_columns(annotation, use_synonyms=False)
    assert (suggestion.probe_col, suggestion.gene_col) == ("ID", "symbol")


# ---------------------------------------------------------------------------
# Real files, damaged at test time (issue 26): refused, never read in silence.
# No real platform table has a ragged row (checked: GPL96, GSE6344's GPL96/GPL97,
# GSE83521's GPL19978 and the derived GPL570/GPL6244/GPL10558 maps: every row has the
# header's field count), so a row of another width is an error, not a warning.
# ---------------------------------------------------------------------------
def _damaged_copy(source: Path, target: Path, damage) -> int:
    """Write ``target``: ``source``'s text (gzip as the source, line endings kept) with
    ``damage(lines, table header index)`` applied; returns the 1-based line number
    ``damage`` returned."""
    raw = source.read_bytes()
    packed = raw[:2] == b"\x1f\x8b"
    text = (gzip.decompress(raw) if packed else raw).decode("latin-1")
    ending = "\r\n" if "\r\n" in text[:1000] else "\n"   # GPL96.soft.gz has CRLF
    lines = text.split(ending)
    header = lines.index("!platform_table_begin") + 1 if packed else 0
    line = damage(lines, header)
    data = ending.join(lines).encode("latin-1")
    target.write_bytes(gzip.compress(data, 1) if packed else data)
    return line


def _remove_one_cell(lines, header):
    row = header + 1000                       # a data row far from the table's edges
    cells = lines[row].split("\t")
    lines[row] = "\t".join(cells[:1] + cells[2:])
    return row + 1


def _extra_header_name(lines, header):
    lines[header] += "\tExtra column"
    return header + 2                         # every row is now one field short


@pytest.mark.parametrize("source", [GPL96, GPL570_DERIVED])
@pytest.mark.parametrize("damage, found, expected", [
    (_remove_one_cell, -1, 0), (_extra_header_name, 0, 1)])
def test_real_annotations_with_a_ragged_row_or_header_are_refused(tmp_path, source, damage,
                                                                   found, expected):
    real = shared_file(source)
    width = get_gene_annotation(real).shape[1] + (source == GPL570_DERIVED)  # + row names
    target = tmp_path / real.name
    line = _damaged_copy(real, target, damage)
    with pytest.raises(InputFileError) as info:
        get_gene_annotation(target)
    message = str(info.value)
    assert message.startswith(f"{target}:{line}: ")
    assert f"has {width + found} fields, expected {width + expected}" in message


@pytest.mark.parametrize("source", [GPL96, GSE6344, GSE83521])
def test_real_gzip_soft_files_cut_short_after_their_tables_are_refused(tmp_path, source):
    """Cut in the last kilobytes of the compressed file (after every platform table: a
    family file's sample tables, a platform file's end): the reader that stops at the
    first sample, or after the table, still checks the rest of the stream."""
    real = shared_file(source)
    raw = real.read_bytes()
    expected = read_platform_annotations(real)
    for cut in (8, 1000, len(raw) // 10):
        target = tmp_path / f"cut{cut}_{real.name}"
        target.write_bytes(raw[:len(raw) - cut])
        with pytest.raises(InputFileError, match="truncated gzip file") as info:
            read_platform_annotations(target)
        assert str(info.value).startswith(str(target))
    assert all(len(table) for table in expected.values())


# ---------------------------------------------------------------------------
# Hand-made fixtures
# ---------------------------------------------------------------------------
def test_sample_tables_never_read(tmp_path: Path):
    path = write(tmp_path / "GSE1_family.soft.gz", family_soft({"GPL1": ROWS_A}), gz=True)
    annotation = get_gene_annotation(path)
    assert list(annotation["ID"]) == ["p1", "p2", "p3", "p4"]
    assert "SAMPLE_ONLY_PROBE" not in set(annotation["ID"])
    assert pd.isna(annotation.loc[2, "Gene Symbol"])


def test_platform_after_samples_needs_full_scan(tmp_path: Path):
    text = family_soft({"GPL1": ROWS_A}, platform_after_samples={"GPL2": [["q1", "EGFR", ""]]})
    path = write(tmp_path / "f.soft", text)
    assert list(read_platform_annotations(path)) == ["GPL1"]
    tables = read_platform_annotations(path, scan_whole_file=True)
    assert list(tables) == ["GPL1", "GPL2"] and list(tables["GPL2"]["ID"]) == ["q1"]


def test_platform_without_table(tmp_path: Path):
    path = write(tmp_path / "f.soft", family_soft({"GPL23227": None}))
    tables = read_platform_annotations(path)
    assert list(tables) == ["GPL23227"] and tables["GPL23227"].empty
    with pytest.raises(NoGeneDataError, match="GPL23227 have no annotation table"):
        get_gene_annotation(path)


def test_get_gene_mapping_unknown_column(tmp_path: Path):
    annotation = get_gene_annotation(write(tmp_path / "f.soft", family_soft({"GPL1": ROWS_A})))
    with pytest.raises(KeyError, match="'Symbol' not in the annotation"):
        get_gene_mapping(annotation, "ID", "Symbol")
    mapping = get_gene_mapping(annotation, "ID", "Gene Symbol")
    assert mapping.values.tolist() == [["p1", "DDR1 /// MIR4640"], ["p2", "RFC2"],
                                       ["p4", "TP53"]]


@pytest.mark.parametrize("column, values", [
    ("GENE_SYMBOL", ["TP53", "EGFR", "KRAS", "MYC"]),
    ("gene_assignment", ["NM_000546 // TP53 // tumor protein p53 // 17p13.1 // 7157",
                         "NM_005228 // EGFR // epidermal growth factor receptor // 7p11.2",
                         "---", "NM_004985 // KRAS // KRAS proto-oncogene // 12p12.1"]),
    ("ORF", ["TP53", "EGFR", "", "MYC"]),
])
def test_suggestion_finds_common_symbol_columns(column, values):
    annotation = pd.DataFrame({
        "ID": ["A_23_P1", "A_23_P2", "A_23_P3", "A_23_P4"],
        "SPOT_ID": ["chr17:7565097-7590856", "chr7:55086794", "--", "chr8:128748315"],
        "GB_ACC": ["NM_000546", "NM_005228", "U48705", "NM_002467"],
        column: values}, dtype="str")
    suggestion = suggest_mapping_columns(annotation, use_synonyms=False)
    assert suggestion.gene_col == column and suggestion.probe_col == "ID"
    assert suggestion.scores["GB_ACC"] == 0


def test_suggestion_probe_column_by_overlap():
    annotation = pd.DataFrame({"ID": ["1", "2", "3"], "ProbeName": ["a", "b", "c"],
                               "Symbol": ["TP53", "EGFR", "MYC"]}, dtype="str")
    suggestion = suggest_mapping_columns(annotation, expression_ids=["b", "c"],
                                         use_synonyms=False)
    assert suggestion.probe_col == "ProbeName" and suggestion.gene_col == "Symbol"


@pytest.mark.parametrize("kind", ["family", "plain", "bad row"])
def test_annotation_file_is_opened_once(tmp_path: Path, monkeypatch, kind: str):
    """Sniffing the format, reading the table and naming a bad row share one open()."""
    rows = ROWS_A[:1] + [["p2", "RFC2", "x", "extra"]] if kind == "bad row" else ROWS_A
    text = ("\n\nID\tsymbol\np1\tTP53\n" if kind == "plain" else family_soft({"GPL1": rows}))
    path = write(tmp_path / "f.soft.gz", text, gz=True)
    opened = []
    real_open = open
    monkeypatch.setattr("builtins.open",
                        lambda file, *a, **k: opened.append(str(file)) or real_open(file, *a, **k))
    if kind == "bad row":
        with pytest.raises(InputFileError, match="has 4 fields, expected 3"):
            get_gene_annotation(path)
    else:
        assert get_gene_annotation(path).iloc[0, 1] == ("TP53" if kind == "plain"
                                                        else "DDR1 /// MIR4640")
    assert opened.count(str(path)) == 1


def test_non_utf8_annotation(tmp_path: Path):
    text = family_soft({"GPL1": [["p1", "TP53", "caf\xe9"]]}).encode("latin-1")
    annotation = get_gene_annotation(write(tmp_path / "f.soft.gz", text, gz=True))
    assert annotation.loc[0, "Other"] == "caf\u00e9"


# ---------------------------------------------------------------------------
# Bad input
# ---------------------------------------------------------------------------
def test_unclosed_platform_table(tmp_path: Path):
    text = family_soft({"GPL1": ROWS_A}, samples=0).replace("!platform_table_end\n", "")
    path = write(tmp_path / "f.soft", text)
    with pytest.raises(InputFileError, match="missing '!platform_table_end'") as info:
        get_gene_annotation(path)
    assert str(info.value).startswith(f"{path}:")


def test_annotation_row_with_too_many_fields(tmp_path: Path):
    rows = ROWS_A[:2] + [["p3", "EGFR", "y", "extra", "more"]] + ROWS_A[3:]
    path = write(tmp_path / "f.soft", family_soft({"GPL1": rows}))
    with pytest.raises(InputFileError, match="has 5 fields, expected 3") as info:
        get_gene_annotation(path)
    # lines: 3 series, ^PLATFORM, accession, 2 '#' lines, begin (8), header (9),
    # p1 (10), p2 (11), bad p3 (12)
    assert f"{path}:12:" in str(info.value)


def test_empty_soft_file(tmp_path: Path):
    path = write(tmp_path / "f.soft.gz", b"", gz=True)
    with pytest.raises(InputFileError, match="empty"):
        read_platform_annotations(path)


def test_empty_plain_annotation_file_is_named_without_parser_words(tmp_path: Path):
    path = write(tmp_path / "GPL1.txt", b"")
    with pytest.raises(InputFileError) as info:
        get_gene_annotation(path)
    assert str(info.value) == f"{path}: empty file, expected a SOFT file or an annotation table"


@pytest.mark.parametrize("kind", ["soft", "tab", "csv"])
def test_a_repeated_annotation_column_is_refused_naming_line_and_columns(tmp_path, kind):
    # pandas would keep the first 'ID' and rename the second 'ID.1' in silence
    if kind == "soft":
        path = write(tmp_path / "f.soft", "^PLATFORM = GPL1\n!platform_table_begin\n"
                     "ID\tGene Symbol\tID\np1\tA1BG\tx\n!platform_table_end\n")
        line = 3
    else:
        sep = "\t" if kind == "tab" else ","
        path = write(tmp_path / "GPL1.txt", sep.join(["ID", "Gene Symbol", "ID"]) + "\n"
                     + sep.join(["p1", "A1BG", "x"]) + "\n")
        line = 1
    with pytest.raises(InputFileError) as info:
        get_gene_annotation(path)
    assert str(info.value) == f"{path}:{line}: column 'ID' occurs twice (columns 1 and 3)"


def test_soft_without_platform_block(tmp_path: Path):
    path = write(tmp_path / "f.soft", "^SERIES = GSE1\n!Series_title = x\n")
    with pytest.raises(InputFileError, match="no '\\^PLATFORM' block"):
        get_gene_annotation(path)


def test_truncated_gzip_soft(tmp_path: Path):
    rows = [[f"p{i}", f"GENE{i % 500}", "x" * 20] for i in range(20000)]
    data = gzip.compress(family_soft({"GPL1": rows}).encode())
    path = write(tmp_path / "f.soft.gz", data[: len(data) // 2])
    with pytest.raises(InputFileError, match="truncated gzip"):
        get_gene_annotation(path)


def test_a_gzip_family_soft_cut_in_its_sample_tables_is_refused(tmp_path: Path):
    """The reader stops at the first ^SAMPLE line, yet checks the rest of the stream."""
    text = family_soft({"GPL1": ROWS_A}, samples=300)
    packed = gzip.compress(text.encode())
    whole = write(tmp_path / "whole.soft.gz", packed)
    assert get_gene_annotation(whole).shape == (4, 3)
    for cut in (4, 8, len(packed) // 3):        # gzip trailer only, ..., most samples
        path = write(tmp_path / f"cut{cut}.soft.gz", packed[:len(packed) - cut])
        with pytest.raises(InputFileError, match="truncated gzip file") as info:
            get_gene_annotation(path)
        assert str(info.value).startswith(str(path))
    damaged = bytearray(packed)
    damaged[-6] ^= 0xFF                          # the size in the trailer
    with pytest.raises(InputFileError, match="corrupt gzip data"):
        read_platform_annotations(write(tmp_path / "crc.soft.gz", bytes(damaged)))
    # a plain file has no trailer: cut at a line end after the platform table, its
    # annotation is whole and is read (the sample tables are never part of it)
    plain = text[:text.index("^SAMPLE = GSM200")]
    assert get_gene_annotation(write(tmp_path / "plain.soft", plain)).shape == (4, 3)


def _flushed_gzip(*parts: bytes) -> bytes:
    """A gzip stream of ``parts``, each ended by a sync flush (decodable up to there) and
    no final block nor trailer: a download cut exactly after the last part."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    return b"".join(packer.compress(part) + packer.flush(zlib.Z_SYNC_FLUSH) for part in parts)


@pytest.mark.parametrize("samples", [0, 3])
def test_a_gzip_soft_cut_right_after_its_last_table_is_refused(tmp_path: Path, samples: int):
    """Every byte of the table inflates (the stream was flushed just after it), yet the
    stream has no end: refused naming the file, for a platform file and a family file."""
    text = family_soft({"GPL1": ROWS_A, "GPL2": ROWS_A}, samples=samples).encode()
    end = text.rindex(b"!platform_table_end\n") + len(b"!platform_table_end\n")
    for name, data in (("cut.soft.gz", _flushed_gzip(text[:end])),
                       ("rest_cut.soft.gz", _flushed_gzip(text[:end], text[end:]))):
        path = write(tmp_path / name, data)
        for reader in (get_gene_annotation, read_platform_annotations):
            with pytest.raises(InputFileError, match="truncated gzip file") as info:
                reader(path)
            assert str(info.value).startswith(str(path))
    whole = write(tmp_path / "whole.soft.gz", text, gz=True)
    assert set(read_platform_annotations(whole)) == {"GPL1", "GPL2"}


def test_a_gzip_soft_whose_last_member_is_cut_is_refused(tmp_path: Path):
    """Two gzip members (as concatenated downloads make): the first holds the tables and
    is whole, the second is cut; the file is still refused."""
    text = family_soft({"GPL1": ROWS_A}, samples=50).encode()
    end = text.index(b"^SAMPLE")
    first, second = gzip.compress(text[:end]), gzip.compress(text[end:])
    assert get_gene_annotation(write(tmp_path / "two.soft.gz", first + second)).shape == (4, 3)
    for cut in (8, len(second) // 2):
        path = write(tmp_path / f"cut{cut}.soft.gz", first + second[:len(second) - cut])
        with pytest.raises(InputFileError, match="truncated gzip file") as info:
            get_gene_annotation(path)
        assert str(info.value).startswith(str(path))


# ---------------------------------------------------------------------------
# Shifted headers, extra fields, repeated markers, byte-order marks (issue 14)
# ---------------------------------------------------------------------------
# lines: 3 series, ^PLATFORM, accession, 2 '#' lines, begin (8), header (9), p1 (10)...
@pytest.mark.parametrize("edit, line, problem", [
    # the header one name short: ID would hold the symbols, 'Gene Symbol' the next column
    (lambda t: t.replace("ID\tGene Symbol\tOther", "Gene Symbol\tOther"), 10,
     "row has 3 fields, expected 2"),
    # an extra name in the header: every column would shift by one, silently
    (lambda t: t.replace("ID\tGene Symbol\tOther", "ID\tGene Symbol\tOther\tMore"), 10,
     "row has 3 fields, expected 4"),
    # one row with an extra field: never a phantom row
    (lambda t: t.replace("p2\tRFC2\t", "p2\tRFC2\textra\t"), 11,
     "row has 4 fields, expected 3"),
    # one cell removed from a row: the cells after it would move one column left
    (lambda t: t.replace("p2\tRFC2\t", "p2\t"), 11, "row has 2 fields, expected 3"),
    # a duplicated begin marker, taken as the header before
    (lambda t: t.replace("!platform_table_begin", "!platform_table_begin\n"
                                                  "!platform_table_begin", 1), 9,
     "expected the annotation table header after '!platform_table_begin'"),
    # a begin marker inside the table, taken as a row before
    (lambda t: t.replace("p2\t", "!platform_table_begin\np2\t", 1), 11,
     "unexpected '!platform_table_begin' line inside the table"),
    # an end marker inside the table: the rows after it must not vanish
    (lambda t: t.replace("p2\t", "!platform_table_end\np2\t", 1), 12,
     "a line outside the annotation table that is not a SOFT line"),
])
def test_annotation_shape_problems_name_the_line(tmp_path: Path, edit, line, problem):
    path = write(tmp_path / "f.soft", edit(family_soft({"GPL1": ROWS_A})))
    with pytest.raises(InputFileError, match=problem) as info:
        get_gene_annotation(path)
    assert str(info.value).startswith(f"{path}:{line}: ")


@pytest.mark.parametrize("plain", [False, True])
def test_a_utf8_bom_is_skipped(tmp_path: Path, plain: bool):
    text = "ID\tsymbol\np1\tTP53\n" if plain else family_soft({"GPL1": ROWS_A})
    expected = get_gene_annotation(write(tmp_path / "a.soft", text))
    marked = get_gene_annotation(write(tmp_path / "b.soft.gz", b"\xef\xbb\xbf" + text.encode(),
                                       gz=True))
    pd.testing.assert_frame_equal(expected, marked, check_like=False)


@pytest.mark.parametrize("text, problem, line", [
    ("ID\tsymbol\np1\tTP53\textra\n", "row has 3 fields, expected 2", 2),
    ("ID\tsymbol\tother\np1\tTP53\tx\np2\tRFC2\n", "row has 2 fields, expected 3", 3),
    ("ID\tsymbol\np1\tTP53\np2\tRF", "the file ends in the middle of this line", 3),
    ("ID,symbol\np1,TP53,extra\n", "row has 3 fields, expected 2", 2),
    ("ID,symbol,other\np1,TP53,x\n\np2,RFC2\n", "row has 2 fields, expected 3", 4),
    ('ID,symbol\n"p,1","TP53 // x"\n"p2","RFC2",y\n', "row has 3 fields, expected 2", 3),
    ("ID,symbol\np1,TP53\np2,RF", "the file ends in the middle of this line", 3),
    # an extra name in the header of a plain probe -> symbol map (tab or comma)
    ("ID\tsymbol\tExtra\np1\tTP53\np2\tRFC2\n", "row has 2 fields, expected 3", 2),
    ("ID,symbol,Extra\np1,TP53\np2,RFC2\n", "row has 2 fields, expected 3", 2),
    # one cell removed from a row of a wider map: the cells after it would move left
    ("ID\tsymbol\tENTREZ\np1\tTP53\t7157\np2\t5982\np3\tEGFR\t1956\n",
     "row has 2 fields, expected 3", 3),
])
def test_plain_annotation_tables_are_checked_too(tmp_path: Path, text, problem, line):
    path = write(tmp_path / "GPL1.txt", text)
    with pytest.raises(InputFileError, match=problem) as info:
        get_gene_annotation(path)
    assert str(info.value).startswith(f"{path}:{line}: " if line else f"{path}: ")


def test_quoted_csv_annotation_cells_may_hold_commas(tmp_path: Path):
    path = write(tmp_path / "GPL1.csv", 'ID,symbol\n"p,1","TP53, EGFR"\np2,RFC2\n')
    table = get_gene_annotation(path)
    assert table.values.tolist() == [["p,1", "TP53, EGFR"], ["p2", "RFC2"]]


def test_an_html_page_is_not_an_annotation(tmp_path: Path):
    path = write(tmp_path / "GPL1.soft", "<!DOCTYPE html>\n<html></html>\n")
    with pytest.raises(InputFileError, match="an HTML or XML page"):
        get_gene_annotation(path)
