"""Validation of synthetic plans (genotex.synthetic.spec, pydantic dataclasses): every
problem is a PlanError naming the file and the key."""

from __future__ import annotations

import copy
import dataclasses

import pytest
from pydantic import ValidationError

from genotex.synthetic.spec import (CohortPlan, PlanError, plan_from_mapping, plan_to_mapping,
                                    single_cohort_mapping)

BASE = single_cohort_mapping("Asthma")


def problem(edit) -> str:
    data = copy.deepcopy(BASE)
    edit(data)
    with pytest.raises(PlanError) as caught:
        plan_from_mapping(data, "plan.json")
    return str(caught.value)


@pytest.mark.parametrize("edit, message", [
    (lambda d: d["cohorts"][0].update(n_samples=3),
     "plan.json: cohorts[0].n_samples: input should be greater than or equal to 4, found 3"),
    (lambda d: d["cohorts"][0].update(n_sampels=60), "cohorts[0].n_sampels: unknown key"),
    (lambda d: d.update(extra=1), "plan.json: extra: unknown key"),
    (lambda d: d["cohorts"][0].update(scale="log3"),
     "cohorts[0].scale: input should be 'log2', 'linear' or 'counts', found 'log3'"),
    (lambda d: d["cohorts"][0].update(case_fraction=float("nan")),
     "cohorts[0].case_fraction: input should be a finite number, found nan"),
    (lambda d: d["traits"]["Asthma"].update(effect_range=[2, 1]),
     "traits.Asthma: effect_range must be 0 < low <= high"),
    (lambda d: d["traits"]["Asthma"].update(name="Other"),
     "traits.Asthma: name must equal the normalized key"),
    (lambda d: d["platforms"]["GPL91001"].update(coverage=0),
     "platforms.GPL91001.coverage: input should be greater than 0, found 0"),
    (lambda d: d.update(seed=-1), "seed: input should be greater than or equal to 0"),
    (lambda d: d.update(cohorts=[]), "plan.json: a plan needs at least one cohort"),
    (lambda d: d["cohorts"][0].update(n_cases=99),
     "cohorts[0]: n_cases must be within [0, n_samples]"),
    (lambda d: d["cohorts"][0].update(platform="GPL1"),
     "cohorts[0] (Asthma/GSE9100001).platform 'GPL1' is not a plan platform"),
    (lambda d: d["cohorts"][0].update(source="tcga"),
     "cohorts[0]: a TCGA cohort id must be 'Xena'"),
])
def test_each_problem_names_its_key(edit, message):
    assert message in problem(edit)


def test_numbers_are_kept_as_written():
    data = copy.deepcopy(BASE)
    data["platforms"]["GPL91001"]["coverage"] = 1
    data["traits"]["Asthma"]["effect_range"] = [1, 2.5]
    mapping = plan_to_mapping(plan_from_mapping(data))
    assert mapping["platforms"]["GPL91001"]["coverage"] == 1
    assert type(mapping["platforms"]["GPL91001"]["coverage"]) is int
    assert mapping["traits"]["Asthma"]["effect_range"] == [1, 2.5]
    assert plan_to_mapping(plan_from_mapping(mapping)) == mapping  # round trip


def test_direct_construction_and_replace_validate_too():
    plan = plan_from_mapping(BASE)
    with pytest.raises(ValidationError, match="n_samples"):
        dataclasses.replace(plan.cohorts[0], n_samples=2)
    with pytest.raises(ValidationError, match="not a plan trait"):
        dataclasses.replace(plan, cohorts=(CohortPlan(id="GSE1", trait="Other",
                                                      platform="GPL91001"),))
    assert dataclasses.replace(plan, seed=3).seed == 3
