"""Reading model replies (:mod:`genotex.methods.llm.replies`)."""

from genotex.methods.llm.replies import (code_blocks, extract_code, extract_json,
                                         gene_symbols_from_reply)


def test_code_blocks_python_or_untagged_only():
    text = "x\n```python\na = 1\n```\n```json\n{}\n```\n```\nb = 2\n```"
    assert code_blocks(text) == ["a = 1\n", "b = 2\n"]
    assert extract_code(text) == "a = 1\n\nb = 2\n"
    assert extract_code("no code here") is None


def test_extract_json_from_block_or_prose():
    assert extract_json('Sure:\n```json\n{"action": "next"}\n```') == {"action": "next"}
    assert extract_json('I choose {"action": "back", "step": "x"} now') == {
        "action": "back", "step": "x"}
    assert extract_json("nothing") is None


def test_gene_symbols_from_json_or_lines():
    assert gene_symbols_from_reply('["TNF", "IL6", "TNF", "not a gene!"]') == ["TNF", "IL6"]
    assert gene_symbols_from_reply('{"genes": ["ACE"]}') == ["ACE"]
    assert gene_symbols_from_reply("1. AGT - renin system\n2) ACE2\n- **NOS3**: endothelium") == [
        "AGT", "ACE2", "NOS3"]
