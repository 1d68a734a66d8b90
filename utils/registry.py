"""Registries of named classes, written as ``"module:Class"`` and imported on first use.

The project's one registry style: the automated methods
(:data:`genotex.methods.METHODS`, ``run_agent.py --method``) and the statistical
models (:data:`tools.statistics.models.registry.MODELS`, ``regress.py
--model``) each list ``name -> "module:Class"`` in one table. Nothing is
imported until a class is asked for, so a command's ``--help`` that lists the
names loads none of them (tests/project/test_cli_help.py), and a registered
class must be a subclass of the registry's base (itself named
``"module:Class"``) whose ``name`` attribute is its registered name.

>>> registry = Registry("codec", {"json": "json:JSONDecoder"})
>>> registry.names(), "json" in registry
(['json'], True)
>>> registry.load("json").__name__
'JSONDecoder'
>>> registry.load("xml")
Traceback (most recent call last):
...
KeyError: "unknown codec 'xml'; known: json"
"""

from __future__ import annotations

import importlib
from typing import Dict, Iterator, List, Mapping, Optional

RESERVED = frozenset({"auto"})


def import_target(target: str) -> type:
    """The class named by ``"module:Class"`` (the module imported if needed)."""
    module, _, attribute = target.partition(":")
    if not module or not attribute:
        raise ValueError(f"registry target {target!r} is not 'module:Class'")
    return getattr(importlib.import_module(module), attribute)


def target_of(cls: type) -> str:
    """``"module:Class"`` of a class defined at a module's top level."""
    return f"{cls.__module__}:{cls.__qualname__}"


class Registry:
    """``name -> "module:Class"``, imported lazily.

    Parameters
    ----------
    kind : str
        What the registry holds, for messages (``"method"``, ``"statistical model"``).
    entries : mapping
        The built-in ``name -> "module:Class"`` table, in listing order.
    base : str, optional
        ``"module:Class"`` of the class every entry must subclass (checked on load).
    """

    def __init__(self, kind: str, entries: Mapping[str, str], base: Optional[str] = None
                 ) -> None:
        self.kind = kind
        self.base = base
        self._entries: Dict[str, str] = {}
        self._loaded: Dict[str, type] = {}
        for name, target in entries.items():
            self.register(name, target)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._entries))

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, name: str) -> str:
        """The ``"module:Class"`` target of ``name``."""
        return self._entries[name]

    def names(self) -> List[str]:
        """Registered names, in registration order."""
        return list(self._entries)

    def register(self, name: str, target: object) -> None:
        """Register ``target`` (``"module:Class"`` or a class) as ``name``.

        Raises
        ------
        ValueError
            When ``name`` is reserved (``"auto"``), malformed (not lower case,
            blank, with spaces) or taken by another target.
        TypeError
            When ``target`` is a class that is not a subclass of the base.
        """
        if name in RESERVED or not name or name != name.strip().lower() or " " in name:
            raise ValueError(f"invalid {self.kind} name {name!r}")
        if isinstance(target, type):
            text = target_of(target)
        elif isinstance(target, str) and ":" in target:
            text, target = target, None  # imported on first load only
        else:
            raise TypeError(f"{self.kind} {name!r}: {target!r} is neither a class nor "
                            "'module:Class'")
        known = self._entries.get(name)
        if known is not None and known != text:
            raise ValueError(f"{self.kind} name {name!r} is already registered by {known}")
        if target is not None:
            self._check(name, target)
            self._loaded[name] = target
        self._entries[name] = text

    def unregister(self, name: str) -> None:
        """Remove ``name`` (tests that register a class of their own)."""
        self._entries.pop(name, None)
        self._loaded.pop(name, None)

    def load(self, name: str) -> type:
        """The class registered as ``name`` (imported on first use).

        Raises
        ------
        KeyError
            For an unknown name (the message lists the known ones).
        """
        if name not in self._entries:
            raise KeyError(f"unknown {self.kind} {name!r}; known: {', '.join(self._entries)}")
        if name not in self._loaded:
            cls = import_target(self._entries[name])
            self._check(name, cls)
            self._loaded[name] = cls
        return self._loaded[name]

    def _check(self, name: str, cls: type) -> None:
        """A registered class subclasses the base and carries its registered name."""
        if self.base is not None and not issubclass(cls, import_target(self.base)):
            raise TypeError(f"{cls!r} is not a subclass of {self.base} (a {self.kind})")
        declared = getattr(cls, "name", name)
        if declared != name:
            raise ValueError(f"{cls!r} declares name {declared!r}, registered as {name!r}")
