"""The rules a careful reader applies, each on its own (wordings unlike the held-out set's).

Found by the held-out replies (``tests/genotex/methods/test_held_out_replies.py``);
each test fails when its rule is taken out of the readers.
"""

from __future__ import annotations

from genotex.methods.genoagent.replies import parse_plan, parse_review, wants_to_keep
from genotex.methods.llm.genelists import read_gene_list
from genotex.methods.llm.reading import list_items, read_code, read_plan

SYNONYMS = {"TNF": "TNF", "IL6": "IL6", "CRP": "CRP", "LEP": "LEP", "INS": "INS",
            "CD": "CTLA4", "ALL": "BCR", "HER2": "ERBB2"}
UNITS = ["initial_data_loading", "dataset_analysis", "gene_data_extraction"]


def fenced(code: str, tag: str = "python") -> str:
    return f"```{tag}\n{code}\n```"


# ----------------------------------------------------------------------------- code
def test_blocks_offered_as_alternatives_do_not_run():
    for label in ("Or you could write it as:", "You can also use:", "Optionally, plot it:",
                  "If that raises an error, try:", "If the column is named differently:",
                  "Instead, with pandas:"):
        text = "Step code:\n" + fenced("a = load()") + "\n\n" + label + "\n" + fenced("b = 2")
        assert read_code(text).code == "a = load()\n", label
    # a conditional that is part of the step stays ("if the age row is missing")
    text = (fenced("a = load()") + "\nThen, if the age row is missing, set it:\n" +
            fenced("age_row = None"))
    assert read_code(text).code == "a = load()\nage_row = None\n"


def test_a_block_announced_as_the_whole_answer_replaces_the_earlier_ones():
    for label in ("**Final answer**", "Here is the complete code:", "The corrected version:",
                  "Putting it all together:", "Full updated script:"):
        text = fenced("x = draft()") + "\n\nHmm, wrong.\n\n" + label + "\n" + fenced("y = 1")
        assert read_code(text).code == "y = 1\n", label
    # "the final step" is a part of the step, not a final version
    text = fenced("a = 1") + "\nThe final step saves it:\n" + fenced("save(a)")
    assert read_code(text).code == "a = 1\nsave(a)\n"


def test_a_block_quoted_as_the_old_code_does_not_run():
    text = ("The original code:\n" + fenced("m = map_ids(ids)") + "\nReplace it with:\n" +
            fenced("m = map_ids(ids, column='Symbol')"))
    assert read_code(text).code == "m = map_ids(ids, column='Symbol')\n"
    # a revised block of "your" code is the answer
    text = "Here is your revised code:\n" + fenced("a = 1") + "\nThen run:\n" + fenced("b = 2")
    assert read_code(text).code == "a = 1\nb = 2\n"


def test_an_or_opens_an_alternative():
    text = fenced("a = load()") + "\nOr, shorter:\n" + fenced("a = load(quick=True)")
    assert read_code(text).code == "a = load()\n"
    text = fenced("a = load()") + "\nA simpler way:\n" + fenced("a = 2")
    assert read_code(text).code == "a = load()\n"


def test_mistral_tool_calls_in_the_text():
    text = '[TOOL_CALLS][{"name": "python", "arguments": {"code": "x = 1\\nprint(x)"}}]'
    assert read_code(text).code == "x = 1\nprint(x)\n"


def test_llama_python_tag_holds_code():
    assert read_code("<|python_tag|>x = compute()\nprint(x)<|eom_id|>").code == \
        "x = compute()\nprint(x)\n"
    assert read_code("<|python_tag|>not python at all (").code is None


# ----------------------------------------------------------------------------- reviews
def test_a_boolean_verdict_is_read_before_the_words_of_its_keys():
    assert parse_review('{"approved": false, "suggestions": ["Fix the row."]}') .approved is False
    assert parse_review('{"accepted": true}').approved is True
    assert wants_to_keep('{"keep": false}', None, "a = 1\n") is False


def test_a_decision_label_answered_yes_or_no():
    assert parse_review("Approve: No\n1. Fix the row.").approved is False
    assert parse_review("**Approved?** yes").approved is True
    assert parse_review("Accept = false").approved is False
    # a sentence after the verdict is no answer to it
    assert parse_review("APPROVED. No issues found.").approved is True


