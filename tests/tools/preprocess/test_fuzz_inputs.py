"""Seeded fuzzing of the input readers with mutated generated files (issue 14).

Small files of six formats are built in code from a seeded generator: a series
matrix, a family SOFT file, an NCBI count table, an NCBI ``gene_info``, a Xena
clinicalMatrix and a ``cohort_info.json``. Each is mutated in many ways and read
by its reader, under a per-case hang guard. Every mutation has an expectation:

``same``
    semantically neutral (a UTF-8 byte-order mark, gzip, CRLF line endings, a
    blank line): the result must equal the unmutated file's result;
``error``
    must be detected (a header one name short or long, a file cut in the middle
    of a line, a phantom sample, an extra field in a row, a stray begin marker,
    UTF-16, an HTML page, a line or a file over the caps): an
    :class:`~utils.errors.InputFileError` (or subclass) naming the file;
``any``
    damage that may or may not matter (byte flips, inserted or deleted bytes, NUL
    bytes, a line inserted, removed or duplicated): a result, or an ``InputFileError``
    naming the file.

Never another exception type, never a hang. The seed and the number of random
cases are fixed, so a failure reproduces; each case id names the format, the
mutation and its position.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Tuple

import pandas as pd
import pytest

from utils.gene_maps import read_gene_info
from tests.hang_guard import fail_after
from tools.preprocess.cohort_info import early_stop_record, save_cohort_record
from tools.preprocess.geo import (get_background_and_clinical_data, get_genetic_data,
                                  read_gene_count_table)
from tools.preprocess.soft import get_gene_annotation
from tools.preprocess.tcga import tcga_read_clinical_data
from utils.errors import InputFileError
from utils.input_safety import ReadLimits

SEED = 14
RANDOM_CASES = 20  # random "any" mutations per format
CASE_SECONDS = 20.0  # hang guard of one case (each takes milliseconds)
# Small caps, so "huge line" and "bomb" cases stay small; every generated line and
# file is far below them.
LIMITS = ReadLimits(max_line_bytes=2_000, max_total_bytes=100_000)

SAME, ERROR, ANY = "same", "error", "any"


# ---------------------------------------------------------------------------
# Generated files
# ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Sample:
    """A generated file and where its table lives.

    Attributes
    ----------
    text : str
    header : int or None
        Index (0-based) of the table's header line.
    rows : range
        Indexes of the table's data lines.
    begin : str or None
        The line opening the table (series matrix, SOFT).
    sep : str
        Field separator of the table.
    """

    text: str
    header: Optional[int]
    rows: range
    begin: Optional[str] = None
    sep: str = "\t"

    @property
    def lines(self) -> List[str]:
        return self.text.split("\n")


def _gsms(rng: random.Random, n: int) -> List[str]:
    first = rng.randrange(100_000, 900_000)
    return [f"GSM{first + i}" for i in range(n)]


def build_matrix(rng: random.Random) -> Sample:
    samples = _gsms(rng, rng.randint(3, 5))
    quoted = "\t".join(f'"{s}"' for s in samples)
    head = ['!Series_title\t"Fuzzed series"', '!Series_summary\t"Generated"',
            '!Series_overall_design\t"cases vs controls"',
            "!Sample_title\t" + "\t".join(f'"t {s}"' for s in samples),
            f"!Sample_geo_accession\t{quoted}",
            "!Sample_characteristics_ch1\t" + "\t".join(
                f'"disease: {rng.choice(["RA", "OA"])}"' for _ in samples),
            "!Sample_characteristics_ch1\t" + "\t".join(
                f'"age: {rng.randint(20, 80)}"' for _ in samples),
            "!series_matrix_table_begin", f'"ID_REF"\t{quoted}']
    rows = [f'"{rng.randrange(1000, 9999)}_at_{i}"\t' + "\t".join(
        f"{rng.uniform(1, 15):.3f}" for _ in samples) for i in range(rng.randint(5, 9))]
    lines = head + rows + ["!series_matrix_table_end"]
    return Sample("\n".join(lines) + "\n", len(head) - 1,
                  range(len(head), len(head) + len(rows)), "!series_matrix_table_begin")


def build_soft(rng: random.Random) -> Sample:
    head = ["^DATABASE = GeoMiame", "^SERIES = GSE1", "!Series_title = fuzz",
            "^PLATFORM = GPL1", "!Platform_geo_accession = GPL1", "#ID = probe",
            "!platform_table_begin", "ID\tGB_ACC\tGene Symbol"]
    symbols = ["TP53", "EGFR", "KRAS", "BRCA1", "MYC", "DDR1 /// MIR4640", ""]
    rows = [f"p{i}\tNM_{rng.randrange(10_000, 99_999)}\t{rng.choice(symbols)}"
            for i in range(rng.randint(5, 9))]
    tail = ["!platform_table_end", "^SAMPLE = GSM1", "!sample_table_begin", "ID_REF\tVALUE",
            "p0\t1.5", "!sample_table_end"]
    lines = head + rows + tail
    return Sample("\n".join(lines) + "\n", len(head) - 1,
                  range(len(head), len(head) + len(rows)), "!platform_table_begin")


def build_counts(rng: random.Random) -> Sample:
    samples = _gsms(rng, rng.randint(3, 6))
    rows = [f"{rng.randrange(1, 100_000)}\t" + "\t".join(
        str(rng.randrange(0, 5000)) for _ in samples) for _ in range(rng.randint(5, 9))]
    lines = ["GeneID\t" + "\t".join(samples)] + rows
    return Sample("\n".join(lines) + "\n", 0, range(1, len(lines)))


GENE_INFO_COLUMNS = ["#tax_id", "GeneID", "Symbol", "LocusTag", "Synonyms", "dbXrefs",
                     "chromosome", "map_location", "description", "type_of_gene",
                     "Symbol_from_nomenclature_authority",
                     "Full_name_from_nomenclature_authority", "Nomenclature_status",
                     "Other_designations", "Modification_date", "Feature_type"]


def build_gene_info(rng: random.Random) -> Sample:
    rows = []
    for gene_id in sorted(rng.sample(range(1, 50_000), rng.randint(5, 9))):
        symbol = f"G{gene_id}"
        rows.append("\t".join(["9606", str(gene_id), symbol, "-", f"{symbol}A|{symbol}B",
                               f"Ensembl:ENSG{gene_id:011d}", "1", "1p1", "d",
                               rng.choice(["protein-coding", "ncRNA"]), symbol, "-", "O",
                               "-", "20240101", "-"]))
    lines = ["\t".join(GENE_INFO_COLUMNS)] + rows
    return Sample("\n".join(lines) + "\n", 0, range(1, len(lines)))


def build_clinical(rng: random.Random) -> Sample:
    rows = []
    for i in range(rng.randint(5, 9)):
        code = rng.choice(["01", "11"])
        rows.append(f"TCGA-{i:02d}-{rng.randrange(1000, 9999)}-{code}\t"
                    f"{rng.randint(30, 85)}\t{rng.choice(['MALE', 'FEMALE'])}\t"
                    f"{rng.choice(['Stage I', 'Stage II', ''])}")
    lines = ["sampleID\tage_at_initial_pathologic_diagnosis\tgender\tstage"] + rows
    return Sample("\n".join(lines) + "\n", 0, range(1, len(lines)))


def build_cohort_info(rng: random.Random) -> Sample:
    records = {}
    for i in range(rng.randint(2, 4)):
        size = rng.randint(20, 300)
        records[f"GSE{1000 + i}"] = {
            "is_usable": True, "is_gene_available": True, "is_trait_available": True,
            "is_available": True, "is_biased": False, "has_age": rng.random() < 0.5,
            "has_gender": True, "sample_size": size, "note": ""}
    return Sample(json.dumps(records, indent=4) + "\n", None, range(0))


# ---------------------------------------------------------------------------
# Readers: each returns a canonical result, compared with the unmutated one
# ---------------------------------------------------------------------------
def read_matrix(path: Path) -> Tuple:
    table = get_genetic_data(path, limits=LIMITS)
    background, clinical = get_background_and_clinical_data(path, limits=LIMITS)
    return table, background, clinical


def read_soft(path: Path) -> pd.DataFrame:
    return get_gene_annotation(path, limits=LIMITS)


def read_counts(path: Path) -> pd.DataFrame:
    return read_gene_count_table(path, limits=LIMITS)


def read_genes(path: Path) -> pd.DataFrame:
    return read_gene_info(path, limits=LIMITS).reset_index(drop=True)


def read_clinical(path: Path) -> pd.DataFrame:
    return tcga_read_clinical_data(path, limits=LIMITS)


def read_cohort_info(path: Path) -> Dict[str, Any]:
    """Add a record through the writer (which validates the file), read back the others."""
    target = path.parent / "Trait" / "cohort_info.json"
    target.parent.mkdir(exist_ok=True)
    shutil.copyfile(path, target)
    try:
        save_cohort_record(target, "GSE_NEW", early_stop_record(False, True))
    except InputFileError as exc:  # name the mutated file, as the other readers do
        raise InputFileError(path, f"{exc}") from exc
    records = json.loads(target.read_text())
    del records["GSE_NEW"]
    return records


def same_result(a: Any, b: Any) -> bool:
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same_result(x, y) for x, y in zip(a, b))
    if isinstance(a, pd.DataFrame):
        try:
            pd.testing.assert_frame_equal(a, b)
        except AssertionError:
            return False
        return True
    return a == b


# ---------------------------------------------------------------------------
# Mutations: (name, expectation, function(sample, rng) -> bytes)
# ---------------------------------------------------------------------------
Mutation = Callable[[Sample, random.Random], bytes]


def _join(lines: List[str]) -> bytes:
    return "\n".join(lines).encode("utf-8")


def _edit_line(sample: Sample, index: int, edit: Callable[[List[str]], List[str]]) -> bytes:
    lines = sample.lines
    lines[index] = sample.sep.join(edit(lines[index].split(sample.sep)))
    return _join(lines)


def header_one_short(sample: Sample, rng: random.Random) -> bytes:
    def drop(fields):
        del fields[rng.randrange(len(fields))]
        return fields
    return _edit_line(sample, sample.header, drop)


def header_one_long(sample: Sample, rng: random.Random) -> bytes:
    """A phantom sample (or column) in the table header."""
    return _edit_line(sample, sample.header, lambda fields: fields + ['"GSM999999"'])


def row_extra_field(sample: Sample, rng: random.Random) -> bytes:
    index = rng.choice(sample.rows)
    return _edit_line(sample, index, lambda fields: fields[:1] + ["7"] + fields[1:])


def row_missing_field(sample: Sample, rng: random.Random) -> bytes:
    index = rng.choice(sample.rows)
    return _edit_line(sample, index, lambda fields: fields[:-1])


def cut_mid_line(sample: Sample, rng: random.Random) -> bytes:
    """Truncate the file inside a line (never right after a line ending)."""
    data = sample.text.encode()
    cuts = [i for i in range(1, len(data) - 1) if data[i - 1:i] != b"\n"]
    return data[:rng.choice(cuts)]


def stray_begin(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    lines.insert(rng.choice(sample.rows), sample.begin)
    return _join(lines)


def repeated_begin(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    lines.insert(sample.header, sample.begin)
    return _join(lines)


def accession_one_short(sample: Sample, rng: random.Random) -> bytes:
    """A sample id missing from ``!Sample_geo_accession`` (series matrix)."""
    index = next(i for i, line in enumerate(sample.lines)
                 if line.startswith("!Sample_geo_accession"))

    def drop(fields):
        del fields[rng.randrange(1, len(fields))]
        return fields
    return _edit_line(sample, index, drop)


def early_end(sample: Sample, rng: random.Random) -> bytes:
    """The table's end marker inside the table: the rows after it must not vanish."""
    lines = sample.lines
    lines.insert(rng.choice(sample.rows), sample.begin.replace("_begin", "_end"))
    return _join(lines)


