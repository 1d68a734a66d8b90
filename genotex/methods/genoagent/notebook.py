"""A task's executed steps as a Jupyter notebook (``<tree>/code/...``)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional, Sequence

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from genotex.demo.notebooks import tidy_notebook, write_notebook
from genotex.methods.genoagent.loop import ExecutedStep, TaskSpec
from genotex.methods.genoagent.settings import PROJECT_MANAGER
from genotex.methods.sandbox.kernel import ExecutionResult


def _code_cell(code: str, result: ExecutionResult) -> nbformat.NotebookNode:
    cell = new_code_cell(source=code.rstrip("\n"))
    cell.outputs = list(result.outputs)
    cell.execution_count = result.execution_count
    return cell


def task_notebook(spec: TaskSpec, setup: ExecutionResult, steps: Sequence[ExecutedStep],
                  failure: str = "", attempt: Optional[ExecutedStep] = None
                  ) -> nbformat.NotebookNode:
    """Markdown title, the setup cell, then every accepted step with its outputs.

    A failed task ends with its last (not accepted) attempt and the reason it stopped.
    """
    cells = [new_markdown_cell(f"# {spec.key}\n\n{spec.description}\n\nWritten by GenoAgent "
                               f"({spec.programmer}); the first cell is the "
                               f"{PROJECT_MANAGER}'s set-up."),
             _code_cell(spec.setup_code, setup)]
    for number, step in enumerate(steps, 1):
        cells.append(new_markdown_cell(f"## Step {number}: {step.unit.name} "
                                       f"({step.writer})\n\n{step.unit.instruction}"))
        cells.append(_code_cell(step.code, step.result))
    if attempt is not None:
        cells.append(new_markdown_cell(f"## Step {len(steps) + 1}: {attempt.unit.name} "
                                       f"({attempt.writer}), not accepted"))
        cells.append(_code_cell(attempt.code, attempt.result))
    if failure:
        cells.append(new_markdown_cell(f"## The task failed\n\n```\n{failure}\n```"))
    return tidy_notebook(new_notebook(cells=cells), spec.key)


def save_task_notebook(path: Path, spec: TaskSpec, setup: ExecutionResult,
                       steps: Sequence[ExecutedStep], failure: str = "",
                       attempt: Optional[ExecutedStep] = None) -> None:
    """Write the task's notebook (validated, atomic)."""
    write_notebook(task_notebook(spec, setup, steps, failure, attempt), path)
