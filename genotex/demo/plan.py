"""The demo's generator plan, shipped inside the package (``genotex/demo/plan.json``).

The plan lists the demo's genes, traits, platforms and 15 cohorts (design notes:
``docs/demo_plan.md``). It is package data, found with :mod:`importlib.resources`,
so ``genotex-synthetic --demo-plan`` regenerates the demo's inputs from an
installed copy as well as from a checkout.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from genotex.synthetic import Plan, load_plan

PLAN_NAME = "plan.json"


def demo_plan_file() -> Traversable:
    """The plan file (a path on disk for a normal install or a checkout).

    Examples
    --------
    >>> demo_plan_file().name
    'plan.json'
    """
    return resources.files(__package__).joinpath(PLAN_NAME)


def demo_plan() -> Plan:
    """The demo's plan, parsed and checked.

    Examples
    --------
    >>> plan = demo_plan()
    >>> len(plan.cohorts), sorted(plan.traits)[:2]
    (15, ['Ankylosing_Spondylitis', 'Heart_rate'])
    """
    return load_plan(demo_plan_file())
