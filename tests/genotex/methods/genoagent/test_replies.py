"""Plans, reviews and "keep" in model replies (:mod:`genotex.methods.genoagent.replies`)."""

from genotex.methods.genoagent.replies import parse_plan, parse_review, wants_to_keep


def test_plan_actions():
    assert parse_plan('{"action": "next"}').action == "next"
    assert parse_plan('```json\n{"action": "skip"}\n```').action == "skip"
    back = parse_plan('{"action": "back", "step": "gene_annotation"}')
    assert (back.action, back.step) == ("back", "gene_annotation")
    unclear = parse_plan("let us continue")
    assert unclear.action == "next" and not unclear.understood
    assert parse_plan('{"action": "back"}').action == "next"      # back needs a step


def test_review_verdicts_and_at_most_three_suggestions():
    assert parse_review("APPROVED").approved
    review = parse_review("REJECTED\n1. a\n2) b\n- c\n4. d")
    assert not review.approved and review.suggestions == ["a", "b", "c"]
    assert review.feedback() == "1. a\n2. b\n3. c"
    assert parse_review("Rejected: use the other row").suggestions == ["use the other row"]
    unclear = parse_review("looks fine to me")
    assert unclear.approved and not unclear.understood


def test_keep():
    assert wants_to_keep("KEEP") and wants_to_keep("keep - the reviewer is wrong")
    assert not wants_to_keep("KEEP\n```python\nx = 1\n```")
    assert not wants_to_keep("I will change it")
