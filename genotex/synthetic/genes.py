"""The gene universe of a synthetic benchmark, its aliases and identifiers.

Everything comes from the project's own metadata files: the synonym map
(``{ALIAS_UPPER: Official}``, SPEC 2) decides which symbols are official and
which aliases a file may use; ``task_info.json`` gives each trait's related
genes; the optional GeneID map (``gene_entrez.json``) gives Entrez ids for
annotation columns and RNA-seq count tables.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from genotex.synthetic.rng import stream
from genotex.synthetic.spec import GenePlan, Plan, PlanError

logger = logging.getLogger(__name__)

# An alias is written into a file only if the SPEC 4.3 token rule keeps it.
_ALIAS_SHAPE = re.compile(r"^[A-Z][A-Z0-9-]{1,14}$")
_ACCESSION_LIKE = re.compile(r"^(NM_|NR_|XM_|XR_|LOC\d|LINC\d|DNA$|RNA$|PCR$|EST$|CHR$)")


@dataclass(frozen=True)
class GeneCatalog:
    """Genes a synthetic benchmark may use.

    Attributes
    ----------
    universe : tuple of str
        Official symbols: related genes of the plan traits, sex genes, background.
    related : mapping
        Trait -> related genes present in the universe (task-info order).
    aliases : mapping
        Official symbol -> aliases that map back to it (sorted; may be empty).
    entrez : mapping
        Official symbol -> NCBI GeneID (empty when no GeneID map was given).
    sex_genes : tuple of str
        Sex genes present in the universe.
    background : tuple of str
        Universe genes related to no plan trait.
    """

    universe: Tuple[str, ...]
    related: Mapping[str, Tuple[str, ...]]
    aliases: Mapping[str, Tuple[str, ...]]
    entrez: Mapping[str, str]
    sex_genes: Tuple[str, ...]
    background: Tuple[str, ...]


def official_symbols(synonyms: Mapping[str, str]) -> Dict[str, str]:
    """``{SYMBOL_UPPER: Symbol}`` for every official symbol of a synonym map."""
    return {key: value for key, value in synonyms.items() if key == value.upper()}


def usable_aliases(synonyms: Mapping[str, str],
                   genes: Iterable[str]) -> Dict[str, Tuple[str, ...]]:
    """Aliases of ``genes`` that normalize back to them and look like symbols.

    An alias qualifies when the map sends it to the gene, it is not itself an
    official symbol, and it passes the symbol-token rule of SPEC 4.3 (so a
    correct pipeline keeps and normalizes it).
    """
    wanted = set(genes)
    found: Dict[str, List[str]] = {g: [] for g in wanted}
    for alias, official in synonyms.items():
        if official in wanted and alias != official.upper():
            if _ALIAS_SHAPE.match(alias) and not _ACCESSION_LIKE.match(alias):
                found[official].append(alias)
    return {g: tuple(sorted(a)) for g, a in found.items()}


def invert_entrez(entrez_map: Optional[Mapping[str, str]]) -> Dict[str, str]:
    """``{symbol: GeneID}`` from ``{GeneID: symbol}``; the smallest id wins."""
    result: Dict[str, str] = {}
    if not entrez_map:
        return result
    for gene_id in sorted(entrez_map, key=lambda k: (len(k), k)):
        result.setdefault(entrez_map[gene_id], gene_id)
    return result


def _dedupe(symbols: Iterable[str]) -> List[str]:
    seen: set = set()
    out = []
    for s in symbols:
        if s not in seen:
            seen.add(s)
            out.append(s)
    return out


def build_catalog(plan: Plan, synonyms: Mapping[str, str],
                  task_info: Mapping[str, Mapping], entrez_map: Optional[Mapping[str, str]]
                  = None, source: str = "<plan>") -> GeneCatalog:
    """Assemble the gene universe of a plan.

    Parameters
    ----------
    plan : Plan
    synonyms : mapping
        ``{ALIAS_UPPER: Official}``.
    task_info : mapping
        ``{trait: {"related_genes": [...], ...}}``.
    entrez_map : mapping, optional
        ``{GeneID: symbol}``.
    source : str
        Named in error messages (the plan file).

    Raises
    ------
    PlanError
        When an explicit background or planted gene is not an official symbol.
    """
    gene_plan: GenePlan = plan.genes
    official = official_symbols(synonyms)
    related: Dict[str, Tuple[str, ...]] = {}
    for trait in sorted(plan.traits):
        listed = task_info.get(trait, {}).get("related_genes", []) if task_info else []
        present = [official[g.upper()] for g in listed if g.upper() in official]
        dropped = len(listed) - len(present)
        if dropped:
            logger.info("%s: %d related genes are not official symbols of the synonym map",
                        trait, dropped)
        related[trait] = tuple(_dedupe(present)[:gene_plan.known_per_trait])
    _require_official(gene_plan.background, official, "genes.background", source)
    for trait in plan.traits.values():
        _require_official(trait.planted, official, f"traits.{trait.name}.planted", source)
    related_all = _dedupe(g for genes in related.values() for g in genes)
    related_set = set(related_all)
    sex = tuple(official[g.upper()] for g in gene_plan.sex_genes if g.upper() in official)
    background = tuple(g for g in _dedupe(official[b.upper()] for b in gene_plan.background)
                       if g not in related_set and g not in sex)
    background = background + _random_background(
        gene_plan.random_background, official, related_set | set(sex) | set(background),
        plan.seed)
    explicit = _dedupe(g for t in plan.traits.values() for g in t.planted)
    universe = tuple(_dedupe(list(related_all) + list(sex) + list(background) + explicit))
    background = tuple(_dedupe(list(background) +
                               [g for g in explicit if g not in related_set]))
    universe_set = set(universe)
    return GeneCatalog(universe=universe, related=related,
                       aliases=usable_aliases(synonyms, universe),
                       entrez={g: i for g, i in invert_entrez(entrez_map).items()
                               if g in universe_set},
                       sex_genes=sex, background=background)


def _random_background(count: int, official: Mapping[str, str], taken: set,
                       seed: int) -> Tuple[str, ...]:
    """``count`` official symbols not in ``taken``, drawn reproducibly."""
    if count <= 0:
        return ()
    pool = sorted(s for s in official.values()
                  if s not in taken and _ALIAS_SHAPE.match(s.upper())
                  and not _ACCESSION_LIKE.match(s.upper()))
    rng = stream(seed, "random-background")
    picks = sorted(rng.choice(len(pool), min(count, len(pool)), replace=False))
    return tuple(pool[i] for i in picks)


def _require_official(genes: Sequence[str], official: Mapping[str, str], where: str,
                      source: str) -> None:
    missing = [g for g in genes if g.upper() not in official]
    if missing:
        raise PlanError(source, f"{where}: not official symbols of the synonym map: "
                        f"{missing[:10]}{' ...' if len(missing) > 10 else ''}")


def mouse_symbol(symbol: str) -> str:
    """Mouse-style spelling of a human symbol (``TNF`` -> ``Tnf``)."""
    return symbol[:1].upper() + symbol[1:].lower()
