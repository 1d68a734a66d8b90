"""Trait names, the problem list and the output file names (SPEC 2 and 5.1)."""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, List, Mapping, Optional, Sequence, Tuple

from utils.columns import CLINICAL_COLUMNS
from utils.errors import InputFileError
from utils.io import PathLike, read_json
from utils.schemas.base import FormatError
from utils.schemas.task_info import TaskInfoDict, parse_task_info

NONE_LABEL = "None"

UNCONDITIONAL = "unconditional"
ONE_STEP = "conditional one-step"
TWO_STEP = "two-step"
CATEGORIES = (UNCONDITIONAL, ONE_STEP, TWO_STEP)

_WHITESPACE = re.compile(r"\s+")
_APOSTROPHES = re.compile(r"['\u2019\u2018`]")
#: Characters a trait name may not hold: it becomes a folder name (path separators,
#: NUL and other control characters).
_UNSAFE = re.compile(r"[/\\\x00-\x1f\x7f]")


class TraitNameError(ValueError):
    """A trait name that cannot be a folder name (``..``, a path separator, ...)."""


def normalize_trait(trait: str) -> str:
    """Normalize a trait name for use in paths.

    Runs of whitespace become ``_`` and apostrophes are removed; parentheses,
    hyphens and non-ASCII letters are kept.

    A trait name becomes a folder name (``output/preprocess/<Trait>/``), so a
    name holding a path separator (``/``, ``\\``), a control character, or that
    is empty, ``.`` or ``..`` once normalized is refused rather than cleaned:
    stripping ``../../x`` to ``x`` would silently name another trait.

    Raises
    ------
    TraitNameError
        For such a name (a ``ValueError``).

    Examples
    --------
    >>> normalize_trait("Crohn's Disease")
    'Crohns_Disease'
    >>> normalize_trait("../../x")
    Traceback (most recent call last):
    ...
    utils.problems.TraitNameError: trait name '../../x' cannot name a folder: ...
    """
    name = _WHITESPACE.sub("_", _APOSTROPHES.sub("", str(trait)).strip())
    if _UNSAFE.search(name):
        raise TraitNameError(f"trait name {str(trait)!r} cannot name a folder: it holds a "
                             "path separator or a control character")
    if name in ("", ".", ".."):
        raise TraitNameError(f"trait name {str(trait)!r} cannot name a folder")
    return name


@dataclass(frozen=True, order=True)
class Problem:
    """One gene-trait association problem.

    Attributes
    ----------
    trait : str
        Normalized trait name.
    condition : str or None
        ``None`` (unconditional), ``"Age"``, ``"Gender"`` or another trait.
    """

    trait: str
    condition: Optional[str] = None

    @property
    def category(self) -> str:
        """``unconditional``, ``conditional one-step`` or ``two-step``."""
        if self.condition is None:
            return UNCONDITIONAL
        if self.condition in CLINICAL_COLUMNS:  # one-step: Age or Gender
            return ONE_STEP
        return TWO_STEP

    @property
    def is_two_step(self) -> bool:
        """True when the condition is another trait."""
        return self.category == TWO_STEP

    @property
    def condition_label(self) -> str:
        """The condition as written in file names (``None`` when absent)."""
        return NONE_LABEL if self.condition is None else self.condition

    @property
    def result_name(self) -> str:
        """File name of the problem's regression JSON."""
        return result_file_name(self.condition)

    def __str__(self) -> str:
        return f"{self.trait}|{self.condition_label}"


def result_file_name(condition: Optional[str]) -> str:
    """``significant_genes_condition_<C>.json`` with ``C = None`` when absent."""
    label = NONE_LABEL if condition in (None, NONE_LABEL) else condition
    return f"significant_genes_condition_{label}.json"


def parse_problem(text: str) -> Problem:
    """Parse ``Trait`` or ``Trait|Condition`` (``None`` means unconditional)."""
    trait, _, condition = text.partition("|")
    condition = condition.strip() or None
    if condition == NONE_LABEL:
        condition = None
    return Problem(normalize_trait(trait.strip()), condition)


