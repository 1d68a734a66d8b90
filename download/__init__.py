"""Fetch GEO/TCGA inputs and build the benchmark metadata (SPEC 8)."""
