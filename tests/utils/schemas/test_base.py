"""What every schema shares (utils.schemas.base): optional keys, exact types, messages."""

from __future__ import annotations

from typing import List, Optional

import pytest
from pydantic import Field

from utils.schemas.base import (FormatError, ReadingModel, StrictModel, dump, join_alternatives,
                                location, optional_key, validate)


class Block(StrictModel):
    """A test model."""

    names: List[str] = Field(alias="Names")
    size: Optional[int]
    extra: List[float] = optional_key("may be absent")


class Reading(ReadingModel):
    flag: Optional[bool] = None
    count: int = Field(0, ge=0)


def problem(model, data) -> str:
    with pytest.raises(FormatError) as info:
        validate(model, data)
    return info.value.problem


def test_optional_key_is_absent_or_a_value_never_null():
    assert dump(validate(Block, {"Names": ["a"], "size": None})) == {"Names": ["a"], "size": None}
    full = dump(validate(Block, {"Names": [], "size": 3, "extra": [1, 2.5]}))
    assert full == {"Names": [], "size": 3, "extra": [1.0, 2.5]}
    assert list(full) == ["Names", "size", "extra"]  # field order, aliases
    assert problem(Block, {"Names": [], "size": 1, "extra": None}) == (
        "'extra' must be a list of finite numbers, found None")
    schema = Block.model_json_schema()
    assert schema["required"] == ["Names", "size"]
    assert "default" not in schema["properties"]["extra"]


def test_strict_types_and_messages_name_key_expectation_and_value():
    assert problem(Block, {"Names": ["a", 7], "size": 1}) == (
        "'Names'[1] must be a string, found 7")
    assert problem(Block, {"Names": [], "size": True}) == (
        "'size' must be an integer or null, found True")
    assert problem(Block, {"Names": [], "size": 1, "extra": [float("nan")]}) == (
        "'extra'[0] must be a finite number, found nan")
    assert problem(Block, {"size": 1}) == "missing key 'Names'"
    assert problem(Block, {"Names": [], "size": 1, "other": 0}) == "unexpected key 'other'"
    assert problem(Block, [1]) == "expected a JSON object, found list"


def test_reading_models_ignore_unknown_keys_but_not_wrong_types():
    assert validate(Reading, {"flag": True, "unknown": {}}).flag is True
    assert problem(Reading, {"flag": "yes"}) == "'flag' must be true, false or null, found 'yes'"
    assert problem(Reading, {"count": -1}) == "'count' must be a non-negative integer, found -1"


def test_location_and_alternatives():
    assert location(("a", "b", 3)) == "'a.b'[3]"
    assert location(("a", 0, "c")) == "'a'[0].c"
    assert join_alternatives(["true", "false", "null"]) == "true, false or null"
    assert join_alternatives(["a list"]) == "a list"
