"""The runner of ``regress.py`` (SPEC 5.7): many problems, one result file each.

Holds ``runner`` (problems run serially, in local processes or on a Dask cluster;
the up-to-date rule by input fingerprint; the run summary) and ``cluster``
(handing work to a Dask scheduler that does not import the project). One
problem's analysis is :mod:`tools.statistics.engine`; the command line is
:mod:`genotex.cli.regress`.

May import: ``utils`` and ``tools`` only (the methods and the demo build call it).
"""
