"""What every file-format schema shares: model bases, optional keys and readable problems.

Two kinds of models are defined per format:

* **strict** models (:class:`StrictModel`) describe what this project writes: every
  key known, types exact (no coercion: ``"1"`` is not a number, ``1`` is not
  ``true``), numbers finite. Writers validate through them and write their
  :func:`dump`, whose key order is the order of the fields.
* **reading** models (:class:`ReadingModel`) say what a reader of an untrusted file
  (a prediction tree, a hand-edited task list) needs: the same exact types, but
  unknown keys are ignored and most keys may be absent.

A key declared ``name: X = optional_key()`` is either present with a value of
type ``X`` or absent (read as ``None``); it is never written as ``null``, and an
explicit ``null`` is refused. A required key whose type allows ``None`` is always
written, ``null`` included.

Validation problems are reported as one sentence that names the key, what it must
hold (read from the model's JSON Schema, so the message and the exported schema
never disagree) and what was found, e.g. ``'sample_size' must be a non-negative
integer or null, found nan``. Readers prefix it with the file path.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Type, TypeVar, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_serializer

ModelT = TypeVar("ModelT", bound=BaseModel)


class FormatError(ValueError):
    """A document does not follow its format.

    Parameters
    ----------
    problem : str
        What is wrong and where in the document (no file name: the reader that
        knows the file adds it).
    """

    def __init__(self, problem: str) -> None:
        super().__init__(problem)
        self.problem = problem


def _drop_default(schema: Dict[str, Any]) -> None:
    schema.pop("default", None)


def optional_key(description: str = "", alias: Optional[str] = None) -> Any:
    """Default of a key that may be absent (read as ``None``, never written as ``null``).

    The JSON Schema lists the key as optional, without a ``null`` default.
    """
    return Field(None, alias=alias, description=description or None,
                 json_schema_extra=_drop_default)


class StrictModel(BaseModel):
    """Base of the models of what this project writes (see the module docstring)."""

    model_config = ConfigDict(strict=True, extra="forbid", allow_inf_nan=False,
                              populate_by_name=True, use_attribute_docstrings=True)

    @model_serializer(mode="wrap")
    def _omit_absent_keys(self, handler: Any) -> Optional[Dict[str, Any]]:
        if self is None:  # an absent optional key of this model's type (dropped by its owner)
            return None
        data = handler(self)
        for name, info in type(self).model_fields.items():
            key = info.alias or name
            if not info.is_required() and key in data and data[key] is None:
                del data[key]
        return data


class ReadingModel(BaseModel):
    """Base of the models that read untrusted files: exact types, unknown keys ignored."""

    model_config = ConfigDict(strict=True, extra="ignore", allow_inf_nan=False,
                              populate_by_name=True, use_attribute_docstrings=True)


def dump(model: BaseModel) -> Any:
    """JSON-ready content of a validated model: field order, aliases, absent keys left out."""
    return model.model_dump(mode="python", by_alias=True)


def validate(model: Type[ModelT], data: Any) -> ModelT:
    """Validate ``data`` against ``model``; the first problem becomes a :class:`FormatError`."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise FormatError(first_problem(exc, model)) from None


# --------------------------------------------------------------------------- messages

def first_problem(error: ValidationError, model: Type[BaseModel]) -> str:
    """One sentence describing the first problem of a validation error."""
    details = error.errors(include_url=False)[0]
    reason = details.get("ctx", {}).get("error", details["msg"])  # a validator's own words
    return describe_problem(details["type"], tuple(details["loc"]), details.get("input"),
                            str(reason), model)