def load_task_info(path: PathLike) -> TaskInfoDict:
    """Read and validate ``task_info.json`` (:func:`utils.schemas.task_info.parse_task_info`).

    Returns
    -------
    dict
        ``{trait: {"related_genes": [...], "conditions": [...]}}`` (a list the file
        omits is empty; other keys are dropped).

    Raises
    ------
    InputFileError
        When the file is not a mapping of traits to the two lists.
    """
    try:
        return parse_task_info(read_json(path))
    except FormatError as exc:
        raise InputFileError(path, exc.problem) from None


def enumerate_problems(task_info: Mapping[str, Mapping[str, Any]]) -> List[Problem]:
    """All problems: traits sorted, ``None`` first, then conditions in stored order."""
    problems: List[Problem] = []
    for trait in sorted(task_info):
        problems.append(Problem(trait, None))
        for condition in task_info[trait].get("conditions", []):
            problems.append(Problem(trait, condition))
    return problems


class ProblemNameError(ValueError):
    """``--traits`` / ``--problems`` names that the task info does not hold."""


def closest_name(name: str, known: Iterable[str]) -> Optional[str]:
    """The known name closest to ``name`` (letter case ignored), if one is close.

    >>> closest_name("Hypertensoin", ["Heart_rate", "Hypertension"])
    'Hypertension'
    >>> closest_name("Zzz", ["Heart_rate"]) is None
    True
    """
    by_folded = {}
    for candidate in known:
        by_folded.setdefault(candidate.casefold(), candidate)
    close = difflib.get_close_matches(name.casefold(), list(by_folded), n=1, cutoff=0.6)
    return by_folded[close[0]] if close else None


def _unknown(text: str, known: Iterable[str]) -> str:
    match = closest_name(text, known)
    return f"{text} (did you mean {match}?)" if match else text


def select_problems(all_problems: Sequence[Problem], traits: Optional[Sequence[str]] = None,
                    wanted: Optional[Sequence[str]] = None) -> List[Problem]:
    """The problems named by ``--traits`` and ``--problems``: their union, in task order.

    Every problem of each trait of ``traits``, plus each problem of ``wanted``
    (``Trait|Condition``); all problems when neither is given.

    Raises
    ------
    ProblemNameError
        Naming every trait or problem the task info does not hold, each with the
        closest known name when there is one.
    TraitNameError
        For a name that cannot be a folder name.

    Examples
    --------
    >>> problems = enumerate_problems({"Asthma": {"conditions": ["Age"]},
    ...                                "Obesity": {"conditions": []}})
    >>> [str(p) for p in select_problems(problems, ["Obesity"], ["Asthma|Age"])]
    ['Asthma|Age', 'Obesity|None']
    >>> select_problems(problems, ["Asthmaa"])
    Traceback (most recent call last):
    ...
    utils.problems.ProblemNameError: not in the task info: Asthmaa (did you mean Asthma?)
    """
    if not traits and not wanted:
        return list(all_problems)
    known = set(all_problems)
    trait_names = sorted({p.trait for p in all_problems})
    chosen: List[Problem] = []
    missing: List[str] = []
    for trait in traits or ():
        name = normalize_trait(trait)
        matches = [p for p in all_problems if p.trait == name]
        chosen.extend(matches)
        if not matches:
            missing.append(_unknown(trait, trait_names))
    for text in wanted or ():
        problem = parse_problem(text)
        if problem in known:
            chosen.append(problem)
        else:
            missing.append(_unknown(text, [str(p) for p in all_problems]))
    if missing:
        raise ProblemNameError(f"not in the task info: {', '.join(missing)}")
    order = {p: i for i, p in enumerate(all_problems)}
    return sorted(set(chosen), key=order.__getitem__)


def question_pairs(task_info_path: PathLike) -> List[Tuple[str, Optional[str]]]:
    """``(trait, condition)`` tuples in problem order, read from a task-info file."""
    return [(p.trait, p.condition) for p in enumerate_problems(load_task_info(task_info_path))]


def related_genes(task_info: Mapping[str, Mapping[str, Any]], entity: str) -> List[str]:
    """Known related genes of a trait (empty for Age, Gender or unknown names)."""
    entry = task_info.get(entity)
    return list(entry.get("related_genes", [])) if isinstance(entry, Mapping) else []


def result_path(regress_root: PathLike, problem: Problem) -> Path:
    """``<regress_root>/<Trait>/significant_genes_condition_<C>.json``."""
    return Path(regress_root) / problem.trait / problem.result_name
