"""Interviewing over the API: invitations (create, list, revoke, accept), notes, and the scorecard.

Candidate endpoints answer 404 unless the round is the requester's; interviewer endpoints answer 404 unless
the requester holds an accepted, unrevoked invitation (`round_for_interviewer`)."""

from datetime import timedelta
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path, reverse
from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.http_types import AuthedApiRequest
from config.service_errors import ErrorSerializer
from interview.models import Invitation, Recommendation, Scorecard
from interview.selectors import round_for_interviewer, round_of_candidate
from interview.services.interviewing.engine_comparison import scorecard_compare
from interview.services.interviewing.invitations import (
    LINK_VALID_FOR,
    invitation_accept,
    invitation_create_for_username,
    invitation_create_link,
    invitation_revoke,
    invitations_of_round,
)
from interview.services.interviewing.notes import NOTE_MAX_LENGTH, note_add, notes_of_round
from interview.services.interviewing.scorecards import (
    scorecard_for_candidate,
    scorecard_release,
    scorecard_save,
)
from rounds.models import Round
from rounds.services.rounds import round_close_if_expired


class InvitationOutput(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id")
    interviewer = serializers.CharField(source="interviewer.username", allow_null=True, default=None)
    kind = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField()
    expires_at = serializers.DateTimeField(allow_null=True)
    used_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)

    def get_kind(self, invitation: Invitation) -> str:
        return "link" if invitation.is_link else "username"

    def get_state(self, invitation: Invitation) -> str:
        return invitation.state()


class InvitationCreatedOutput(InvitationOutput):
    link = serializers.CharField(
        allow_blank=True, help_text="The single-use link; returned once, never stored"
    )


