"""Render GEO series matrix and family SOFT files of a synthetic series.

The layout follows NCBI's files: ``!Series_*`` lines, a blank line, one
``!Sample_*`` line per attribute with a quoted cell per sample (several
``!Sample_characteristics_ch1`` lines), then the expression table between
``!series_matrix_table_begin`` / ``!series_matrix_table_end`` with a quoted
``"ID_REF"`` header and quoted probe ids. The family SOFT has ``^DATABASE``,
``^SERIES``, one ``^PLATFORM`` block per platform (annotation table between
``!platform_table_begin`` / ``!platform_table_end``) and one ``^SAMPLE`` block
per sample with its own small ``!sample_table_begin`` table.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from genotex.synthetic.files import quoted
from genotex.synthetic.platform import STYLE_TITLES, TAXIDS, ProbeDesign, annotation_columns

RELEASE_DATE = "Public on Jan 02 2025"
SUBMISSION_DATE = "Dec 02 2024"
UPDATE_DATE = "Jan 05 2025"
CONTACT = "GenoTEX,,Synthetic"
INSTITUTE = "GenoTEX synthetic demo (no real subjects)"


@dataclass
class SampleBlock:
    """What a series says about one sample.

    Attributes
    ----------
    gsm : str
    platform : str
        GPL id.
    title, source : str
    organism : str
    characteristics : list of str
        One cell per characteristics line ("" = not recorded).
    processing : str
        ``!Sample_data_processing`` text.
    table : list of (probe, value) pairs
        The sample's own small data table in the family SOFT.
    sequencing : bool
        An RNA-seq sample (``!Sample_type`` SRA, library fields, no table).
    """

    gsm: str
    platform: str
    title: str
    source: str
    organism: str
    characteristics: List[str]
    processing: str
    table: List[Tuple[str, str]] = field(default_factory=list)
    sequencing: bool = False


@dataclass
class SeriesContent:
    """Everything needed to render the files of one series.

    Attributes
    ----------
    accession : str
        GSE id.
    texts : dict
        ``title``, ``summary``, ``design``.
    designs : list of ProbeDesign
        Platforms of the series (main platform first).
    samples : list of SampleBlock
    tables : dict
        GPL id -> (probe ids, the matrix table's lines as bytes: quoted probe id and
        tab-separated cells per line).
    supplementary : list of str
        ``!Series_supplementary_file`` entries.
    """

    accession: str
    texts: Mapping[str, str]
    designs: List[ProbeDesign]
    samples: List[SampleBlock]
    tables: Dict[str, Tuple[Sequence[str], bytes]]
    supplementary: List[str] = field(default_factory=list)

    @property
    def series_type(self) -> str:
        """``!Series_type`` of the main platform."""
        if self.designs[0].platform.style == "rnaseq":
            return "Expression profiling by high throughput sequencing"
        return "Expression profiling by array"


def _platform_title(design: ProbeDesign) -> str:
    plan = design.platform
    return plan.title or f"{STYLE_TITLES[plan.style]} ({plan.organism})"


def _series_lines(series: SeriesContent, sep: str) -> List[str]:
    """Series-level lines; ``sep`` is ``\\t`` + quotes (matrix) or `` = `` (SOFT)."""
    def line(key: str, value: str) -> str:
        return f"!Series_{key}\t{quoted(value)}" if sep == "\t" else f"!Series_{key} = {value}"

    out = [line("title", series.texts["title"]),
           line("geo_accession", series.accession),
           line("status", RELEASE_DATE),
           line("submission_date", SUBMISSION_DATE),
           line("last_update_date", UPDATE_DATE)]
    out += [line("summary", part) for part in series.texts["summary"].split("\n")]
    out += [line("overall_design", series.texts["design"]),
            line("type", series.series_type),
            line("contributor", CONTACT)]
    gsms = [s.gsm for s in series.samples]
    if sep == "\t":
        out.append(line("sample_id", " ".join(gsms) + " "))
    else:
        out += [line("sample_id", g) for g in gsms]
    out += [line("contact_name", CONTACT), line("contact_institute", INSTITUTE),
            line("contact_country", "Nowhere (synthetic)")]
    out += [line("supplementary_file", f) for f in series.supplementary or ["NONE"]]
    out += [line("platform_id", d.platform.id) for d in series.designs]
    out += [line("platform_taxid", TAXIDS.get(d.platform.organism, "0"))
            for d in series.designs]
    out += [line("sample_taxid", t) for t in
            dict.fromkeys(TAXIDS.get(d.platform.organism, "0") for d in series.designs)]
    return out


def _sample_fields(sample: SampleBlock, row_count: int) -> List[Tuple[str, str]]:
    """Ordered ``(key, value)`` pairs of one sample, characteristics excluded."""
    head = [("title", sample.title), ("geo_accession", sample.gsm),
            ("status", RELEASE_DATE), ("submission_date", SUBMISSION_DATE),
            ("last_update_date", UPDATE_DATE), ("type", "SRA" if sample.sequencing else "RNA"),
            ("channel_count", "1"), ("source_name_ch1", sample.source),
            ("organism_ch1", sample.organism)]
    tail = [("molecule_ch1", "total RNA"),
            ("extract_protocol_ch1", "Synthetic: no RNA was extracted."),
            ("taxid_ch1", TAXIDS.get(sample.organism, "0")),
            ("description", "synthetic sample"),
            ("data_processing", sample.processing),
            ("platform_id", sample.platform),
            ("contact_name", CONTACT), ("contact_institute", INSTITUTE)]
    if sample.sequencing:
        tail += [("library_strategy", "RNA-Seq"), ("library_source", "transcriptomic"),
                 ("instrument_model", "Synthetic Sequencer 1")]
    else:
        tail.insert(2, ("label_ch1", "biotin"))
    tail.append(("data_row_count", str(row_count)))
    return head + [("characteristics", "")] + tail


def render_series_matrix(series: SeriesContent, platform_id: str) -> bytes:
    """The series matrix of one platform (``<GSE>[-<GPL>]_series_matrix.txt``), UTF-8."""
    samples = [s for s in series.samples if s.platform == platform_id]
    probes, table = series.tables[platform_id]
    lines = _series_lines(series, "\t") + [""]
    depth = max((len(s.characteristics) for s in samples), default=0)
    for key, _ in _sample_fields(samples[0], len(probes)):
        if key == "characteristics":
            for row in range(depth):
                values = [s.characteristics[row] if row < len(s.characteristics) else ""
                          for s in samples]
                lines.append("!Sample_characteristics_ch1\t" +
                             "\t".join(quoted(v) for v in values))
            continue
        values = [dict(_sample_fields(s, len(probes)))[key] for s in samples]
        lines.append(f"!Sample_{key}\t" + "\t".join(quoted(v) for v in values))
    lines.append("!series_matrix_table_begin")
    lines.append("\t".join([quoted("ID_REF")] + [quoted(s.gsm) for s in samples]))
    return ("\n".join(lines) + "\n").encode() + table + b"!series_matrix_table_end\n"


def _platform_block(design: ProbeDesign, entrez: Mapping[str, str]) -> List[str]:
    plan = design.platform
    lines = [f"^PLATFORM = {plan.id}",
             f"!Platform_title = {_platform_title(design)}",
             f"!Platform_geo_accession = {plan.id}",
             f"!Platform_status = {RELEASE_DATE}",
             f"!Platform_technology = "
             f"{'high-throughput sequencing' if plan.style == 'rnaseq' else 'in situ oligonucleotide'}",
             "!Platform_distribution = "
             f"{'virtual' if plan.style == 'rnaseq' else 'commercial'}",
             f"!Platform_organism = {plan.organism}",
             f"!Platform_taxid = {TAXIDS.get(plan.organism, '0')}",
             "!Platform_manufacturer = GenoTEX synthetic generator",
             "!Platform_description = SYNTHETIC platform: probes and annotation are "
             "generated, not a real array design."]
    if not design.has_table:
        return lines + ["!Platform_data_row_count = 0"]
    header, notes, rows = annotation_columns(design, entrez)
    lines.append(f"!Platform_data_row_count = {len(rows)}")
    lines += [f"#{col} = {notes.get(col, '')}".rstrip() for col in header]
    lines.append("!platform_table_begin")
    lines.append("\t".join(header))
    lines += ["\t".join(row) for row in rows]
    lines.append("!platform_table_end")
    return lines


def _sample_block(sample: SampleBlock, row_count: int, value_note: str) -> List[str]:
    lines = [f"^SAMPLE = {sample.gsm}"]
    for key, value in _sample_fields(sample, row_count):
        if key == "characteristics":
            lines += [f"!Sample_characteristics_ch1 = {c}" for c in sample.characteristics if c]
        elif key == "data_row_count":
            lines.append(f"!Sample_data_row_count = {len(sample.table)}")
        else:
            lines.append(f"!Sample_{key} = {value}")
    if sample.table:
        lines += ["#ID_REF = ", f"#VALUE = {value_note}", "!sample_table_begin",
                  "ID_REF\tVALUE"]
        lines += [f"{probe}\t{value}" for probe, value in sample.table]
        lines.append("!sample_table_end")
    return lines


def render_family_soft(series: SeriesContent, entrez: Mapping[str, str],
                       value_note: str) -> str:
    """Text of ``<GSE>_family.soft``."""
    lines = ["^DATABASE = GeoMiame", "!Database_name = Gene Expression Omnibus (GEO)",
             "!Database_institute = NCBI NLM NIH",
             "!Database_web_link = http://www.ncbi.nlm.nih.gov/geo",
             "!Database_email = geo@ncbi.nlm.nih.gov",
             f"^SERIES = {series.accession}"]
    lines += _series_lines(series, " = ")
    for design in series.designs:
        lines += _platform_block(design, entrez if design.is_human else {})
    for sample in series.samples:
        probes, _ = series.tables[sample.platform]
        lines += _sample_block(sample, len(probes), value_note)
    return "\n".join(lines) + "\n"


def matrix_file_name(accession: str, platform_id: Optional[str]) -> str:
    """``<GSE>_series_matrix.txt.gz`` or ``<GSE>-<GPL>_series_matrix.txt.gz``."""
    stem = accession if platform_id is None else f"{accession}-{platform_id}"
    return f"{stem}_series_matrix.txt.gz"
