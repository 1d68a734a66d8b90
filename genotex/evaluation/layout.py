"""The layout of a prediction tree: its parts, the tasks that read them, and the check
that a folder is a tree at all (with the folder probably meant when it is not).

A prediction tree holds ``preprocess/``, ``regress/`` or both (docs/formats.md). A
mistyped ``eval.py -p`` must not look like a method that scored zero, so
:func:`check_prediction_tree` refuses a folder that holds neither, with the folder it
probably meant:

* a run folder of ``run_agent.py`` (it holds ``prediction/``): that folder;
* the ``regress/`` or ``preprocess/`` folder of a tree: the tree;
* loose trait folders of one of the two (result files or ``cohort_info.json`` in them):
  where they belong;
* a folder with a tree among its subfolders (two levels down at most): that subfolder;
* an empty folder: said so.

A partial tree (one of the two folders missing) is scored, with one warning per missing
folder naming the tasks that score 0 without it, instead of one message per item.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, List, Optional, Sequence

#: The evaluation tasks and the preprocessing subtasks (tables), in report order.
TASKS = ("selection", "preprocessing", "analysis")
SUBTASKS = ("gene", "clinical", "linked")
PREPROCESS = "preprocess"
REGRESS = "regress"
PREDICTION = "prediction"
COHORT_INFO = "cohort_info.json"
RESULT_PREFIX = "significant_genes_condition_"
#: The tasks that read each part of a tree.
TASKS_OF_PART = {PREPROCESS: ("selection", "preprocessing"), REGRESS: ("analysis",)}
SEARCH_DEPTH = 2


class NotATreeError(ValueError):
    """A prediction folder that holds neither ``preprocess/`` nor ``regress/``."""


def is_tree(folder: Path) -> bool:
    """True when ``folder`` holds ``preprocess/`` or ``regress/``."""
    return any((folder / part).is_dir() for part in TASKS_OF_PART)


def _subfolders(folder: Path) -> List[Path]:
    try:
        return sorted(Path(entry.path) for entry in os.scandir(folder)
                      if entry.is_dir() and not entry.name.startswith("."))
    except OSError:
        return []


def _holds(folder: Path, wanted) -> bool:
    """True when a trait folder directly below ``folder`` holds a file ``wanted`` accepts."""
    for trait in _subfolders(folder):
        try:
            if any(wanted(entry.name) for entry in os.scandir(trait) if entry.is_file()):
                return True
        except OSError:
            continue
    return False


def part_it_is(folder: Path) -> Optional[str]:
    """``regress`` or ``preprocess`` when ``folder`` looks like that part of a tree."""
    if _holds(folder, lambda name: name.startswith(RESULT_PREFIX) and name.endswith(".json")):
        return REGRESS
    if _holds(folder, lambda name: name == COHORT_INFO):
        return PREPROCESS
    return None


def _trees_below(folder: Path, depth: int) -> Iterator[Path]:
    for child in _subfolders(folder):
        if is_tree(child):
            yield child
        elif depth > 1:
            yield from _trees_below(child, depth - 1)


def probable_tree(folder: Path) -> Optional[str]:
    """What ``folder`` probably meant, as a hint naming the tree; None when unknown."""
    if is_tree(folder / PREDICTION):
        return (f"did you mean -p {folder / PREDICTION}? (a run folder of run_agent.py "
                f"holds its prediction tree in {PREDICTION}/)")
    part = part_it_is(folder)
    if part and folder.name == part and is_tree(folder.parent):
        return f"did you mean -p {folder.parent}? (this is the {part}/ folder of that tree)"
    if part:
        return (f"its trait folders are those of a {part}/ folder: move them into "
                f"<tree>/{part}/ and pass -p <tree>")
    below = list(_trees_below(folder, SEARCH_DEPTH))
    if below:
        more = f" (or one of {len(below) - 1} other trees below it)" if len(below) > 1 else ""
        return f"did you mean -p {below[0]}?{more}"
    return None


def check_prediction_tree(folder: Path, tasks: Sequence[str]) -> List[str]:
    """Refuse a folder that is no prediction tree; warnings for a partial one.

    Parameters
    ----------
    folder : pathlib.Path
        An existing folder (``eval.py`` has checked that it exists).
    tasks : sequence of str
        The tasks asked for; a missing part is reported only when one of them reads it.

    Returns
    -------
    list of str
        One line per missing part that a task asked for needs.

    Raises
    ------
    NotATreeError
        When ``folder`` holds neither ``preprocess/`` nor ``regress/``; the message
        names the folder and, when one can be seen, the folder probably meant.
    """
    folder = Path(folder)
    if not is_tree(folder):
        empty = not any(True for _ in os.scandir(folder))
        what = "is empty" if empty else f"holds neither {PREPROCESS}/ nor {REGRESS}/"
        hint = None if empty else probable_tree(folder)
        raise NotATreeError(f"prediction folder {folder} {what}: not a prediction tree; "
                            + (hint or f"a tree holds {PREPROCESS}/ and {REGRESS}/ "
                                       "(docs/formats.md)"))
    warnings = []
    for part, readers in TASKS_OF_PART.items():
        needed = [task for task in readers if task in tasks]
        if needed and not (folder / part).is_dir():
            warnings.append(f"{folder} has no {part}/ folder: {' and '.join(needed)} "
                            f"score{'s' if len(needed) == 1 else ''} 0 on every item")
    return warnings