class InvitationCreateInput(serializers.Serializer):
    username = serializers.CharField(required=False, max_length=150)
    link = serializers.BooleanField(default=False)
    valid_hours = serializers.IntegerField(
        required=False, min_value=1, max_value=14 * 24, default=int(LINK_VALID_FOR.total_seconds() // 3600)
    )

    def validate(self, data: dict) -> dict:
        if bool(data.get("username")) == bool(data.get("link")):
            raise serializers.ValidationError("Give either a username or link: true.")
        return data


class NoteSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    author = serializers.CharField(source="author.username", read_only=True)
    t = serializers.FloatField(read_only=True, help_text="Seconds since the round started")
    phase = serializers.CharField(read_only=True)
    text = serializers.CharField(required=False, allow_blank=True, max_length=NOTE_MAX_LENGTH)
    follow_up = serializers.IntegerField(
        source="follow_up_index", required=False, allow_null=True, min_value=0, help_text="0-based"
    )
    created_at = serializers.DateTimeField(read_only=True)


class LevelSerializer(serializers.Serializer):
    level = serializers.IntegerField(min_value=1, max_value=4, allow_null=True, required=False)
    note = serializers.CharField(allow_blank=True, required=False, max_length=2000)


class ScorecardInput(serializers.Serializer):
    levels = serializers.DictField(child=LevelSerializer(), help_text="dimension -> {level, note}")
    recommendation = serializers.ChoiceField(choices=Recommendation.choices, allow_blank=True, required=False)


class CompareRowSerializer(serializers.Serializer):
    dimension = serializers.CharField()
    level = serializers.IntegerField(allow_null=True)
    note = serializers.CharField()
    engine_score = serializers.FloatField(allow_null=True)
    engine_level = serializers.IntegerField(allow_null=True)
    engine_source = serializers.CharField()
    difference = serializers.IntegerField(allow_null=True)
    disagrees = serializers.BooleanField()


class ScorecardOutput(serializers.Serializer):
    round = serializers.IntegerField(source="round_id")
    interviewer = serializers.CharField(source="interviewer.username")
    levels = serializers.JSONField()
    recommendation = serializers.CharField()
    released_at = serializers.DateTimeField(allow_null=True)
    compare = serializers.SerializerMethodField()

    @extend_schema_field(CompareRowSerializer(many=True))
    def get_compare(self, scorecard: Scorecard) -> list[dict[str, Any]]:
        rows = CompareRowSerializer(scorecard_compare(scorecard.round, scorecard), many=True)
        return rows.data  # type: ignore[return-value]  # many=True makes a ListSerializer: its data is a list


# Candidate side


class InvitationListApi(APIView):
    @extend_schema(responses={200: InvitationOutput(many=True)})
    def get(self, request: Request, round_id: int) -> Response:
        """The invitations of your own round: by name or by link, with their state."""
        round_ = round_of_candidate(user=request.user, round_id=round_id)
        return Response(InvitationOutput(invitations_of_round(round_), many=True).data)

    @extend_schema(
        request=InvitationCreateInput,
        responses={201: InvitationCreatedOutput, 400: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request: AuthedApiRequest, round_id: int) -> Response:
        """Invite an interviewer to your round by username (accepted at once) or create a single-use link (its
        token is shown only in this answer)."""
        round_ = round_of_candidate(user=request.user, round_id=round_id)
        data = InvitationCreateInput(data=request.data)
        data.is_valid(raise_exception=True)
        link = ""
        if data.validated_data.get("link"):
            invitation, token = invitation_create_link(
                round_=round_,
                created_by=request.user,
                valid_for=timedelta(hours=data.validated_data["valid_hours"]),
            )
            link = request.build_absolute_uri(reverse("interview-join", args=[token]))
        else:
            invitation = invitation_create_for_username(
                round_=round_, created_by=request.user, username=data.validated_data["username"]
            )
        output = InvitationOutput(invitation).data | {"link": link}
        return Response(output, status=status.HTTP_201_CREATED)


class InvitationRevokeApi(APIView):
    @extend_schema(request=None, responses={200: InvitationOutput})
    def post(self, request: Request, round_id: int, invitation_id: int) -> Response:
        """Revoke an invitation to your round: that interviewer loses access."""
        round_ = round_of_candidate(user=request.user, round_id=round_id)
        invitation = get_object_or_404(Invitation, pk=invitation_id, round=round_)
        return Response(InvitationOutput(invitation_revoke(invitation=invitation)).data)


# Interviewer side


class InvitationAcceptApi(APIView):
    @extend_schema(
        request=inline_serializer("InvitationAcceptInput", {"token": serializers.CharField(max_length=200)}),
        responses={200: InvitationOutput, 404: ErrorSerializer, 429: ErrorSerializer},
    )
    def post(self, request: AuthedApiRequest) -> Response:
        """Accept a single-use invitation link as an interviewer; a used, expired or revoked link: 404."""
        # a body that is not an object (a JSON list) names no token: no valid link, as without one
        body = request.data if isinstance(request.data, dict) else {}
        invitation = invitation_accept(token=str(body.get("token", "")), user=request.user)
        return Response(InvitationOutput(invitation).data)


class NoteListApi(APIView):
    @extend_schema(responses={200: NoteSerializer(many=True)})
    def get(self, request: Request, round_id: int) -> Response:
        """The interviewer's notes on a round they interview, in time order."""
        round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
        return Response(NoteSerializer(notes_of_round(round_), many=True).data)

    @extend_schema(request=NoteSerializer, responses={201: NoteSerializer, 400: ErrorSerializer})
    def post(self, request: AuthedApiRequest, round_id: int) -> Response:
        """Add a note to a round you interview, stamped with the round's time and phase; optionally the
        follow-up asked."""
        round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
        data = NoteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        note = note_add(
            round_=round_,
            author=request.user,
            text=data.validated_data.get("text", ""),
            follow_up_index=data.validated_data.get("follow_up_index"),
        )
        return Response(NoteSerializer(note).data, status=status.HTTP_201_CREATED)


class ScorecardApi(APIView):
    @extend_schema(responses={200: ScorecardOutput})
    def get(self, request: AuthedApiRequest, round_id: int) -> Response:
        """The interviewer always; the candidate once it is released."""
        own = Round.objects.filter(pk=round_id, candidate=request.user).first()
        if own is not None:
            scorecard = scorecard_for_candidate(own)
        else:
            round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
            scorecard = Scorecard.objects.filter(round=round_).first()
        if scorecard is None:
            raise Http404("No scorecard.")
        return Response(ScorecardOutput(scorecard).data)

    @extend_schema(request=ScorecardInput, responses={200: ScorecardOutput, 400: ErrorSerializer})
    def put(self, request: AuthedApiRequest, round_id: int) -> Response:
        """Save the rubric levels and notes, and the recommendation, of a round you interview."""
        round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
        data = ScorecardInput(data=request.data)
        data.is_valid(raise_exception=True)
        scorecard = scorecard_save(
            round_=round_,
            interviewer=request.user,
            levels=data.validated_data["levels"],
            recommendation=data.validated_data.get("recommendation", ""),
        )
        return Response(ScorecardOutput(scorecard).data)


class ScorecardReleaseApi(APIView):
    @extend_schema(request=None, responses={200: ScorecardOutput, 400: ErrorSerializer})
    def post(self, request: AuthedApiRequest, round_id: int) -> Response:
        """Release the scorecard of a submitted round to its candidate."""
        round_ = round_close_if_expired(round_=round_for_interviewer(request.user, round_id))
        scorecard = scorecard_release(round_=round_, interviewer=request.user)
        return Response(ScorecardOutput(scorecard).data)


urlpatterns = [
    path("rounds/<int:round_id>/invitations/", InvitationListApi.as_view(), name="api-invitation-list"),
    path(
        "rounds/<int:round_id>/invitations/<int:invitation_id>/revoke/",
        InvitationRevokeApi.as_view(),
        name="api-invitation-revoke",
    ),
    path("invitations/accept/", InvitationAcceptApi.as_view(), name="api-invitation-accept"),
    path("interviews/<int:round_id>/notes/", NoteListApi.as_view(), name="api-interview-notes"),
    path("interviews/<int:round_id>/scorecard/", ScorecardApi.as_view(), name="api-interview-scorecard"),
    path(
        "interviews/<int:round_id>/scorecard/release/",
        ScorecardReleaseApi.as_view(),
        name="api-interview-scorecard-release",
    ),
]
