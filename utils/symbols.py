"""Gene-symbol synonym maps and symbol normalization (SPEC 4.4, 8.3).

``gene_synonym.json`` maps every upper-cased alias (and every official symbol)
to the official symbol. The builder in ``download/`` writes it next to two
companion maps used for RNA-seq count tables: ``gene_entrez.json``
(NCBI GeneID -> symbol) and ``gene_ensembl.json`` (Ensembl gene id -> symbol).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Tuple

from utils.errors import InputFileError
from utils.io import PathLike, file_signature, read_json
from utils.paths import resolve_paths

ENTREZ_MAP_NAME = "gene_entrez.json"
ENSEMBL_MAP_NAME = "gene_ensembl.json"
_NON_ASCII_SPACE = re.compile(r"[^\S\n]")


def _file_key(path: PathLike) -> Tuple[str, int, int, int, int]:
    resolved = Path(path).expanduser().resolve()
    try:
        return (str(resolved), *file_signature(resolved))
    except FileNotFoundError as exc:
        raise InputFileError(resolved, "gene map not found (build it with "
                             "download/get_gene_synonyms.py)") from exc


@functools.lru_cache(maxsize=8)
def _load_map_cached(key: Tuple[str, int, int, int, int]) -> Dict[str, str]:
    path = key[0]
    data = read_json(path)
    if not isinstance(data, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise InputFileError(path, "gene map must be a JSON object of string -> string")
    return data


def load_gene_map(path: PathLike) -> Mapping[str, str]:
    """Load a JSON string->string gene map, cached on the path and its
    :func:`utils.io.file_signature`.

    The cache means a notebook or a run that normalizes many tables parses the
    file once; a changed file is re-read. Treat the result as read-only.
    """
    return _load_map_cached(_file_key(path))


def synonym_map_path(path: Optional[PathLike] = None) -> Path:
    """The synonym map to use: ``path`` or the project's resolved default."""
    return Path(path) if path is not None else resolve_paths().gene_synonyms


def load_synonym_map(path: Optional[PathLike] = None) -> Mapping[str, str]:
    """Load ``gene_synonym.json`` (``{ALIAS_UPPER: Official}``)."""
    return load_gene_map(synonym_map_path(path))


def companion_map_path(name: str, synonym_path: Optional[PathLike] = None) -> Path:
    """Path of ``gene_entrez.json`` / ``gene_ensembl.json`` beside the synonym map."""
    return synonym_map_path(synonym_path).parent / name


def normalize_symbols(symbols: Iterable[object],
                      synonyms: Optional[Mapping[str, str]] = None) -> List[Optional[str]]:
    """Map labels to official symbols; unmapped (or non-string) labels -> None.

    Parameters
    ----------
    symbols : iterable
        Gene labels in any case, possibly with surrounding whitespace.
    synonyms : mapping, optional
        ``{ALIAS_UPPER: Official}``; the project's map when omitted.

    Returns
    -------
    list of (str or None)
    """
    synonyms = load_synonym_map() if synonyms is None else synonyms
    result: List[Optional[str]] = []
    for symbol in symbols:
        if isinstance(symbol, str):
            result.append(synonyms.get(canonical_label(symbol)))
        else:
            result.append(None)
    return result


def canonical_label(label: str) -> str:
    """Strip and upper-case a table label or gene symbol (the project's one canonical form)."""
    return label.strip().upper()


def canonical_labels(labels: Iterable[str]) -> List[str]:
    """:func:`canonical_label` of many labels, with one C-level ``upper()`` call."""
    labels = list(labels)
    joined = "\n".join(labels)
    if len(labels) < 2 or joined.count("\n") != len(labels) - 1:
        return [canonical_label(label) for label in labels]
    texts = joined.upper().split("\n")
    has_space = (any(space in joined for space in " \t\r\x0b\x0c") if joined.isascii()
                 else _NON_ASCII_SPACE.search(joined) is not None)
    return [text.strip() for text in texts] if has_space else texts


def canonical_gene(symbol: str, synonyms: Optional[Mapping[str, str]] = None) -> str:
    """Canonical form of a gene symbol, then mapped through ``synonyms`` if given."""
    return canonical_genes([symbol], synonyms)[0]


def canonical_genes(symbols: Iterable[str],
                    synonyms: Optional[Mapping[str, str]] = None) -> List[str]:
    """:func:`canonical_gene` over many symbols (the evaluator's hot path).

    A blank official symbol in ``synonyms`` is ignored (the symbol stays as it is).
    """
    texts = canonical_labels(symbols)
    if not synonyms:
        return texts
    result = []
    for text in texts:
        official = synonyms.get(text)
        mapped = canonical_label(official) if isinstance(official, str) else ""
        result.append(mapped or text)
    return result
