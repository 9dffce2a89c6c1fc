"""A round's curveball replays (issue 33): for each curveball the candidate answered that names a scenario,
that scenario run on their curveball numbers (their earlier numbers carried forward, as the grader does)
beside the reference under the change (`grading.core.replay_inputs.curveball_replay_inputs`).

They go through the failure replays' queue, task and claim rules as ReplayRun rows named "CURVEBALL:SCENARIO"
(`curveball_run_name`), and are shown in the report's depth section. They are not part of the failure-modes
score (`replays_current` leaves them out), nor of the depth score, which is computed from the answers alone.
"""

from __future__ import annotations

from typing import Any

from grading.core.model import ReferenceModel
from grading.core.replay_inputs import curveball_replay_inputs, curveball_run_name
from grading.core.review_check import fix_lines, reference_fix_numbers, split_sheets
from rounds.services.depth import round_depth_answers

CURVEBALL_POSITION = 100  # curveball runs sort after the question's own scenarios


def curveball_answered(depth_answers: dict[str, Any] | None, curveball_id: str) -> dict[str, str]:
    """The curveball's numbers as typed, when at least one of them is not blank; {} otherwise."""
    entry = ((depth_answers or {}).get("curveballs") or {}).get(curveball_id) or {}
    numbers = {
        name: text
        for name, text in (entry.get("numbers") or {}).items()
        if isinstance(text, str) and text.strip()
    }
    return numbers


def curveball_replays_planned(round_) -> list[dict[str, Any]]:
    """One entry per side of each answered curveball that names a scenario, in question order: the run's
    name, position, side, curveball id, and its inputs (or `problem`, when they cannot be worked out)."""
    spec = round_.question_version.spec
    answers = round_depth_answers(round_)
    if answers is None:
        return []
    review = spec.get("kind") == "review"
    analysis, fixed = split_sheets(dict(round_.work.numbers or {}))
    # A review's curveball asks about the design after the candidate's fixes: their fixed sheet (not their
    # analysis of the given design) beside the reference fix, both under the change.
    numbers = (fixed or analysis) if review else analysis
    planned = []
    for index, curveball in enumerate(spec.get("curveballs") or []):
        typed = curveball_answered(answers, curveball["id"])
        if not curveball.get("scenario") or not typed:
            continue
        sheet = _fixed_sheet_resized(spec, numbers, typed) if review else numbers
        for side in ("candidate", "fix") if review else ("candidate", "reference"):
            entry = {
                "name": curveball_run_name(curveball["id"], curveball["scenario"]),
                "position": CURVEBALL_POSITION + index,
                "side": side,
                "curveball": curveball["id"],
                "inputs": None,
                "problem": "",
            }
            try:
                if side == "fix":
                    entry["inputs"] = _reference_fix_under(spec, curveball, round_.variant_values or {})
                else:
                    entry["inputs"] = curveball_replay_inputs(
                        spec,
                        curveball["id"],
                        side=side,
                        numbers=sheet,
                        curveball_numbers=typed,
                        variant_values=round_.variant_values or None,
                    )
            except ValueError as error:
                entry["problem"] = f"The scenario's inputs could not be worked out: {error}"[:2000]
            planned.append(entry)
    return planned


def _reference_fix_under(spec: dict[str, Any], curveball: dict[str, Any], variant: dict[str, float]) -> Any:
    """A review's reference fix replayed under the curveball: the fix's sheet evaluated with the change (a
    fix line named by a model quantity, such as the server count, follows it), the lines the change moves
    taken from the model under the change, and no candidate fallbacks to report."""
    model = ReferenceModel.from_dict(spec["model"])
    changed = {name: float(model.base_value(name, value)) for name, value in curveball["set"].items()}
    fix = reference_fix_numbers(spec, {**variant, **changed})
    inputs = curveball_replay_inputs(
        spec,
        curveball["id"],
        side="candidate",
        numbers=fix,
        curveball_numbers={},
        variant_values=variant or None,
    )
    if inputs is not None:
        inputs = {**inputs, "side": "fix", "fallbacks": {}}
    return inputs


def _fixed_sheet_resized(
    spec: dict[str, Any], fixed: dict[str, str], typed: dict[str, str]
) -> dict[str, str]:
    """The fixed sheet with each fix line that the reference sizes by an asked quantity (the replicas line's
    value is `servers_needed`) taking the candidate's curveball answer for that quantity: "how many servers
    now" sizes the fleet replayed under the change."""
    resized = dict(fixed)
    for line in fix_lines(spec):
        value = line.get("value")
        if isinstance(value, str) and value in typed:
            resized[line["name"]] = typed[value]
    return resized
