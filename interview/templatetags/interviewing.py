"""Template helpers for the interviewer includes on the candidate's round and report pages."""

from typing import Any

from django import template

from rounds.models import Round

register = template.Library()

LINK_HOURS = (1, 24, 72)


@register.simple_tag
def invite_panel_data(round_: Round) -> dict[str, Any]:
    """The round's invitations for its candidate's panel, newest last, and the link lifetimes offered."""
    from interview.services.interviewing.invitations import invitations_of_round

    return {"invitations": invitations_of_round(round_), "link_hours": LINK_HOURS}


@register.simple_tag
def released_scorecard(round_: Round) -> dict[str, Any] | None:
    """The released scorecard with its comparison to the engine, or None before release."""
    from interview.services.interviewing.engine_comparison import scorecard_compare
    from interview.services.interviewing.scorecards import scorecard_for_candidate

    scorecard = scorecard_for_candidate(round_)
    if scorecard is None:
        return None
    return {"scorecard": scorecard, "compare": scorecard_compare(round_, scorecard)}


@register.filter
def level_class(difference: int | None) -> str:
    """A CSS class for an interviewer-minus-engine difference: flagged past one level."""
    if difference is None:
        return ""
    return "disagree" if abs(difference) > 1 else "agree"


@register.filter
def share(value: float | None) -> str:
    """0.75 as "75%"; an em dash for nothing."""
    return "—" if value is None else f"{100 * value:.0f}%"


@register.filter
def signed(value: float | None) -> str:
    """A mean difference with its sign: "+0.50", "−1.00"; an em dash for nothing."""
    if value is None:
        return "—"
    return f"+{value:.2f}" if value > 0 else f"{value:.2f}".replace("-", "−")
