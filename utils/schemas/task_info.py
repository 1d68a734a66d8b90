"""``metadata/task_info.json``: the problem set, ``{trait: {related_genes, conditions}}`` (SPEC 2).

* :class:`TaskInfo` is what the metadata builders write (``download/build_task_info.py``,
  ``download/select_pairs.py``, the synthetic demo): both lists in every entry.
  :func:`write_task_info` validates and writes one, keeping the trait order.
* :func:`parse_task_info` reads any task info (``--task-info``): an entry may omit a
  list (read as empty) and carry other keys (ignored).
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from pydantic import Field, RootModel

from utils.io import PathLike, atomic_write_json
from utils.schemas.base import FormatError, ReadingModel, StrictModel, dump, validate

TaskInfoDict = Dict[str, Dict[str, List[str]]]


class TaskEntry(StrictModel):
    """One trait of the problem set."""

    related_genes: List[str]
    """Official symbols of the genes known to be associated with the trait, strongest
    first (Open Targets, docs/download.md)."""
    conditions: List[str]
    """The conditions of the trait's problems, in problem order: ``Age``, ``Gender`` or
    another trait (a two-step problem). The unconditional problem is implied."""


class TaskInfo(RootModel[Dict[str, TaskEntry]]):
    """The problem set: one entry per trait (normalized trait name, docs/formats.md)."""


class TaskEntryReading(ReadingModel):
    """One trait of a task info read from any file."""

    related_genes: List[str] = Field(default_factory=list)
    conditions: List[str] = Field(default_factory=list)


def _entries(model: type, task_info: Any) -> Dict[str, Any]:
    if not isinstance(task_info, Mapping):
        raise FormatError("task info must be a JSON object {trait: {...}}, found "
                          f"{type(task_info).__name__}")
    entries = {}
    for trait, entry in task_info.items():
        try:
            entries[trait] = dump(validate(model, entry))
        except FormatError as exc:
            raise FormatError(f"trait {trait!r}: {exc.problem}") from None
    return entries


def parse_task_info(data: Any) -> TaskInfoDict:
    """``{trait: {"related_genes": [...], "conditions": [...]}}`` of any task info.

    Raises
    ------
    FormatError
        Naming the trait and key that are wrong.
    """
    return _entries(TaskEntryReading, data)


def task_info_document(task_info: Mapping[str, Any]) -> TaskInfoDict:
    """A task info validated against :class:`TaskInfo` (trait order kept)."""
    return _entries(TaskEntry, task_info)


def write_task_info(path: PathLike, task_info: Mapping[str, Any]) -> None:
    """Validate and write a task info atomically (4-space JSON)."""
    atomic_write_json(path, task_info_document(task_info))
