"""Known related genes of each trait from Open Targets (SPEC 8.4).

Input: the ``associationByOverallDirect`` release files, as a folder of part
files or single files, in either format Open Targets has published:

* parquet (``part-*.parquet``, the format of recent releases), read with
  fastparquet one row group at a time and only the ``diseaseId``, ``targetId``
  and ``score`` columns, filtered to the wanted disease ids as it goes, so memory
  stays bounded by one row group (:mod:`download.parquet_rows`);
* JSON lines (one ``{"diseaseId": ..., "targetId": ..., "score": ...}`` object
  per line, ``part-*.json``, plain or gzipped).

A folder holds one format (mixed or empty folders are refused, naming the
folder); names starting with ``.`` or ``_`` (``_SUCCESS``, checksum files) are
skipped, as Spark does. Both formats give the same rows, hence the same
result. The release's ``diseases`` index (for ``--check``) is read the same way.

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
from typing import (Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Set,
                    Tuple, TypeVar)

import numpy as np
import pandas as pd

from download.defaults import MIN_SCORE, TRAIT_DISEASES  # noqa: F401 (re-exported)
from download.parquet_rows import PARQUET_SUFFIX, is_parquet, iter_row_groups
from utils.errors import InputFileError
from utils.io import PathLike, TableSource, open_text, read_table
from utils.logs import progress as progress_bar
from utils.symbols import normalize_symbols

logger = logging.getLogger(__name__)

_COLUMNS = ("trait", "disease_ids", "search_name", "source")
_JSON_SUFFIXES = (".json", ".jsonl", ".json.gz", ".jsonl.gz")
_ASSOCIATION_FIELDS = ("diseaseId", "targetId", "score")
_DISEASE_FIELDS = ("id", "name")
# fastparquet flattens a struct column into dotted names; a parquet file written
# from pandas (e.g. by fastparquet) holds the whole struct JSON-encoded instead
_FLAT_EXACT_SYNONYMS = "synonyms.hasExactSynonym"
_SYNONYM_STRUCT = "synonyms"
Association = Tuple[str, str, float]
DiseaseEntry = Tuple[str, Tuple[str, ...]]
T = TypeVar("T")


@dataclass(frozen=True)
class TraitDiseases:
    """One row of the trait -> disease table."""

    trait: str
    disease_ids: Tuple[str, ...]
    search_name: str
    source: str


def read_trait_diseases(path: TableSource = TRAIT_DISEASES) -> List[TraitDiseases]:
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
    """The part files of a release folder (sorted), or ``[source]`` for a file.

    Used for ``associationByOverallDirect`` and for the ``diseases`` index alike.

    Raises
    ------
    InputFileError
        For a missing path, or a folder without part files or mixing formats.
    """
    path = Path(source)
    if not path.exists():
        raise InputFileError(path, "association file or folder not found")
    return release_parts(path) if path.is_dir() else [path]


def release_parts(folder: Path) -> List[Path]:
    """The JSON-lines or the parquet part files of a folder, sorted by name.

    Names starting with ``.`` or ``_`` (``_SUCCESS``, ``.crc`` files) are skipped.

    Raises
    ------
    InputFileError
        Naming the folder, when it holds no part file or both formats.
    """
    names = sorted(p for p in folder.iterdir()
                   if p.is_file() and not p.name.startswith((".", "_")))
    json_parts = [p for p in names if p.name.endswith(_JSON_SUFFIXES)]
    parquet_parts = [p for p in names if p.name.endswith(PARQUET_SUFFIX)]
    if json_parts and parquet_parts:
        raise InputFileError(folder, f"mixes {len(json_parts)} JSON-lines and "
                             f"{len(parquet_parts)} parquet part files; keep one format "
                             "per folder")
    if not json_parts and not parquet_parts:
        raise InputFileError(folder, "no part files (*.parquet, or JSON lines: *.json, "
                             "*.jsonl, optionally .gz)")
    return json_parts or parquet_parts


def _json_records(path: PathLike, parse: Callable[[Any], T], expected: str) -> Iterator[T]:
    """``parse(object)`` of every non-blank line of a JSON-lines file.

    Raises
    ------
    InputFileError
        Naming the file and line, when a line does not parse or ``parse`` fails.
    """
    with open_text(path) as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = parse(json.loads(line))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise InputFileError(path, f"expected {expected} ({exc})",
                                     line=number) from exc
            yield record


def _association_of(row: Any) -> Association:
    """``(diseaseId, targetId, score)`` of one parsed JSON association."""
    return str(row["diseaseId"]), str(row["targetId"]), float(row["score"])


def _json_associations(path: PathLike, keep: Optional[Set[str]]) -> Iterator[Association]:
    """Associations of a JSON-lines file, only of the ``keep`` diseases when given."""
    for association in _json_records(path, _association_of, "a JSON object with "
                                     "diseaseId, targetId and score"):
        if keep is None or association[0] in keep:
            yield association


def _require_values(path: PathLike, group: int, frame: pd.DataFrame) -> None:
    """Refuse a row group with a null in one of its columns (first such row named).

    Raises
    ------
    InputFileError
    """
    missing = frame.isna().to_numpy()
    if missing.any():
        row, column = np.argwhere(missing)[0]
        raise InputFileError(path, f"row group {group}, row {row}: "
                             f"{frame.columns[column]} is missing")


def _numbers(path: PathLike, group: int, values: pd.Series) -> List[float]:
    """A score column as Python floats.

    Raises
    ------
    InputFileError
        When a value is not a number.
    """
    try:
        return np.asarray(values, dtype=float).tolist()
    except (ValueError, TypeError) as exc:
        raise InputFileError(path, f"row group {group}: score is not numeric "
                             f"({exc})") from exc


def _parquet_associations(path: PathLike, keep: Optional[Set[str]]) -> Iterator[Association]:
    """Associations of a parquet file, filtered row group by row group."""
    for group, frame in enumerate(iter_row_groups(path, _ASSOCIATION_FIELDS)):
        _require_values(path, group, frame)
        if keep is not None:
            frame = frame[frame["diseaseId"].isin(keep)]
        scores = _numbers(path, group, frame["score"])
        yield from zip(map(str, frame["diseaseId"].tolist()),
                       map(str, frame["targetId"].tolist()), scores)


def iter_associations(files: Sequence[PathLike], wanted: Optional[Iterable[str]] = None,
                      progress: bool = True) -> Iterator[Association]:
    """``(diseaseId, targetId, score)`` of every row, optionally only for ``wanted`` ids.

    Each file is read as parquet or as JSON lines (see :func:`is_parquet`); rows
    come in file order, then line or row order.

    Raises
    ------
    InputFileError
        On a line that is not a JSON object with those three fields (file and
        line named), or an unreadable parquet file, a missing column or a null
        value (file and row group named).
    """
    keep = set(wanted) if wanted is not None else None
    for path in progress_bar(files, desc="associations", unit="file", enabled=progress):
        reader = _parquet_associations if is_parquet(path) else _json_associations
        yield from reader(path, keep)


def collect_scores(files: Sequence[PathLike], table: Sequence[TraitDiseases],
                   progress: bool = True) -> Dict[str, Dict[str, float]]:
    """``{trait: {targetId: best score}}`` for every trait of ``table``.

    Raises
    ------
    InputFileError
        No row of the files names a disease of the table (an empty file, or
        not an association release): every trait would lose its related genes.
    """
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
    if traits_of and files and not any(scores.values()):
        raise InputFileError(files[0], f"no association of any disease of the table in "
                             f"{len(files)} file(s) read: an empty file, or not "
                             "associationByOverallDirect? (nothing written)")
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
def _synonym_tuple(values: Any) -> Tuple[str, ...]:
    """Synonyms as strings; a missing list or null entries give nothing."""
    return tuple(str(v) for v in (() if values is None else values) if v is not None)


def _exact_synonyms(struct: Any) -> Any:
    """``hasExactSynonym`` of a disease's ``synonyms`` object (``None`` when absent)."""
    return (struct or {}).get("hasExactSynonym")


