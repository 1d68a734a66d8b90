"""The ground floor: what every other package agrees on, importing nothing above it.

Holds where files live (``paths``), all file input and output (``io``, a
package), what a reader checks before trusting a file (``input_safety``), errors
that name the file (``errors``), the file formats (``schemas``), the problem list
(``problems``), the cohort-selection rule ``regress.py`` and ``eval.py`` share
(``selection``), the domain rules written once (``columns``), gene-symbol maps
(``symbols``), the committed TCGA cohort table (``tcga_cohorts``), pure metrics
(``metrics``), logging and progress bars (``logs``), seeds, cores and worker
lifetime (``runtime``), written precision (``precision``), the value types of
command-line flags (``arguments``), the compatibility
shims of the original project (``utils.utils``, ``notebook_namespace``), and the
interpreter check every package meets first (:func:`check_python`).

May import: the standard library and third-party packages only; never ``tools``,
``download`` or ``genotex``. Within it, ``utils.io`` imports only ``errors``,
``input_safety`` and ``paths`` (``tests/project/test_architecture.py``).
"""

import sys as _sys

#: The oldest interpreter the project runs on (``requires-python`` in pyproject.toml).
MINIMUM_PYTHON = (3, 11)


def check_python(version_info: tuple = tuple(_sys.version_info)) -> None:
    """Refuse an interpreter older than :data:`MINIMUM_PYTHON`, saying so in one line.

    Called when this package is first imported, i.e. before anything of the
    project runs (``genotex``, ``tools`` and ``download`` import it first), so an
    older interpreter ends with this message, not with a missing standard module
    (``tomllib``) or a syntax error further in.

    Raises
    ------
    ImportError
        When ``version_info`` is older than :data:`MINIMUM_PYTHON`.
    """
    if tuple(version_info[:2]) < MINIMUM_PYTHON:
        found = ".".join(str(part) for part in version_info[:3])
        needed = ".".join(str(part) for part in MINIMUM_PYTHON)
        raise ImportError(f"GenoTEX needs Python >= {needed}; this is Python {found} "
                          f"({_sys.executable}): make the venv with a newer interpreter, "
                          f"e.g. python{needed} -m venv .venv")


check_python()
