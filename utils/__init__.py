"""Helpers outside the analysis proper: paths, I/O, problems, metrics, logging."""
