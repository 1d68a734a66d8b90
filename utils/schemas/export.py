"""JSON Schema files of the formats (``python -m utils.schemas --out DIR``).

Method authors validate their files against ``schemas/<format>.schema.json`` of the
checkout (JSON Schema draft 2020-12) without running this project; a test checks
that the committed files equal :func:`json_schema` of each format. Rules that JSON
Schema cannot state (lists aligned with ``Variable``, the cohort flags agreeing with
each other) are checked by the models only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

from utils.io import PathLike, atomic_write_json
from utils.schemas import FORMATS

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_file_name(name: str) -> str:
    """``<name>.schema.json``."""
    return f"{name}.schema.json"


def json_schema(name: str) -> Dict[str, Any]:
    """The JSON Schema of format ``name`` (a key of :data:`utils.schemas.FORMATS`)."""
    return {"$schema": DIALECT, **FORMATS[name].model_json_schema()}


def write_json_schemas(folder: PathLike) -> List[Path]:
    """Write every format's JSON Schema into ``folder`` (2-space JSON); returns the paths."""
    written = []
    for name in FORMATS:
        path = Path(folder) / schema_file_name(name)
        atomic_write_json(path, json_schema(name), indent=2)
        written.append(path)
    return written
