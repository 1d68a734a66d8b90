"""The exceptions a method raises to its runner (a light module: no numeric imports).

:mod:`genotex.methods.llm.client` raises :class:`RunAborted` and is imported by the
command line before its arguments are parsed, so the class lives apart from
:mod:`genotex.methods.base` (which imports the problem list, NumPy and pandas).
"""


class RunAborted(RuntimeError):
    """The whole run must stop (e.g. the model endpoint cannot be used at all).

    Task boundaries record the task's outcome (with its accounting) and let this
    exception through; the runner writes its report and stops.
    """
