"""The export: `spec_to_dict` turns a QuestionSpec back into the file format, the inverse of `parse_question`:
`parse_question(spec_to_dict(spec), ...) == spec`."""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from grading.core.formula import UNBOUNDED
from grading.core.model import ModelSpec
from grading.core.question_reader import QUESTION_KEYS
from grading.core.question_types import Asked, Curveball, FollowUp, QuestionSpec, ReviewSpec, Scenario


def spec_to_dict(spec: QuestionSpec) -> dict[str, Any]:
    """The question as a dict in the file format (YAML-ready), its keys in QUESTION_KEYS's order; parsing it
    gives back an equal spec."""
    written = _written(spec)
    return {key: written[key] for key in QUESTION_KEYS if key in written}


def _written(spec: QuestionSpec) -> dict[str, Any]:
    return {
        "slug": spec.slug,
        "title": spec.title,
        "track": spec.track,
        "difficulty": spec.difficulty,
        "kind": spec.kind,
        "summary": spec.summary,
        "prompt": spec.prompt,
        "plan": [
            {"phase": phase.name, "minutes": phase.minutes, "expect": phase.expect} for phase in spec.plan
        ],
        "model": _model_to_dict(spec.model),
        "asked": [_asked_to_dict(asked) for asked in spec.asked],
        "design": {
            "nodes": [_drop_empty(vars(node), keep={"id", "kind"}) for node in spec.design.nodes],
            "edges": [_drop_empty(vars(edge), keep={"source", "target"}) for edge in spec.design.edges],
            "path": list(spec.design.path),
        },
        "rubric": [{"dimension": item.dimension, "levels": dict(item.levels)} for item in spec.rubric],
        "outline": spec.outline,
        "follow_ups": [_follow_up_to_dict(item) for item in spec.follow_ups],
        "mistakes": list(spec.mistakes),
        "scenarios": [_scenario_to_dict(scenario) for scenario in spec.scenarios],
        "concepts": list(spec.concepts),
        "related": list(spec.related),
        "figures": [dict(vars(figure)) for figure in spec.figures],
        **({"review": _review_to_dict(spec.review)} if spec.review else {}),
        **({"curveballs": [_curveball_to_dict(item) for item in spec.curveballs]} if spec.curveballs else {}),
    }


def _review_to_dict(review: ReviewSpec) -> dict[str, Any]:
    data: dict[str, Any] = {"flaws": [dict(vars(flaw)) for flaw in review.flaws]}
    if review.fix:
        data["fix"] = [_drop_empty(vars(line), keep={"name", "value"}) for line in review.fix]
    return data


def _follow_up_to_dict(item: FollowUp) -> dict[str, Any]:
    data: dict[str, Any] = {"phase": item.phase, "text": item.text}
    if item.is_decision:
        data["id"] = item.id
        data["options"] = [dict(vars(option)) for option in item.options]
        data["orders"] = [list(order) for order in item.orders]
        if item.number is not None:
            data["number"] = {
                "label": item.number.label,
                "unit": item.number.unit,
                "band": list(item.number.band),
            }
            if item.number.follows:
                data["number"]["follows"] = item.number.follows
    return data


def _curveball_to_dict(item: Curveball) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": item.id,
        "title": item.title,
        "set": dict(item.set),
        "says": item.says,
        "asked": [
            {key: value for key, value in _asked_to_dict(line).items() if key != "phase"}
            for line in item.asked
        ],
        "design": [dict(vars(consequence)) for consequence in item.design],
    }
    if item.scenario:
        data["scenario"] = item.scenario
    return data


def _limit(value: float | None) -> float | str | None:
    """A value as the question file writes it: no limit (+inf, which JSON cannot hold) is "unbounded"."""
    return UNBOUNDED if value == math.inf else value


def _model_to_dict(model: ModelSpec) -> dict[str, Any]:
    quantities = []
    for quantity in model.quantities:
        if quantity.is_input:
            item = {
                "name": quantity.name,
                "label": quantity.label,
                "value": _limit(quantity.value),
                "unit": quantity.unit,
                "range": [_limit(bound) for bound in quantity.range] if quantity.range else None,
                "source": quantity.source,
            }
            if quantity.variable:
                item["variable"] = True
            if quantity.stated:
                item["stated"] = True
        else:
            item = {
                "name": quantity.name,
                "label": quantity.label,
                "formula": quantity.formula,
                "unit": quantity.unit,
            }
        if quantity.note:
            item["note"] = quantity.note
        quantities.append(item)
    return {"headline": model.headline, "quantities": quantities}


def _asked_to_dict(asked: Asked) -> dict[str, Any]:
    item = {"name": asked.name, "phase": asked.phase, "weight": asked.weight, "check": asked.check}
    if asked.tolerance is not None:
        item["tolerance"] = asked.tolerance
    if asked.exact_prefix:
        item["exact_prefix"] = True
    if asked.drill:
        item["drill"] = asked.drill
    return item


def _scenario_to_dict(scenario: Scenario) -> dict[str, Any]:
    marked = {"breaks_every_design": True} if scenario.breaks_every_design else {}
    return {
        "name": scenario.name,
        "title": scenario.title,
        "family": scenario.family,
        "description": scenario.description,
        "params": dict(scenario.params or {}),
        "events": [dict(event) for event in scenario.events],
        "slo": dict(scenario.slo or {}),
        "duration_s": scenario.duration_s,
        **marked,
    }


def _drop_empty(fields: Mapping[str, Any], keep: Collection[str]) -> dict[str, Any]:
    return {key: value for key, value in fields.items() if key in keep or value}
