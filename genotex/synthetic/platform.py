"""Probe designs of synthetic GEO platforms and probe-level values.

A platform design fixes, once per GPL id, which probes exist and what the
annotation table says about them:

* most genes have one probe, some two or three (``_at`` / ``_s_at`` / ``_x_at``);
* a few extra probes are annotated with several genes (``A /// B``; Affymetrix
  style only) and carry the mean of their genes;
* some genes are annotated under an alias (``HER2`` for ``ERBB2``) that only
  symbol normalization resolves;
* control probes and ``LOC``-style probes have no usable symbol.

Multi-gene probes never involve a planted or covariate gene, so the planted
truth stays exact; aliases may hit any gene (that is what normalization is for).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Dict, List, Mapping, Sequence, Tuple

import numpy as np

from genotex.synthetic.genes import GeneCatalog, mouse_symbol
from genotex.synthetic.rng import stream
from genotex.synthetic.spec import HUMAN, MAX_PROBES_PER_GENE, PlatformPlan

CONTROL = "control"
GENE = "gene"
MULTI = "multi"
ACCESSION = "accession"

AFFY_CONTROLS = ("AFFX-BioB-5_at", "AFFX-BioB-M_at", "AFFX-BioB-3_at", "AFFX-BioC-5_at",
                 "AFFX-BioC-3_at", "AFFX-BioDn-5_at", "AFFX-CreX-5_at", "AFFX-DapX-3_at",
                 "AFFX-HUMGAPDH/M33197_3_at", "AFFX-HSAC07/X00351_M_at", "AFFX-LysX-5_at",
                 "AFFX-TrpnX-3_at", "AFFX-r2-Ec-bioB-5_at", "AFFX-r2-P1-cre-3_at")
AGILENT_CONTROLS = ("(+)E1A_r60_1", "(+)E1A_r60_a104", "(-)3xSLv1", "DarkCorner",
                    "GE_BrightCorner", "ETG00000000001", "ETG00000000002")
AFFY_SUFFIXES = ("_at", "_s_at", "_x_at", "_a_at")
TAXIDS = {HUMAN: "9606", "Mus musculus": "10090", "Rattus norvegicus": "10116"}
STYLE_TITLES = {
    "affymetrix": "Synthetic Affymetrix-style 3' expression array",
    "illumina": "Synthetic Illumina-style BeadChip expression array",
    "agilent": "Synthetic Agilent-style 60-mer expression array",
    "rnaseq": "Synthetic high-throughput sequencing platform",
}


@dataclass(frozen=True)
class ProbeDesign:
    """The probes of one platform.

    Attributes
    ----------
    platform : PlatformPlan
    probe_ids : tuple of str
        In table order (sorted like GEO tables).
    members : tuple of tuple of str
        Universe genes whose signal a probe carries (empty for controls).
    symbol_text : tuple of str
        What the gene-symbol column says.
    kinds : tuple of str
        ``gene``, ``multi``, ``control`` or ``accession``.
    offsets : tuple of float
        Probe affinity offset (log2).
    genes : tuple of str
        Universe genes measured by the platform (universe order).
    aliases : dict
        Official symbol -> alias written instead of it.
    """

    platform: PlatformPlan
    probe_ids: Tuple[str, ...]
    members: Tuple[Tuple[str, ...], ...]
    symbol_text: Tuple[str, ...]
    kinds: Tuple[str, ...]
    offsets: Tuple[float, ...]
    genes: Tuple[str, ...]
    aliases: Mapping[str, str]

    @property
    def is_human(self) -> bool:
        """True for a human platform."""
        return self.platform.organism == HUMAN

    @property
    def has_table(self) -> bool:
        """Sequencing platforms have no annotation table."""
        return self.platform.style != "rnaseq"


def fake_accession(gene: str, prefix: str = "NM_") -> str:
    """A stable RefSeq-like accession for a gene (synthetic, not a real record)."""
    number = int.from_bytes(hashlib.sha256(gene.encode()).digest()[:4], "little") % 900000
    return f"{prefix}{100000 + number:06d}"


def _probe_id(style: str, number: int, suffix: str, human: bool = True) -> str:
    if style == "illumina":
        return f"ILMN_{(1650000 if human else 2400000) + number:07d}"
    if style == "agilent":
        return f"A_{23 if human else 51}_P{100000 + number}"
    return f"{(200000 if human else 1415000) + number}{suffix}"


def design_platform(platform: PlatformPlan, catalog: GeneCatalog, protected: Sequence[str],
                    no_multi: Sequence[str], seed: int) -> ProbeDesign:
    """Draw the probe design of a platform.

    Parameters
    ----------
    platform : PlatformPlan
    catalog : GeneCatalog
    protected : sequence of str
        Genes every human platform measures (planted, sex genes).
    no_multi : sequence of str
        Genes never placed on a multi-gene probe (planted and covariate genes).
    seed : int
        Plan seed.
    """
    rng = stream(seed, "platform", platform.id)
    keep = set(protected) if platform.organism == HUMAN else set()
    genes = [g for g in catalog.universe
             if g in keep or rng.random() < platform.coverage]
    human = platform.organism == HUMAN
    aliases: Dict[str, str] = {}
    if human:
        for gene in genes:
            options = catalog.aliases.get(gene, ())
            if options and rng.random() < platform.alias_fraction:
                aliases[gene] = options[int(rng.integers(0, len(options)))]
    numbers = rng.permutation(max(60000, 8 * len(genes) + 4 * platform.no_symbol_probes))
    rows: List[Tuple[str, Tuple[str, ...], str, str]] = []
    used = 0
    style = platform.style
    mean = platform.probes_per_gene
    max_probes = MAX_PROBES_PER_GENE if mean is not None else (3 if style == "affymetrix" else 2)
    for gene in genes:
        if mean is None:
            count = 1 + int(rng.random() < 0.3) + int(rng.random() < 0.1)
        else:
            count = 1 + int(rng.poisson(mean - 1.0))
        text = aliases.get(gene, gene if human else mouse_symbol(gene))
        for k in range(min(count, max_probes)):
            suffix = AFFY_SUFFIXES[0] if k == 0 else AFFY_SUFFIXES[1 + int(rng.integers(0, 3))]
            rows.append((_probe_id(style, int(numbers[used]), suffix, human), (gene,), text,
                         GENE))
            used += 1
    if style == "affymetrix" and human:
        excluded = set(no_multi)
        pool = [g for g in genes if g not in excluded]
        for _ in range(int(round(platform.multi_gene_fraction * len(genes)))):
            size = 2 + int(rng.random() < 0.25)
            chosen = tuple(pool[i] for i in sorted(rng.choice(len(pool), size, replace=False)))
            text = " /// ".join(aliases.get(g, g) for g in chosen)
            rows.append((_probe_id(style, int(numbers[used]), "_s_at"), chosen, text, MULTI))
            used += 1
    controls = AFFY_CONTROLS if style == "affymetrix" else (
        AGILENT_CONTROLS if style == "agilent" else ())
    n_controls = min(len(controls), platform.no_symbol_probes // 2)
    for name in controls[:n_controls]:
        rows.append((name, (), "", CONTROL))
    for _ in range(platform.no_symbol_probes - n_controls):
        loc = f"LOC{int(rng.integers(100000000, 110000000))}"
        rows.append((_probe_id(style, int(numbers[used]), "_at", human), (), loc, ACCESSION))
        used += 1
    if style == "rnaseq":
        rows = [(g, (g,), g, GENE) for g in genes]
    rows.sort(key=lambda r: r[0])
    offsets = np.round(rng.normal(0.0, 0.4, len(rows)), 3)
    return ProbeDesign(platform=platform,
                       probe_ids=tuple(r[0] for r in rows),
                       members=tuple(r[1] for r in rows),
                       symbol_text=tuple(r[2] for r in rows),
                       kinds=tuple(r[3] for r in rows),
                       offsets=tuple(float(o) for o in offsets),
                       genes=tuple(genes), aliases=aliases)


def probe_values(design: ProbeDesign, genes: Sequence[str], expression: np.ndarray,
                 rng: np.random.Generator, noise: float = 0.15) -> np.ndarray:
    """Probe-level log2 values from gene-level values.

    A probe carries the mean of its genes plus its offset and measurement
    noise; controls and accession probes carry unrelated signal. A gene's
    missing cell makes its probes' cells missing. (Probes with the same number
    of genes are computed together; the sums run in member order, as
    ``numpy.mean`` over the members would, so the values are bit-identical.)
    """
    index = {g: k for k, g in enumerate(genes)}
    n = expression.shape[1]
    out = np.empty((len(design.probe_ids), n))
    offsets = np.asarray(design.offsets, dtype=float)
    sizes = np.array([len(members) for members in design.members], dtype=int)
    for size in np.unique(sizes[sizes > 0]).tolist():
        rows = np.flatnonzero(sizes == size)
        members = np.array([[index[g] for g in design.members[r]] for r in rows], dtype=np.intp)
        total = expression[members[:, 0]]
        for k in range(1, size):
            total = total + expression[members[:, k]]
        out[rows] = total / size + offsets[rows, None]
    empty = np.flatnonzero(sizes == 0)
    out[empty] = (6.0 + offsets[empty] + rng.normal(0.0, 1.0, empty.size))[:, None]
    return out + rng.normal(0.0, noise, out.shape)


def annotation_columns(design: ProbeDesign, entrez: Mapping[str, str]
                       ) -> Tuple[List[str], Dict[str, str], List[List[str]]]:
    """Header, column descriptions (``#COL = ...``) and rows of the annotation table."""
    style = design.platform.style
    species = design.platform.organism
    rows: List[List[str]] = []
    for pid, members, text, kind in zip(design.probe_ids, design.members,
                                        design.symbol_text, design.kinds):
        human = design.is_human
        acc = " /// ".join(fake_accession(g) for g in members) if members else (
            fake_accession(pid, "XR_") if kind == ACCESSION else "")
        ids = " /// ".join(entrez[g] for g in members if g in entrez) if human else ""
        if style == "affymetrix":
            rows.append([pid, acc.split(" /// ")[0], "--Control" if kind == CONTROL else "",
                         species, "Jan 1, 2024", "Consensus sequence" if members else
                         "Control sequence", text, ids, acc])
        elif style == "illumina":
            rows.append([pid, species, "RefSeq", acc, text, acc, ids, text,
                         "S" if kind == GENE else "I", str(1000000 + len(rows))])
        else:
            control = "pos" if kind == CONTROL and pid.startswith("(+)") else (
                "neg" if kind == CONTROL else "FALSE")
            rows.append([pid, pid, control, acc, acc, text, ids])
    if style == "affymetrix":
        header = ["ID", "GB_ACC", "SPOT_ID", "Species Scientific Name", "Annotation Date",
                  "Sequence Type", "Gene Symbol", "ENTREZ_GENE_ID", "RefSeq Transcript ID"]
        notes = {"ID": "Affymetrix-style probe set ID (synthetic)",
                 "Gene Symbol": "A gene symbol, when one is available",
                 "ENTREZ_GENE_ID": 'Entrez Gene Database UID DELIMIT:" /// "'}
    elif style == "illumina":
        header = ["ID", "Species", "Source", "Search_Key", "ILMN_Gene", "RefSeq_ID",
                  "Entrez_Gene_ID", "Symbol", "Probe_Type", "Array_Address_Id"]
        notes = {"ID": "Illumina-style probe ID (synthetic)", "Symbol": "Gene symbol"}
    else:
        header = ["ID", "SPOT_ID", "CONTROL_TYPE", "REFSEQ", "GB_ACC", "GENE_SYMBOL",
                  "GENE"]
        notes = {"ID": "Agilent-style feature name (synthetic)",
                 "GENE_SYMBOL": "Gene symbol"}
    return header, notes, rows