def test_suggestions_given_as_one_string():
    review = parse_review('{"verdict": "REJECTED", "suggestions": "1. Use row 2.\\n2. Print."}')
    assert review.suggestions == ["Use row 2.", "Print."]
    review = parse_review('{"verdict": "REJECTED", "suggestions": "Use row 2."}')
    assert review.suggestions == ["Use row 2."]


def test_a_weighed_verdict_is_no_verdict():
    assert parse_review("I can't tell whether to approve it or reject it yet.") is None
    assert parse_review("Should this be rejected? The output looks truncated.") is None
    assert parse_review("Unsure if we should approve; the mapping printed nothing.") is None
    # a verdict still counts after a weighing sentence
    assert parse_review("Should I reject it? No: it is right. I approve it.").approved


def test_numbering_that_goes_on_within_a_line():
    assert list_items("1. Use row 2. 2. Print the shape. 3. Save.") == \
        ["Use row 2.", "Print the shape.", "Save."]
    assert list_items("1. Use columns 1, 2. Then print.") == ["Use columns 1, 2. Then print."]
    assert parse_review("Not approved: 1) Add a header; 2) Drop NaN rows.").suggestions == \
        ["Add a header;", "Drop NaN rows"]


# ----------------------------------------------------------------------------- keep
def test_no_changes_needed_keeps_the_code():
    assert wants_to_keep("No changes are required.", None, "a = 1\n")
    assert wants_to_keep("No changes needed:\n" + fenced("a = 1"), "a = 1\n", "a = 1\n")
    # with different code it is a revision
    assert not wants_to_keep("No changes needed elsewhere; fix:\n" + fenced("a = 2"),
                             "a = 2\n", "a = 1\n")


# ----------------------------------------------------------------------------- plans
def test_a_step_named_in_words():
    for step in ("Gene Data Extraction", "gene-data-extraction", "Step 3 - gene data extraction"):
        plan = parse_plan('{"action": "back", "step": "%s"}' % step, UNITS)
        assert (plan.action, plan.step) == ("back", "gene_data_extraction"), step


def test_typeset_quotes_in_a_plan():
    assert read_plan("{“action”: “back”, “step”: “dataset_analysis”}") == \
        {"action": "back", "step": "dataset_analysis"}
    # plain JSON wins over a typeset one
    assert read_plan('{"action": "next"} (not {“action”: “skip”})') == {"action": "next"}


# ----------------------------------------------------------------------------- genes
def test_a_broken_array_gives_its_complete_strings():
    assert read_gene_list('Here: ["TNF", "IL6", "CR', SYNONYMS).symbols == ["TNF", "IL6"]
    assert read_gene_list('[\n "LEP", # adipokine\n "INS", // hormone\n]', SYNONYMS).symbols[1:] \
        == ["INS"]
    assert read_gene_list('["TNF",\n "IL6",\n]', SYNONYMS).symbols == ["TNF", "IL6"]


def test_an_object_reads_its_gene_key_before_other_lists():
    for text in ('{"genes": ["TNF", "IL6"], "references": ["Smith 2020"]}',
                 '{"genes": ["TNF", "IL6"],\n "references": [\n  "Smith 2020"\n]}'):
        assert read_gene_list(text, SYNONYMS).symbols == ["TNF", "IL6"]


def test_json_strings_with_names():
    text = '["Interleukin 6 (IL6)", "LEP - leptin", "tnf"]'
    assert read_gene_list(text, SYNONYMS).symbols == ["IL6", "LEP", "TNF"]


def test_a_labelled_item_gives_the_labels_value():
    text = "1. Symbol: TNF (cytokine)\n2. Gene: IL6\n3. LEP: leptin"
    assert read_gene_list(text, SYNONYMS).symbols == ["TNF", "IL6", "LEP"]


def test_a_list_under_a_remarks_label_is_not_genes():
    text = ("1. TNF\n2. IL6\n\n**Limitations:**\n- CD patients differ.\n"
            "- ALL cohorts are small.")
    assert read_gene_list(text, SYNONYMS).symbols == ["TNF", "IL6"]
    # numbering that goes on is still the gene list
    text = "1. TNF\n2. IL6\nNotes on the rest:\n3. CRP\n4. LEP"
    assert read_gene_list(text, SYNONYMS).symbols == ["TNF", "IL6", "CRP", "LEP"]
    # a list under a category heading is genes
    text = "### Cytokines\n- TNF\n- IL6\n### Hormones\n- LEP\n- INS"
    assert read_gene_list(text, SYNONYMS).symbols == ["TNF", "IL6", "LEP", "INS"]
