"""Write the files of one synthetic cohort and describe what was planted in it."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from genotex.synthetic.files import (DEMO_COMPRESSION, Compression, format_matrix, table_lines,
                                     write_output)
from genotex.synthetic.genes import GeneCatalog
from genotex.synthetic.geo_writer import (SampleBlock, SeriesContent, matrix_file_name, quoted,
                                          render_family_soft, render_series_matrix)
from genotex.synthetic.ids import TcgaSample, gsm_ids, tcga_samples
from genotex.synthetic.model import (Biology, CohortData, draw_clinical, simulate_background,
                                     simulate_cohort)
from genotex.synthetic.platform import MULTI, ProbeDesign, probe_values
from genotex.synthetic.reference import write_reference_cohort
from genotex.synthetic.rng import stream
from genotex.synthetic.spec import CohortPlan, PlanError
from genotex.synthetic.text import (characteristics_rows, choose_spelling, sample_titles,
                                    series_texts, source_names)
from genotex.synthetic.xena_writer import (clinical_file_name, expression_file_name, hiseq_values,
                                           pancan_values, render_clinical, render_expression)

logger = logging.getLogger(__name__)

MIN_MINORITY_COUNT = 5
MIN_MINORITY_SHARE = 0.1
PROCESSING = {"log2": "RMA-style normalization, log2 signal (synthetic values)",
              "linear": "MAS5-style signal, scaled to 500 (synthetic values)",
              "counts": "raw read counts per gene, see supplementary count table "
                        "(synthetic values)"}
NON_HUMAN_DESIGN = (("strain: C57BL/6J", "strain: DBA/1J"),
                    ("treatment: collagen-induced arthritis", "treatment: none"))


# --------------------------------------------------------------------------- helpers

def is_binary_biased(values: np.ndarray) -> bool:
    """SPEC 4.7: fewer than 2 classes, or minority share < 10% and count < 5."""
    values = values[np.isfinite(values)]
    classes, counts = np.unique(values, return_counts=True)
    if classes.size < 2:
        return True
    minority = counts.min()
    return bool(minority / values.size < MIN_MINORITY_SHARE and minority < MIN_MINORITY_COUNT)


def expected_flags(cohort: CohortPlan, data: CohortData, kind: str) -> Dict[str, Any]:
    """Cohort-info flags the design implies (before SPEC 4.6 drops any sample)."""
    recorded = np.where(data.trait_observed, data.trait, np.nan)
    trait_ok = cohort.has_trait and bool(np.isfinite(recorded).any())
    if not trait_ok:
        biased = None
    elif kind == "binary":
        biased = is_binary_biased(recorded)
    else:
        biased = bool(np.nanstd(recorded) == 0)
    gender = np.where(data.gender_observed, data.male, np.nan)
    return {"is_trait_available": trait_ok, "is_biased": biased,
            "is_usable": bool(trait_ok and biased is False),
            "has_age": bool(cohort.has_age and data.age_observed.any()),
            "has_gender": bool(cohort.has_gender and np.isfinite(gender).any()
                               and not is_binary_biased(gender))}


def _samples_truth(ids: Sequence[str], data: CohortData) -> Dict[str, List]:
    def listed(values, observed=None):
        out = []
        for k, v in enumerate(values):
            ok = np.isfinite(v) and (observed is None or observed[k])
            out.append(None if not ok else (int(v) if float(v).is_integer() else float(v)))
        return out

    return {"id": list(ids),
            "trait": listed(data.trait),
            "trait_recorded": [bool(x) for x in data.trait_observed],
            "age": listed(data.age),
            "age_recorded": [bool(x) for x in data.age_observed],
            "gender": listed(data.male),
            "gender_recorded": [bool(x) for x in data.gender_observed],
            "batch": [int(b) for b in data.batch]}


def _common_record(cohort: CohortPlan, data: CohortData, biology: Biology,
                   ids: Sequence[str], files: List[str]) -> Dict[str, Any]:
    present = set(data.genes)
    return {
        "trait": cohort.trait, "cohort": cohort.id, "source": cohort.source,
        "files": files,
        "n_samples": data.n_samples,
        "planted_genes": dict(data.planted),
        "covariates": {
            "age_effect_on_trait": biology.traits[cohort.trait].plan.age_effect,
            "gender_effect_on_trait": biology.traits[cohort.trait].plan.gender_effect,
            "age_genes": {g: v for g, v in biology.age_genes.items() if g in present},
            "gender_genes": {g: v for g, v in biology.gender_genes.items() if g in present}},
        "batch": {"present": cohort.batch,
                  "n_batches": cohort.n_batches if cohort.batch else 1,
                  "strength": round(cohort.batch_strength * data.batch_factor, 4)
                  if cohort.batch else 0.0,
                  "calibration_factor": round(data.batch_factor, 4),
                  "fraction_of_genes": cohort.batch_fraction if cohort.batch else 0.0},
        "missing": {"genes": list(data.missing_genes),
                    "samples": [ids[k] for k in data.missing_samples],
                    "cell_rate": cohort.missing_rate},
        "expected": expected_flags(cohort, data, biology.traits[cohort.trait].plan.kind),
        "n_genes": len(data.genes),
        "samples": _samples_truth(ids, data),
    }


# --------------------------------------------------------------------------- GEO

def _rnaseq_counts(expression: np.ndarray, rng: np.random.Generator,
                   dispersion: float = 0.1) -> np.ndarray:
    """Negative-binomial counts whose log2 means follow the expression."""
    size = rng.lognormal(0.0, 0.25, expression.shape[1])
    mean = np.exp2(np.nan_to_num(expression, nan=-np.inf)) * 4.0 * size[None, :]
    shape = 1.0 / dispersion
    return rng.poisson(rng.gamma(shape, mean * dispersion + 1e-12)).astype(float)


def _non_human_samples(design: ProbeDesign, biology: Biology, n: int, gsms: List[str],
                       decimals: int, rng: np.random.Generator
                       ) -> tuple[List[SampleBlock], np.ndarray]:
    values = simulate_background(design.genes, n, biology.profile, rng)
    probes = probe_values(design, list(design.genes), values, rng)
    blocks = []
    for k, gsm in enumerate(gsms):
        chars = ["tissue: paw joint"] + [pair[int(rng.integers(0, 2))]
                                         for pair in NON_HUMAN_DESIGN]
        blocks.append(SampleBlock(gsm=gsm, platform=design.platform.id,
                                  title=f"mouse joint {k + 1:02d}",
                                  source="paw joint, mouse", organism=design.platform.organism,
                                  characteristics=chars, processing=PROCESSING["log2"]))
    return blocks, np.round(probes, decimals)


def write_geo_cohort(cohort: CohortPlan, biology: Biology, designs: Mapping[str, ProbeDesign],
                     catalog: GeneCatalog, out_dir: Path, seed: int,
                     compression: Compression = DEMO_COMPRESSION,
                     reference: Optional[Path] = None) -> Dict[str, Any]:
    """Write ``input/GEO/<trait>/<GSE>/`` and return the cohort's truth record.

    With ``reference`` (a ``preprocess`` folder), also the cohort's reference
    tables from the planted truth (:mod:`genotex.synthetic.reference`).
    """
    design = designs[cohort.platform]
    trait = biology.traits[cohort.trait].plan
    data = simulate_cohort(cohort, list(design.genes), biology, seed, written=cohort.scale)
    rng = stream(seed, "geo-files", cohort.key)
    n_extra = sum(e.n_samples for e in cohort.extra_platforms)
    gsms = gsm_ids(cohort.gse_number, data.n_samples + n_extra, cohort.gsm_start)
    spelling = choose_spelling(cohort, rng)
    rows, positions, trait_values = characteristics_rows(
        cohort, trait, spelling, data.trait, data.trait_observed, data.age,
        data.age_observed, data.male, data.gender_observed, data.batch, rng)
    titles = sample_titles(cohort, trait, data.trait, data.trait_observed)
    sources = source_names(cohort, trait, data.trait, data.trait_observed)
    decimals = cohort.value_decimals
    folder = out_dir / "GEO" / cohort.trait / cohort.id
    files: List[str] = []
    supplementary: List[str] = []
    if cohort.scale == "counts":
        values = _rnaseq_counts(data.expression, rng)
        probes: List[str] = []
        lines = b""
        sample_tables = [[] for _ in range(data.n_samples)]
        count_name = _write_counts(cohort, data.genes, values, gsms[:data.n_samples],
                                   catalog, folder, compression)
        files.append(f"GEO/{cohort.trait}/{cohort.id}/{count_name}")
        supplementary.append(count_name)
    else:
        log_values = probe_values(design, data.genes, data.expression, rng)
        shown = np.exp2(log_values) if cohort.scale == "linear" else log_values
        probes = list(design.probe_ids)
        lines = table_lines([quoted(p) for p in probes], shown, decimals, cohort.missing_token)
        keep = min(cohort.soft_sample_rows, len(probes))
        cells = format_matrix(shown[:keep], decimals, cohort.missing_token)
        sample_tables = [[(probes[r], cells[r][k] or "null") for r in range(keep)]
                         for k in range(data.n_samples)]
    samples = [SampleBlock(gsm=gsms[k], platform=design.platform.id, title=titles[k],
                           source=sources[k], organism=design.platform.organism,
                           characteristics=[row[k] for row in rows],
                           processing=PROCESSING[cohort.scale], table=sample_tables[k],
                           sequencing=cohort.scale == "counts")
               for k in range(data.n_samples)]
    series_designs = [design]
    tables = {design.platform.id: (probes, lines)}
    offset = data.n_samples
    for extra in cohort.extra_platforms:
        other = designs[extra.platform]
        blocks, values = _non_human_samples(other, biology, extra.n_samples,
                                            gsms[offset:offset + extra.n_samples],
                                            4, rng)
        keep = min(cohort.soft_sample_rows, len(other.probe_ids))
        other_cells = format_matrix(values[:keep], 4)
        for k, block in enumerate(blocks):
            block.table = [(other.probe_ids[r], other_cells[r][k]) for r in range(keep)]
        samples += blocks
        series_designs.append(other)
        tables[other.platform.id] = (list(other.probe_ids),
                                     table_lines([quoted(p) for p in other.probe_ids], values, 4))
        offset += extra.n_samples
    series = SeriesContent(accession=cohort.id,
                           texts=series_texts(cohort, trait, data.n_samples),
                           designs=series_designs, samples=samples, tables=tables,
                           supplementary=supplementary)
    multi = len(series_designs) > 1
    for d in series_designs:
        name = matrix_file_name(cohort.id, d.platform.id if multi else None)
        write_output(folder / name, render_series_matrix(series, d.platform.id), True,
                     compression)
        files.append(f"GEO/{cohort.trait}/{cohort.id}/{name}")
    soft_name = f"{cohort.id}_family.soft.gz"
    note = {"log2": "log2 signal", "linear": "signal intensity",
            "counts": "raw counts"}[cohort.scale]
    write_output(folder / soft_name, render_family_soft(series, catalog.entrez, note), True,
                 compression)
    files.append(f"GEO/{cohort.trait}/{cohort.id}/{soft_name}")
    record = _common_record(cohort, data, biology, gsms[:data.n_samples], sorted(files))
    if reference is not None:
        write_reference_cohort(reference, cohort.trait, cohort.id, data.genes, data.expression,
                               gsms[:data.n_samples], data, cohort.has_trait, cohort.has_age,
                               cohort.has_gender)
    record["geo"] = {
        "scale": cohort.scale,
        "missing_token": cohort.missing_token,
        "trait_field": cohort.trait_field if cohort.has_trait else None,
        "characteristics_rows": positions,
        "empty_characteristics_row": cohort.empty_characteristics_row,
        "trait_values": trait_values,
        "platforms": [_platform_truth(d, samples) for d in series_designs],
    }
    return record


def _platform_truth(design: ProbeDesign, samples: Sequence[SampleBlock]) -> Dict[str, Any]:
    return {"id": design.platform.id, "style": design.platform.style,
            "organism": design.platform.organism,
            "n_samples": sum(s.platform == design.platform.id for s in samples),
            "n_probes": len(design.probe_ids) if design.has_table else 0,
            "n_genes": len(design.genes),
            "aliases": {alias: gene for gene, alias in sorted(design.aliases.items())},
            "multi_gene_probes": sum(k == MULTI for k in design.kinds),
            "no_symbol_probes": sum(not m for m in design.members)}


def _write_counts(cohort: CohortPlan, genes: Sequence[str], counts: np.ndarray,
                  gsms: Sequence[str], catalog: GeneCatalog, folder: Path,
                  compression: Compression) -> str:
    if cohort.count_ids == "entrez":
        missing = [g for g in genes if g not in catalog.entrez]
        if missing:
            raise PlanError(cohort.key, "RNA-seq counts by Entrez GeneID need a GeneID map "
                            f"covering every gene; missing for {missing[:5]} (pass "
                            "--entrez-map or use count_ids 'symbol')")
        labels = [catalog.entrez[g] for g in genes]
        name, first = f"{cohort.id}_raw_counts_GRCh38.p13_NCBI.tsv.gz", "GeneID"
    else:
        labels = list(genes)
        name, first = f"{cohort.id}_gene_counts.txt.gz", "Gene"
    order = sorted(range(len(labels)), key=lambda k: (len(labels[k]), labels[k]))
    header = "\t".join([first, *gsms]) + "\n"
    body = table_lines([labels[k] for k in order], counts[order], 0, integers=True)
    write_output(folder / name, header.encode() + body, True, compression)
    return name


# --------------------------------------------------------------------------- TCGA

def xena_genes(cohort: CohortPlan, catalog: GeneCatalog, protected: Sequence[str],
               seed: int) -> List[str]:
    """Genes of a Xena matrix: protected genes plus a coverage share of the rest."""
    rng = stream(seed, "xena-genes", cohort.key)
    keep = set(protected)
    return [g for g in catalog.universe if g in keep or rng.random() < cohort.gene_coverage]


def write_tcga_cohort(cohort: CohortPlan, biology: Biology, catalog: GeneCatalog,
                      protected: Sequence[str], out_dir: Path, seed: int,
                      compression: Compression = DEMO_COMPRESSION,
                      reference: Optional[Path] = None) -> Dict[str, Any]:
    """Write ``input/TCGA/<Xena folder>/`` and return the cohort's truth record.

    With ``reference``, also the cohort's reference tables (see
    :func:`write_geo_cohort`).
    """
    genes = xena_genes(cohort, catalog, protected, seed)
    data = simulate_cohort(cohort, genes, biology, seed, n_unlabelled=cohort.n_other)
    rng = stream(seed, "xena-files", cohort.key)
    samples = tcga_samples(data.trait, rng, data.age, data.male)
    order = sorted(range(len(samples)), key=lambda k: samples[k].barcode)
    extra = _clinical_only(cohort, biology, rng, {s.patient for s in samples},
                           sorted({s.tss for s in samples}))
    age = np.concatenate([data.age, extra["age"]])
    male = np.concatenate([data.male, extra["male"]])
    observed_age = np.concatenate([data.age_observed, np.ones(len(extra["samples"]), bool)])
    observed_gender = np.concatenate([data.gender_observed,
                                      np.ones(len(extra["samples"]), bool)])
    everyone: List[TcgaSample] = samples + extra["samples"]
    clinical_order = sorted(range(len(everyone)), key=lambda k: everyone[k].barcode)
    cohort_name = f"TCGA {cohort.trait.replace('_', ' ')} ({cohort.code})"
    clinical = render_clinical([everyone[k] for k in clinical_order], age[clinical_order],
                               observed_age[clinical_order], male[clinical_order],
                               observed_gender[clinical_order], cohort.code,
                               cohort.disease or cohort.trait.replace("_", " ").lower(),
                               cohort.site or cohort.trait.split("_")[0], cohort_name,
                               cohort.has_age, cohort.has_gender, rng)
    folder = out_dir / "TCGA" / cohort.xena_folder
    rel = f"TCGA/{cohort.xena_folder}"
    files = []
    name = clinical_file_name(cohort.code)
    write_output(folder / name, clinical, False)
    files.append(f"{rel}/{name}")
    aliases = {g: catalog.aliases[g][int(rng.integers(0, len(catalog.aliases[g])))]
               for g in genes
               if catalog.aliases.get(g) and rng.random() < cohort.alias_fraction}
    written = [aliases.get(g, g) for g in genes]
    rows = sorted(range(len(genes)), key=lambda k: written[k])
    barcodes = [samples[k].barcode for k in order]
    matrix = data.expression[np.ix_(rows, order)]
    labels = [written[k] for k in rows]
    if cohort.write_hiseqv2:
        name = expression_file_name(cohort.code, pancan=False)
        write_output(folder / name, render_expression(labels, barcodes, hiseq_values(matrix)),
                     True, compression)
        files.append(f"{rel}/{name}")
    if cohort.write_pancan:
        name = expression_file_name(cohort.code, pancan=True)
        write_output(folder / name,
                     render_expression(labels, barcodes, pancan_values(matrix, rng)), True,
                     compression)
        files.append(f"{rel}/{name}")
    record = _common_record(cohort, data, biology, [s.barcode for s in samples], sorted(files))
    if reference is not None:
        write_reference_cohort(reference, cohort.trait, cohort.id, genes,
                               hiseq_values(data.expression), [s.barcode for s in samples],
                               data, True, cohort.has_age, cohort.has_gender)
    record["tcga"] = {"code": cohort.code, "folder": cohort.xena_folder,
                      "aliases": {a: g for g, a in sorted(aliases.items())},
                      "clinical_only_samples": [s.barcode for s in extra["samples"]],
                      "type_codes": _type_code_counts(samples)}
    return record


def _type_code_counts(samples: Sequence[TcgaSample]) -> Dict[str, int]:
    counts: Dict[str, int] = {}
    for sample in samples:
        counts[sample.type_code] = counts.get(sample.type_code, 0) + 1
    return dict(sorted(counts.items()))


def _clinical_only(cohort: CohortPlan, biology: Biology, rng: np.random.Generator,
                   taken: set, tss_pool: Sequence[str]) -> Dict[str, Any]:
    """Tumour samples that appear in the clinicalMatrix but not in the matrices."""
    n = cohort.n_clinical_only
    age, male = draw_clinical(cohort, biology.traits[cohort.trait].plan, n, rng)
    samples = []
    while len(samples) < n:
        participant = f"{int(rng.integers(1000, 10000))}"
        sample = TcgaSample(tss_pool[int(rng.integers(0, len(tss_pool)))], participant, "01")
        if sample.patient not in taken:
            taken.add(sample.patient)
            samples.append(sample)
    return {"samples": samples, "age": age, "male": male}
