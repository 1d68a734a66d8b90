"""Plans, reviews and "keep" in model replies (:mod:`genotex.methods.genoagent.replies`)."""

from genotex.methods.genoagent.replies import (parse_plan, parse_review, unclear_review,
                                               wants_to_keep)

UNITS = ["initial_data_loading", "dataset_analysis", "gene_data_extraction"]


def test_plan_actions():
    assert parse_plan('{"action": "next"}').action == "next"
    assert parse_plan('```json\n{"action": "skip"}\n```').action == "skip"
    back = parse_plan('{"action": "back", "step": "gene_data_extraction"}', UNITS)
    assert (back.action, back.step) == ("back", "gene_data_extraction")
    assert parse_plan("let us continue") is None                 # asked again, then next
    assert parse_plan('{"action": "back"}') is None              # back needs a step


def test_plan_is_the_last_object_with_an_action():
    """Issue 24: "Steps [1, 2, 3, 4] are done" used to be read as the plan."""
    assert parse_plan('Steps [1, 2, 3, 4] are done, so {"action": "skip"}').action == "skip"
    text = 'Earlier I said {"action": "next"} but now {"action": "skip"}.'
    assert parse_plan(text).action == "skip"
    assert parse_plan("{'action': 'Go back', 'step': 2}", UNITS).step == "dataset_analysis"
    assert parse_plan('{"action": "BACK", "step": "1. initial_data_loading"}',
                      UNITS).step == "initial_data_loading"
    assert parse_plan('{"decision": {"action": "proceed"}}').action == "next"


def test_review_verdicts_and_at_most_three_suggestions():
    assert parse_review("APPROVED").approved
    review = parse_review("REJECTED\n1. a\n2) b\n- c\n4. d")
    assert not review.approved and review.suggestions == ["a", "b", "c"]
    assert review.feedback() == "1. a\n2. b\n3. c"
    assert parse_review("Rejected: use the other row").suggestions == ["use the other row"]
    assert parse_review("looks fine to me") is None              # unclear: asked again
    unclear = unclear_review("looks fine to me")
    assert not unclear.approved and not unclear.understood      # never approved by default


def test_review_negations_markdown_and_reasoning():
    """The cases of issue 24, as models write them."""
    assert not parse_review("Not approved.\n1. trait_row is the tissue row.").approved
    assert parse_review("Not approved.\n1. trait_row is the tissue row.").suggestions == [
        "trait_row is the tissue row."]
    assert parse_review("The output matches the instruction; I see no reason for this to be "
                        "rejected. APPROVED.").approved
    assert parse_review("**APPROVED**").approved
    assert not parse_review("**Verdict:** REJECTED\n\n1. **Row** is wrong.").approved
    assert parse_review('{"verdict": "REJECTED", "suggestions": ["x"]}').suggestions == ["x"]
    assert parse_review("The code should accept None values, but it is correct. I approve it."
                        ).approved
    assert parse_review("I cannot approve this: the converter maps every value to 1.") \
        .approved is False
    assert parse_review("APPROVED\n\nREJECTED") is None          # contradictory: asked again


def test_keep():
    previous = "x = 1\n"
    assert wants_to_keep("KEEP", None, previous)
    assert wants_to_keep("**KEEP** -- the reviewer is wrong", None, previous)
    assert wants_to_keep("I'll keep my code as it is.", None, previous)
    assert wants_to_keep("KEEP\n```python\nx = 1\n```", "x = 1\n", previous)
    assert not wants_to_keep("KEEP\n```python\nx = 2\n```", "x = 2\n", previous)
    assert not wants_to_keep("I will change it", None, previous)
    assert not wants_to_keep("Not KEEP: revised below", "x = 3\n", previous)
