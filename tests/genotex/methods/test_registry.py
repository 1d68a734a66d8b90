"""The method registry (:mod:`genotex.methods`)."""

import pytest

from genotex.methods import METHODS, method_class, method_names
from genotex.methods.base import Method


def test_every_registered_method_imports_under_its_name():
    assert method_names() == ["random", "llm-no-data", "rules", "genoagent"]
    for name in METHODS:
        cls = method_class(name)
        assert issubclass(cls, Method) and cls.name == name


def test_unknown_method():
    with pytest.raises(KeyError, match="known: random, llm-no-data, rules, genoagent"):
        method_class("oracle")
