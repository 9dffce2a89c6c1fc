"""The depth phase without an interviewer: curveballs and follow-up decisions (docs/question-format.md).

A curveball's lines are graded by the grader exactly as the main sheet (grader._depth_report); this module
holds what is particular to depth:

- the sheet a curveball is graded on: the question with the curveball's lines asked, and the main sheet's
  lines the change does not move kept, so the candidate's own earlier numbers carry forward;
- the scaled carry: a curveball line equal (within its band) to their own main-sheet value of the same line
  times the reference's ratio under the change is right, so a wrong earlier replica count scaled correctly
  is right;
- a decision's score: the best of the defensible orders, by the places the candidate's order shares with it;
- the depth score: the mean of every curveball's and decision's credit, 0-100.

Credit of a curveball: CURVEBALL_LINES_SHARE x its lines' weighted credit + the rest x the share of design
consequences met. Credit of a decision: its order's credit, x (1 - DECISION_NUMBER_SHARE) when it has a number
line, + DECISION_NUMBER_SHARE when the number lies inside the band.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from grading.core import verdicts as v
from grading.core.design_check import PaletteIndex, kind_terms
from grading.core.drill_wording import PLACEHOLDER
from grading.core.quantity_text import ParseFailure, read_on_line
from grading.core.question_text import written_at_defaults
from grading.core.question_types import Curveball, FollowUp, QuestionSpec
from grading.core.report_text import format_number, format_quantity
from grading.core.units import parse_unit

CURVEBALL_LINES_SHARE = 0.6
DECISION_NUMBER_SHARE = 0.25
DEPTH_PHASE = "depth"


def curveball_says(curveball: Curveball, units: Mapping[str, str]) -> str:
    """The curveball's sentence with each `{name}` replaced by its new value and unit."""
    return PLACEHOLDER.sub(
        lambda match: format_quantity(curveball.set[match[1]], units.get(match[1], "")), curveball.says
    )


def curveball_sheet(spec_dict: Mapping[str, Any], curveball: Curveball, moved: set[str]) -> dict[str, Any]:
    """The question as a curveball is graded: its own lines (in the depth phase), plus every main-sheet line
    the change does not move (`moved`: the inputs it sets and the quantities computed from them), so the
    candidate's earlier numbers for those carry forward. Curveballs and decisions are left out."""
    own = {line.name for line in curveball.asked}
    kept = [line for line in spec_dict["asked"] if line["name"] not in moved and line["name"] not in own]
    lines = [
        {
            "name": line.name,
            "phase": DEPTH_PHASE,
            "weight": line.weight,
            "check": line.check,
            **({"tolerance": line.tolerance} if line.tolerance is not None else {}),
            **({"exact_prefix": True} if line.exact_prefix else {}),
        }
        for line in curveball.asked
    ]
    sheet = {key: value for key, value in spec_dict.items() if key != "curveballs"}
    sheet["follow_ups"] = [{"phase": item["phase"], "text": item["text"]} for item in spec_dict["follow_ups"]]
    sheet["asked"] = [*kept, *lines]
    return sheet


