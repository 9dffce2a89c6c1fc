"""Every service refusal carries its HTTP status as `status`; the API answers one no view caught with it."""

from config.service_errors import ServiceError, api_exception_handler
from interview.services.discussion import ThreadLocked
from interview.services.interviewing.errors import InvitationInvalid
from rounds.services.rounds import RoundLocked
from rounds.services.work import StaleRevision
from rounds.validation import WorkError


def test_each_service_refusal_is_a_service_error_with_its_status():
    refusals = [WorkError("x"), StaleRevision(3), RoundLocked("x"), ThreadLocked("x"), InvitationInvalid("x")]
    assert all(isinstance(refusal, ServiceError) for refusal in refusals)
    assert [refusal.status for refusal in refusals] == [400, 409, 423, 403, 404]


def test_a_refusal_no_view_caught_answers_its_status_and_message():
    response = api_exception_handler(RoundLocked("This round is submitted."), {})
    assert response is not None
    assert (response.status_code, response.data) == (
        423,
        {"detail": "This round is submitted.", "code": "round_locked", "errors": {}},
    )
