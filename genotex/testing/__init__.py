"""Fixtures shared by the test suite and the benchmarks (no test module).

Holds small worlds and servers written in code, never real data:
:mod:`~genotex.testing.eval_trees` (reference / prediction trees for the evaluator),
:mod:`~genotex.testing.synthetic_world` (a hand-made generator world),
:mod:`~genotex.testing.method_designs` (simulated designs of the analysis method's
calibration),
:mod:`~genotex.testing.fake_llm` (a scripted OpenAI-compatible server on 127.0.0.1),
:mod:`~genotex.testing.reply_styles` and :mod:`~genotex.testing.canned` (model replies),
:mod:`~genotex.testing.agent_harness` (GenoAgent runs against the scripted server),
:mod:`~genotex.testing.fake_download` (a GEO/Xena-like file server on 127.0.0.1 with
faults on demand).

Like :mod:`sklearn.utils._testing`, it lives in the package so that ``benchmarks/``
need not import ``tests`` (``tests/project/test_benchmarks_imports.py``). It may
import ``utils``, ``tools`` and the rest of ``genotex`` (never ``download``); nothing in
the package imports it.
"""
