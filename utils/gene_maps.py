"""Build the gene-symbol maps from NCBI ``Homo_sapiens.gene_info`` (SPEC 8.3).

Three JSON maps are written (see ``docs/gene_synonyms.md``):

* ``gene_synonym.json`` - ``{ALIAS_UPPER: "Official"}``: every official symbol
  (mapping to itself) and every alias (``Synonyms`` entries and a differing
  nomenclature-authority symbol); ``-`` means "none" and is never an alias.
* ``gene_entrez.json`` - ``{"7157": "TP53"}``.
* ``gene_ensembl.json`` - ``{"ENSG00000141510": "TP53"}`` from ``dbXrefs``.

Precedence when a key is claimed by several genes (deterministic):

1. an official symbol always maps to its own gene, whatever aliases say;
2. otherwise the gene ranked first by: protein-coding before any other
   ``type_of_gene``; then a symbol approved by the nomenclature authority
   (HGNC) before one that is not; then the lowest GeneID.

The same ranking settles two genes with the same upper-cased official symbol
and two genes sharing an Ensembl id.
"""

from __future__ import annotations

import contextlib
import csv
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterable, Optional, Set

import pandas as pd

from utils.errors import InputFileError
from utils.input_safety import ReadLimits
from utils.io import FALLBACK_ERRORS, PathLike, atomic_write, decode_text, dumps_json, read_text
from utils.io.tables import open_lines, row_problem, unterminated_problem

logger = logging.getLogger(__name__)

HUMAN_TAXID = "9606"
SYNONYM_FILE = "gene_synonym.json"
ENTREZ_FILE = "gene_entrez.json"
ENSEMBL_FILE = "gene_ensembl.json"
NONE_MARK = "-"
REQUIRED_COLUMNS = ("#tax_id", "GeneID", "Symbol", "Synonyms", "dbXrefs", "type_of_gene",
                    "Symbol_from_nomenclature_authority")


@dataclass(frozen=True)
class GeneMaps:
    """The three maps, keys sorted.

    Attributes
    ----------
    synonyms : dict
        ``{ALIAS_UPPER: Official}`` (official symbols included).
    entrez : dict
        ``{GeneID: Official}``.
    ensembl : dict
        ``{ENSG id: Official}``.
    """

    synonyms: Dict[str, str]
    entrez: Dict[str, str]
    ensembl: Dict[str, str]


def read_gene_info(path: PathLike, *, limits: Optional[ReadLimits] = None) -> pd.DataFrame:
    """Read NCBI ``gene_info`` (gzip or plain), human rows only, as text.

    Every row must have the header's number of fields and the file must end
    with a line ending, so a header one name short, a damaged row or a file
    cut short is refused rather than read as fewer (or shifted) genes.

    Parameters
    ----------
    path : path-like
    limits : ReadLimits, optional
        Line-length and size caps (default
        :data:`utils.input_safety.DEFAULT_LIMITS`).

    Raises
    ------
    InputFileError
        Empty file, missing columns, a row with another number of fields than
        the header, a last row without line ending (truncated file), a
        non-numeric GeneID, no human (``#tax_id`` 9606) gene, UTF-16, binary or
        HTML content, a line or a file over the caps.
    """
    with open_lines(path, limits) as stream:
        first = stream.peek_line_bytes()
        if first is None or not first.strip():
            raise InputFileError(path, "empty file, expected NCBI gene_info")
        header = decode_text(first).split("\t")
        missing = [c for c in REQUIRED_COLUMNS if c not in header]
        if missing:
            raise InputFileError(path, f"not an NCBI gene_info file: missing column(s) "
                                 f"{', '.join(missing)}", line=1)
        section = stream.section(None, n_fields=len(header))
        try:
            table = pd.read_csv(section, sep="\t", dtype=str, keep_default_na=False,
                                quoting=csv.QUOTE_NONE, encoding="utf-8",
                                encoding_errors=FALLBACK_ERRORS,
                                usecols=lambda c: c in REQUIRED_COLUMNS)
        except pd.errors.ParserError as exc:
            problem = row_problem(path, section, "gene_info row", len(header), 1)
            raise problem or InputFileError(path, f"malformed gene_info table ({exc})") \
                from exc
        section.drain()
        problem = (row_problem(path, section, "gene_info row", len(header), 1)
                   or unterminated_problem(path, section))
        if problem is not None:
            raise problem
    table = table[table["#tax_id"] == HUMAN_TAXID]
    if table.empty:
        raise InputFileError(path, f"no human gene (#tax_id {HUMAN_TAXID}) in the file")
    bad_ids = ~table["GeneID"].str.fullmatch(r"[0-9]+")
    if bad_ids.any():
        raise InputFileError(path, f"non-numeric GeneID {table['GeneID'][bad_ids].iloc[0]!r}")
    return table


def _ranked(genes: pd.DataFrame) -> pd.DataFrame:
    """Genes in precedence order: protein-coding, HGNC-approved symbol, low GeneID."""
    key = pd.DataFrame({
        "not_coding": genes["type_of_gene"] != "protein-coding",
        "not_approved": genes["Symbol_from_nomenclature_authority"].isin([NONE_MARK, ""]),
        "gene_id": genes["GeneID"].astype("int64"),
    }, index=genes.index)
    order = key.sort_values(["not_coding", "not_approved", "gene_id"], kind="stable").index
    return genes.loc[order]


