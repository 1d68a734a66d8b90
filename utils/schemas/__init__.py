"""The project's file formats, each defined once (SPEC 2, 4.8, 6).

=================  ===================================  ==========================================
format             file                                 module
=================  ===================================  ==========================================
``cohort_info``    ``preprocess/<Trait>/cohort_info.json``  :mod:`utils.schemas.cohort_info`
``result``         ``regress/<Trait>/significant_genes_condition_<C>.json``  :mod:`utils.schemas.result`
``task_info``      ``metadata/task_info.json``           :mod:`utils.schemas.task_info`
``report``         ``eval.py --report FILE``             :mod:`utils.schemas.report`
``comparison``     ``eval.py -p A B --report FILE``      :mod:`utils.schemas.report`
=================  ===================================  ==========================================

Each module holds the strict model of what the project writes, the function writers
call, and the lenient entry point readers of untrusted files call (see
:mod:`utils.schemas.base`). :data:`FORMATS` lists the model of each whole file;
``python -m utils.schemas --out DIR`` exports them as JSON Schema
(:mod:`utils.schemas.export`).

May import: pydantic and, from ``utils``, ``io``, ``paths`` and ``precision``.
"""

from __future__ import annotations

from typing import Dict, Type

from pydantic import BaseModel

from utils.schemas.base import FormatError
from utils.schemas.cohort_info import CohortInfo
from utils.schemas.report import Comparison, EvaluationReport
from utils.schemas.result import ResultDocument
from utils.schemas.task_info import TaskInfo

#: The model of each file format, by format name (the JSON Schema file is ``<name>.schema.json``).
FORMATS: Dict[str, Type[BaseModel]] = {
    "cohort_info": CohortInfo,
    "result": ResultDocument,
    "task_info": TaskInfo,
    "report": EvaluationReport,
    "comparison": Comparison,
}

__all__ = ["FORMATS", "FormatError"]
