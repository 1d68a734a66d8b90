"""Reading a ranked gene list from a model's answer, checked against the synonym map.

Models list genes as a JSON array, an object with a list (``{"genes": [...]}``,
``{"gene_symbols": [...]}``, ``[{"symbol": ..., "reason": ...}]``), a numbered or
bulleted list ("1. Tumor necrosis factor (TNF) -- ..."), a markdown table, or a
comma-separated line ("Genes: TNF, IL6, ..."). :func:`read_gene_list` takes the
first of those forms the answer holds and checks every token against the gene
synonym map: a symbol is kept when the map knows it; in prose, a token must also
be written like a symbol (upper case, digits, hyphens: ``Was`` at the start of a
sentence is not the gene WAS), and a list item contributes its symbol in
parentheses, else its first symbol-like token. Tokens that are not known
symbols are counted as rejected (the caller logs the count).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Iterable, List, Mapping, Optional

from genotex.methods.llm.jsonscan import json_objects
from genotex.methods.llm.reading import first_list, strings_of

#: Keys tried first for the list of an object answer.
GENE_KEYS = ("genes", "gene_symbols", "symbols", "gene_list", "ranked_genes", "top_genes",
             "significant_genes", "gene")
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.\-/]*")
#: How a symbol looks in prose: upper-case letters and digits (``C1orf112``-style
#: lower-case ``orf`` allowed), at least two characters, starting with a letter.
_SYMBOL_SHAPE = re.compile(r"^[A-Z][A-Z0-9]*(?:orf[0-9]+)?(?:-[A-Z0-9]+)*$")
_PARENTHESES = re.compile(r"\(([^()]{1,40})\)")
_ITEM = re.compile(r"^\s*(?:\d+[.)]|[-*•+])\s+(?P<text>.+)$")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")
_LABEL = re.compile(r"^[^:,]{0,40}:\s*")
_MARKUP = re.compile(r"[*_`]+")


@dataclass
class GeneReading:
    """Symbols read from an answer.

    Attributes
    ----------
    symbols : list of str
        Official symbols in the answer's order, first rank kept.
    listed : int
        Tokens the answer offered as genes.
    rejected : list of str
        Offered tokens that are not known symbols.
    form : str
        Which form was read: ``json``, ``table``, ``list``, ``comma`` or ``none``.
    """

    symbols: List[str] = field(default_factory=list)
    listed: int = 0
    rejected: List[str] = field(default_factory=list)
    form: str = "none"


def _official(token: str, synonyms: Mapping[str, str], prose: bool) -> Optional[str]:
    token = token.strip().strip(".,;:'\"")
    if not token or (prose and not _SYMBOL_SHAPE.match(token)):
        return None
    return synonyms.get(token.upper())


def _collect(tokens: Iterable[str], synonyms: Mapping[str, str], form: str,
             prose: bool = False) -> GeneReading:
    reading = GeneReading(form=form)
    for token in tokens:
        reading.listed += 1
        symbol = _official(token, synonyms, prose)
        if symbol is None:
            reading.rejected.append(token.strip())
        elif symbol not in reading.symbols:
            reading.symbols.append(symbol)
    return reading


def _json_list(text: str) -> Optional[List[str]]:
    """The gene strings of a JSON answer: a whole-answer array, a fenced one, or an object."""
    stripped = text.strip()
    candidates = [stripped] + [m.group(1) for m in
                               re.finditer(r"```[a-zA-Z]*\n(.*?)```", text, re.DOTALL)]
    for candidate in candidates:
        if candidate.startswith("["):
            try:
                values = strings_of(json.loads(candidate))
            except ValueError:
                continue
            if values:
                return values
    start = text.rfind('["')
    if start >= 0:
        end = text.find("]", start)
        try:
            values = strings_of(json.loads(text[start:end + 1]))
        except ValueError:
            values = []
        if values:
            return values
    for value in json_objects(text):
        values = strings_of(first_list(value, GENE_KEYS) or [])
        if values:
            return values
    return None


def _item_symbol(item: str, synonyms: Mapping[str, str]) -> str:
    """The token a list item offers: a symbol in parentheses, else its first symbol-like word."""
    item = _MARKUP.sub("", item)
    for inner in _PARENTHESES.findall(item):
        for token in _TOKEN.findall(inner):
            if _official(token, synonyms, prose=True):
                return token
    tokens = _TOKEN.findall(item.split(" - ")[0].split(":")[0])
    for token in tokens:
        if _official(token, synonyms, prose=True):
            return token
    return tokens[0] if tokens else item.strip()


def _table(lines: List[str]) -> Optional[List[str]]:
    """The gene column of a markdown table (the column named like a gene, else the first)."""
    rows = [line for line in lines if line.strip().startswith("|")]
    if len(rows) < 3 or not _TABLE_RULE.match(rows[1]):
        return None
    def cells(line: str) -> List[str]:
        return [_MARKUP.sub("", c).strip() for c in line.strip().strip("|").split("|")]
    header = [h.lower() for h in cells(rows[0])]
    column = next((i for i, h in enumerate(header) if "symbol" in h or "gene" in h), None)
    if column is None:
        column = next((i for i, h in enumerate(header) if h not in ("rank", "#", "no.", "")), 0)
    return [row[column] for row in map(cells, rows[2:]) if len(row) > column and row[column]]


def read_gene_list(text: str, synonyms: Mapping[str, str]) -> GeneReading:
    """The ranked official symbols of an answer (reasoning already removed)."""
    values = _json_list(text) if ("[" in text or "{" in text) else None
    if values:
        return _collect(values, synonyms, "json")
    lines = text.split("\n")
    column = _table(lines)
    if column:
        return _collect((_item_symbol(cell, synonyms) for cell in column), synonyms, "table",
                        prose=True)
    items = [m.group("text") for m in map(_ITEM.match, lines) if m]
    if items:
        return _collect((_item_symbol(item, synonyms) for item in items), synonyms, "list",
                        prose=True)
    comma = [line for line in lines if line.count(",") >= 1]
    if comma:
        best = max(comma, key=lambda line: line.count(","))
        tokens = [t for t in _LABEL.sub("", _MARKUP.sub("", best)).split(",") if t.strip()]
        return _collect((t.strip().split()[0] if t.strip() else t for t in tokens), synonyms,
                        "comma", prose=True)
    tokens = [t for t in _TOKEN.findall(text) if _SYMBOL_SHAPE.match(t)]
    return _collect(tokens, synonyms, "words", prose=True) if tokens else GeneReading()


def rejected_sample(reading: GeneReading, limit: int = 10) -> List[str]:
    """A few rejected tokens for the run log."""
    return reading.rejected[:limit]


def as_json(reading: GeneReading) -> Any:
    """The reading as plain values (run log)."""
    return {"form": reading.form, "listed": reading.listed, "kept": len(reading.symbols),
            "rejected": len(reading.rejected), "rejected_examples": rejected_sample(reading)}
