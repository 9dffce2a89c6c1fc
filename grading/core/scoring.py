"""Scores per phase, the overall score, and pacing against the plan.

Line credit (a share of the line's weight):

| verdict              | credit | why                                                        |
| -------------------- | ------ | ---------------------------------------------------------- |
| correct              | 1      |                                                            |
| far_from_reference   | 0.75   | the arithmetic holds; an unflagged assumption is off       |
| out_of_range         | 0.5    | a stated but implausible assumption                        |
| unit_error           | 0.5    | the right working with the wrong unit                      |
| arithmetic_slip      | 0.25   | a number was written, with its method visible elsewhere    |
| missing, unparsed    | 0      |                                                            |

A correct line in its loose band only (beyond 10% on a line whose band is wider) earns
verdicts.LOOSE_CREDIT of a full pass: 0.8 on a relative line, 0.6 on an order-of-magnitude line.

A phase with asked lines (usually `numbers` and `arithmetic`) scores the weighted mean credit of its lines;
`shape` scores the design check: 0.75 × component coverage + 0.25 × the path (coverage alone when the question
has no path). `depth` scores the curveballs and follow-up decisions (grading.core.depth) when the submission
answers them, else it belongs to the interviewer; `failures` belongs to the replays.
Scores are 0–100. The overall score is the mean of the phase scores present, weighted by the plan's minutes
for each phase (equal weights if those minutes are all zero).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from grading.core import verdicts as v

LINE_CREDIT = {
    v.CORRECT: 1.0,
    v.FAR_FROM_REFERENCE: 0.75,
    v.OUT_OF_RANGE: 0.5,
    v.UNIT_ERROR: 0.5,
    v.ARITHMETIC_SLIP: 0.25,
    v.MISSING: 0.0,
    v.UNPARSED: 0.0,
}
SHAPE_COMPONENTS_SHARE = 0.75
SHAPE_PATH_SHARE = 0.25
SHAPE_PHASE = "shape"
DESIGN_FIELD = "design"
NUMBERS_FIELD_PREFIX = "numbers."


def line_scores(lines: Iterable[tuple[str, float, float]]) -> dict[str, float]:
    """Score (0–100) per phase from `(phase, weight, credit)` of each asked line (credit 0–1)."""
    earned: dict[str, float] = {}
    possible: dict[str, float] = {}
    for phase, weight, credit in lines:
        earned[phase] = earned.get(phase, 0.0) + weight * credit
        possible[phase] = possible.get(phase, 0.0) + weight
    return {phase: 100.0 * earned[phase] / possible[phase] for phase in possible if possible[phase] > 0}


def shape_score(coverage: float, path_ok: bool | None) -> float:
    """The shape score (0–100) from the design check's coverage (0–1) and path verdict (None: no path)."""
    if path_ok is None:
        return 100.0 * coverage
    return 100.0 * (SHAPE_COMPONENTS_SHARE * coverage + SHAPE_PATH_SHARE * (1.0 if path_ok else 0.0))


def overall_score(phase_scores: Mapping[str, float], plan_minutes: Mapping[str, float]) -> float | None:
    """The mean of the phase scores present, weighted by plan minutes; None when nothing was scored."""
    if not phase_scores:
        return None
    weights = {phase: float(plan_minutes.get(phase, 0.0)) for phase in phase_scores}
    total = sum(weights.values())
    if total <= 0:
        return sum(phase_scores.values()) / len(phase_scores)
    return sum(phase_scores[phase] * weights[phase] for phase in phase_scores) / total


def event_phase(
    field: str, clock_phase: str, line_phases: Mapping[str, str], default_numbers_phase: str
) -> str:
    """The plan phase an edit works on: an asked number's phase, `shape` for the design, else the clock's."""
    if field.startswith(NUMBERS_FIELD_PREFIX):
        return line_phases.get(field[len(NUMBERS_FIELD_PREFIX) :], default_numbers_phase)
    if field == DESIGN_FIELD or field.startswith(DESIGN_FIELD + "."):
        return SHAPE_PHASE
    return clock_phase


def pacing(
    plan: Sequence[tuple[str, float]],
    events: Sequence[tuple[float, str, str]],
    line_phases: Mapping[str, str],
) -> list[dict[str, float | str | int | None]]:
    """Time spent per plan phase against its planned time.

    `plan` is `(phase, minutes)` in order; `events` are `(t, clock phase, field)`. Each edit is charged the
    time since the edit before it (the first, the time since the start), to the phase of the field it
    changed (see `event_phase`); edits of unknown phases are left out. Rows follow the plan: phase, planned_s,
    spent_s, edits, first_s and last_s (None when the phase saw no edit).
    """
    names = [phase for phase, _ in plan]
    numbers_phase = "numbers" if "numbers" in names else (names[0] if names else "")
    spent = {phase: 0.0 for phase in names}
    edits = {phase: 0 for phase in names}
    first: dict[str, float] = {}
    last: dict[str, float] = {}
    previous = 0.0
    for t, clock, field in sorted(events, key=lambda event: event[0]):
        phase = event_phase(field, clock, line_phases, numbers_phase)
        if phase in spent:
            spent[phase] += max(0.0, t - previous)
            edits[phase] += 1
            first.setdefault(phase, t)
            last[phase] = t
        previous = max(previous, t)
    return [
        {
            "phase": phase,
            "planned_s": 60.0 * minutes,
            "spent_s": spent[phase],
            "edits": edits[phase],
            "first_s": first.get(phase),
            "last_s": last.get(phase),
        }
        for phase, minutes in plan
    ]
