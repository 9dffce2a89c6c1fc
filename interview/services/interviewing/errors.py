"""Refusals of an interviewing action, with a message fit to show the person who tried it."""

from config.service_errors import ServiceError


class InterviewError(ServiceError):
    """A refused interviewing action, with a message fit to show the person who tried it."""

    status = 400


class InterviewRateLimited(InterviewError):
    """Too many links made or tried in a while (interview/services/rate_limits.py)."""

    status = 429


class InvitationInvalid(InterviewError):
    """An unknown, used, revoked or expired link: answered as 404, without saying which."""

    status = 404
