"""What each person may see of a question version. Candidates never see reference values or formulas."""

from typing import Any

from django.contrib.auth.models import AnonymousUser, User

from grading.core.question_text import rendered_spec
from grading.core.review_check import FIXED_PREFIX, fix_lines
from interview.roles import Role, roles_of

# Fields of a question file anyone may read: the prompt and how the round runs, never the answers.
PUBLIC_FIELDS = (
    "slug",
    "title",
    "track",
    "difficulty",
    "kind",
    "summary",
    "prompt",
    "plan",
    "concepts",
    "related",
)

# What each phase asks of a candidate, in general terms. A question's own `expect` lines carry the reference's
# numbers, so candidates see them only through the interviewer (and authors in the editor).
PHASE_GUIDANCE = {
    "intro": "Restate the question and agree what matters most.",
    "numbers": "State the assumptions and targets you will size from, each with a unit.",
    "shape": "Draw the boxes from the request to the hardware; give each its job and its way to fail.",
    "arithmetic": "Carry the numbers through the sizing chain, one line per step, with units.",
    "depth": "Go deep on one or two parts the interviewer picks, with numbers.",
    "failures": "Name what breaks, when, what it looks like, and what the design does about it.",
    "close": "Summarise the design, its key numbers and what you would measure first.",
}


def public_plan(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The plan as candidates see it: phases and minutes, with general guidance instead of the reference's."""
    return [
        {"phase": p["phase"], "minutes": p["minutes"], "expect": PHASE_GUIDANCE.get(p["phase"], "")}
        for p in spec.get("plan", [])
    ]


def workspace_phases(public_spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The round page's sheet: each phase of the plan with the asked lines it holds (empty ones left out)."""
    phases = [
        {
            "phase": p["phase"],
            "expect": p.get("expect", ""),
            "lines": [line for line in public_spec["asked"] if line["phase"] == p["phase"]],
        }
        for p in public_spec["plan"]
    ]
    return [p for p in phases if p["lines"]]


def can_see_reference(user: User | AnonymousUser) -> bool:
    """Authors and admins see the whole question file; everyone else only its public fields."""
    return bool(roles_of(user) & {Role.AUTHOR, Role.ADMIN})


def public_view(spec: dict[str, Any], variant_values: dict[str, float] | None = None) -> dict[str, Any]:
    """What a candidate reads of a question: its public fields with the title and prompt written from the
    model's values (the defaults, or a round's variant: grading.core.question_text), and the asked lines'
    labels and units."""
    spec = rendered_spec(spec, variant_values)
    view = {key: spec[key] for key in PUBLIC_FIELDS if key in spec}
    view["plan"] = public_plan(spec)
    view["asked"] = [asked_line_view(spec, line) for line in spec.get("asked", [])]
    return view


def asked_line_view(spec: dict[str, Any], line: dict[str, Any]) -> dict[str, Any]:
    """An asked quantity as the sheet shows it: label, phase and expected unit, never its value."""
    quantity = next(q for q in spec["model"]["quantities"] if q["name"] == line["name"])
    return {
        "name": line["name"],
        "label": quantity.get("label", line["name"]),
        "phase": line["phase"],
        "unit": quantity.get("unit", ""),
    }


def fixed_sheet_lines(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """A review round's fixed-design sheet: each fix line's key ("fixed--NAME"), label and unit, never the
    reference fix's value (the sheet opens on the given design's)."""
    units = {q["name"]: q for q in spec["model"]["quantities"]}
    return [
        {
            "name": FIXED_PREFIX + line["name"],
            "quantity": line["name"],
            "label": line.get("label") or units[line["name"]].get("label", line["name"]),
            "unit": units[line["name"]].get("unit", ""),
        }
        for line in fix_lines(spec)
    ]


def view_for(user: User | AnonymousUser, spec: dict[str, Any]) -> dict[str, Any]:
    return spec if can_see_reference(user) else public_view(spec)
