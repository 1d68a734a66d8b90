"""Known related genes of each trait from Open Targets (SPEC 8.4).

Input: the ``associationByOverallDirect`` release files in JSON-lines form (one
``{"diseaseId": ..., "targetId": ..., "score": ...}`` object per line; plain or
gzipped; a folder of ``part-*.json`` files or single files). Parquet files are
refused with a clear message: reading them would need a parquet library that
is not a dependency of the project.

For each trait of the committed table ``download/trait_diseases.tsv``:

1. take the direct associations of its disease id(s) (a target's score is its
   highest score over the trait's ids);
2. keep targets with score strictly above ``min_score`` (0.2), strongest first
   (ties by Ensembl id, so the order is reproducible);
3. map the Ensembl gene id (version suffix ignored) to a symbol with the
   synonym build's ``gene_ensembl.json``, normalize it with ``gene_synonym.json``
   and drop unmapped ones and repeats (the first, strongest, occurrence stays).
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple

from tqdm.auto import tqdm

from download.tables import read_table
from tools.symbols import normalize_symbols
from utils.errors import InputFileError
from utils.io import PathLike, open_text

logger = logging.getLogger(__name__)

TRAIT_DISEASES = Path(__file__).resolve().parent / "trait_diseases.tsv"
MIN_SCORE = 0.2
_COLUMNS = ("trait", "disease_ids", "search_name", "source")
_JSON_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")


@dataclass(frozen=True)
class TraitDiseases:
    """One row of the trait -> disease table."""

    trait: str
    disease_ids: Tuple[str, ...]
    search_name: str
    source: str


def read_trait_diseases(path: PathLike = TRAIT_DISEASES) -> List[TraitDiseases]:
    """Parse the trait -> disease table.

    Raises
    ------
    InputFileError
        On a wrong header, a short row or a repeated trait (naming the line).
    """
    table, seen = [], set()
    for number, (trait, ids, name, source) in read_table(path, _COLUMNS):
        if trait in seen:
            raise InputFileError(path, f"trait {trait} listed twice", line=number)
        seen.add(trait)
        table.append(TraitDiseases(trait, tuple(i for i in ids.split(";") if i and i != "-"),
                                   name, source))
    return table


def association_files(source: PathLike) -> List[Path]:
    """The JSON-lines files of a release folder (sorted), or ``[source]`` for a file.

    Raises
    ------
    InputFileError
        For parquet input, a missing path, or a folder without JSON-lines files.
    """
    path = Path(source)
    if not path.exists():
        raise InputFileError(path, "association file or folder not found")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file()
                       and p.name.endswith(_JSON_SUFFIXES))
        if not files:
            hint = (" (parquet files found: use the JSON release instead)"
                    if any(path.glob("*.parquet")) else "")
            raise InputFileError(path, "no JSON-lines association files (*.json, *.jsonl, "
                                 "optionally .gz)" + hint)
        return files
    if path.name.endswith(".parquet"):
        raise InputFileError(path, "parquet is not supported (no parquet reader is a "
                             "dependency); download the JSON release files instead")
    return [path]


def iter_associations(files: Sequence[PathLike], wanted: Optional[Iterable[str]] = None,
                      progress: bool = True) -> Iterator[Tuple[str, str, float]]:
    """``(diseaseId, targetId, score)`` of every line, optionally only for ``wanted`` ids.

    Raises
    ------
    InputFileError
        On a line that is not a JSON object with those three fields (file and line named).
    """
    keep = set(wanted) if wanted is not None else None
    for path in tqdm(files, desc="associations", unit="file", disable=not progress):
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    disease, target, score = row["diseaseId"], row["targetId"], row["score"]
                    score = float(score)
                except (ValueError, KeyError, TypeError) as exc:
                    raise InputFileError(path, "expected a JSON object with diseaseId, "
                                         f"targetId and score ({exc})", line=number) from exc
                if keep is None or disease in keep:
                    yield str(disease), str(target), score


def collect_scores(files: Sequence[PathLike], table: Sequence[TraitDiseases],
                   progress: bool = True) -> Dict[str, Dict[str, float]]:
    """``{trait: {targetId: best score}}`` for every trait of ``table``."""
    traits_of: Dict[str, List[str]] = {}
    for row in table:
        for disease in row.disease_ids:
            traits_of.setdefault(disease, []).append(row.trait)
    scores: Dict[str, Dict[str, float]] = {row.trait: {} for row in table}
    for disease, target, score in iter_associations(files, traits_of, progress):
        for trait in traits_of[disease]:
            best = scores[trait]
            if score > best.get(target, float("-inf")):
                best[target] = score
    return scores


def rank_related_genes(scores: Mapping[str, float], ensembl_to_symbol: Mapping[str, str],
                       synonyms: Mapping[str, str], min_score: float = MIN_SCORE) -> List[str]:
    """Official symbols of the targets scoring above ``min_score``, strongest first."""
    ranked = sorted(((target, score) for target, score in scores.items() if score > min_score),
                    key=lambda item: (-item[1], item[0]))
    raw = [ensembl_to_symbol.get(target.split(".")[0]) for target, _ in ranked]
    genes: List[str] = []
    seen = set()
    for symbol in normalize_symbols(raw, synonyms):
        if symbol is not None and symbol not in seen:
            seen.add(symbol)
            genes.append(symbol)
    return genes


def build_related_genes(files: Sequence[PathLike], table: Sequence[TraitDiseases],
                        ensembl_to_symbol: Mapping[str, str], synonyms: Mapping[str, str],
                        min_score: float = MIN_SCORE,
                        progress: bool = True) -> Dict[str, List[str]]:
    """``{trait: related genes}`` for every trait of ``table`` (see the module docstring)."""
    scores = collect_scores(files, table, progress)
    return {row.trait: rank_related_genes(scores[row.trait], ensembl_to_symbol, synonyms,
                                          min_score)
            for row in table}


def merge_related_genes(task_info: Mapping[str, Mapping[str, List[str]]],
                        related: Mapping[str, List[str]]) -> Dict[str, Dict[str, List[str]]]:
    """Task info with ``related_genes`` replaced for the traits in ``related``.

    Existing conditions are kept; new traits get an empty condition list.
    """
    merged = {trait: {"related_genes": list(entry.get("related_genes", [])),
                      "conditions": list(entry.get("conditions", []))}
              for trait, entry in task_info.items()}
    for trait, genes in related.items():
        merged.setdefault(trait, {"related_genes": [], "conditions": []})
        merged[trait]["related_genes"] = list(genes)
    return {trait: merged[trait] for trait in sorted(merged)}


# -- checking the table against a release's disease index --------------------------------
def read_disease_index(files: Sequence[PathLike]) -> Dict[str, Tuple[str, Tuple[str, ...]]]:
    """``{id: (name, exact synonyms)}`` from the release's ``diseases`` JSON lines."""
    index = {}
    for path in files:
        with open_text(path) as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    row = json.loads(line)
                    synonyms = (row.get("synonyms") or {}).get("hasExactSynonym") or []
                    index[str(row["id"])] = (str(row["name"]), tuple(map(str, synonyms)))
                except (ValueError, KeyError, TypeError, AttributeError) as exc:
                    raise InputFileError(path, f"expected a disease object ({exc})",
                                         line=number) from exc
    return index


def check_table(table: Sequence[TraitDiseases],
                index: Mapping[str, Tuple[str, Tuple[str, ...]]]) -> List[str]:
    """Problems and suggestions: unknown ids, differing names, matches for unresolved rows."""
    by_name: Dict[str, List[str]] = {}
    for disease, (name, synonyms) in index.items():
        for label in (name, *synonyms):
            by_name.setdefault(label.casefold(), []).append(disease)
    report = []
    for row in table:
        for disease in row.disease_ids:
            if disease not in index:
                report.append(f"{row.trait}: {disease} is not in the release")
            elif index[disease][0].casefold() != row.search_name.casefold():
                report.append(f"{row.trait}: {disease} is named '{index[disease][0]}' "
                              f"(table says '{row.search_name}')")
        if not row.disease_ids:
            found = sorted(set(by_name.get(row.search_name.casefold(), [])))
            hint = ", ".join(found) if found else "no exact name match"
            report.append(f"{row.trait}: unresolved; '{row.search_name}' -> {hint}")
    return report
