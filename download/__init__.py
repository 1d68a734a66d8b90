"""Fetch GEO/TCGA inputs and build the benchmark metadata (SPEC 8).

Library modules: ``fetch`` (reliable HTTP), ``transfer`` (all-or-nothing units),
``eutils`` and ``geo`` (GEO search and selection), ``tcga`` (Xena cohorts),
``opentargets`` (related genes), ``pairs`` (trait-condition pairs), ``manifest``
(SHA-256 manifest). CLIs: ``download_geo.py``, ``download_tcga.py``,
``build_task_info.py``, ``select_pairs.py``, ``manifest.py``. See docs/download.md.
"""
