"""Held-out model replies: how real models word their answers, with what a human reads.

How this set was made: written by a helper in session 33 (2026-11-27), *before*
looking at the readers' own corpus (:mod:`genotex.testing.reply_styles`) and
without reading the readers' rules; only the prompts (what the models are asked)
and the readers' signatures were read first. The replies imitate how models of
2024-2026 answer such prompts (GPT-4o/4.1 and the o-series, Claude 3.5/4,
Gemini, Llama 3, Qwen 2.5/3, DeepSeek V3/R1, Mistral, gpt-oss): reasoning
preambles (some holding draft code or a draft verdict), markdown headings and
bold labels, fences tagged ``python3`` / ``py`` / ``~~~``, trailing explanations,
several blocks, tool calls, JSON in prose, tables, hedges, negations, refusals,
cut-off replies, CRLF line ends and unicode punctuation.

Each :class:`HeldOutReply` carries the meaning a careful human reader takes from
it (``expected``); :data:`ASK` means a human would ask again too (no usable
answer). :mod:`genotex.testing.reply_audit` runs the readers on the set.

:data:`HELD_OUT` (150 replies) is the blind set; the readers were fixed from
its misreadings, so it is no longer blind for them. :data:`ROUND_TWO` (31
replies) was written by the same helper after those fixes and measured before
any further change (27 read right, 2 misread, 2 asked again), then the readers
were fixed again; it is not blind to the readers' rules.

Readers and their expected values:

* ``code`` -- the code the step should run (compared line by line, blank lines
  ignored);
* ``revise`` -- :data:`KEEP_CODE` or the revised code;
* ``review`` -- ``(approved, n_suggestions)``; ``n_suggestions`` None when any
  number is right (an approval, or suggestions a human could split differently);
* ``plan`` -- ``(action, step)``;
* ``genes`` -- the ranked official symbols.

:data:`SYNONYMS` holds the entries of the NCBI-built synonym map
(``download/get_gene_synonyms.py`` on ``Homo_sapiens.gene_info`` of the shared
data) for every upper-cased word of the gene replies, so the tests read the
gene answers against the real map's aliases (``CD`` -> CTLA4, ``IN`` -> CD44,
``SET``, ``WAS``, ...) without the 4 MB file.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Tuple

#: The expected value when a careful human would ask again too.
ASK = None
#: The expected value of a revision that keeps the previous code.
KEEP_CODE = "<keep>"

CODE, REVISE, REVIEW, PLAN, GENES = "code", "revise", "review", "plan", "genes"
READERS = (CODE, REVISE, REVIEW, PLAN, GENES)

#: The GEO task's units, in order (``back`` targets given by number resolve here).
UNITS = ("initial_data_loading", "dataset_analysis", "gene_data_extraction",
         "gene_identifier_review", "gene_annotation", "gene_identifier_mapping",
         "data_normalization_and_linking")


@dataclass(frozen=True)
class HeldOutReply:
    """One model reply and what a human reads in it.

    Attributes
    ----------
    name : str
        Unique id (``<reader>-<what>``).
    reader : str
        Which reader the reply is for (see module docstring).
    text : str
        The message content.
    expected : Any
        The human reading (:data:`ASK` when a human would ask again).
    reasoning : str
        A ``reasoning_content`` field split off by the server.
    finish_reason : str
        ``length`` for a reply cut off at the token limit.
    tool_calls : tuple of (name, arguments)
        Native tool calls of the reply.
    style : str
        Which model family answers like this (documentation only).
    """

    name: str
    reader: str
    text: str
    expected: Any
    reasoning: str = ""
    finish_reason: str = "stop"
    tool_calls: Tuple[Tuple[str, str], ...] = ()
    style: str = ""


# -- code ------------------------------------------------------------------------------
LOAD = ("background, clinical = get_background_and_clinical_data(matrix_file)\n"
        "print(background)\n"
        "print(get_unique_values_by_row(clinical))\n")
EXTRACT = ("gene_data = get_genetic_data(matrix_file)\n"
           "print(gene_data.shape)\n"
           "print(gene_data.index[:20])\n")
MAPPING = ("mapping = get_gene_mapping(annotation, prob_col='ID', gene_col='Gene Symbol')\n"
           "gene_data = apply_gene_mapping(gene_data, mapping)\n"
           "print(gene_data.shape)\n")
CLINICAL = ("trait_row, age_row, gender_row = 1, 2, None\n\n"
            "def convert_trait(value):\n"
            "    value = value.split(':')[-1].strip().lower()\n"
            "    if value in ('tumor', 'cancer'):\n"
            "        return 1\n"
            "    if value in ('normal', 'control'):\n"
            "        return 0\n"
            "    return None\n\n"
            "selected = geo_select_clinical_features(clinical, 'Breast_Cancer', trait_row,\n"
            "                                        convert_trait, age_row, convert_age)\n"
            "print(preview_df(selected))\n")
ALT = ("mapping = get_gene_mapping(annotation, prob_col='ID', gene_col='GENE_SYMBOL')\n"
       "gene_data = apply_gene_mapping(gene_data, mapping)\n")


def _fence(code: str, tag: str = "python", fence: str = "```", indent: str = "") -> str:
    lines = [fence + tag] + code.rstrip("\n").split("\n") + [fence]
    return "\n".join((indent + line) if line else line for line in lines)


def _tool(code: str) -> str:
    return json.dumps({"code": code})


_CODE = [
    HeldOutReply("code-bare-block", CODE, _fence(EXTRACT), EXTRACT, style="any"),
    HeldOutReply("code-trailing-explanation", CODE,
                 "Here's the code for the gene data extraction step:\n\n" + _fence(EXTRACT) +
                 "\n\nThis code:\n1. Reads the expression matrix with `get_genetic_data`.\n"
                 "2. Prints its shape so we can check the number of probes.\n"
                 "3. Shows the first 20 row ids, so the next step can tell whether they "
                 "are gene symbols.", EXTRACT, style="GPT-4o"),
    HeldOutReply("code-claude-intro", CODE,
                 "I'll load the background information and the sample characteristics "
                 "first, since the next step needs both.\n\n" + _fence(LOAD) +
                 "\n\nThe unique values per row will tell us which characteristic holds "
                 "the trait.", LOAD, style="Claude 3.5"),
    HeldOutReply("code-py-tag", CODE, _fence(EXTRACT, "py"), EXTRACT, style="Llama 3"),
    HeldOutReply("code-python3-tag", CODE, _fence(EXTRACT, "python3"), EXTRACT,
                 style="Qwen 2.5"),
    HeldOutReply("code-Python-capital", CODE, _fence(LOAD, "Python"), LOAD, style="Mistral"),
    HeldOutReply("code-tilde-fence", CODE, "~~~python\n" + EXTRACT + "~~~", EXTRACT,
                 style="Gemini"),
    HeldOutReply("code-untagged-fence", CODE,
                 "Sure! Here is the code:\n\n```\n" + EXTRACT + "```", EXTRACT,
                 style="Llama 3"),
    HeldOutReply("code-crlf", CODE,
                 ("Here is the step:\n\n" + _fence(MAPPING) + "\n\nIt maps probes to "
                  "symbols.").replace("\n", "\r\n"), MAPPING, style="any via Windows proxy"),
    HeldOutReply("code-think-with-draft", CODE,
                 "<think>\nThe matrix file is already known. A first try:\n```python\n"
                 "gene_data = pd.read_csv(matrix_file)\n```\nNo -- the library has "
                 "get_genetic_data, which skips the metadata lines. Use that.\n</think>\n\n"
                 + _fence(EXTRACT), EXTRACT, style="DeepSeek R1 / QwQ"),
    HeldOutReply("code-think-opened-by-template", CODE,
                 "Okay, the step asks for the gene data. Draft:\n\n```python\n"
                 "gene_data = read_matrix(matrix_file)\n```\n\nHmm, that function does not "
                 "exist. get_genetic_data is the right one.\n</think>\n\n" + _fence(EXTRACT),
                 EXTRACT, style="DeepSeek R1 distill (template opens <think>)"),
    HeldOutReply("code-thinking-tag-claude", CODE,
                 "<thinking>\nI should map with the 'Gene Symbol' column:\n```python\n"
                 "mapping = annotation[['ID', 'Gene Symbol']]\n```\nbut the library "
                 "helper handles the splitting.\n</thinking>\n\n" + _fence(MAPPING),
                 MAPPING, style="Claude with thinking tags"),
    HeldOutReply("code-reasoning-field", CODE, _fence(LOAD), LOAD,
                 reasoning="Let me load the data first.\n```python\nprint('draft')\n```",
                 style="DeepSeek R1 via reasoning_content"),
    HeldOutReply("code-only-in-reasoning-cut", CODE, "", ASK,
                 reasoning="The step needs the matrix. ```python\ngene_data = "
                           "get_genetic_data(matrix_file)\n```\nNow let me also",
                 finish_reason="length", style="R1 cut off while thinking"),
    HeldOutReply("code-cut-mid-block", CODE,
                 "Here's the code:\n\n```python\ngene_data = get_genetic_data(matrix_file)\n"
                 "print(gene_data.sha", ASK, finish_reason="length", style="any, cut off"),
    HeldOutReply("code-bash-then-python", CODE,
                 "First make sure the dependency is installed:\n\n```bash\npip install "
                 "GEOparse\n```\n\nThen run:\n\n" + _fence(EXTRACT), EXTRACT,
                 style="GPT-4o"),
    HeldOutReply("code-alternative-after", CODE,
                 "Here's the code:\n\n" + _fence(MAPPING) + "\n\nAlternatively, if the "
                 "annotation names the column differently, you could use:\n\n" +
                 _fence(ALT), MAPPING, style="GPT-4o / Gemini"),
    HeldOutReply("code-if-fails-replace", CODE,
                 _fence(MAPPING) + "\n\n**Note:** if `get_gene_mapping` raises a KeyError, "
                 "replace the first line with:\n\n```python\nmapping = get_gene_mapping("
                 "annotation, prob_col='ID', gene_col='GENE_SYMBOL')\n```", MAPPING,
                 style="Claude / Gemini"),
    HeldOutReply("code-expected-output", CODE,
                 _fence(EXTRACT) + "\n\nExpected output:\n```\n(54675, 12)\n"
                 "Index(['1007_s_at', '1053_at', ...], dtype='object')\n```", EXTRACT,
                 style="GPT-4o"),
    HeldOutReply("code-output-text-tag", CODE,
                 _fence(EXTRACT) + "\n\nThis will print something like:\n\n```text\n"
                 "(54675, 12)\n```", EXTRACT, style="Claude"),
    HeldOutReply("code-split-in-two", CODE,
                 "First, read the gene data:\n\n```python\ngene_data = get_genetic_data("
                 "matrix_file)\n```\n\nThen check its shape and the identifiers:\n\n"
                 "```python\nprint(gene_data.shape)\nprint(gene_data.index[:20])\n```",
                 EXTRACT, style="Llama 3 / Mistral"),
    HeldOutReply("code-indented-in-list", CODE,
                 "1. Load the data:\n\n" + _fence(LOAD, indent="   ") +
                 "\n\n2. Inspect the printed values to pick the trait row.", LOAD,
                 style="Gemini"),
    HeldOutReply("code-llama-python-tag", CODE,
                 "<|python_tag|>" + EXTRACT.rstrip("\n"), EXTRACT,
                 style="Llama 3.1 code interpreter, tool parser off"),
    HeldOutReply("code-qwen-tool-call-text", CODE,
                 "<tool_call>\n" + '{"name": "python", "arguments": ' + _tool(LOAD) +
                 "}\n</tool_call>", LOAD, style="Qwen 2.5 (tool call left in text)"),
    HeldOutReply("code-native-tool-call", CODE, "", EXTRACT,
                 tool_calls=(("python", _tool(EXTRACT)),), style="GPT-4.1 tools"),
    HeldOutReply("code-tool-call-with-text", CODE, "I'll run the extraction now.", EXTRACT,
                 tool_calls=(("python", _tool(EXTRACT)),), style="Claude tools"),
    HeldOutReply("code-tool-other-name", CODE, "", LOAD,
                 tool_calls=(("run_python", json.dumps({"script": LOAD})),),
                 style="model renames the tool"),
    HeldOutReply("code-refusal", CODE, "I'm sorry, but I can't help with that request.",
                 ASK, style="any refusal"),
    HeldOutReply("code-asks-question", CODE,
                 "Before I write the code, could you tell me which column of the "
                 "annotation holds the gene symbols? The output above doesn't show it.",
                 ASK, style="GPT-4o"),
    HeldOutReply("code-unclosed-but-complete", CODE, "```python\n" + LOAD, LOAD,
                 style="small local model forgets the closing fence"),
    HeldOutReply("code-harmony-final", CODE,
                 "<|channel|>analysis<|message|>Need get_genetic_data.<|end|><|start|>"
                 "assistant<|channel|>final<|message|>" + _fence(EXTRACT) + "<|return|>",
                 EXTRACT, style="gpt-oss harmony"),
    HeldOutReply("code-draft-then-final-headings", CODE,
                 "## Draft\n\n```python\ngene_data = get_genetic_data(matrix_file)\n```\n\n"
                 "Wait, that prints nothing, and the next step needs to see the ids.\n\n"
                 "## Final answer\n\n" + _fence(EXTRACT), EXTRACT,
                 style="R1 distill without think tags"),
    HeldOutReply("code-step-heading-and-explanation", CODE,
                 "### Step 5: Clinical features\n\n" + _fence(CLINICAL) +
                 "\n\n### Explanation\n* `trait_row = 1`: the 'tissue' row separates tumor "
                 "from normal.\n* Gender is constant, so `gender_row = None`.",
                 CLINICAL, style="Gemini"),
]

# -- revise ----------------------------------------------------------------------------
PREVIOUS = MAPPING
REVISED = ("mapping = get_gene_mapping(annotation, prob_col='ID', gene_col='gene_assignment')\n"
           "gene_data = apply_gene_mapping(gene_data, mapping)\n"
           "print(gene_data.shape)\n")

_REVISE = [
    HeldOutReply("revise-keep-word", REVISE, "KEEP", KEEP_CODE, style="any"),
    HeldOutReply("revise-keep-bold-reason", REVISE,
                 "**KEEP**\n\nThe failure comes from a missing annotation file, not from "
                 "the code.", KEEP_CODE, style="Claude"),
    HeldOutReply("revise-keep-dash", REVISE,
                 "KEEP — the reviewer’s concern doesn’t apply: the column is named "
                 "'Gene Symbol' in this platform.", KEEP_CODE, style="GPT-4o unicode"),
    HeldOutReply("revise-keep-lower", REVISE, "keep", KEEP_CODE, style="small model"),
    HeldOutReply("revise-keep-sentence", REVISE,
                 "I'll keep my code as it is. The output is correct: 20,134 genes were "
                 "mapped.", KEEP_CODE, style="Claude"),
    HeldOutReply("revise-code-after-not-keep", REVISE,
                 "Rather than keeping the code as is, here's the fix:\n\n" + _fence(REVISED),
                 REVISED, style="GPT-4o"),
    HeldOutReply("revise-code-mentions-kept", REVISE,
                 "Here's the revised code:\n\n" + _fence(REVISED) + "\n\nI kept the rest "
                 "of the logic the same and only changed the symbol column.", REVISED,
                 style="GPT-4o"),
    HeldOutReply("revise-same-code-again", REVISE,
                 "No changes are needed; the code is correct:\n\n" + _fence(PREVIOUS),
                 KEEP_CODE, style="Gemini"),
    HeldOutReply("revise-keep-plus-code", REVISE, "KEEP\n\n" + _fence(PREVIOUS), KEEP_CODE,
                 style="Llama 3"),
    HeldOutReply("revise-think-keep-then-code", REVISE,
                 "<think>Should I just answer KEEP? No, the reviewer is right about the "
                 "column.</think>\n\nHere is the corrected code:\n\n" + _fence(REVISED),
                 REVISED, style="DeepSeek R1"),
    HeldOutReply("revise-think-draft-then-keep", REVISE,
                 "<think>Maybe:\n```python\n" + REVISED + "```\nBut the output already "
                 "shows 20k genes, so the code works.</think>\n\nKEEP", KEEP_CODE,
                 style="QwQ"),
    HeldOutReply("revise-final-answer-keep", REVISE,
                 "The error is transient (a network timeout while reading), so the code "
                 "itself is fine.\n\n**Final answer:** KEEP", KEEP_CODE, style="o3-mini"),
    HeldOutReply("revise-tool-call", REVISE, "", REVISED,
                 tool_calls=(("python", _tool(REVISED)),), style="GPT-4.1 tools"),
    HeldOutReply("revise-keeping-unchanged", REVISE, "Keeping the code unchanged.",
                 KEEP_CODE, style="Mistral"),
    HeldOutReply("revise-keep-in-mind", REVISE,
                 "We must keep in mind that this platform stores symbols in "
                 "'gene_assignment'.\n\n" + _fence(REVISED), REVISED, style="GPT-4o"),
    HeldOutReply("revise-no-changes-needed", REVISE,
                 "No changes needed -- the step already does what the instruction asks.",
                 KEEP_CODE, style="Llama 3"),
]

# -- review ----------------------------------------------------------------------------
_REVIEW = [
    HeldOutReply("review-approved", REVIEW, "APPROVED", (True, None), style="any"),
    HeldOutReply("review-rejected-numbered", REVIEW,
                 "REJECTED\n\n1. `trait_row` should be 2: row 1 holds the tissue, not "
                 "the disease state.\n2. `convert_age` must return a float.\n3. Print the "
                 "preview of the selected features.", (False, 3), style="any"),
    HeldOutReply("review-bold-verdict-label", REVIEW,
                 "**Verdict:** APPROVED\n\nThe code correctly reads the matrix and prints "
                 "the identifiers.", (True, None), style="Claude"),
    HeldOutReply("review-heading-decision", REVIEW,
                 "## Review\n\n**Decision: REJECTED**\n\n### Suggestions\n1. Use "
                 "`gene_col='Gene Symbol'`.\n2. Drop probes without a symbol before "
                 "mapping.", (False, 2), style="Gemini"),
    HeldOutReply("review-approved-sentence", REVIEW,
                 "Approved. The step loads the data and prints what the next step needs.",
                 (True, None), style="Claude"),
    HeldOutReply("review-lower-emoji", REVIEW, "approved ✅", (True, None),
                 style="small model"),
    HeldOutReply("review-verdict-last", REVIEW,
                 "The code reads the matrix with the library function and prints its "
                 "shape (54675 x 12) and the first identifiers, which is what the "
                 "instruction asks.\n\nAPPROVED", (True, None), style="GPT-4o"),
    HeldOutReply("review-would-not-approve", REVIEW,
                 "I would not approve this step as written.\n\n1. The trait mapping "
                 "inverts cases and controls: 'normal' is mapped to 1.", (False, 1),
                 style="Claude"),
    HeldOutReply("review-rejected-bullets", REVIEW,
                 "REJECTED\n\n- Use `trait_row = 1`; row 0 is the cell type.\n"
                 "- Convert the age with `float()` after splitting on ':'.",
                 (False, 2), style="Llama 3"),
    HeldOutReply("review-think-flip-approved", REVIEW,
                 "<think>The mapping looks off, REJECTED? Wait -- the output shows 20k "
                 "genes, so it is right. APPROVED.</think>\n\nAPPROVED", (True, None),
                 style="DeepSeek R1"),
    HeldOutReply("review-think-approved-answer-rejected", REVIEW,
                 "<think>Looks fine, APPROVED... but the age conversion keeps the units "
                 "string.</think>\nREJECTED\n1. Strip ' years' before converting the age.",
                 (False, 1), style="QwQ"),
    HeldOutReply("review-json", REVIEW, '{"verdict": "APPROVED", "suggestions": []}',
                 (True, None), style="structured output"),
    HeldOutReply("review-json-fenced", REVIEW,
                 '```json\n{\n  "verdict": "REJECTED",\n  "suggestions": [\n    "Use the '
                 "'characteristics_ch1.2' row for age\",\n    \"Return None for unknown "
                 'values"\n  ]\n}\n```', (False, 2), style="GPT-4o json mode"),
    HeldOutReply("review-json-in-prose-lower", REVIEW,
                 'Here is my review:\n\n{"verdict": "rejected", "suggestions": ["Save the '
                 'clinical data before linking."]}', (False, 1), style="Mistral"),
    HeldOutReply("review-json-approved-bool", REVIEW,
                 '{"approved": false, "suggestions": ["Map probes with the GB_ACC column."]}',
                 (False, 1), style="model invents its own JSON"),
    HeldOutReply("review-json-suggestion-string", REVIEW,
                 '{"verdict": "REJECTED", "suggestions": "Use trait_row = 2."}',
                 (False, 1), style="Llama 3 json"),
    HeldOutReply("review-not-approved-label", REVIEW,
                 "Verdict: Not approved\n\nSuggestions:\n1. Print the unique values of "
                 "each characteristic.", (False, 1), style="GPT-4o-mini"),
    HeldOutReply("review-reasoned-reject", REVIEW,
                 "The code is mostly correct, but it never saves the clinical table, "
                 "which the next step reads. Therefore I must reject this step.\n\n"
                 "REJECTED\n1. Save `selected` with `selected.to_csv(out_clinical_data_"
                 "file)`.", (False, 1), style="Claude"),
    HeldOutReply("review-no-reason-to-reject", REVIEW,
                 "There's no reason to reject this; the output is as expected. APPROVED.",
                 (True, None), style="GPT-4o"),
    HeldOutReply("review-approved-with-nits", REVIEW,
                 "APPROVED (with minor suggestions)\n\n1. Consider logging the number of "
                 "dropped probes.\n2. The print of the index could be shorter.",
                 (True, None), style="Gemini"),
    HeldOutReply("review-issues-and-suggestions", REVIEW,
                 "**REJECTED**\n\n**Issues found:**\n1. **Wrong column**: the code maps "
                 "with 'ID' twice.\n2. **No check**: nothing verifies the mapping kept "
                 "genes.\n\n**Suggestions:**\n1. Use `gene_col='Gene Symbol'`.\n2. Print "
                 "`gene_data.shape` after mapping.", (False, None), style="Claude 3.5"),
    HeldOutReply("review-cannot-approve", REVIEW,
                 "I cannot approve this code: the trait is never converted to 0/1.",
                 (False, None), style="GPT-4o"),
    HeldOutReply("review-lgtm", REVIEW, "LGTM 👍", (True, None), style="code-review habit"),
    HeldOutReply("review-emoji-label", REVIEW, "Decision: ✅ Approved", (True, None),
                 style="Gemini"),
    HeldOutReply("review-cross-rejected", REVIEW,
                 "❌ REJECTED\n\n1. The gene annotation step must use the platform's "
                 "annotation, not the series matrix.", (False, 1), style="Gemini"),
    HeldOutReply("review-step-is-approved", REVIEW,
                 "The step is APPROVED. It does exactly what the instruction asks.",
                 (True, None), style="Llama 3"),
    HeldOutReply("review-unsure", REVIEW,
                 "I'm not sure whether to approve or reject: the output is truncated, so "
                 "I can't verify that the mapping kept any genes.", ASK, style="GPT-4o"),
    HeldOutReply("review-refusal", REVIEW, "I'm sorry, I can't assist with that.", ASK,
                 style="any refusal"),
    HeldOutReply("review-rejected-dash-reason", REVIEW,
                 "Rejected — the code never saves the clinical data.\n\n1. Call "
                 "`selected.to_csv(out_clinical_data_file)` at the end.", (False, 1),
                 style="GPT-4o unicode"),
    HeldOutReply("review-approved-in-paragraph", REVIEW,
                 "**Review:**\n\nThe code correctly implements the instruction and the "
                 "output confirms 20,134 genes after mapping. Approved.", (True, None),
                 style="Gemini"),
    HeldOutReply("review-paren-numbering", REVIEW,
                 "Not approved. 1) Use `trait_row = 3`. 2) Map 'M'/'F' to 1/0 in "
                 "`convert_gender`.", (False, 2), style="Llama 3"),
    HeldOutReply("review-four-suggestions", REVIEW,
                 "REJECTED\n\nSuggestions:\n1. Use trait_row = 2.\n2. Use age_row = 4.\n"
                 "3. Return None for 'NA'.\n4. Print the preview.", (False, 3),
                 style="GPT-4o (ignores the limit)"),
    HeldOutReply("review-crlf", REVIEW,
                 "APPROVED\r\n\r\nThe code prints the background and the characteristics.",
                 (True, None), style="any via Windows proxy"),
    HeldOutReply("review-final-verdict-after-approved-earlier", REVIEW,
                 "The previous step was approved, but this one maps the wrong column: "
                 "'ID' is the probe id, not the symbol.\n\nFinal verdict: **REJECTED**\n"
                 "1. Use `gene_col='Gene Symbol'`.", (False, 1), style="o1"),
    HeldOutReply("review-id-approve-hedge", REVIEW,
                 "I'd approve this, though you might print fewer rows next time.",
                 (True, None), style="Claude"),
    HeldOutReply("review-should-be-rejected", REVIEW,
                 "This should be rejected because the gender row holds the tissue.\n\n"
                 "1. Use `gender_row = None`.", (False, 1), style="GPT-4o"),
    HeldOutReply("review-approved-note-rejected-hypothetical", REVIEW,
                 "APPROVED\n\nNote: this would have to be REJECTED if the trait row were "
                 "missing, but it is present.", (True, None), style="o-series"),
    HeldOutReply("review-cut-off-rejected", REVIEW,
                 "REJECTED\n\n1. The gene annotation step uses the wrong col",
                 (False, 1), finish_reason="length", style="any, cut off"),
    HeldOutReply("review-suggestions-none", REVIEW, "Verdict: APPROVED\nSuggestions: none",
                 (True, None), style="GPT-4o-mini"),
    HeldOutReply("review-heading-rejected", REVIEW,
                 "# REJECTED\n\n1. Convert the trait to 0/1.", (False, 1), style="Qwen"),
    HeldOutReply("review-yes-approved", REVIEW, "Yes, approved.", (True, None),
                 style="small model"),
    HeldOutReply("review-looks-good", REVIEW,
                 "Looks good to me. The code does what the step asks.", (True, None),
                 style="chatty model"),
    HeldOutReply("review-approving-it", REVIEW,
                 "Both the code and its output look correct, so I'm approving it.\n\n"
                 "**APPROVED**", (True, None), style="Claude"),
    HeldOutReply("review-status-changes-requested", REVIEW,
                 "Status: Changes requested\n\n1. Use `trait_row = 2`.", (False, 1),
                 style="GitHub review habit"),
    HeldOutReply("review-only-thinking", REVIEW,
                 "<think>The output matches the instruction. APPROVED.</think>", ASK,
                 style="R1 that never answers after thinking"),
    HeldOutReply("review-reasoning-field-disagrees", REVIEW,
                 "REJECTED\n1. `convert_trait` never returns 0.", (False, 1),
                 reasoning="At first glance it is APPROVED.", style="R1 reasoning_content"),
]

# -- plan ------------------------------------------------------------------------------
_PLAN = [
    HeldOutReply("plan-bare", PLAN, '{"action": "next"}', ("next", None), style="any"),
    HeldOutReply("plan-fenced-skip", PLAN, '```json\n{"action": "skip"}\n```',
                 ("skip", None), style="GPT-4o"),
    HeldOutReply("plan-back", PLAN, '{"action": "back", "step": "dataset_analysis"}',
                 ("back", "dataset_analysis"), style="any"),
    HeldOutReply("plan-prose-then-fenced", PLAN,
                 "Looking at the outputs, the gene data was extracted correctly and the "
                 "identifiers are probe ids, so annotation is needed.\n\n```json\n"
                 '{"action": "next"}\n```', ("next", None), style="Claude"),
    HeldOutReply("plan-think-draft-back", PLAN,
                 '<think>Maybe {"action": "back", "step": "dataset_analysis"}? No, the '
                 'trait row is right.</think>\n{"action": "next"}', ("next", None),
                 style="DeepSeek R1"),
    HeldOutReply("plan-back-title-case", PLAN,
                 '{"action": "back", "step": "Dataset Analysis"}',
                 ("back", "dataset_analysis"), style="GPT-4o"),
    HeldOutReply("plan-back-number", PLAN, '{"action": "back", "step": 2}',
                 ("back", "dataset_analysis"), style="Llama 3"),
    HeldOutReply("plan-skip-reason", PLAN,
                 '{"action":"skip","reason":"the identifiers are already gene symbols"}',
                 ("skip", None), style="Qwen"),
    HeldOutReply("plan-python-dict", PLAN, "{'action': 'next'}", ("next", None),
                 style="small model"),
    HeldOutReply("plan-prose-then-bare", PLAN,
                 'I recommend proceeding to the next step.\n\n{"action": "next"}',
                 ("next", None), style="Gemini"),
    HeldOutReply("plan-prose-only", PLAN, "Proceed with gene_annotation.", ASK,
                 style="model ignores the format"),
    HeldOutReply("plan-action-label", PLAN, "Action: skip", ASK,
                 style="model ignores the format"),
    HeldOutReply("plan-go-back-multiline", PLAN,
                 '{\n  "action": "go_back",\n  "step": "gene_data_extraction"\n}',
                 ("back", "gene_data_extraction"), style="Mistral"),
    HeldOutReply("plan-upper", PLAN, '{"action": "NEXT"}', ("next", None),
                 style="small model"),
    HeldOutReply("plan-nested", PLAN, '{"decision": {"action": "skip"}}', ("skip", None),
                 style="model wraps the answer"),
    HeldOutReply("plan-trailing-comma", PLAN, '{"action": "next",}', ("next", None),
                 style="Llama 3"),
    HeldOutReply("plan-options-then-choice", PLAN,
                 'The options are {"action": "next"}, {"action": "skip"} or '
                 '{"action": "back"}. Since the identifiers still need mapping, I choose:'
                 '\n\n{"action": "skip"}', ("skip", None), style="GPT-4o-mini"),
    HeldOutReply("plan-step-null", PLAN, '{"action": "next", "step": null}',
                 ("next", None), style="structured output"),
    HeldOutReply("plan-cut-off", PLAN, '{"action": "ba', ASK, finish_reason="length",
                 style="any, cut off"),
    HeldOutReply("plan-curly-quotes", PLAN, "{“action”: “skip”}", ("skip", None),
                 style="model trained on typeset text"),
    HeldOutReply("plan-js-comment", PLAN,
                 '{"action": "next"} // gene annotation comes next', ("next", None),
                 style="Llama 3"),
    HeldOutReply("plan-back-to-step-phrase", PLAN,
                 '{"action": "back", "step": "step 2 (dataset_analysis)"}',
                 ("back", "dataset_analysis"), style="Gemini"),
]

# -- genes -----------------------------------------------------------------------------
_GENES = [
    HeldOutReply("genes-json", GENES, '["TNF", "IL6", "IL1B"]', ["TNF", "IL6", "IL1B"],
                 style="any"),
    HeldOutReply("genes-json-fenced", GENES, '```json\n["NOD2", "IL23R", "ATG16L1"]\n```',
                 ["NOD2", "IL23R", "ATG16L1"], style="GPT-4o"),
    HeldOutReply("genes-json-untagged-fence", GENES, '```\n["APOE","TREM2","CLU"]\n```',
                 ["APOE", "TREM2", "CLU"], style="Llama 3"),
    HeldOutReply("genes-object", GENES, '{"genes": ["INS", "GCK", "HNF1A"]}',
                 ["INS", "GCK", "HNF1A"], style="structured output"),
    HeldOutReply("genes-numbered-bold-desc", GENES,
                 "1. **TNF** (Tumor necrosis factor) – key inflammatory cytokine\n"
                 "2. **IL6** – drives the acute-phase response\n"
                 "3. **CRP** – acute-phase protein made by the liver",
                 ["TNF", "IL6", "CRP"], style="GPT-4o"),
    HeldOutReply("genes-numbered-names-first", GENES,
                 "1. Tumor necrosis factor (TNF)\n2. Interleukin-6 (IL6)\n"
                 "3. C-reactive protein (CRP)", ["TNF", "IL6", "CRP"], style="Llama 3"),
    HeldOutReply("genes-table", GENES,
                 "| Rank | Gene | Evidence |\n|---|---|---|\n| 1 | APOE | strongest GWAS "
                 "locus; APOE4 allele |\n| 2 | TREM2 | microglial receptor |\n| 3 | CLU | "
                 "clusterin |", ["APOE", "TREM2", "CLU"], style="Claude / Gemini"),
    HeldOutReply("genes-json-in-prose", GENES,
                 "Based on the literature, here are the top genes:\n\n"
                 '["ESR1", "PGR", "ERBB2"]\n\nNote: ERBB2 (HER2) amplification defines a '
                 "subtype.", ["ESR1", "PGR", "ERBB2"], style="GPT-4o"),
    HeldOutReply("genes-think-draft", GENES,
                 "<think>Inflammation genes TNF, IL6 come to mind, but for LDL the "
                 "drivers are lipid genes.</think>\n\n"
                 '["PCSK9", "LDLR", "APOB"]', ["PCSK9", "LDLR", "APOB"], style="R1"),
    HeldOutReply("genes-aliases", GENES, '["HER2", "p53", "TNF-alpha", "COX-2"]',
                 ["ERBB2", "TP53", "TNF", "PTGS2"], style="model uses common names"),
    HeldOutReply("genes-comma-line", GENES, "TNF, IL6, IL1B, CXCL8, CCL2",
                 ["TNF", "IL6", "IL1B", "CXCL8", "CCL2"], style="small model"),
    HeldOutReply("genes-labelled-comma", GENES, "Genes: SNCA, LRRK2, PRKN, PINK1, GBA1",
                 ["SNCA", "LRRK2", "PRKN", "PINK1", "GBA1"], style="Mistral"),
    HeldOutReply("genes-bullets-with-variants", GENES,
                 "- SNCA: encodes alpha-synuclein, the main component of Lewy bodies\n"
                 "- LRRK2: kinase; the G2019S mutation is the most common cause\n"
                 "- MAPT: tau; the H1 haplotype raises risk", ["SNCA", "LRRK2", "MAPT"],
                 style="Claude"),
    HeldOutReply("genes-refusal", GENES,
                 "I can't determine which genes are associated without the expression "
                 "data itself.", ASK, style="cautious model"),
    HeldOutReply("genes-cut-off-json", GENES, '["TNF", "IL6", "IL1B", "CXCL8", "CC',
                 ["TNF", "IL6", "IL1B", "CXCL8"], finish_reason="length",
                 style="any, cut off"),
    HeldOutReply("genes-json-objects", GENES,
                 '[{"symbol": "TNF", "reason": "master cytokine"}, {"symbol": "IL6", '
                 '"reason": "acute phase"}]', ["TNF", "IL6"], style="structured habit"),
    HeldOutReply("genes-bold-numbered-heading", GENES,
                 "## Top genes for Crohn's disease\n\n**1. NOD2** – bacterial sensing\n"
                 "**2. IL23R** – Th17 axis\n**3. ATG16L1** – autophagy",
                 ["NOD2", "IL23R", "ATG16L1"], style="Gemini"),
    HeldOutReply("genes-final-answer-after-musing", GENES,
                 "Let me think about which genes matter. Inflammatory genes like TNF and "
                 "IL6 are tempting, but for LDL cholesterol the causal genes are lipid "
                 "genes.\n\n**Final answer:**\n" + '["PCSK9", "LDLR", "APOB"]',
                 ["PCSK9", "LDLR", "APOB"], style="R1 distill without think tags"),
    HeldOutReply("genes-prose-sentence", GENES,
                 "The most strongly associated gene is APOE, followed by TREM2 and CLU; "
                 "BIN1 is also notable.", ["APOE", "TREM2", "CLU", "BIN1"],
                 style="chatty model"),
    HeldOutReply("genes-hla-dash", GENES,
                 "1. HLA-DRB1 — strongest association\n2. PTPN22 — R620W variant\n"
                 "3. STAT4", ["HLA-DRB1", "PTPN22", "STAT4"], style="GPT-4o unicode"),
    HeldOutReply("genes-json-comments", GENES,
                 '[\n  "TNF",  // master cytokine\n  "IL6",\n  "CRP",\n]',
                 ["TNF", "IL6", "CRP"], style="Llama 3"),
    HeldOutReply("genes-json-then-afterthought", GENES,
                 '```json\n["KLK3", "AR"]\n```\nThese are well established; TMPRSS2 could '
                 "also be added.", ["KLK3", "AR"], style="Claude"),
    HeldOutReply("genes-crlf-numbered", GENES, "1. LEP\r\n2. ADIPOQ\r\n3. FTO\r\n4. MC4R",
                 ["LEP", "ADIPOQ", "FTO", "MC4R"], style="any via Windows proxy"),
    HeldOutReply("genes-json-lower", GENES, '["tnf", "il6", "crp"]',
                 ["TNF", "IL6", "CRP"], style="small model"),
    HeldOutReply("genes-sections", GENES,
                 "### Inflammatory genes\n1. TNF\n2. IL6\n\n### Adipokines\n3. LEP\n"
                 "4. ADIPOQ", ["TNF", "IL6", "LEP", "ADIPOQ"], style="Gemini"),
    HeldOutReply("genes-draft-array-then-final", GENES,
                 'Initially I considered ["TNF", "IL6"], but for obesity the adipokines '
                 "matter more. Final list:\n\n" + '["LEP", "ADIPOQ", "FTO"]',
                 ["LEP", "ADIPOQ", "FTO"], style="o1-mini"),
    HeldOutReply("genes-json-with-names", GENES,
                 '["TNF (tumor necrosis factor)", "IL6 (interleukin 6)"]', ["TNF", "IL6"],
                 style="model explains inside strings"),
    HeldOutReply("genes-table-symbol-column", GENES,
                 "| # | Gene name | Symbol |\n|:-:|:--|:--|\n| 1 | Insulin | INS |\n"
                 "| 2 | Glucokinase | GCK |\n| 3 | HNF1 homeobox A | HNF1A |",
                 ["INS", "GCK", "HNF1A"], style="Claude"),
    HeldOutReply("genes-bold-in-sentences", GENES,
                 "1. The **FTO** gene, the strongest common obesity locus.\n"
                 "2. **MC4R**, whose loss causes monogenic obesity.\n"
                 "3. **LEP**, the leptin gene.", ["FTO", "MC4R", "LEP"], style="GPT-4o"),
    HeldOutReply("genes-object-other-key", GENES,
                 '{"trait": "Obesity", "top_genes": ["LEP", "FTO", "MC4R"]}',
                 ["LEP", "FTO", "MC4R"], style="model names its own key"),
    HeldOutReply("genes-list-then-caveats", GENES,
                 "1. NOD2\n2. IL23R\n3. ATG16L1\n\nCaveats:\n- CD (Crohn's disease) "
                 "signatures differ by tissue.\n- IN the colon, inflammation dominates "
                 "the signal.", ["NOD2", "IL23R", "ATG16L1"], style="GPT-4o"),
    HeldOutReply("genes-rsid-in-parens", GENES,
                 "1. TNF (rs1800629)\n2. IL6 (rs1800795)\n3. IL10", ["TNF", "IL6", "IL10"],
                 style="Claude"),
    HeldOutReply("genes-think-only-cut", GENES,
                 "<think>Candidates: TNF, IL6, CRP, and then", ASK, finish_reason="length",
                 style="R1 cut off while thinking"),
]

HELD_OUT: Tuple[HeldOutReply, ...] = tuple(_CODE + _REVISE + _REVIEW + _PLAN + _GENES)


# -- round two -------------------------------------------------------------------------
# Written by the same helper after the fixes of session 33, before running them: new
# wordings that check whether the fixes generalize (not blind to the readers' rules,
# so they are kept apart from HELD_OUT and reported separately).
_ROUND_TWO = [
    HeldOutReply("r2-code-mistral-tool-calls-text", CODE,
                 '[TOOL_CALLS][{"name": "python", "arguments": ' + _tool(EXTRACT) + "}]",
                 EXTRACT, style="Mistral tool call left in text"),
    HeldOutReply("r2-code-updated-after-explanation", CODE,
                 "My first attempt:\n\n```python\ngene_data = get_genetic_data(matrix)\n```"
                 "\n\nThat variable is called `matrix_file`, so here is the updated "
                 "version:\n\n" + _fence(EXTRACT), EXTRACT, style="GPT-4.1"),
    HeldOutReply("r2-code-or-simpler", CODE,
                 _fence(LOAD) + "\n\nOr, more simply, if you only need the background:\n\n"
                 "```python\nprint(get_background_and_clinical_data(matrix_file)[0])\n```",
                 LOAD, style="Gemini"),
    HeldOutReply("r2-code-three-parts", CODE,
                 "**1. Read**\n```python\ngene_data = get_genetic_data(matrix_file)\n```\n"
                 "**2. Inspect**\n```python\nprint(gene_data.shape)\n```\n**3. Identifiers**\n"
                 "```python\nprint(gene_data.index[:20])\n```", EXTRACT, style="Claude 4"),
    HeldOutReply("r2-code-apology-then-code", CODE,
                 "Apologies for the confusion earlier. Here is the code for this step:\n\n"
                 + _fence(MAPPING, "py"), MAPPING, style="GPT-4o after a retry"),
    HeldOutReply("r2-code-text-block-before", CODE,
                 "The identifiers look like this:\n```text\n1007_s_at\n1053_at\n```\n\n"
                 "So we map them:\n\n" + _fence(MAPPING), MAPPING, style="Claude"),
    HeldOutReply("r2-code-only-prose", CODE,
                 "This step needs no new code: the gene data was already extracted in "
                 "step 3.", ASK, style="o3"),
    HeldOutReply("r2-revise-keep-heading", REVISE,
                 "## Decision\n\nKEEP\n\n## Reason\n\nThe KeyError comes from the platform "
                 "file, which is missing.", KEEP_CODE, style="Gemini"),
    HeldOutReply("r2-revise-fixed-version", REVISE,
                 "You're right, I mapped the wrong column. Fixed version:\n\n" +
                 _fence(REVISED) + "\n\nThis keeps the probe ids as the index.", REVISED,
                 style="Claude 4"),
    HeldOutReply("r2-revise-keep-not", REVISE,
                 "I won't keep the current code; the reviewer is right.\n\n" +
                 _fence(REVISED, "python3"), REVISED, style="Qwen 3"),
    HeldOutReply("r2-revise-unchanged-sentence", REVISE,
                 "The code is correct as written and should stay unchanged. KEEP.",
                 KEEP_CODE, style="DeepSeek V3"),
    HeldOutReply("r2-review-decision-yes", REVIEW, "**Approve:** Yes\n\nThe step is correct.",
                 (True, None), style="bold label with yes/no"),
    HeldOutReply("r2-review-approve-no", REVIEW,
                 "**Approve:** No\n\n1. The age row holds the tissue type.", (False, 1),
                 style="bold label with yes/no"),
    HeldOutReply("r2-review-json-verdict-lower-approve", REVIEW,
                 '```JSON\n{"verdict": "approve", "suggestions": []}\n```', (True, None),
                 style="Llama 3 json"),
    HeldOutReply("r2-review-not-rejected", REVIEW,
                 "I see no problem that would get this rejected. APPROVED", (True, None),
                 style="GPT-4o"),
    HeldOutReply("r2-review-question-then-verdict", REVIEW,
                 "Does the code do what the step asks? Yes: it maps the probes and prints "
                 "the shape.\n\n**Verdict: APPROVED**", (True, None), style="Claude"),
    HeldOutReply("r2-review-rejected-lower-sugg-heading", REVIEW,
                 "rejected\n\n### What to change\n- Use `gene_col='Symbol'`\n"
                 "- Keep only rows with a symbol", (False, 2), style="small model"),
    HeldOutReply("r2-review-hedge-both", REVIEW,
                 "Hard to say. It could be approved if the trait row is right, but it "
                 "should be rejected otherwise, and the output doesn't show which.", ASK,
                 style="GPT-4o-mini"),
    HeldOutReply("r2-review-think-only-reasoning-field", REVIEW, "", ASK,
                 reasoning="The code is fine. APPROVED.", style="R1 with empty content"),
    HeldOutReply("r2-plan-json-tagged-prose-after", PLAN,
                 '```json\n{"action": "back", "step": "initial_data_loading"}\n```\n\n'
                 "The loading step read the wrong file.", ("back", "initial_data_loading"),
                 style="GPT-4o"),
    HeldOutReply("r2-plan-step-with-number-prefix", PLAN,
                 '{"action": "back", "step": "3. gene_data_extraction"}',
                 ("back", "gene_data_extraction"), style="copies the plan listing"),
    HeldOutReply("r2-plan-skip-upper-reason", PLAN,
                 '<think>The ids are symbols.</think>\n{"action": "SKIP", "reason": '
                 '"identifiers are already HGNC symbols"}', ("skip", None), style="QwQ"),
    HeldOutReply("r2-plan-refusal", PLAN, "I'm unable to decide without more output.", ASK,
                 style="cautious model"),
    HeldOutReply("r2-genes-table-bold", GENES,
                 "| Gene | Direction |\n|------|-----------|\n| **LEP** | up |\n"
                 "| **ADIPOQ** | down |\n| **FTO** | up |", ["LEP", "ADIPOQ", "FTO"],
                 style="Claude"),
    HeldOutReply("r2-genes-jsonc-fence", GENES,
                 '```jsonc\n[\n  "APOE", // ε4 allele\n  "TREM2",\n  "CLU"\n]\n```',
                 ["APOE", "TREM2", "CLU"], style="Llama 3"),
    HeldOutReply("r2-genes-gene-label-items", GENES,
                 "1. Gene: PCSK9 — LDL receptor degradation\n2. Gene: LDLR — LDL uptake\n"
                 "3. Gene: APOB — the LDL particle's protein", ["PCSK9", "LDLR", "APOB"],
                 style="Qwen 2.5"),
    HeldOutReply("r2-genes-final-answer-list", GENES,
                 "Reasoning: obesity expression studies in adipose tissue consistently "
                 "report leptin and adiponectin.\n\nFinal answer:\n1. LEP\n2. ADIPOQ\n"
                 "3. FTO", ["LEP", "ADIPOQ", "FTO"], style="R1 distill"),
    HeldOutReply("r2-genes-json-then-references", GENES,
                 '["ESR1", "PGR"]\n\nReferences:\n- TOP2A review (2019)\n- CAN study',
                 ["ESR1", "PGR"], style="GPT-4o"),
    HeldOutReply("r2-genes-numbered-then-notes", GENES,
                 "1. SNCA\n2. LRRK2\n3. GBA1\n\n**Note:**\n- SET of genes from GWAS, "
                 "not expression.", ["SNCA", "LRRK2", "GBA1"], style="Gemini"),
    HeldOutReply("r2-genes-object-gene-symbols-and-rationale", GENES,
                 '{"rationale": ["strongest GWAS signal", "microglia"], '
                 '"gene_symbols": ["APOE", "TREM2"]}', ["APOE", "TREM2"],
                 style="model adds fields"),
    HeldOutReply("r2-genes-apology-refusal", GENES,
                 "I'm sorry, but I can't provide a reliable ranking without data.", ASK,
                 style="cautious model"),
]

ROUND_TWO: Tuple[HeldOutReply, ...] = tuple(_ROUND_TWO)

#: NCBI synonym-map entries for the words of the gene replies (see module docstring).
SYNONYMS = {
    "ADIPOQ": "ADIPOQ", "APOB": "APOB", "APOE": "APOE", "APOE4": "APOE", "AR": "AR",
    "ATG16L1": "ATG16L1", "BIN1": "BIN1", "CAN": "NUP214", "CCL2": "CCL2", "CD": "CTLA4",
    "CLU": "CLU", "COX": "COX8A", "COX-2": "PTGS2", "CRP": "CRP", "CXCL8": "CXCL8",
    "DRB1": "HLA-DRB1", "ERBB2": "ERBB2", "ESR1": "ESR1", "FOR": "WWOX", "FTO": "FTO",
    "GBA1": "GBA1", "GCK": "GCK", "H1": "H1-5", "HER2": "ERBB2", "HLA-DRB1": "HLA-DRB1",
    "HNF1": "HNF1A", "HNF1A": "HNF1A", "HOMEOBOX": "LBX1", "IL10": "IL10", "IL1B": "IL1B",
    "IL23R": "IL23R", "IL6": "IL6", "IN": "CD44", "INS": "INS", "KLK3": "KLK3",
    "LDLR": "LDLR", "LEP": "LEP", "LRRK2": "LRRK2", "MAPT": "MAPT", "MC4R": "MC4R",
    "ME": "MMP12", "NOD2": "NOD2", "NOT": "NR4A2", "OF": "SPI1", "ON": "SPARC",
    "P53": "TP53", "PARTICLE": "PARTICL", "PCSK9": "PCSK9", "PGR": "PGR", "PINK1": "PINK1",
    "PRKN": "PRKN", "PTPN22": "PTPN22", "RANK": "TNFRSF11A", "SET": "SET", "SNCA": "SNCA",
    "STAT4": "STAT4", "T": "TBXT", "TAU": "MAPT", "TMPRSS2": "TMPRSS2", "TNF": "TNF",
    "TNF-ALPHA": "TNF", "TO": "TDO2", "TOP": "THOP1", "TOP2A": "TOP2A", "TREM2": "TREM2",
    "UP": "UPP1",
}