def describe_problem(kind: str, loc: Tuple[Union[str, int], ...], value: Any, reason: str,
                     model: Type[BaseModel]) -> str:
    """Sentence for one pydantic error.

    Parameters
    ----------
    kind : str
        The error type (``missing``, ``bool_type``, ``value_error``, ...).
    loc : tuple
        Where in the document (keys and list positions).
    value : object
        The value found there.
    reason : str
        For ``value_error``: the validator's message, a predicate completing
        "'<key>' ..." (e.g. ``has 1 values for 2 genes``).
    model : pydantic model class
        The model validated against (its JSON Schema says what was expected).
    """
    where = location(loc)
    if kind == "missing":
        return f"missing key {where}"
    if kind == "extra_forbidden":
        return f"unexpected key {where}"
    if kind in ("value_error", "assertion_error"):
        return f"{where} {reason}" if loc else reason
    expected = join_alternatives(expectations(schema_at(model, loc), _definitions(model)))
    if not loc:
        return f"expected {expected}, found {type(value).__name__}"
    return f"{where} must be {expected}, found {value!r:.40}"


def location(loc: Sequence[Union[str, int]]) -> str:
    """``('a', 'b', 3)`` -> ``'a.b'[3]`` (keys quoted and dotted, list positions after)."""
    keys: List[str] = []
    positions = ""
    for part in loc:
        if isinstance(part, int):
            positions += f"[{part}]"
        elif positions:
            positions += f".{part}"
        else:
            keys.append(str(part))
    return (f"'{'.'.join(keys)}'" if keys else "") + positions


@functools.lru_cache(maxsize=None)
def _json_schema(model: Type[BaseModel]) -> Mapping[str, Any]:
    return model.model_json_schema()


def _definitions(model: Type[BaseModel]) -> Mapping[str, Any]:
    return _json_schema(model).get("$defs", {})


def _resolve(node: Mapping[str, Any], definitions: Mapping[str, Any]) -> Mapping[str, Any]:
    while "$ref" in node:
        node = definitions[node["$ref"].rsplit("/", 1)[-1]]
    return node


def schema_at(model: Type[BaseModel], loc: Sequence[Union[str, int]]) -> Mapping[str, Any]:
    """The JSON Schema node of ``model`` that describes the value at ``loc``."""
    definitions = _definitions(model)
    node: Mapping[str, Any] = _json_schema(model)
    for part in loc:
        node = _resolve(node, definitions)
        options = [_resolve(o, definitions) for o in node.get("anyOf", [node])]
        for option in options:
            if isinstance(part, int) and "items" in option:
                node = option["items"]
                break
            if isinstance(part, str) and part in option.get("properties", {}):
                node = option["properties"][part]
                break
            if isinstance(part, str) and isinstance(option.get("additionalProperties"), dict):
                node = option["additionalProperties"]
                break
        else:
            return {}
    return node


_SCALARS = {"boolean": ["true", "false"], "string": ["a string"], "number": ["a finite number"],
            "object": ["a JSON object"], "null": ["null"]}
_PLURALS = {"string": "strings", "number": "finite numbers", "boolean": "true/false values",
            "integer": "integers", "object": "objects"}


def expectations(node: Mapping[str, Any], definitions: Mapping[str, Any]) -> List[str]:
    """What a JSON Schema node accepts, as alternatives (``['true', 'false', 'null']``)."""
    node = _resolve(node, definitions)
    if "anyOf" in node:
        return [text for option in node["anyOf"] for text in expectations(option, definitions)]
    if "enum" in node or "const" in node:
        values = node.get("enum", [node.get("const")])
        return ["one of " + ", ".join(repr(v) for v in values)] if len(values) > 1 else [
            repr(values[0])]
    kind = node.get("type")
    if kind == "integer":
        minimum = node.get("minimum")
        return ["a non-negative integer" if minimum == 0 else
                "a positive integer" if minimum == 1 else "an integer"]
    if kind == "array":
        items = _resolve(node.get("items", {}), definitions)
        plural = _PLURALS.get(items.get("type", ""))
        return [f"a list of {plural}" if plural else "a list"]
    return list(_SCALARS.get(kind, ["a valid value"]))


def join_alternatives(options: Sequence[str]) -> str:
    """``['a', 'b', 'c']`` -> ``'a, b or c'``."""
    options = list(dict.fromkeys(options))
    if len(options) < 2:
        return options[0] if options else "a valid value"
    return ", ".join(options[:-1]) + " or " + options[-1]
