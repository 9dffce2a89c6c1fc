"""A round's curveball replays (issue 33): for each curveball the candidate answered that names a scenario,
that scenario run on their curveball numbers (their earlier numbers carried forward, as the grader does)
beside the reference under the change (`grading.core.replay_inputs.curveball_replay_inputs`).

They go through the failure replays' queue, task and claim rules as ReplayRun rows named "CURVEBALL:SCENARIO"
(`curveball_run_name`), and are shown in the report's depth section. They are not part of the failure-modes
score (`replays_current` leaves them out), nor of the depth score, which is computed from the answers alone.
"""

from __future__ import annotations

from typing import Any

from grading.core.replay_inputs import curveball_replay_inputs, curveball_run_name
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
    numbers = dict(round_.work.numbers or {})
    planned = []
    for index, curveball in enumerate(spec.get("curveballs") or []):
        typed = curveball_answered(answers, curveball["id"])
        if not curveball.get("scenario") or not typed:
            continue
        for side in ("candidate", "reference"):
            entry = {
                "name": curveball_run_name(curveball["id"], curveball["scenario"]),
                "position": CURVEBALL_POSITION + index,
                "side": side,
                "curveball": curveball["id"],
                "inputs": None,
                "problem": "",
            }
            try:
                entry["inputs"] = curveball_replay_inputs(
                    spec,
                    curveball["id"],
                    side=side,
                    numbers=numbers,
                    curveball_numbers=typed,
                    variant_values=round_.variant_values or None,
                )
            except ValueError as error:
                entry["problem"] = f"The scenario's inputs could not be worked out: {error}"[:2000]
            planned.append(entry)
    return planned