def _first_claims(keys: pd.Series, symbols: pd.Series) -> Dict[str, str]:
    """``{key: symbol}`` keeping the first claim of each key (input is ranked)."""
    frame = pd.DataFrame({"key": keys, "symbol": symbols})
    frame = frame[frame["key"] != ""].drop_duplicates("key", keep="first")
    return dict(zip(frame["key"], frame["symbol"]))


def _aliases(genes: pd.DataFrame) -> pd.DataFrame:
    """One row per (gene, alias) in gene precedence order."""
    authority = genes["Symbol_from_nomenclature_authority"].where(
        genes["Symbol_from_nomenclature_authority"] != genes["Symbol"], NONE_MARK)
    text = genes["Synonyms"] + "|" + authority
    exploded = pd.DataFrame({"alias": text.str.split("|"), "symbol": genes["Symbol"],
                             "rank": range(len(genes))}).explode("alias")
    exploded["alias"] = exploded["alias"].str.strip()
    exploded = exploded[~exploded["alias"].isin([NONE_MARK, ""])]
    return exploded.sort_values("rank", kind="stable")


def build_gene_maps(gene_info: pd.DataFrame,
                    restrict_to: Optional[Iterable[str]] = None) -> GeneMaps:
    """Build the synonym, Entrez and Ensembl maps from a gene_info table.

    Parameters
    ----------
    gene_info : pandas.DataFrame
        As returned by :func:`read_gene_info`.
    restrict_to : iterable of str, optional
        Keep only genes whose official symbol (case-insensitive) is listed
        (small demo maps). Aliases are then resolved among those genes only.

    Returns
    -------
    GeneMaps
    """
    genes = gene_info[~gene_info["Symbol"].isin([NONE_MARK, ""])]
    if restrict_to is not None:
        wanted = {s.strip().upper() for s in restrict_to if s.strip()}
        genes = genes[genes["Symbol"].str.upper().isin(wanted)]
    genes = _ranked(genes)
    official = _first_claims(genes["Symbol"].str.upper(), genes["Symbol"])
    aliases = _aliases(genes)
    alias_map = _first_claims(aliases["alias"].str.upper(), aliases["symbol"])
    synonyms = {**alias_map, **official}
    entrez = dict(zip(genes["GeneID"], genes["Symbol"]))
    xrefs = pd.DataFrame({"xref": genes["dbXrefs"].str.split("|"),
                          "symbol": genes["Symbol"]}).explode("xref")
    xrefs = xrefs[xrefs["xref"].str.startswith("Ensembl:", na=False)]
    ensembl = _first_claims(xrefs["xref"].str.slice(len("Ensembl:")), xrefs["symbol"])
    return GeneMaps(synonyms=dict(sorted(synonyms.items())),
                    entrez=dict(sorted(entrez.items(), key=lambda kv: int(kv[0]))),
                    ensembl=dict(sorted(ensembl.items())))


def read_symbol_list(path: PathLike) -> Set[str]:
    """Symbols listed one per line (blank lines and ``#`` comments ignored)."""
    symbols = set()
    for line in read_text(path).splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            symbols.add(line)
    if not symbols:
        raise InputFileError(path, "no gene symbols listed")
    return symbols


def write_gene_maps(maps: GeneMaps, output_dir: PathLike) -> Dict[str, Path]:
    """Write the three maps atomically (all or none), with deterministic bytes.

    Returns
    -------
    dict
        ``{"synonyms"|"entrez"|"ensembl": path written}``.
    """
    folder = Path(output_dir)
    targets = {"synonyms": folder / SYNONYM_FILE, "entrez": folder / ENTREZ_FILE,
               "ensembl": folder / ENSEMBL_FILE}
    contents = {"synonyms": maps.synonyms, "entrez": maps.entrez, "ensembl": maps.ensembl}
    with contextlib.ExitStack() as stack:
        handles = {name: stack.enter_context(atomic_write(path, "w", newline="\n"))
                   for name, path in targets.items()}
        for name, handle in handles.items():
            handle.write(dumps_json(contents[name], indent=0))
    return targets


def build_gene_synonyms(gene_info_path: PathLike, output_dir: PathLike,
                        restrict_to_path: Optional[PathLike] = None) -> Dict[str, Path]:
    """Read gene_info, build the maps and write them into ``output_dir``.

    Parameters
    ----------
    gene_info_path : path-like
        NCBI ``Homo_sapiens.gene_info[.gz]``.
    output_dir : path-like
        Usually the project's ``metadata/`` folder.
    restrict_to_path : path-like, optional
        File of official symbols (one per line) to limit the maps to.

    Returns
    -------
    dict
        Paths written, see :func:`write_gene_maps`.
    """
    restrict = read_symbol_list(restrict_to_path) if restrict_to_path else None
    maps = build_gene_maps(read_gene_info(gene_info_path), restrict_to=restrict)
    written = write_gene_maps(maps, output_dir)
    logger.info("wrote %d synonyms, %d GeneIDs, %d Ensembl ids to %s", len(maps.synonyms),
                len(maps.entrez), len(maps.ensembl), output_dir)
    return written
