"""Reading a ranked gene list from a model's answer, checked against the synonym map.

Models list genes as a JSON array, an object with a list (``{"genes": [...]}``,
``{"gene_symbols": [...]}``, ``[{"symbol": ..., "reason": ...}]``), a numbered or
bulleted list ("1. Tumor necrosis factor (TNF) -- ..."), a markdown table, or a
comma-separated line ("Genes: TNF, IL6, ..."). :func:`read_gene_list` takes the
first of those forms the answer holds (an object's gene key before its other
lists; a cut-off or commented array gives its complete strings; a later list
under "Caveats:", "Notes:" and the like is remarks, not genes) and checks every token against the gene
synonym map: a symbol is kept when the map knows it; in prose, a token must also
be written like a symbol (upper case, digits, hyphens: ``Was`` at the start of a
sentence is not the gene WAS), and a list item contributes its symbol in
parentheses, else its first symbol-like token (so does a JSON string that is no
symbol as a whole: "TNF (tumor necrosis factor)"). Tokens that are not known
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
_ARRAY_START = re.compile(r'\[\s*"')
_QUOTED = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
_COMMENT = re.compile(r'(?<=[",\[])[ \t]*//[^\n]*')
#: A label that opens remarks, not genes ("Caveats:", "**Notes**", "### Limitations").
_REMARKS = re.compile(r"^\W*(?:important\s+|key\s+|general\s+)?(?:notes?|caveats?|limitations?|"
                      r"references?|disclaimers?|considerations?|explanations?|rationale|"
                      r"sources?|remarks?|warnings?)\b[^\n]{0,20}$", re.IGNORECASE)
_NUMBER = re.compile(r"^\s*(\d+)[.)]")


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
    token = token.strip().strip(".,;:'\"[]{}")
    if not token or (prose and not _SYMBOL_SHAPE.match(token)):
        return None
    return synonyms.get(token.upper())


def _collect(tokens: Iterable[str], synonyms: Mapping[str, str], form: str,
             prose: bool = False, named: bool = False) -> GeneReading:
    """Check ``tokens`` against the map; ``named``: a token that is no symbol as a whole
    but names one ("TNF (tumor necrosis factor)") gives the symbol it names."""
    reading = GeneReading(form=form)
    for token in tokens:
        reading.listed += 1
        symbol = _official(token, synonyms, prose)
        if symbol is None and named and (" " in token or "(" in token):
            symbol = _official(_item_symbol(token, synonyms), synonyms, prose=True)
        if symbol is None:
            reading.rejected.append(token.strip())
        elif symbol not in reading.symbols:
            reading.symbols.append(symbol)
    return reading


def _json_list(text: str) -> Optional[List[str]]:
    """The gene strings of a JSON answer.

    In order: a whole-answer or fenced array; an object's list under a gene key
    (``{"genes": [...], "notes": [...]}`` gives the genes); the last array of
    strings in the text (read loosely when cut off or commented); an object's
    first list.
    """
    stripped = text.strip()
    candidates = [stripped] + [m.group(1) for m in
                               re.finditer(r"```[a-zA-Z]*\n(.*?)```", text, re.DOTALL)]
    for candidate in candidates:
        if candidate.startswith(("[", "{")):
            try:
                value = json.loads(candidate)
            except ValueError:
                continue
            values = strings_of(_gene_key_list(value) if isinstance(value, dict) else value)
            if values:
                return values
    objects = list(json_objects(text)) if "{" in text else []
    for value in objects:
        values = strings_of(_gene_key_list(value))
        if values:
            return values
    starts = list(_ARRAY_START.finditer(text))
    if starts:
        values = _loose_array(text, starts[-1].start())
        if values:
            return values
    for value in objects:
        values = strings_of(first_list(value, GENE_KEYS) or [])
        if values:
            return values
    return None


def _gene_key_list(value: Mapping[str, Any]) -> List[Any]:
    """The list under the first gene key of an object (``[]`` when there is none)."""
    return next((value[k] for k in GENE_KEYS if isinstance(value.get(k), list)), [])


def _loose_array(text: str, start: int) -> List[str]:
    """The strings of the array at ``start``, also when it is not valid JSON.

    A cut-off array (its last, unfinished string dropped), ``//`` comments and a
    trailing comma do not hide the complete strings a reader sees.
    """
    end = text.find("]", start)
    if end >= 0:
        try:
            return strings_of(json.loads(text[start:end + 1]))
        except ValueError:
            pass
    body = text[start:end if end >= 0 else len(text)]
    return [m.group(1) for m in _QUOTED.finditer(_COMMENT.sub("", body))]


def _item_symbol(item: str, synonyms: Mapping[str, str]) -> str:
    """The token a list item offers: a symbol in parentheses, else its first symbol-like word."""
    item = _MARKUP.sub("", item)
    for inner in _PARENTHESES.findall(item):
        for token in _TOKEN.findall(inner):
            if _official(token, synonyms, prose=True):
                return token
    head = item.split(" - ")[0]
    tokens = _TOKEN.findall(head.split(":")[0])
    if ":" in head:        # "Gene: PCSK9 -- ...": the label's value holds the symbol
        tokens += _TOKEN.findall(head.split(":", 1)[1])
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


def _answer_items(lines: List[str]) -> List[str]:
    """The texts of the list items, without a later list under a remarks label.

    "Caveats:", "Notes:" and the like open remarks, not more genes -- unless
    the list's numbering goes on from the genes before it.
    """
    items: List[str] = []
    label, in_list, remarks, last = "", False, False, 0
    for line in lines:
        match = _ITEM.match(line)
        if match is None:
            if line.strip():
                label, in_list = _MARKUP.sub("", line).strip(), False
            continue
        number = _NUMBER.match(line)
        if not in_list:
            goes_on = number is not None and int(number.group(1)) == last + 1
            remarks = bool(items) and not goes_on and bool(_REMARKS.match(label))
            in_list = True
        if not remarks:
            items.append(match.group("text"))
            last = int(number.group(1)) if number else last
    return items


def read_gene_list(text: str, synonyms: Mapping[str, str]) -> GeneReading:
    """The ranked official symbols of an answer (reasoning already removed)."""
    values = _json_list(text) if ("[" in text or "{" in text) else None
    if values:
        return _collect(values, synonyms, "json", named=True)
    lines = text.split("\n")
    column = _table(lines)
    if column:
        return _collect((_item_symbol(cell, synonyms) for cell in column), synonyms, "table",
                        prose=True)
    items = _answer_items(lines)
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
