"""AgentSettings validates its fields (issue 26): a bad value names the field."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from genotex.methods.genoagent.settings import DATA_ENGINEER, AgentSettings


def test_defaults_and_a_valid_override():
    settings = AgentSettings(review_rounds=0, role_models={DATA_ENGINEER: "m"})
    assert settings.reviews == 0 and settings.model_for(DATA_ENGINEER) == "m"
    assert AgentSettings().max_actions == 24


@pytest.mark.parametrize("field, value", [
    ("review_rounds", -1), ("debug_attempts", -1), ("format_retries", -2),
    ("max_actions", 0), ("step_timeout", 0.0), ("step_timeout", float("inf")),
    ("memory_bytes", 0), ("planning", "maybe"),
])
def test_bad_values_name_the_field(field, value):
    with pytest.raises(ValidationError) as caught:
        AgentSettings(**{field: value})
    assert caught.value.errors()[0]["loc"][0] == field


def test_role_models_name_known_roles():
    with pytest.raises(ValidationError, match=r"unknown role\(s\) \['Boss'\]") as caught:
        AgentSettings(role_models={"Boss": "m"})
    assert caught.value.errors()[0]["loc"] == ("role_models",)
