"""The evaluator of ``eval.py`` (SPEC 6): a prediction tree scored against the reference.

Holds the reading of untrusted trees (``untrusted``, ``tree``, ``numeric_csv``,
``layout``), the three tasks (``selection`` with ``tree_selection``,
``preprocessing``, ``analysis`` with ``universe`` and ``labels``), their run
together (``evaluator``), statuses and averages (``statuses``, ``summary``),
repeated runs and leaderboards (``repeats``, ``leaderboard``) and the reports
(``report`` JSON/CSV, ``text_summary``, ``html_report`` with ``svg_plots``). The
command line is :mod:`genotex.cli.evaluate`.

May import: ``utils`` only (it reads trees written by ``tools`` without running
``tools``); nothing else of ``genotex``.
"""