def _disease_of(row: Any) -> Tuple[str, DiseaseEntry]:
    """``(id, (name, exact synonyms))`` of one parsed JSON disease."""
    synonyms = _synonym_tuple(_exact_synonyms(row.get("synonyms")))
    return str(row["id"]), (str(row["name"]), synonyms)


def _parquet_synonyms(frame: pd.DataFrame) -> List[Any]:
    """The exact-synonym list of each row of a disease row group."""
    if _FLAT_EXACT_SYNONYMS in frame.columns:
        return frame[_FLAT_EXACT_SYNONYMS].tolist()
    if _SYNONYM_STRUCT in frame.columns:
        return [_exact_synonyms(value) for value in frame[_SYNONYM_STRUCT].tolist()]
    return [None] * len(frame)


def _parquet_diseases(path: PathLike) -> Iterator[Tuple[str, DiseaseEntry]]:
    """``(id, (name, exact synonyms))`` of each row of a parquet disease file."""
    optional = (_FLAT_EXACT_SYNONYMS, _SYNONYM_STRUCT)
    for group, frame in enumerate(iter_row_groups(path, _DISEASE_FIELDS, optional)):
        try:
            synonyms = [_synonym_tuple(value) for value in _parquet_synonyms(frame)]
        except (AttributeError, TypeError) as exc:
            raise InputFileError(path, f"row group {group}: unexpected synonyms "
                                 f"({exc})") from exc
        for disease, name, exact in zip(frame["id"].tolist(), frame["name"].tolist(),
                                        synonyms):
            yield str(disease), (str(name), exact)


def read_disease_index(files: Sequence[PathLike]) -> Dict[str, DiseaseEntry]:
    """``{id: (name, exact synonyms)}`` from the release's ``diseases`` part files.

    Parquet and JSON-lines files are both read; a later row of an id wins.

    Raises
    ------
    InputFileError
        On a row that is not a disease object (file and line or row group named).
    """
    index: Dict[str, DiseaseEntry] = {}
    for path in files:
        rows = (_parquet_diseases(path) if is_parquet(path)
                else _json_records(path, _disease_of, "a disease object"))
        for disease, entry in rows:
            index[disease] = entry
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