def huge_line(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    lines.insert(rng.choice(list(sample.rows) or [1]),
                 "p_huge\t" + "9" * (LIMITS.max_line_bytes + 1))
    return _join(lines)


def bomb(sample: Sample, rng: random.Random) -> bytes:
    """A gzip stream decompressing past the size cap (blank lines: cheap to compress)."""
    return gzip.compress(sample.text.encode() + b"\n" * (LIMITS.max_total_bytes + 1))


def utf16(sample: Sample, rng: random.Random) -> bytes:
    return sample.text.encode(rng.choice(["utf-16", "utf-16-le", "utf-16-be"]))


def html(sample: Sample, rng: random.Random) -> bytes:
    return (b"<!DOCTYPE html>\n<html><head><title>503 Service Unavailable</title></head>"
            b"<body>try again later</body></html>\n")


def bom(sample: Sample, rng: random.Random) -> bytes:
    return b"\xef\xbb\xbf" + sample.text.encode()


def gzipped(sample: Sample, rng: random.Random) -> bytes:
    return gzip.compress(sample.text.encode(), mtime=0)


def crlf(sample: Sample, rng: random.Random) -> bytes:
    return sample.text.replace("\n", "\r\n").encode()


def blank_line_in_table(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    rows = list(sample.rows)
    lines.insert(rng.choice(rows[1:] or [len(lines) - 1]), "")
    return _join(lines)


def nan_sample_size(sample: Sample, rng: random.Random) -> bytes:
    return sample.text.replace('"sample_size": ', '"sample_size": NaN, "x": ', 1).encode()


def flip_bytes(sample: Sample, rng: random.Random) -> bytes:
    data = bytearray(sample.text.encode())
    for _ in range(rng.randint(1, 3)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    return bytes(data)


def insert_nul(sample: Sample, rng: random.Random) -> bytes:
    data = sample.text.encode()
    at = rng.randrange(len(data))
    return data[:at] + b"\x00" + data[at:]


def drop_line(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    del lines[rng.randrange(len(lines) - 1)]
    return _join(lines)


def duplicate_line(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    index = rng.randrange(len(lines) - 1)
    lines.insert(index, lines[index])
    return _join(lines)


def delete_bytes(sample: Sample, rng: random.Random) -> bytes:
    data = sample.text.encode()
    at = rng.randrange(len(data))
    return data[:at] + data[at + rng.randint(1, 8):]


def insert_line(sample: Sample, rng: random.Random) -> bytes:
    lines = sample.lines
    text = "".join(rng.choice('abcXYZ019\t "!^#.-') for _ in range(rng.randint(0, 40)))
    lines.insert(rng.randrange(len(lines)), text)
    return _join(lines)


def insert_bytes(sample: Sample, rng: random.Random) -> bytes:
    data = sample.text.encode()
    at = rng.randrange(len(data))
    return data[:at] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 6))) + data[at:]


RANDOM_DAMAGE = [flip_bytes, insert_nul, drop_line, duplicate_line, delete_bytes, insert_line,
                 insert_bytes]

TABLE_MUTATIONS = [
    ("bom", SAME, bom), ("gzip", SAME, gzipped), ("crlf", SAME, crlf),
    ("blank_line", SAME, blank_line_in_table),
    ("header_one_short", ERROR, header_one_short), ("phantom_sample", ERROR, header_one_long),
    ("row_extra_field", ERROR, row_extra_field), ("row_missing_field", ERROR, row_missing_field),
    ("cut_mid_line", ERROR, cut_mid_line), ("utf16", ERROR, utf16), ("html", ERROR, html),
    ("huge_line", ERROR, huge_line), ("bomb", ERROR, bomb),
]
MARKER_MUTATIONS = [("stray_begin", ERROR, stray_begin),
                    ("repeated_begin", ERROR, repeated_begin), ("early_end", ERROR, early_end)]
JSON_MUTATIONS = [
    ("bom", SAME, bom), ("gzip", SAME, gzipped), ("crlf", SAME, crlf),
    ("cut", ERROR, cut_mid_line), ("utf16", ERROR, utf16), ("html", ERROR, html),
    ("nan", ERROR, nan_sample_size),
]


@dataclass(frozen=True)
class Format:
    name: str
    build: Callable[[random.Random], Sample]
    read: Callable[[Path], Any]
    mutations: List[Tuple[str, str, Mutation]]
    repeats: int = 3  # cases per deterministic mutation (positions vary)


def _soft_mutations() -> List[Tuple[str, str, Mutation]]:
    """A SOFT row with a cell removed or an extra header name is refused like any table
    (no real platform table has ragged rows); a plain file cut after the platform table
    still holds the whole annotation (``run_case`` decides which cuts are harmless)."""
    relaxed = {"cut_mid_line": ANY}
    return [(name, relaxed.get(name, expectation), mutation)
            for name, expectation, mutation in TABLE_MUTATIONS + MARKER_MUTATIONS]


FORMATS = [
    Format("series_matrix", build_matrix, read_matrix,
           TABLE_MUTATIONS + MARKER_MUTATIONS
           + [("accession_one_short", ERROR, accession_one_short)]),
    Format("soft", build_soft, read_soft, _soft_mutations()),
    Format("count_table", build_counts, read_counts, TABLE_MUTATIONS),
    Format("gene_info", build_gene_info, read_genes, TABLE_MUTATIONS),
    Format("clinical_matrix", build_clinical, read_clinical, TABLE_MUTATIONS),
    Format("cohort_info", build_cohort_info, read_cohort_info, JSON_MUTATIONS, repeats=2),
]


def soft_cut_is_harmless(sample: Sample, data: bytes) -> bool:
    """A SOFT file cut after its platform table still holds the whole annotation."""
    return sample.text.encode().startswith(data) and b"!platform_table_end\n" in data


@dataclass(frozen=True)
class Case:
    fmt: Format
    seed: int
    mutation: str
    expectation: str
    function: Mutation

    @property
    def id(self) -> str:
        return f"{self.fmt.name}-{self.mutation}-{self.seed}"


def all_cases() -> List[Case]:
    master = random.Random(SEED)
    cases = []
    for fmt in FORMATS:
        for name, expectation, function in fmt.mutations:
            cases += [Case(fmt, master.randrange(1 << 30), name, expectation, function)
                      for _ in range(fmt.repeats)]
        for _ in range(RANDOM_CASES):
            function = master.choice(RANDOM_DAMAGE)
            cases.append(Case(fmt, master.randrange(1 << 30), function.__name__, ANY,
                              function))
    return cases


CASES = all_cases()


def run_case(case: Case, folder: Path) -> None:
    """Build, read the original, mutate, read the mutant; check the outcome."""
    rng = random.Random(case.seed)
    sample = case.fmt.build(rng)
    original = folder / "original"
    original.write_bytes(sample.text.encode())
    expected = case.fmt.read(original)
    data = case.function(sample, rng)
    mutant = folder / f"{case.fmt.name}_{case.mutation}"
    mutant.write_bytes(data)
    expectation = case.expectation
    if case.fmt.name == "soft" and case.mutation == "cut_mid_line":
        expectation = SAME if soft_cut_is_harmless(sample, data) else ERROR
    try:
        result = case.fmt.read(mutant)
    except InputFileError as exc:
        assert str(exc).startswith(str(mutant)), f"error does not name the file: {exc}"
        assert expectation != SAME, f"a neutral mutation was refused: {exc}"
        return
    assert expectation != ERROR, "a mutation that must be detected was read without error"
    if expectation == SAME:
        assert same_result(expected, result), "a neutral mutation changed the result"


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_mutated_inputs_give_the_same_result_or_a_named_error(case: Case, tmp_path: Path):
    with fail_after(CASE_SECONDS, f"reading {case.id}"):
        run_case(case, tmp_path)


def test_the_fuzz_covers_every_format_and_expectation():
    """The case list itself: bounded, every format and outcome class represented."""
    assert 300 <= len(CASES) <= 400
    for fmt in FORMATS:
        kinds = {case.expectation for case in CASES if case.fmt is fmt}
        assert kinds == {SAME, ERROR, ANY}, fmt.name
