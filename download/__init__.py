"""Fetch GEO/TCGA inputs and build the benchmark metadata (SPEC 8).

Library modules: ``fetch`` (reliable HTTP), ``transfer`` (all-or-nothing units),
``eutils`` and ``geo`` (GEO search and selection), ``tcga`` (Xena cohorts),
``opentargets`` (related genes), ``pairs`` (trait-condition pairs), ``manifest``
(SHA-256 manifest). CLIs: ``download_geo.py``, ``download_tcga.py``,
``build_task_info.py``, ``select_pairs.py``, ``manifest.py``. See docs/download.md.

May import: ``utils`` (every file read and written through ``utils.io``); never
``tools`` and never ``genotex`` (``tests/project/test_architecture.py``). Nothing in
``tools`` or ``genotex`` imports it: the data builders sit beside the
applications, not under them.
"""

import utils  # noqa: E402,F401  (first: refuses an interpreter older than the project needs)
