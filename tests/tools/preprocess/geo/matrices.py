"""Hand-made GEO series matrices and the real files the GEO reader tests use."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Optional, Sequence

from tools.preprocess.geo import SAMPLE_ID_KEY

GSE55235 = "geo/GSE55235/GSE55235_series_matrix.txt.gz"
GSE4107 = "geo/GSE4107/GSE4107_series_matrix.txt.gz"
GSE201926 = "geo/GSE201926/GSE201926_series_matrix.txt.gz"
GSE201926_COUNTS = "geo/GSE201926/GSE201926_raw_counts_GRCh38.p13_NCBI.tsv.gz"


def matrix_text(samples: Sequence[str], rows: Sequence[Sequence[str]],
                characteristics: Sequence[Sequence[str]] = (),
                taxid: Optional[str] = "9606", begin: bool = True, end: bool = True,
                extra: str = "") -> str:
    """A minimal series matrix: header, characteristics, table."""
    quoted = "\t".join(f'"{s}"' for s in samples)
    lines = ['!Series_title\t"A small test series"',
             '!Series_summary\t"Summary line"',
             '!Series_overall_design\t"Cases vs controls"',
             '!Series_type\t"Expression profiling by array"',
             "!Sample_title\t" + "\t".join(f'"title {s}"' for s in samples),
             f"{SAMPLE_ID_KEY}\t{quoted}"]
    if taxid is not None:
        lines.append("!Sample_taxid_ch1\t" + "\t".join(f'"{taxid}"' for _ in samples))
    for row in characteristics:
        lines.append("!Sample_characteristics_ch1\t" + "\t".join(f'"{c}"' for c in row))
    if extra:
        lines.append(extra)
    if begin:
        lines.append("!series_matrix_table_begin")
        lines.append('"ID_REF"\t' + quoted)
        for row in rows:
            lines.append("\t".join(row))
        if end:
            lines.append("!series_matrix_table_end")
    return "\n".join(lines) + "\n"


def write(path: Path, text: str | bytes, gz: bool = False) -> Path:
    data = text.encode("utf-8") if isinstance(text, str) else text
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


SAMPLES = ["GSM1", "GSM2", "GSM3"]
ROWS = [['"p1"', "1.5", "2", "3"],
        ['"p2"', "4", "5.25", "6"],
        ['"p3"', "7", "8", "9"]]
