"""The sandbox generated code runs in: a persistent Jupyter kernel with limits.

Holds the kernel and its client (``kernel``), its start-up with resource limits
and the write guard first (``boot``, ``guard``: a PEP 578 audit hook), and kernels
started ahead and reused after a clean reset (``pool``, ``reset``).

May import: the standard library and the Jupyter packages, nothing of the project
(``boot`` and ``reset`` run inside the kernel before the generated code). Used by
GenoAgent.
"""
