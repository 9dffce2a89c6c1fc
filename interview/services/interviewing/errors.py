"""Refusals of an interviewing action, with a message fit to show the person who tried it."""


class InterviewError(Exception):
    """A refused interviewing action, with a message fit to show the person who tried it."""

    status_code = 400


class InterviewRateLimited(InterviewError):
    """Too many links made or tried in a while (interview/services/rate_limits.py)."""

    status_code = 429


class InvitationInvalid(InterviewError):
    """An unknown, used, revoked or expired link: answered as 404, without saying which."""

    status_code = 404