def scaled_carry(line: Mapping[str, Any], before: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """A curveball line the sheet did not pass, passed when it is their own pre-change value of the same line
    (`before`, the main report's line) times the reference's ratio under the change; None otherwise."""
    if before is None or line["verdict"] == v.CORRECT or line["given"] is None or before["given"] is None:
        return None
    if not before["reference"]:
        return None
    ratio = line["reference"] / before["reference"]
    expected = before["given"] * ratio
    if not v.within(line["check"], line["tolerance"], line["given"], expected):
        return None
    label, share = v.pass_band(line["check"], line["tolerance"], line["given"], expected)
    unit = line["unit"]
    message = (
        f"Right from your own numbers: your {format_quantity(before['given'], unit)} before the change, "
        f"times the change's ×{format_number(ratio)}, is {format_quantity(expected, unit)}."
    )
    return {
        "verdict": v.CORRECT,
        "verdict_label": label,
        "tone": v.TONES[v.CORRECT],
        "credit": share,
        "message": message,
        "implied": expected,
        "implied_shown": format_quantity(expected, unit),
    }


def lines_credit(lines: Sequence[Mapping[str, Any]]) -> float:
    """The weighted mean credit of a curveball's lines (0-1)."""
    weight = sum(line["weight"] for line in lines)
    return sum(line["weight"] * line["credit"] for line in lines) / weight if weight else 0.0


def curveball_credit(lines: float, consequences: Sequence[Mapping[str, Any]]) -> float:
    """A curveball's credit (0-1) from its lines' credit and the consequences met."""
    met = sum(1 for item in consequences if item["met"]) / len(consequences) if consequences else 1.0
    return CURVEBALL_LINES_SHARE * lines + (1 - CURVEBALL_LINES_SHARE) * met


def decision_report(
    item: FollowUp, order: Sequence[str], number_text: str, band_scale: float = 1.0
) -> dict[str, Any]:
    """Score one follow-up decision and explain every option (JSON-ready). `band_scale` multiplies the
    number's band: in a variant round, its `follows` quantity at the round's values over its default."""
    ids = [option.id for option in item.options]
    chosen = [option for option in dict.fromkeys(order) if option in ids]
    best, best_places = item.orders[0], -1
    for defensible in item.orders:
        places = sum(1 for mine, theirs in zip(chosen, defensible, strict=False) if mine == theirs)
        if places > best_places or (places == best_places and len(defensible) == len(chosen)):
            best, best_places = defensible, places
    order_credit = best_places / max(len(best), len(chosen)) if chosen else 0.0
    number = _decision_number(item, number_text, band_scale)
    credit = order_credit
    if number is not None:
        credit = (1 - DECISION_NUMBER_SHARE) * order_credit + DECISION_NUMBER_SHARE * number["credit"]
    options = [
        {
            "id": option.id,
            "choice": option.choice,
            "tradeoff": option.tradeoff,
            "your_place": chosen.index(option.id) + 1 if option.id in chosen else None,
            "defensible_place": best.index(option.id) + 1 if option.id in best else None,
        }
        for option in item.options
    ]
    return {
        "id": item.id,
        "text": item.text,
        "options": options,
        "order": chosen,
        "ignored": [option for option in order if option not in ids],
        "best_order": list(best),
        "orders": [list(order) for order in item.orders],
        "places": max(best_places, 0),
        "order_length": max(len(best), len(chosen)),
        "order_credit": round(order_credit, 4),
        "order_score": round(100 * order_credit, 1),
        "number": number,
        "credit": round(credit, 4),
        "score": round(100 * credit, 1),
    }


def _decision_number(item: FollowUp, text: str, band_scale: float = 1.0) -> dict[str, Any] | None:
    if item.number is None:
        return None
    unit = item.number.unit
    low, high = (bound * band_scale for bound in item.number.band)
    band = f"{format_number(low)} to {format_quantity(high, unit)}"
    result = {"label": item.number.label, "unit": unit, "band": [low, high], "band_shown": band}
    if band_scale != 1.0:
        default_low, default_high = item.number.band
        result["band_note"] = (
            f"The band follows {item.number.follows} to this round's values: "
            f"{format_number(default_low)} to {format_quantity(default_high, unit)} at the question's "
            f"defaults × {format_number(band_scale)}."
        )
    if not text.strip():
        return {
            **result,
            "given_text": "",
            "given": None,
            "credit": 0.0,
            "message": f"No number; {band} holds.",
        }
    reading = read_on_line(text, unit, item.number.label)
    if isinstance(reading, ParseFailure):
        message = f"Could not read {text!r} as {unit or 'a number'}; {band} holds."
        return {**result, "given_text": text, "given": None, "credit": 0.0, "message": message}
    given = float(reading.value) / parse_unit(unit).factor
    inside = low - 1e-9 * abs(low) <= given <= high + 1e-9 * abs(high)
    shown = format_quantity(given, unit)
    message = f"{shown} is inside {band}." if inside else f"{shown} is outside {band}."
    return {
        **result,
        "given_text": text,
        "given": given,
        "credit": 1.0 if inside else 0.0,
        "message": message,
    }


def depth_score(credits: Sequence[float]) -> float | None:
    """The depth phase's score (0-100): the mean credit of every curveball and decision; None for none."""
    return 100.0 * sum(credits) / len(credits) if credits else None


def consequence_problems(spec: QuestionSpec, index: PaletteIndex) -> list[tuple[str, str]]:
    """What the palette makes wrong in a question's curveball consequences: a term its kind cannot name, or
    one the question's own design already names for that kind (then nothing changes)."""
    problems = []
    for number, curveball in enumerate(spec.curveballs):
        for position, consequence in enumerate(curveball.design):
            field = f"curveballs[{number}].design[{position}]"
            if consequence.names not in kind_terms(index, consequence.kind):
                problems.append(
                    (
                        f"{field}.names",
                        f"{consequence.names!r} is not a job or failure term of {consequence.kind}",
                    )
                )
                continue
            for node in spec.design.nodes:
                if node.kind != consequence.kind:
                    continue
                job, failure = written_at_defaults(spec.model.reference, [node.job, node.failure])
                named = index.vocabulary.recognise(node.kind, "job", job) + index.vocabulary.recognise(
                    node.kind, "failure", failure
                )
                if consequence.names in named:
                    problems.append(
                        (
                            f"{field}.names",
                            f"the question's own {node.id} box already names {consequence.names!r}",
                        )
                    )
    return problems


def curveball_view(spec: QuestionSpec, curveball: Curveball) -> dict[str, Any]:
    """What a candidate sees of a curveball once it is shown: its title, its sentence and the lines it asks
    (label and unit), never a reference value or a design consequence."""
    quantities = {quantity.name: quantity for quantity in spec.model.quantities}
    units = {name: quantity.unit for name, quantity in quantities.items()}
    return {
        "id": curveball.id,
        "title": curveball.title,
        "says": curveball_says(curveball, units),
        "lines": [
            {"name": line.name, "label": quantities[line.name].label, "unit": quantities[line.name].unit}
            for line in curveball.asked
        ],
    }


def decision_view(item: FollowUp, seed: int) -> dict[str, Any]:
    """What a candidate sees of a decision: the question, the options' choices in an order drawn from `seed`
    (the file's order often is the defensible one), and the number line's label and unit; no trade-offs."""
    options = [{"id": option.id, "choice": option.choice} for option in item.options]
    random.Random(f"{seed}:{item.id}").shuffle(options)
    number = None if item.number is None else {"label": item.number.label, "unit": item.number.unit}
    return {"id": item.id, "text": item.text, "options": options, "number": number}


def curveball_preview(spec: QuestionSpec, curveball: Curveball) -> dict[str, Any]:
    """For authors: the curveball as candidates see it, with each line's value before and under the change
    and the design consequences."""
    model = spec.model.reference
    before = model.evaluate()
    after = model.evaluate({name: model.base_value(name, value) for name, value in curveball.set.items()})
    view = curveball_view(spec, curveball)
    for line in view["lines"]:
        for key, values in (("before", before), ("after", after)):
            shown = float(model.display_value(line["name"], values[line["name"]]))
            line[key] = format_quantity(shown, line["unit"])
    view["design"] = [vars(consequence) for consequence in curveball.design]
    return view
